# fuzz/: libFuzzer targets for the code that reads what a SUT or a user sends: the fixture
# loader, the SSE decoder and stream mapping, the provider JSON mapping, the history validator,
# the event-log checker, the mock's request handling and its tree-less request reader.
#
#   make fuzz [FUZZ_SECONDS=60]   build with clang (-fsanitize=fuzzer,address,undefined) into
#                                 build/fuzz and run each target; a crash fails the target and
#                                 leaves its input in build/fuzz/crashes/<target>/
# make test runs every target over its seeds and fuzz/regressions/<target>/ (replay.c), so a
# crash, once its input is kept there, stays fixed.
FUZZ_TARGETS := fixture sse message validate check mock_request wire_request
FUZZ_SECONDS ?= 60

fuzz_libs_fixture      = $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB)
fuzz_libs_sse          = $(REF_LIB) $(CORE_LIB)
fuzz_libs_message      = $(CORE_LIB)
fuzz_libs_validate     = $(MOCK_LIB) $(CORE_LIB)
fuzz_libs_check        = $(CONF_LIB) $(MOCK_LIB) $(CORE_LIB)
fuzz_libs_mock_request = $(MOCK_LIB) $(CORE_LIB)
fuzz_libs_wire_request = $(CORE_LIB)

$(call objs_of,$(wildcard fuzz/fuzz_*.c)): CFLAGS += -Ireference -Imock-provider

# Replay binaries, one per target (each defines LLVMFuzzerTestOneInput).
define fuzz_replay_rule
$(BUILD)/obj/fuzz/replay_$(1).o: fuzz/replay.c | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$$(Q)$$(CC) $$(CFLAGS_ALL) -DFUZZ_TARGET='"$(1)"' -c $$< -o $$@
$(BUILD)/tests/fuzz-replay-$(1): $(BUILD)/obj/fuzz/replay_$(1).o $(call objs_of,fuzz/fuzz_$(1).c) $(fuzz_libs_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS_ALL) -o $$@ $$^ $$(LDLIBS_ALL)
TEST_BINS += $(BUILD)/tests/fuzz-replay-$(1)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_replay_rule,$(t))))

# libFuzzer binaries (only in the fuzz build: BUILD=build/fuzz CC=clang FUZZ=1).
define fuzz_target_rule
$(BUILD)/fuzz/fuzz_$(1): $(call objs_of,fuzz/fuzz_$(1).c) $(fuzz_libs_$(1))
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS_ALL) -fsanitize=fuzzer -o $$@ $$^ $$(LDLIBS_ALL)
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target_rule,$(t))))

.PHONY: fuzz fuzz-targets
fuzz-targets: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/fuzz/fuzz_$(t))

fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang (apt-get install clang)"; exit 1; }
	$(MAKE) BUILD=build/fuzz CC=clang SANITIZE=address,undefined OPT="-O1 -g" \
	  FUZZ_CFLAGS="-fsanitize=fuzzer-no-link" fuzz-targets
	@status=0; for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t build/fuzz/crashes/$$t; \
	  extra=; [ $$t = fixture ] && extra=fixtures; \
	  echo "== fuzz $$t for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=1 OCK_ROOT=$(CURDIR) build/fuzz/fuzz/fuzz_$$t \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
	    -artifact_prefix=build/fuzz/crashes/$$t/ -print_final_stats=0 \
	    build/fuzz/corpus/$$t fuzz/seeds/$$t $$extra 2>build/fuzz/$$t.log \
	    || { echo "fuzz $$t: FOUND A CRASH (see build/fuzz/$$t.log, build/fuzz/crashes/$$t/)"; \
	         tail -30 build/fuzz/$$t.log; status=1; }; \
	  grep -E '^(#[0-9]+ *DONE|Done)' build/fuzz/$$t.log | tail -1; \
	done; exit $$status
