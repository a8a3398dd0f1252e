# OCK, the Orchestrator Conformance Kit: the one build.
#
#   make            build every part into build/ (make bins: the commands alone)
#   make deps       install the Debian packages only (as root; writes nothing in the tree)
#   make test       build, then run every test binary (CUnit) and the Python tests (pytest in
#                   build/venv, made from adapters/python/requirements.lock); fails if any part failed
#   make test-action the GitHub Action's steps as an unprivileged runner user (root only)
#   make coverage   build with gcov, run the tests, write build/coverage/index.html, print line coverage
#   make lint       clang-format check, cppcheck, banned functions, contract names and event
#                   payload fields spelled out (scripts/contract_lint.sh, and its own test
#                   tests/lint/contract_lint_test.sh), unbounded buffer caps at call sites, includes between conformance/ stages
#                   (scripts/include_lint.sh), functions too long (scripts/funclen.sh: none over
#                   100 lines, at most 10 over 60), SPEC.md Section 2 and docs/requirements.md as
#                   make spec writes them
#   make spec       write SPEC.md Section 2 and docs/requirements.md from core/requirements.json
#   make check-asan the tests under AddressSanitizer + UBSan; make valgrind: under memcheck
#   make check-asan-coverage  both at once: the sanitizers and the coverage gate from one run (CI)
#   make fuzz       libFuzzer on every input parser (FUZZ_SECONDS=60 each; see fuzz/part.mk)
#   make venv       build/venv: the pinned Python packages and ock-amplifier, ock-cugar
#   make clean
#   make install     PREFIX=/usr/local DESTDIR= (see install.mk)
#   make test-frameworks  the JavaScript adapter, the official SDKs against the mock, the framework
#                   bridges (Node 20+, npm and the registry; not part of make test; frameworks.mk)
#   make frameworks-doc   after make test-frameworks: write docs/frameworks.md from its reports
#
# Each part keeps its own rules in <part>/part.mk and appends to BINS, LIBS and TEST_BINS.
# Missing Debian packages are installed by scripts/deps.sh before anything is compiled.

BUILD    ?= build
CC       ?= cc
PKGS     := libcjson libcurl cunit libmicrohttpd
STD      := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN     := $(if $(findstring clang,$(CC)),-Wno-unknown-warning-option) -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-missing-field-initializers -Wno-format-truncation
OPT      ?= -O2 -g
COVERAGE ?=
# The optimisation of a gcov build: -O0 keeps each line's count exact; check-asan-coverage uses -O1
# (the level the sanitizers are usually run at), at the cost of a few lines counted less exactly.
COVERAGE_OPT ?= -O0
SANITIZE ?=

# Recursive on purpose: pkg-config runs when a recipe needs the flags, after deps are in place.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))

INCLUDES := -I$(BUILD)/gen/include -Icore/include -Imock-provider/include -Ireference/include
# PART_INCLUDES: what only some parts see, set per object directory below.
CFLAGS_ALL = $(STD) $(WARN) $(OPT) $(INCLUDES) $(PART_INCLUDES) $(PKG_CFLAGS) \
             $(if $(COVERAGE),--coverage $(COVERAGE_OPT)) $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer) $(FUZZ_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(if $(COVERAGE),--coverage) $(if $(SANITIZE),-fsanitize=$(SANITIZE)) $(LDFLAGS)
LDLIBS_ALL  = $(PKG_LIBS) -lpthread -lm $(LDLIBS)

DEPS_STAMP := $(BUILD)/.deps-ok
# The contract's names (events, journal kinds and fields, verdicts, capabilities) as C
# constants and X-macros, generated from the registry (core/part.mk): every object waits for
# it, so a renamed name is a compile error, never a silent mismatch.
CONTRACT_MAP_H := $(BUILD)/gen/include/ock/contract_map.h
# V=1 shows every compiler command.
Q := $(if $(V),,@)
BINS      :=
LIBS      :=
TEST_BINS :=

.PHONY: all bins test test-action coverage lint clean deps check-asan check-asan-coverage valgrind
all:

$(DEPS_STAMP): scripts/deps.sh
	@mkdir -p $(@D)
	@sh scripts/deps.sh
	@touch $@
# make deps: the Debian packages alone. It writes nothing in the tree, so a `sudo make deps`
# leaves no root-owned build/ behind for the unprivileged make that follows (a CI runner's way).
deps:
	@sh scripts/deps.sh

# One object rule for every part; -MMD keeps header dependencies honest.
$(BUILD)/obj/%.o: %.c | $(DEPS_STAMP) $(CONTRACT_MAP_H)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS_ALL) -I$(dir $<) -MMD -MP -c $< -o $@

# The harness's stages, named "<stage>/<file>.h" (conformance/README.md), for conformance/
# itself, its tests, the mutant gate (which reads the check table) and the fuzz targets of its
# parsers; the shared test runner ("runner.h") for tests/. No other part sees either.
$(BUILD)/obj/conformance/%.o $(BUILD)/obj/tests/conformance/%.o $(BUILD)/obj/tests/mutants/%.o \
  $(BUILD)/obj/fuzz/%.o: PART_INCLUDES += -Iconformance
$(BUILD)/obj/tests/%.o: PART_INCLUDES += -Itests

# objs_of(sources): the object files for a list of sources.
objs_of = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

include core/part.mk
include tests/part.mk
include mock-provider/part.mk
include reference/part.mk
include conformance/part.mk
include mutants/part.mk
include bench/part.mk
include fuzz/part.mk
include install.mk
include adapters/python/part.mk
include adapters/js/part.mk
include contract.mk
# after adapters/python/part.mk: test-frameworks names its virtualenv stamp as a prerequisite
include frameworks.mk

all: $(LIBS) $(BINS) $(TEST_BINS)
# make bins: the commands alone (ock, ock-orchestrator, ock-mock-provider, ock-mutant), no tests.
bins: $(BINS)

# In a gcov or sanitizer build the mutant gate runs one share of its mutations (OCK_GATE_SHARE,
# tests/mutants/test_gate.c): the plain build's make test proves the whole table, and the
# instrumented run is there for the sanitizers and the line counts, at three times the cost.
GATE_SHARE_INSTRUMENTED ?= 1/3
TEST_ENV = OCK_ROOT="$(CURDIR)" $(if $(COVERAGE)$(SANITIZE),OCK_GATE_SHARE=$(GATE_SHARE_INSTRUMENTED))

# Every test binary runs even if an earlier one failed; the target fails if any did.
test: all $(PY_PKG_STAMP) $(SPEC_GEN)
	@$(if $(COVERAGE)$(SANITIZE),echo "make test: an instrumented build: the mutant gate runs share $(GATE_SHARE_INSTRUMENTED) of its mutations (OCK_GATE_SHARE)";) \
	failed=; for t in $(TEST_BINS); do \
	  echo "== $$t"; s=$$(date +%s); $(TEST_ENV) ./$$t || failed="$$failed $$t"; \
	  echo "== $$t: $$(( $$(date +%s) - s )) s"; \
	done; \
	echo "== SPEC.md and docs/requirements.md against the registry (make spec)"; \
	$(SPEC_GEN) --check $(SPEC_DOCS) || failed="$$failed spec"; \
	echo "== pytest tests/adapters"; $(PY_TEST_CMD) || failed="$$failed pytest"; \
	if [ -n "$(COVERAGE)$(SANITIZE)" ]; then \
	  echo "SKIP: adapters/js node --test and type check in a gcov or sanitizer build (they run no C code; plain make test runs them)"; \
	else \
	echo "== node --test adapters/js"; if $(JS_NODE_OK); then ($(JS_TEST_CMD)) || failed="$$failed adapters/js"; \
	  else echo "SKIP: adapters/js node --test (needs node 20 or later)"; fi; \
	echo "== tsc adapters/js"; if $(JS_NODE_OK) && command -v npm >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory js-typecheck || failed="$$failed js-typecheck"; \
	  else echo "SKIP: adapters/js type check (needs node 20 or later and npm)"; fi; \
	fi; \
	echo "== tests/report/screenshots.sh"; BUILD="$(BUILD)" tests/report/screenshots.sh || failed="$$failed tests/report/screenshots.sh"; \
	if [ -n "$$failed" ]; then echo "make test: FAILED:$$failed"; exit 1; fi; \
	echo "make test: all test binaries passed"

# The GitHub Action (action.yml) run as a hosted runner runs it: its steps as an unprivileged
# user with sudo, in a copy of the tracked files that user owns (needs root; SKIP otherwise).
test-action:
	@python3 tests/action/run_action.py

# The parts whose line coverage must reach COVERAGE_MIN percent.
COVERAGE_GATED ?= reference mock-provider conformance
COVERAGE_MIN   ?= 85

coverage:
	@rm -rf $(BUILD)/cov
	$(MAKE) BUILD=$(BUILD)/cov COVERAGE=1 test
	@mkdir -p $(BUILD)/coverage
	@lcov --quiet --capture --directory $(BUILD)/cov/obj --output-file $(BUILD)/coverage/all.info
	@lcov --quiet --extract $(BUILD)/coverage/all.info '$(CURDIR)/core/*' '$(CURDIR)/mock-provider/*' \
	   '$(CURDIR)/reference/*' '$(CURDIR)/conformance/*' --output-file $(BUILD)/coverage/ock.info
	@genhtml --quiet $(BUILD)/coverage/ock.info --output-directory $(BUILD)/coverage
	@for part in core mock-provider reference conformance; do \
	  lcov --quiet --extract $(BUILD)/coverage/ock.info "$(CURDIR)/$$part/*" -o $(BUILD)/coverage/$$part.info 2>/dev/null && \
	  printf '%-14s ' "$$part" && lcov --summary $(BUILD)/coverage/$$part.info 2>&1 | grep -E '^ *lines' ; \
	done; true
	@printf 'total          ' && lcov --summary $(BUILD)/coverage/ock.info 2>&1 | grep -E '^ *lines'
	@echo "coverage report: $(BUILD)/coverage/index.html"
	@fail=0; for part in $(COVERAGE_GATED); do \
	  pct=$$(lcov --summary $(BUILD)/coverage/$$part.info 2>&1 | sed -n 's/^ *lines\.*: *\([0-9.]*\)%.*/\1/p'); \
	  if [ -z "$$pct" ] || awk "BEGIN{exit !($$pct < $(COVERAGE_MIN))}"; then \
	    echo "coverage: $$part is at $${pct:-0}% of lines, below $(COVERAGE_MIN)%"; fail=1; fi; \
	done; exit $$fail

# The whole test suite under AddressSanitizer and UndefinedBehaviorSanitizer (any finding
# aborts the test that caused it), in its own build tree. An allocation larger than any
# allocator can give returns NULL, as glibc's malloc does, so the out-of-memory tests run here.
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 OCK_TIME_SCALE=3
check-asan:
	$(SANITIZER_ENV) $(MAKE) BUILD=$(BUILD)/asan SANITIZE=address,undefined OPT="-O1 -g" test

# CI's instrumented run: the tests once, built with gcov and the sanitizers together, so that one
# run gives the coverage gate and the sanitizers' findings (make coverage and make check-asan each
# run the whole suite; CI runs it once for both).
check-asan-coverage:
	$(SANITIZER_ENV) $(MAKE) SANITIZE=address,undefined COVERAGE_OPT=-O1 coverage

# Every test binary under valgrind memcheck: leaks and invalid accesses fail the target.
VALGRIND = valgrind --quiet --leak-check=full --show-leak-kinds=definite,indirect \
           --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --trace-children=no
valgrind: all
	@status=0; for t in $(TEST_BINS); do \
	  echo "== valgrind $$t"; OCK_ROOT="$(CURDIR)" OCK_UNDER_VALGRIND=1 $(VALGRIND) ./$$t || status=1; \
	done; exit $$status

C_SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
# Functions STYLE.md bans: unbounded copies and formats, and parsers that cannot report an error.
BANNED_FUNCTIONS := sprintf|strcpy|strcat|gets|atoi|strtok|sscanf
LINT_JOBS := $(shell nproc 2>/dev/null || echo 1)
lint: $(SPEC_GEN) | $(DEPS_STAMP) $(CONTRACT_MAP_H)
	@OCK_PACKAGES="clang-format cppcheck universal-ctags" sh scripts/deps.sh
	$(SPEC_GEN) --check $(SPEC_DOCS)
	@banned=$$(git grep -nE '(^|[^_a-z])($(BANNED_FUNCTIONS))[[:space:]]*\(' -- '*.c' '*.h'); \
	if [ -n "$$banned" ]; then echo "lint: banned functions ($(BANNED_FUNCTIONS)):"; echo "$$banned"; exit 1; fi
	@unbounded=$$(git grep -nE 'ock_buf_init\([^,]+, *(SIZE_MAX|\(size_t\) *-1|\(size_t\)1 << 30)' -- core mock-provider reference conformance mutants); \
	if [ -n "$$unbounded" ]; then echo "lint: a buffer cap spelled at its call site (name it in core/include/ock/caps.h):"; echo "$$unbounded"; exit 1; fi
	@sh scripts/contract_lint.sh $(CONTRACT_MAP_H)
	@sh tests/lint/contract_lint_test.sh $(CONTRACT_MAP_H)
	sh scripts/include_lint.sh
	clang-format --dry-run --Werror $(C_SOURCES)
	sh scripts/funclen.sh --check
	cppcheck -j $(LINT_JOBS) --quiet --error-exitcode=1 --enable=warning,portability --inline-suppr \
	  --suppress=missingIncludeSystem $(INCLUDES) -Iconformance -Itests $(filter -I%,$(PKG_CFLAGS)) \
	  $(filter %.c,$(C_SOURCES))

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
