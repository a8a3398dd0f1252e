# frameworks.mk: `make test-frameworks`, the JavaScript side of the kit. Not part of `make test`:
# it needs Node 20 or later, npm and the npm registry.
#
#   make test-frameworks   install the pinned frameworks and official SDKs into build/frameworks,
#                          run the adapter's own tests, drive the standalone mock with the official
#                          openai (Chat Completions and the Responses API), @anthropic-ai/sdk and
#                          @google/genai clients, then run `ock run` for each bridge
#                          with its manifest (its honest capabilities) against its committed
#                          expected-failures baseline (tests/frameworks/expected/<bridge>.txt; a
#                          new failure or a stale entry fails). Reports: build/frameworks/reports/.
#                          blackbox-agent.test.mjs grades examples/blackbox-agent (openai + MCP
#                          client, no OCK code) with `ock run --blackbox`: PASS, and its
#                          --drop-failed-results variant FAIL on OCK-ORPHAN-001.
#                          sdk-record.test.mjs drives the same SDKs through `ock record`
#                          (tests/record/sdk_agent.mjs): the recording holds no key and
#                          replays as PASS, and FAILs on OCK-ORPHAN-001 with a dropped result.
#                          Then each framework of FW_BLACKBOX runs unmodified under `ock run
#                          --blackbox` (SPEC.md 9.7): an example agent on the framework with its
#                          tools over MCP and no OCK code, graded with its example's manifest
#                          against tests/frameworks/expected/<name>.txt. Reports:
#                          build/frameworks/reports/<name>/. Last, docs/frameworks.md must be
#                          what scripts/frameworks-doc.mjs writes from these reports.
#   make frameworks-update move each pin of tests/frameworks/package.json to the newest release of
#                          its current major (scripts/frameworks-update.mjs pins; npm view),
#                          rewrite package-lock.json, reinstall build/frameworks, rerun each JS
#                          bridge without its baseline (reports: build/frameworks/update/<bridge>/)
#                          and print the baseline diff: "+ scenario:requirement" a failure the
#                          baseline does not list, "- entry" a stale entry. Review, label the new
#                          entries, update the manifests' framework versions, commit.
#   make frameworks-doc    after make test-frameworks: write docs/frameworks.md, the frameworks'
#                          conformance table, from build/frameworks/reports/*/report.json, the
#                          manifests, the baselines' labelled groups and the installed versions.
#
# The versions are pinned by tests/frameworks/package.json and its package-lock.json (npm ci);
# the cache is rebuilt when either changes. adapters/js is installed into it the way a user does
# (`npm install ./adapters/js`, copied rather than linked so that it finds the frameworks there).
# Scenarios that need a capability a bridge does not declare are SKIP, as for any SUT.
FW_CACHE := $(BUILD)/frameworks
FW_STAMP := $(FW_CACHE)/.installed
FW_ADAPTER_SRCS := adapters/js/package.json $(wildcard adapters/js/src/*.js adapters/js/bin/*.js)

FW_BRIDGES := vercel-ai openai-agents langgraph
# The previous major where its behaviour differs (ai 5 stops quietly after some stream faults that
# ai 7 reports, and has no per-step timeout): the same Vercel AI SDK bridge on ai 5, pinned by
# tests/frameworks/ai5/package.json and its lock and installed into its own cache, graded as the
# row vercel-ai-5 (manifest adapters/js/manifests/vercel-ai-5.json, baseline
# tests/frameworks/expected/vercel-ai-5.txt) on the Chat Completions wire only, for CI time.
# make frameworks-update leaves its pins alone: it is the previous major by intent.
FW_AI5_CACHE := $(BUILD)/frameworks-ai5
FW_AI5_STAMP := $(FW_AI5_CACHE)/.installed
# The Vercel AI SDK bridge declares all four wires. On the Responses and Gemini wires it plays
# the wire's own scenarios and the wire-less tool, hook, parallel, stream and error ones (where
# the wire's shapes matter), not the cancel, iteration, lifecycle, retry, fallback, input and
# text ones it plays on Chat Completions and Messages: CI time (SPEC.md 7.9: ids <id>@<wire>).
# cancel-during-stream is left out on every wire: whether the reply has fully arrived when the
# abort stops the stream's reading (OCK-ORDER-008 then) is timing, so it fails on some runs only.
FW_VERCEL_EXCLUDE := $(foreach w,responses gemini,$(foreach g,cancel-* iter-* lifecycle-* retry-* fallback-* valid-* text-*,--exclude $(g)@$(w))) \
  --exclude cancel-during-stream
# Python bridges (adapters/python/ock_frameworks), installed into the make-created virtualenv from
# the hashed adapters/python/requirements.lock: console script ock-<name>, manifest
# adapters/python/manifests/<name>-python.json, baseline tests/frameworks/expected/<name>-python.txt.
# Each runs through ock-warm (adapters/python/ock_frameworks/warm.py): a server that imports the
# bridge and its framework once, and forks a worker per scenario for the `ock-warm run` process
# ock run starts (the worker takes on that process's argv, environment and standard streams, the
# client forwards its signals and ends as the worker ends). Imported afresh in each scenario's
# process, the OpenAI Agents SDK alone cost seconds of CPU per scenario: six to eight minutes a
# run on two cores. The server stops when the recipe's shell exits.
FW_PY_BRIDGES ?= langgraph openai-agents pydantic-ai
# Left out of every Python bridge's run (one list for the three, for CI time):
# error-fail-fast-tool, error-fail-fast-late-failure: whether the ToolNode has started the second
# call when the first fails is timing, so error.fail-fast-unstarted, and the cause it charges,
# vary from run to run. (The Agents SDK and Pydantic AI apply no fail_fast either: their other
# fail-fast scenarios grade it.)
# cancel-during-parallel-tools: whether the Agents SDK has started the round's second call when
# the SIGINT's cancel reaches its task is timing (OCK-CANCEL-006 failed in one run of three).
FW_PY_EXCLUDE := error-fail-fast-tool cancel-during-parallel-tools error-fail-fast-late-failure
# The Python runs play two scenarios at a time (--jobs 2): a worker's first request still loads
# what its framework imports lazily, the black-box agent imports openai and mcp afresh in each
# scenario's process, and more jobs than cores only turns that into timeouts.
FW_PY_JOBS := 2
# Seconds per scenario for the Python runs, bridges and black-box (ock run --timeout): the default
# 30 is mostly the process's start (importing the framework, openai and mcp) on a loaded machine.
FW_PY_TIMEOUT := 120
# The Python agent graded black-box, as for FW_BLACKBOX: <name>=<directory> holding agent.py and
# manifest.json, run with the virtualenv's python, baseline tests/frameworks/expected/<name>.txt.
FW_PY_BLACKBOX := python-mcp=examples/python-mcp

# Frameworks graded black-box, as <name>=<example directory>: the directory holds agent.mjs and
# manifest.json; <name> names the baseline tests/frameworks/expected/<name>.txt and the report
# folder. The agent is copied to the same path under the cache so that it imports the pinned
# packages from there, as it would from its own node_modules.
FW_BLACKBOX := vercel-ai-blackbox=examples/vercel-ai-mcp
# Scenarios the black-box runs leave out, because their result there is timing, not behaviour:
# an unmodified agent cannot read the session's parallel_tools false, the Vercel AI SDK starts a
# step's calls at once, and which of two calls of one tool reaches it first (and so gets the first
# scripted result) varies from run to run. The instrumented bridge runs it (emulated sequential).
FW_BLACKBOX_EXCLUDE := tool-same-tool-twice

# docs/frameworks.md is written from the reports of a run (scripts/frameworks-doc.mjs): `make
# frameworks-doc` after make test-frameworks writes it; make test-frameworks ends by checking that
# the committed file is what its run makes.
FW_DOC_ARGS = --reports $(FW_CACHE)/reports --cache $(FW_CACHE) $(addprefix --blackbox ,$(FW_BLACKBOX))
FW_DOC_ARGS += $(addprefix --blackbox ,$(FW_PY_BLACKBOX)) --cache-of vercel-ai-5=$(FW_AI5_CACHE)

.PHONY: test-frameworks frameworks-cache frameworks-doc frameworks-update
frameworks-cache: $(FW_STAMP)

$(FW_STAMP): tests/frameworks/package.json tests/frameworks/package-lock.json $(FW_ADAPTER_SRCS) frameworks.mk
	@command -v node >/dev/null && command -v npm >/dev/null || { echo "make test-frameworks: needs node (20 or later) and npm on PATH" >&2; exit 2; }
	@node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' || { echo "make test-frameworks: needs Node 20 or later, found $$(node --version)" >&2; exit 2; }
	@rm -rf $(FW_CACHE) && mkdir -p $(FW_CACHE)
	cp tests/frameworks/package.json tests/frameworks/package-lock.json $(FW_CACHE)/
	cd $(FW_CACHE) && npm ci --no-audit --no-fund --loglevel=error
	cd $(FW_CACHE) && npm install --no-save --install-links --no-audit --no-fund --loglevel=error "$(CURDIR)/adapters/js"
	@touch $@

# Needs the main cache's checks of node and npm first (and never runs beside its rm -rf).
$(FW_AI5_STAMP): tests/frameworks/ai5/package.json tests/frameworks/ai5/package-lock.json $(FW_ADAPTER_SRCS) frameworks.mk $(FW_STAMP)
	@rm -rf $(FW_AI5_CACHE) && mkdir -p $(FW_AI5_CACHE)
	cp tests/frameworks/ai5/package.json tests/frameworks/ai5/package-lock.json $(FW_AI5_CACHE)/
	cd $(FW_AI5_CACHE) && npm ci --no-audit --no-fund --loglevel=error
	cd $(FW_AI5_CACHE) && npm install --no-save --install-links --no-audit --no-fund --loglevel=error "$(CURDIR)/adapters/js"
	@touch $@

test-frameworks: all $(FW_STAMP) $(FW_AI5_STAMP) $(PY_PKG_STAMP)
	@rm -rf $(FW_CACHE)/reports
	@echo "== adapters/js (node --test)"
	cd adapters/js && node --test test/*.test.js
	@echo "== official SDKs against ock-mock-provider (node --test)"
	OCK_FRAMEWORKS_CACHE="$(CURDIR)/$(FW_CACHE)" node --test --test-concurrency=1 tests/frameworks/*.test.mjs
	@set -f; status=0; for b in $(FW_BRIDGES); do \
	  echo "== bridge $$b (ock run, baseline tests/frameworks/expected/$$b.txt)"; \
	  ex=; test $$b != vercel-ai || ex="$(FW_VERCEL_EXCLUDE)"; \
	  s=$$(date +%s); \
	  $(OCK_BIN) run --orchestrator "node $(FW_CACHE)/node_modules/ock-adapter/bin/ock-$$b.js" $$ex \
	    --manifest adapters/js/manifests/$$b.json --expected-failures tests/frameworks/expected/$$b.txt \
	    -o $(FW_CACHE)/reports/$$b || status=1; \
	  echo "== bridge $$b: $$(( $$(date +%s) - s )) s"; \
	done; \
	echo "== bridge vercel-ai on ai 5 (ock run, baseline tests/frameworks/expected/vercel-ai-5.txt)"; \
	s=$$(date +%s); \
	$(OCK_BIN) run --orchestrator "node $(FW_AI5_CACHE)/node_modules/ock-adapter/bin/ock-vercel-ai.js" --exclude cancel-during-stream \
	  --manifest adapters/js/manifests/vercel-ai-5.json --expected-failures tests/frameworks/expected/vercel-ai-5.txt \
	  -o $(FW_CACHE)/reports/vercel-ai-5 || status=1; \
	echo "== bridge vercel-ai on ai 5: $$(( $$(date +%s) - s )) s"; \
	exit $$status
	@status=0; for b in $(FW_PY_BRIDGES); do \
	  echo "== Python bridge $$b (ock run through ock-warm, baseline tests/frameworks/expected/$$b-python.txt)"; \
	  s=$$(date +%s); sock=$(FW_CACHE)/warm-$$b.sock; \
	  $(PY_VENV)/bin/ock-warm serve $$b --socket $$sock --idle 120 & wpid=$$!; \
	  n=0; while [ ! -S $$sock ] && [ $$n -lt 600 ] && kill -0 $$wpid 2>/dev/null; do sleep 0.1; n=$$((n + 1)); done; \
	  $(OCK_BIN) run --orchestrator "$(PY_VENV)/bin/ock-warm run --socket $$sock $$b" $(addprefix --exclude ,$(FW_PY_EXCLUDE)) \
	    --jobs $(FW_PY_JOBS) --timeout $(FW_PY_TIMEOUT) --manifest adapters/python/manifests/$$b-python.json \
	    --expected-failures tests/frameworks/expected/$$b-python.txt \
	    -o $(FW_CACHE)/reports/$$b-python || status=1; \
	  kill $$wpid 2>/dev/null; wait $$wpid 2>/dev/null; \
	  echo "== Python bridge $$b: $$(( $$(date +%s) - s )) s"; \
	done; exit $$status
	@status=0; for e in $(FW_PY_BLACKBOX); do \
	  n=$${e%%=*}; d=$${e#*=}; \
	  echo "== $$n: $$d unmodified (ock run --blackbox, baseline tests/frameworks/expected/$$n.txt)"; \
	  $(OCK_BIN) run --blackbox --orchestrator "$(PY_VENV)/bin/python $(CURDIR)/$$d/agent.py" --jobs $(FW_PY_JOBS) \
	    --timeout $(FW_PY_TIMEOUT) --manifest $$d/manifest.json --expected-failures tests/frameworks/expected/$$n.txt \
	    -o $(FW_CACHE)/reports/$$n || status=1; \
	done; exit $$status
	@$(PY_VENV)/bin/python -m pip list --format json --disable-pip-version-check > $(FW_CACHE)/python-versions.json
	@status=0; for e in $(FW_BLACKBOX); do \
	  n=$${e%%=*}; d=$${e#*=}; \
	  echo "== $$n: $$d unmodified (ock run --blackbox, baseline tests/frameworks/expected/$$n.txt)"; \
	  mkdir -p $(FW_CACHE)/$$d && cp $$d/agent.mjs $(FW_CACHE)/$$d/agent.mjs || exit 2; \
	  $(OCK_BIN) run --blackbox --orchestrator "node $(FW_CACHE)/$$d/agent.mjs" \
	    $(addprefix --exclude ,$(FW_BLACKBOX_EXCLUDE)) \
	    --manifest $$d/manifest.json --expected-failures tests/frameworks/expected/$$n.txt \
	    -o $(FW_CACHE)/reports/$$n || status=1; \
	done; exit $$status
	@echo "== docs/frameworks.md (scripts/frameworks-doc.mjs --check)"
	node scripts/frameworks-doc.mjs --check $(FW_DOC_ARGS)
	@echo "make test-frameworks: passed"

frameworks-doc:
	node scripts/frameworks-doc.mjs $(FW_DOC_ARGS)

frameworks-update: all
	node scripts/frameworks-update.mjs pins tests/frameworks/package.json
	cd tests/frameworks && npm install --package-lock-only --no-audit --no-fund --loglevel=error
	$(MAKE) frameworks-cache
	@rm -rf $(FW_CACHE)/update
	@set -f; for b in $(FW_BRIDGES); do \
	  echo "== bridge $$b (ock run, no baseline)"; \
	  ex=; test $$b != vercel-ai || ex="$(FW_VERCEL_EXCLUDE)"; \
	  $(OCK_BIN) run --orchestrator "node $(FW_CACHE)/node_modules/ock-adapter/bin/ock-$$b.js" $$ex \
	    --manifest adapters/js/manifests/$$b.json -o $(FW_CACHE)/update/$$b >/dev/null; \
	  test $$? -le 1 || exit 2; \
	done
	node scripts/frameworks-update.mjs diff --reports $(FW_CACHE)/update --expected tests/frameworks/expected $(FW_BRIDGES)
	@git --no-pager diff --stat -- tests/frameworks/package.json tests/frameworks/package-lock.json
