"""Fixtures shared by the parser, rule, CLI and corpus tests."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from action_lsp.dialects import ALL, Construct, Dialect, DialectSet, ScanContext, TagOpen
from action_lsp.model import (
    Action,
    ActionKind,
    Diagnostic,
    Field,
    Fix,
    SourceMap,
    Span,
    TextEdit,
)
from action_lsp.text import LineIndex, Range

REPO = Path(__file__).resolve().parent.parent

# The servers the tests start keep the code attrs and cattrs generate here, never in the user's
# own cache directory (action_lsp/codecache.py); one directory per test process.
os.environ["ACTION_LSP_CACHE_DIR"] = _CACHE = tempfile.mkdtemp(prefix="action-lsp-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)

pytest_plugins = ["progress_per_file"]  # `make test`: one line per test file (--progress-per-file)


FIXTURES = REPO / "tests" / "fixtures"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    """``tests/fixtures``: real transcripts, the seeds and the contract (origin and licence in
    its README). Tests read nothing outside the repository."""
    return FIXTURES


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


class FakeWrite(Dialect):
    """A test-only tag dialect: ``<fake-write>PATH</fake-write>`` is a create-file action whose
    ``path`` is the body, verbatim. Its actions have no block, so the scanner groups them by
    message (headings and rules separate messages) -- as it does for real tag dialects."""

    name = "fake-write"
    tag_names = frozenset({"fake-write"})

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        text = ctx.text
        gt = text.index(">", tag.name_span.end) + 1
        bound = ctx.next_tag_start(gt)  # the next claimed tag or code fence
        found = text.find("</fake-write>", gt, bound)
        if found < 0:  # unclosed: the action ends where the next construct starts
            end = bound
            close = gt + len(text[gt:bound].rstrip())
            look = len(text)
        else:
            close, end = found, found + len("</fake-write>")
            look = end
        path = Field(
            "path", text[gt:close], Span(gt, close), tag.name_span, SourceMap.verbatim(gt, close)
        )
        action = Action(
            self.name,
            "fake-write",
            ActionKind.CREATE_FILE,
            Span(tag.start, end),
            tag.name_span,
            {"path": path},
        )
        return Construct(Span(tag.start, end), [action], [], look)


@pytest.fixture
def fake_dialects() -> DialectSet:
    """The real dialects plus :class:`FakeWrite` (a tag dialect with file actions)."""
    return DialectSet([*ALL, FakeWrite()])
