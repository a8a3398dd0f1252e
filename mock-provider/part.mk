# mock-provider/: libockmock.a (the scripted mock provider, public header
# mock-provider/include/ock/mock.h) and the ock-mock-provider command; its tests live in
# tests/mock-provider/ and link the library, the core and libcurl.
MOCK_SRCS := $(filter-out mock-provider/cli.c,$(wildcard mock-provider/*.c))
MOCK_LIB  := $(BUILD)/lib/libockmock.a
MOCK_BIN  := $(BUILD)/bin/ock-mock-provider
LIBS      += $(MOCK_LIB)
BINS      += $(MOCK_BIN)

$(MOCK_LIB): $(call objs_of,$(MOCK_SRCS))
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(MOCK_BIN): $(call objs_of,mock-provider/cli.c) $(MOCK_LIB) $(CORE_LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(LDLIBS_ALL)

MOCK_TEST_SRCS := $(wildcard tests/mock-provider/*.c)
MOCK_TEST_BIN  := $(BUILD)/tests/test-mock-provider
TEST_BINS      += $(MOCK_TEST_BIN)

# The CLI test runs the command it was built next to.
$(call objs_of,tests/mock-provider/test_cli.c): CFLAGS += -DOCK_MOCK_CLI='"$(MOCK_BIN)"'

$(MOCK_TEST_BIN): $(call objs_of,$(MOCK_TEST_SRCS) tests/runner.c) $(MOCK_LIB) $(CORE_LIB) \
                  | $(MOCK_BIN)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $(filter %.o %.a,$^) $(LDLIBS_ALL)

# The unit tests reach the private headers of the modules they test.
$(call objs_of,$(MOCK_TEST_SRCS)): CFLAGS += -Imock-provider
