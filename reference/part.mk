# reference/: libockref.a (the reference orchestrator: engine, CUGAR parts, SSE and stream
# mapping, HTTP collaborators) and ock-orchestrator, its ock/1 CLI; plus their tests.
#
#   make test                  runs build/tests/test-reference: unit tests with in-process fakes,
#                              the CLI's options, and the CLI against the in-process mock (under
#                              valgrind --leak-check=full when valgrind is on PATH, ~10 s)
#   OCK_VALGRIND=0 make test   the same without valgrind
#   make reference-valgrind    only the CLI-against-mock tests, valgrind required
REF_LIB_SRCS := $(filter-out reference/cli.c,$(wildcard reference/*.c))
REF_LIB      := $(BUILD)/lib/libockref.a
REF_CLI      := $(BUILD)/bin/ock-orchestrator
LIBS         += $(REF_LIB)
BINS         += $(REF_CLI)

$(REF_LIB): $(call objs_of,$(REF_LIB_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(REF_CLI): $(call objs_of,reference/cli.c) $(REF_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

# The tests see the library's private headers (http.h, retry.h, ...) to test them directly.
REF_TEST_SRCS := $(wildcard tests/reference/*.c)
REF_TEST_BIN  := $(BUILD)/tests/test-reference
TEST_BINS     += $(REF_TEST_BIN)
$(call objs_of,$(REF_TEST_SRCS)): private CFLAGS += -Ireference

# The integration tests drive ock-orchestrator against the in-process mock (MOCK_LIB, from
# mock-provider/part.mk, which the top Makefile includes first).
REF_TEST_MOCK := $(MOCK_LIB)
$(call objs_of,tests/reference/test_integration.c): $(REF_TEST_MOCK)
$(call objs_of,tests/reference/sut.c): private CFLAGS += -DOCK_REF_CLI='"$(REF_CLI)"'

$(REF_TEST_BIN): $(call objs_of,$(REF_TEST_SRCS)) $(TEST_RUNNER_OBJS) $(REF_LIB) $(REF_TEST_MOCK) \
                 $(CORE_LIB) | $(REF_CLI)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

.PHONY: reference-valgrind
reference-valgrind: $(REF_TEST_BIN) $(REF_CLI)
	@command -v valgrind >/dev/null || { echo "reference-valgrind: valgrind is not on PATH"; exit 1; }
	OCK_ROOT="$(CURDIR)" OCK_VALGRIND=1 ./$(REF_TEST_BIN) integration
