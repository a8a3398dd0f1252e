# conformance/: `ock`, the harness, on libockconf.a (every conformance/<stage>/*.c but
# cli/main.c), which links the mock provider in process. The folders are the pipeline's
# stages, in the order data flows: run/ (fixtures, the SUT, one scenario end to end), model/
# (the journal indexed for the checks), checks/ (one file per requirement group, grading),
# report/ (the report model and its four renderers), cli/ (the subcommands). `make conformance` is the main job: the whole suite
# against the reference orchestrator, reports in reports/latest/.
CONF_STAGES := run model checks report record cli
# (cli/main.c holds main() alone; what the subcommands share is in cli/cli.c.)
CONF_SRCS := $(filter-out conformance/cli/main.c,$(foreach s,$(CONF_STAGES),$(wildcard conformance/$(s)/*.c)))
CONF_LIB  := $(BUILD)/lib/libockconf.a
OCK_BIN   := $(BUILD)/bin/ock
LIBS      += $(CONF_LIB)
BINS      += $(OCK_BIN)

$(CONF_LIB): $(call objs_of,$(CONF_SRCS))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OCK_BIN): $(call objs_of,conformance/cli/main.c) $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

CONF_TEST_SRCS := $(wildcard tests/conformance/test_*.c tests/conformance/main.c tests/conformance/fixture_text.c)
HOSTILE_BIN    := $(BUILD)/tests/hostile_sut
BLACKBOX_SUT   := $(BUILD)/tests/blackbox_sut

# hostile_sut: orchestrators that attack the harness, for the hostile matrix test.
$(HOSTILE_BIN): $(call objs_of,tests/conformance/hostile_sut.c)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# blackbox_sut: a plain agent with no events, graded by `ock run --blackbox` (test_blackbox.c).
$(BLACKBOX_SUT): $(call objs_of,tests/conformance/blackbox_sut.c) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

$(call objs_of,tests/conformance/test_hostile.c tests/conformance/test_blackbox.c tests/conformance/test_cli.c tests/conformance/test_diff.c tests/conformance/test_record.c): CFLAGS += -DOCK_BIN_DIR='"$(BUILD)"'
# The examples test runs from the source root, so it needs the binaries' absolute path.
$(call objs_of,tests/conformance/test_examples.c tests/conformance/test_cli.c): CFLAGS += -DOCK_ROOT_BIN='"$(abspath $(BUILD))"'
$(call objs_of,tests/conformance/test_report.c): CFLAGS += -DOCK_BIN_DIR='"$(BUILD)"'
CONF_TEST_BIN  := $(BUILD)/tests/test-conformance
TEST_BINS      += $(CONF_TEST_BIN)

# libockconf.a is whole without cli/main.c: a program of its own that links every one of its
# objects (--whole-archive) finds each symbol in the kit's libraries, or the build stops here.
CONF_LINK_CHECK := $(BUILD)/tests/conf-link-check
$(CONF_LINK_CHECK): $(call objs_of,tests/conformance/link_check.c) $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< -Wl,--whole-archive $(CONF_LIB) -Wl,--no-whole-archive \
	  $(MOCK_LIB) $(CORE_LIB) $(LDLIBS_ALL)

$(CONF_TEST_BIN): $(call objs_of,$(CONF_TEST_SRCS)) $(TEST_RUNNER_OBJS) $(GRAMMAR_EXAMPLES_OBJS) $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB) | $(OCK_BIN) $(HOSTILE_BIN) $(BLACKBOX_SUT) $(REF_CLI) $(CONF_LINK_CHECK)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o %.a,$^) $(LDLIBS_ALL)

.PHONY: conformance
OCK_RUN_FLAGS ?=
# The wires the reference speaks: every wire-less scenario is played on each (SPEC.md 8.2).
REF_WIRES ?= openai,anthropic,responses,gemini
conformance: all
	$(OCK_BIN) run --orchestrator $(REF_CLI) \
	  --capabilities "$$($(REF_CLI) --capabilities)" --wires $(REF_WIRES) --name ock-orchestrator \
	  --fixtures fixtures -o reports/latest $(OCK_RUN_FLAGS)
