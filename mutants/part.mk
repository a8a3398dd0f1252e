# mutants/: ock-mutant (the reference orchestrator seen through one deliberate lie) on
# libockmutant.a, and the mutant gate, build/tests/test-mutants, which proves that every
# conformance check can fail: each mutation must make its requirement FAIL, and the reference
# alone must pass the same scenarios.
#
#   build/bin/ock-mutant --list              the mutations
#   build/tests/test-mutants                 the unit tests and the gate
#   build/tests/test-mutants gate            the gate only (OCK_GATE_JOBS=N runs N at once)
MUTANT_SRCS := $(filter-out mutants/main.c,$(wildcard mutants/*.c))
MUTANT_LIB  := $(BUILD)/lib/libockmutant.a
MUTANT_BIN  := $(BUILD)/bin/ock-mutant
LIBS        += $(MUTANT_LIB)
BINS        += $(MUTANT_BIN)

$(MUTANT_LIB): $(call objs_of,$(MUTANT_SRCS))
	@mkdir -p $(@D)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# The proxy serves HTTP with the mock provider's request skeleton (ock/http_request.h).
$(MUTANT_BIN): $(call objs_of,mutants/main.c) $(MUTANT_LIB) $(MOCK_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

MUTANT_TEST_SRCS := $(wildcard tests/mutants/*.c)
MUTANT_TEST_BIN  := $(BUILD)/tests/test-mutants
TEST_BINS        += $(MUTANT_TEST_BIN)

$(call objs_of,$(MUTANT_TEST_SRCS)): CFLAGS += -Imutants
# The gate runs the programs it was built next to.
$(call objs_of,tests/mutants/test_gate.c tests/mutants/test_other_texts.c): \
  CFLAGS += -DOCK_BUILD_DIR='"$(BUILD)"'

# The gate reads the check table (conformance/checks/checks.def) from libockconf.a.
$(MUTANT_TEST_BIN): $(call objs_of,$(MUTANT_TEST_SRCS)) $(TEST_RUNNER_OBJS) $(MUTANT_LIB) \
                    $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB) | $(MUTANT_BIN) $(OCK_BIN) $(REF_CLI)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o %.a,$^) $(LDLIBS_ALL)
