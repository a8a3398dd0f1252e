# core/: libockcore.a, the shared library every part links (JSON access, buffers, the
# requirement registry with the event model, the neutral message model).
CORE_SRCS := $(wildcard core/*.c)
CORE_LIB  := $(BUILD)/lib/libockcore.a
CORE_GEN  := $(BUILD)/gen/registry_data.c
LIBS      += $(CORE_LIB)

$(CORE_GEN): conformance/requirements.json scripts/embed.sh
	@mkdir -p $(@D)
	sh scripts/embed.sh ock__registry_json $< > $@

$(BUILD)/obj/gen/registry_data.o: $(CORE_GEN) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(CORE_LIB): $(call objs_of,$(CORE_SRCS)) $(BUILD)/obj/gen/registry_data.o
	@mkdir -p $(@D)
	$(Q)$(AR) rcs $@ $^
