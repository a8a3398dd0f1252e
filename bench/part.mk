# bench/: `make bench`, the benchmarks of bench/README.md (not part of `make test` or CI).
# It builds the kit and the bench's own helpers, installs what the comparisons need
# (bench/deps.sh: wrk, nginx, jq, Node and @dwmkerr/mock-llm under bench/.cache), runs the six
# measurements side by side and prints one table; bench/RESULTS.md keeps the latest one.
# The top Makefile includes this file.
#   BENCH_FLAGS="--quick"          smaller sizes, one round (a minute or two)
#   BENCH_FLAGS="--only 1,4"       some items only
#   BENCH_FLAGS="--no-write"       leave bench/RESULTS.md alone
BENCH_DIR   := $(BUILD)/bench
BENCH_TOOLS := $(BENCH_DIR)/min_sut $(BENCH_DIR)/spawn_floor $(BENCH_DIR)/measure \
               $(BENCH_DIR)/curl_floor
BENCH_FLAGS ?=

# Linked with cJSON only: the minimal SUT's start-up cost is part of what item 3 measures.
.SECONDARY: $(patsubst $(BENCH_DIR)/%,$(BUILD)/obj/bench/%.o,$(BENCH_TOOLS))
$(BENCH_DIR)/%: $(BUILD)/obj/bench/%.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $$(pkg-config --libs libcjson)

# Linked with Debian's libcurl, as ock-orchestrator is: item 5's RSS floor.
$(BENCH_DIR)/curl_floor: $(BUILD)/obj/bench/curl_floor.o
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $$(pkg-config --libs libcurl)

.PHONY: bench bench-deps
bench-deps:
	@bash bench/deps.sh

bench: all $(BENCH_TOOLS) bench-deps
	python3 bench/bench.py --build $(BUILD) $(BENCH_FLAGS)
