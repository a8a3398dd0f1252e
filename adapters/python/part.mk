# adapters/python: the stdlib-only adapter and the hosts ock-amplifier and ock-cugar, installed
# into a virtualenv that make creates from the pinned, hashed adapters/python/requirements.lock
# (amplifier-core from PyPI, pytest, setuptools, and the Python frameworks the bridges of
# ock_frameworks run: langgraph with langchain-openai, openai-agents, pydantic-ai-slim[openai];
# and mcp, for the black-box agent of examples/python-mcp). make test runs their pytest suite,
# tests/adapters/, against the mock and the real amplifier-core (without amplifier-core's own
# pytest plugin, amplifier_module, which is for testing modules and needs pytest-asyncio).
PYTHON3       ?= python3
PY_VENV       := $(BUILD)/venv
PY_DEPS_STAMP := $(PY_VENV)/.deps-ok
PY_PKG_STAMP  := $(PY_VENV)/.pkg-ok
PY_PKG_SRCS   := adapters/python/pyproject.toml adapters/python/ock_adapter.py \
                 $(wildcard adapters/python/ock_hosts/*.py) adapters/python/ock_hosts/py.typed \
                 $(wildcard adapters/python/ock_frameworks/*.py)
PIP            = $(PY_VENV)/bin/pip --quiet --disable-pip-version-check

.PHONY: venv test-python
# The virtualenv with exactly the locked versions (--require-hashes: every file checked).
$(PY_DEPS_STAMP): adapters/python/requirements.lock | $(DEPS_STAMP)
	rm -rf $(PY_VENV)
	$(PYTHON3) -m venv $(PY_VENV)
	$(PIP) install --require-hashes --no-deps -r adapters/python/requirements.lock
	@touch $@

# The package itself, as a user installs it (pip install ./adapters/python), built offline
# with the locked setuptools; its build tree stays under $(BUILD).
$(PY_PKG_STAMP): $(PY_DEPS_STAMP) $(PY_PKG_SRCS)
	@rm -rf $(BUILD)/pybuild && mkdir -p $(BUILD)/pybuild
	@cp -r adapters/python/pyproject.toml adapters/python/README.md adapters/python/ock_adapter.py \
	  adapters/python/ock_hosts adapters/python/ock_frameworks $(BUILD)/pybuild/
	$(PIP) install --no-deps --no-build-isolation --no-index --force-reinstall $(BUILD)/pybuild
	@touch $@
venv: $(PY_PKG_STAMP)

# The Python tests: the adapter's unit tests, the hosts against the mock (ock-mock-provider and
# ock must be built: make test builds them first).
PY_TEST_CMD = OCK_ROOT="$(CURDIR)" OCK_BUILD="$(BUILD)" $(PY_VENV)/bin/python -m pytest -q -p no:cacheprovider -p no:amplifier_module tests/adapters
test-python: all $(PY_PKG_STAMP)
	$(PY_TEST_CMD)
