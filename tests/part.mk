# tests/: the shared CUnit runner and the core's unit tests. Each other part adds its own test
# binaries in its part.mk, linking $(TEST_RUNNER_OBJS).
TEST_RUNNER_OBJS := $(call objs_of,tests/runner.c)
CORE_TEST_SRCS   := $(wildcard tests/core/*.c)
CORE_TEST_BIN    := $(BUILD)/tests/test-core
TEST_BINS        += $(CORE_TEST_BIN)

# SPEC.md 3.4's notation for event sequences, for the grammar tests of core and conformance.
GRAMMAR_EXAMPLES_OBJS := $(call objs_of,tests/grammar_examples.c)

$(CORE_TEST_BIN): $(call objs_of,$(CORE_TEST_SRCS)) $(TEST_RUNNER_OBJS) $(GRAMMAR_EXAMPLES_OBJS) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)
