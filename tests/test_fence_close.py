"""Closing fences: the fast searches give the answers of the plain ones, on random texts.

A fence's close is looked for by the scanner and by several dialects; the searches are
shortcut (a glued closer is looked for only near a ``<`` after a fence character) and
remembered per scan. These tests hold the shortcuts to the straightforward definitions.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet
from action_lsp.dialects.aider import _close_before
from action_lsp.markdown import FenceOpen, _find_fence_close, find_fence_close, glued_closer
from action_lsp.model import Span
from action_lsp.scan_state import ScanState

_TAGS = ("update_todo_list", "write_to_file")
_PIECES = st.sampled_from(
    ["`", "~", "```", "~~~", "````", " ", "   ", "\n", "\r", "\r\n", "x", "<", ">", "<update_todo_list>",
     "<write_to_file>", "<b>", "```<update_todo_list>", "~~~<write_to_file>"]
)
_TEXTS = st.lists(_PIECES, max_size=40).map("".join)


def _plain_glued(text: str, body_start: int, char: str, length: int, limit: int | None, cr: bool) -> tuple[int, int] | None:
    """The definition: the first fence characters at a line start (after up to 3 spaces) in
    the body, of the opener's character and length, followed by a tool tag."""
    found = _find_fence_close(text, body_start, char, length, limit, cr=cr)
    rx = re.compile(r"(`{3,}|~{3,})(?=<(?:" + "|".join(_TAGS) + r")>)")
    stop = found[0] if found is not None else (len(text) if limit is None else limit)
    for m in rx.finditer(text, body_start, stop):
        line = m.start()
        while line > body_start and line > m.start() - 3 and text[line - 1] == " ":
            line -= 1
        if (line == body_start or text[line - 1] in "\r\n") and m.group(1)[0] == char and len(m.group(1)) >= length:
            return line, m.end()
    return found


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, c in enumerate(text) if c == "\n" or (c == "\r" and not text.startswith("\n", i + 1))]


@settings(max_examples=400, deadline=None)
@given(_TEXTS, st.sampled_from("`~"), st.integers(3, 4), st.data())
def test_glued_close_is_the_plain_search(text: str, char: str, length: int, data: st.DataObject) -> None:
    glued = glued_closer(_TAGS)
    body = data.draw(st.sampled_from(_line_starts(text)))
    limit = data.draw(st.none() | st.sampled_from([s for s in _line_starts(text) if s >= body] + [len(text)]))
    for cr in (True, False) if "\r" not in text else (True,):
        assert find_fence_close(text, body, char, length, limit, cr=cr, glued=glued) == _plain_glued(
            text, body, char, length, limit, cr
        )


_DIALECTS = DialectSet.named(None)


@settings(max_examples=300, deadline=None)
@given(_TEXTS, st.data())
def test_remembered_closes_are_the_searches(text: str, data: st.DataObject) -> None:
    """A scan's remembered closes (asked in any order, of any fence kind, from any line start)
    are the plain searches' answers; a close asked with a limit (a line start: the next SEARCH
    marker, Aider's reading) is the unlimited close when it starts before the limit."""
    ctx = ScanState(text, _DIALECTS)
    assert ctx.glued is not None
    starts = [*_line_starts(text), len(text)]
    queries = data.draw(st.lists(st.tuples(st.sampled_from(starts), st.sampled_from("`~"), st.integers(3, 4)), max_size=12))
    for start, char, length in queries:
        cr = "\r" in text
        assert ctx.plain_fence_close(start, char, length) == find_fence_close(text, start, char, length, cr=cr)
        assert ctx.find_fence_close(start, char, length) == find_fence_close(text, start, char, length, cr=cr, glued=ctx.glued)
        for limit in [s for s in starts if s >= start]:
            fence = FenceOpen(0, char, length, "", "", Span(0, 0), start)
            assert _close_before(ctx, start, fence, limit) == find_fence_close(text, start, char, length, limit), limit


_CLOSER = re.compile(r"(?:\n|\r(?!\n))( {0,3}(`{3,}|~{3,})[ \t]*(?:\r\n|\r|\n|\Z))")
_CLOSER_AT = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*(?:\r\n|\r|\n|\Z)")


def _plain_close(text: str, body_start: int, char: str, length: int, limit: int | None) -> tuple[int, int] | None:
    """The definition: the first line of the body (up to ``limit``, the end of the text for
    its ``\\Z``) that is up to 3 spaces, at least ``length`` fence characters ``char`` and
    blanks only; its line start and the offset after its line ending."""
    end = len(text) if limit is None else limit
    m = _CLOSER_AT.match(text, body_start, end)
    if m is not None and m.group(1)[0] == char and len(m.group(1)) >= length:
        return m.start(), m.end()
    pos = body_start
    while pos + 1 < end and (m := _CLOSER.search(text, pos, end)) is not None:
        if m.group(2)[0] == char and len(m.group(2)) >= length:
            return m.start(1), m.end()
        pos = m.end() - 1
    return None


_CLOSE_PIECES = st.sampled_from(["`", "~", "```", "~~~", "````", "``", " ", "   ", "\t", "\n", "\r", "\r\n", "x", " ```", "\n```\n"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_CLOSE_PIECES, max_size=40).map("".join), st.sampled_from("`~"), st.integers(3, 5), st.data())
def test_close_search_is_the_line_by_line_definition(text: str, char: str, length: int, data: st.DataObject) -> None:
    """The close is found by looking for the fence's own characters (not at every line
    ending of the body): the same answer as the definition, with and without a limit."""
    body = data.draw(st.sampled_from([*_line_starts(text), len(text)]))
    limit = data.draw(st.none() | st.integers(body, len(text)))
    for cr in (True, False) if "\r" not in text else (True,):
        assert _find_fence_close(text, body, char, length, limit, cr=cr) == _plain_close(text, body, char, length, limit)
