# tests/: the shared CUnit runner, the core's unit tests and the allocation-failure tests. Each
# other part adds its own test binaries in its part.mk, linking $(TEST_RUNNER_OBJS).
TEST_RUNNER_OBJS := $(call objs_of,tests/runner.c)
CORE_TEST_SRCS   := $(wildcard tests/core/*.c)
CORE_TEST_BIN    := $(BUILD)/tests/test-core
TEST_BINS        += $(CORE_TEST_BIN)

# SPEC.md 3.4's notation for event sequences, for the grammar tests of core and conformance.
GRAMMAR_EXAMPLES_OBJS := $(call objs_of,tests/grammar_examples.c)

# test_registry runs make spec's --check (core/part.mk) on edited copies of its texts.
$(call objs_of,tests/core/test_registry.c): CFLAGS += -DOCK_BIN_DIR='"$(BUILD)"'
$(CORE_TEST_BIN): $(call objs_of,$(CORE_TEST_SRCS)) $(TEST_RUNNER_OBJS) $(GRAMMAR_EXAMPLES_OBJS) $(CORE_LIB) | $(SPEC_GEN)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# The allocation-failure tests (tests/alloc/failmalloc.h): the core and the mock's objects are
# linked with every allocation wrapped. mock-provider/part.mk, which defines MOCK_LIB, is read
# after this file, so the library is named by its path here.
ALLOC_TEST_SRCS := $(wildcard tests/alloc/*.c)
ALLOC_TEST_BIN  := $(BUILD)/tests/test-alloc
ALLOC_WRAP      := $(foreach f,malloc calloc realloc strdup strndup free,-Wl,--wrap=$(f))
TEST_BINS       += $(ALLOC_TEST_BIN)
$(call objs_of,$(ALLOC_TEST_SRCS)): CFLAGS += -Imock-provider -Itests/alloc

$(ALLOC_TEST_BIN): $(call objs_of,$(ALLOC_TEST_SRCS)) $(TEST_RUNNER_OBJS) \
                   $(BUILD)/lib/libockmock.a $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) $(ALLOC_WRAP) -o $@ $^ $(LDLIBS_ALL)
