"""Ordinary prose and code examples yield no actions and no diagnostics with every dialect that
is on by default (``aider-shell``, off by default, reads every ```sh fence as a command): this
project's own README and docs, and the explanatory text of Dyad's responses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from action_lsp.dialects import ALL
from action_lsp.document import analyze

NAMES = [d.name for d in ALL if d.default_enabled]

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
DYAD = sorted(p for p in (ROOT / "tests" / "fixtures" / "dialects" / "dyad").glob("*.md") if p.name != "README.md")


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_project_docs_are_prose(path: Path) -> None:
    analysis = analyze(path.read_text(encoding="utf-8"), NAMES)
    assert analysis.actions == []
    assert analysis.diagnostics == []


def test_dyad_explanatory_text_is_prose() -> None:
    """Each Dyad response with its dyad-* tags cut out: what is left is what Dyad shows as chat."""
    tag = re.compile(r"<(dyad-[\w-]+)[^>]*>[\s\S]*?</\1>|<dyad-[\w-]+[^>]*>[\s\S]*", re.S)
    texts = [tag.sub("", p.read_text(encoding="utf-8")) for p in DYAD]
    assert sum(len(t.strip()) for t in texts) > 500  # there is prose to check
    for text in texts:
        analysis = analyze(text, NAMES)
        assert analysis.actions == [] and analysis.diagnostics == []
