"""A large open document's line index made lazily (``EditableLineIndex(text, lazy=True)``):
the lines of its top answered from a list of their starts, NumPy's array made at the first
question past it. Every answer is the eager index's, wherever the head ends."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import action_lsp.text as text_module
from action_lsp.model import Span
from action_lsp.text import ENCODINGS, EditableLineIndex, Position

PIECES = st.sampled_from(["a", "bc", "é", "😀", "\n", "\r", "\r\n", "\n\n", " ", "x" * 40])


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(PIECES, max_size=80),
    head=st.integers(1, 40),
    limit=st.integers(0, 120),
    asks=st.lists(st.integers(-3, 700), min_size=1, max_size=12),
)
def test_the_lazy_index_answers_as_the_eager_one(pieces: list[str], head: int, limit: int, asks: list[int]) -> None:
    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(text_module, "HEAD", head)
        mp.setattr(text_module, "HEAD_LIMIT", limit)
        eager, lazy = EditableLineIndex(text), EditableLineIndex(text, lazy=True)
        asks = [min(a, len(text) + 2) for a in asks]
        for at in asks:
            clamped = max(0, min(at, len(text)))
            assert lazy.line_of(clamped) == eager.line_of(clamped)
            line = eager.line_of(clamped)
            assert lazy.line_start(line) == eager.line_start(line)
            assert lazy.line_end(line) == eager.line_end(line)
            assert lazy.line_end(line, include_eol=True) == eager.line_end(line, include_eol=True)
            for encoding in ENCODINGS:
                assert lazy.position(at, encoding) == eager.position(at, encoding)
                assert lazy.range(Span(clamped, len(text)), encoding) == eager.range(Span(clamped, len(text)), encoding)
        for encoding in ENCODINGS:
            assert lazy.positions(asks, encoding) == eager.positions(asks, encoding)
        lines = eager.lines_of([max(0, min(a, len(text))) for a in asks])
        assert lazy.lines_of([max(0, min(a, len(text))) for a in asks]) == lines
        assert lazy.line_starts_of(lines) == eager.line_starts_of(lines)
        assert lazy.line_count() == eager.line_count()
        assert lazy.offset(Position(1, 2)) == eager.offset(Position(1, 2))
        fresh = EditableLineIndex(text, lazy=True)  # (an edit before anything was asked)
        for index in (lazy, eager, fresh):
            index.replace(0, min(3, len(text)), "q\r")
        for index in (lazy, fresh):
            assert [index.line_start(k) for k in range(index.line_count())] == [
                eager.line_start(k) for k in range(eager.line_count())]


def test_the_top_of_a_long_text_needs_no_array() -> None:
    text = "line é\r\n" * 200_000  # 1.6 M characters
    index = EditableLineIndex(text, lazy=True)
    assert index.position(text.index("é", 50_000), "utf-16") == Position(6_250, 5)
    assert index.line_end(10) == 10 * 8 + 6
    assert index.positions([0, 300_000], "utf-8") == [(0, 0), (37_500, 0)]
    assert index._array is None  # (no NumPy asked for so far)
    assert index.line_of(len(text) - 1) == 199_999  # past the head: the array
    assert index._array is not None


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(PIECES, max_size=60))
def test_the_head_starts_are_the_line_starts(pieces: list[str]) -> None:
    text = "".join(pieces)
    for each in (text, text.replace("\r", "")):  # (a text without `\r` is split instead)
        assert text_module._starts_of(each) == text_module.line_starts(each)


def test_a_document_opened_in_steps_is_lazy_only_before_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that has just started publishes a large document's first diagnostics before it
    imports NumPy; once it is imported (a warm server) the array is made at the open, as before,
    not a second time after the head (the outline needs it)."""
    from types import SimpleNamespace

    import numpy  # noqa: F401  (imported: a warm server)

    import action_lsp.document as document
    from action_lsp.document import IncrementalDocument

    text = "x\n" * 100
    assert IncrementalDocument(text, defer=True).lines._array is not None
    monkeypatch.setattr(document, "sys", SimpleNamespace(modules={}))  # (a server that has just started)
    assert IncrementalDocument(text, defer=True).lines._array is None
    assert IncrementalDocument(text).lines._array is not None
