# core/: libockcore.a, the shared library every part links (JSON access, buffers, the
# requirement registry with the event model and the contract's names, the neutral message model,
# the provider wires and the SSE decoder).
CORE_SRCS := $(wildcard core/*.c)
CORE_LIB  := $(BUILD)/lib/libockcore.a
CORE_GEN  := $(BUILD)/gen/registry_data.c
LIBS      += $(CORE_LIB)

$(CORE_GEN): core/requirements.json scripts/embed.sh
	@mkdir -p $(@D)
	sh scripts/embed.sh ock__registry_json $< > $@

# The contract's names as C constants and X-macros (see core/gen/contract_map.c), made by a
# build tool compiled on its own rule: the pattern rule for objects waits for the header this
# tool writes.
CONTRACT_MAP_GEN := $(BUILD)/tools/ock-gen-contract-map
$(CONTRACT_MAP_GEN): core/gen/contract_map.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(STD) $(WARN) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS)

$(CONTRACT_MAP_H): core/requirements.json core/contract-shapes.json $(CONTRACT_MAP_GEN)
	@mkdir -p $(@D)
	$(CONTRACT_MAP_GEN) core/requirements.json core/contract-shapes.json > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/registry_data.o: $(CORE_GEN) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(CORE_LIB): $(call objs_of,$(CORE_SRCS)) $(BUILD)/obj/gen/registry_data.o
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# Section 2 of SPEC.md and docs/requirements.md, written from the registry (core/gen/spec.c):
# `make spec` writes them; make lint and make test run the same tool with --check, which fails
# when either file differs from what the registry gives.
SPEC_GEN  := $(BUILD)/tools/ock-gen-spec
SPEC_DOCS := core/requirements.json SPEC.md docs/requirements.md
$(SPEC_GEN): core/gen/spec.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(Q)$(CC) $(STD) $(WARN) $(PKG_CFLAGS) -o $@ $< $(PKG_LIBS)

.PHONY: spec
spec: $(SPEC_GEN)
	$(SPEC_GEN) $(SPEC_DOCS)
