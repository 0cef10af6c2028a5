# The two commands the README opens with: `make demo` and `make test`. Both set up .venv themselves.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## demo: lint the bundled example, list its actions, and preview the edits it would make
demo: $(STAMP)
	$(BIN)/action-lsp check examples/ || test $$? -eq 1
	$(BIN)/action-lsp parse examples/transcript.md
	$(BIN)/action-lsp apply --root examples/workspace --dry-run examples/transcript.md || test $$? -eq 1

## test: every test, including the real-editor ones (Neovim, VS Code)
test: $(STAMP)
	$(BIN)/python -m pytest -q

## test-fast: everything but the real-editor tests
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not editor"

lint: $(STAMP)
	$(BIN)/ruff check action_lsp tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/bench_parse.py
	$(BIN)/python bench/bench_server.py
	$(BIN)/python bench/bench_edit.py

clean:
	rm -rf $(VENV) build *.egg-info
