"""Fixtures shared by the parser, rule, CLI and corpus tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from action_lsp.model import Diagnostic, Fix, Span, TextEdit
from action_lsp.text import LineIndex, Range

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` next to the repository: seeds, spec and the real-transcript corpus."""
    path = REPO.parent / "shared"
    assert path.is_dir(), f"the shared directory {path} is missing (seeds, spec, corpus)"
    return path


def _apply(text: str, edits: Iterable[TextEdit]) -> str:
    ordered = sorted(edits, key=lambda e: (e.span.start, e.span.end))
    for a, b in itertools.pairwise(ordered):
        assert a.span.end <= b.span.start, f"overlapping edits {a} and {b}"
    for e in reversed(ordered):
        text = text[: e.span.start] + e.new_text + text[e.span.end :]
    return text


@pytest.fixture
def apply_fix() -> Callable[[str, Fix], str]:
    """Apply a fix's edits to the text (edits must not overlap)."""
    return lambda text, fix: _apply(text, fix.edits)


@pytest.fixture
def span_of() -> Callable[..., Span]:
    """``span_of(text, needle, nth=0, after=None)``: the span of the nth ``needle`` (after a marker)."""

    def find(text: str, needle: str, nth: int = 0, after: str | None = None) -> Span:
        pos = text.index(after) if after is not None else 0
        at = text.index(needle, pos)
        for _ in range(nth):
            at = text.index(needle, at + 1)
        return Span(at, at + len(needle))

    return find


@pytest.fixture
def lsp_range() -> Callable[[str, Span], Range]:
    """The UTF-16 LSP range of a span, through the one place that converts offsets."""
    return lambda text, span: LineIndex(text).range(span, "utf-16")


@pytest.fixture
def codes() -> Callable[[Iterable[Diagnostic]], list[str]]:
    return lambda diagnostics: [d.code for d in diagnostics]
