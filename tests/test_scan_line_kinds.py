"""The scanner's line-event regexes (``scan._line_kinds``) take the blanks before a marker
whole and check the marker's first character before its alternatives (when no marker starts
with a blank): they find what the plain regexes find -- the same line events, of the same kind
and extent, the same runs of separator lines -- for any markers and any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import scan as scan_module
from action_lsp.scan import _LINE_EVENT, _ROLE, _SEP


def _plain(markers: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """The definitions: (kind, fast, general, separator runs), blanks matched by ``[ \\t]*``."""
    marker = "|".join(re.escape(m) for m in markers) if markers else r"(?!)"
    runs = re.compile(r"(?:(?![ \t]*(?:" + marker + r"))(?! {0,3}(?:`{3,}|~{3,}))(?:" + _SEP + r")[^\n]*\n)*")
    kind = re.compile(r"(?P<marker>[ \t]*(?:" + marker + "))|" + _LINE_EVENT)
    rest = r"(?:[ \t]*(?:\{|" + marker + r")| {0,3}(?:```|~~~)|#|[-*_][ \t]*[-*_][ \t]*[-*_]|" + _ROLE + ")"
    fast = re.compile(r"\n(?=" + rest + ")")
    general = re.compile(r"(?:\n|\r(?!\n))(?=" + rest + ")")
    return kind, fast, general, runs


_MARKER = st.sampled_from(["<<<", "#### /run ", "#### !", "> https://x", "diff --git ", "*** Begin", "Filepath:", "🔧 Using", " x", "\tmark", "{{", "###"])
_PIECES = st.sampled_from([
    "\n", "\r\n", "\r", " ", "  ", "\t", "#", "#### ", "#### /run ls", "<<<", "<<<<<<< SEARCH", "{", "{\"type\"", "```", "~~~",
    "    ```", "---", "- - -", "***", "_ _ _", "User:", "**Assistant:**", "model :", "> https://x", "diff --git a",
    "Filepath: a", "🔧 Using tool", " x", "\tmark", "x", "return 1", "> quoted", "*", "-", "_",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_MARKER, max_size=5, unique=True).map(tuple), st.lists(_PIECES, max_size=40).map("".join))
def test_line_kinds_find_what_the_plain_regexes_find(markers: tuple[str, ...], text: str) -> None:
    saved = dict(scan_module._KINDS), dict(scan_module._SEP_RUNS)
    scan_module._KINDS.clear()
    try:
        kind, fast, general = scan_module._line_kinds(markers)
        runs = scan_module._SEP_RUNS[markers]
    finally:
        scan_module._KINDS.clear()
        scan_module._KINDS.update(saved[0])
        scan_module._SEP_RUNS.clear()
        scan_module._SEP_RUNS.update(saved[1])
    plain_kind, plain_fast, plain_general, plain_runs = _plain(markers)
    assert [m.span() for m in fast.finditer(text)] == [m.span() for m in plain_fast.finditer(text)]
    assert [m.span() for m in general.finditer(text)] == [m.span() for m in plain_general.finditer(text)]
    for pos in range(len(text) + 1):
        got, want = kind.match(text, pos), plain_kind.match(text, pos)
        assert (got and (got.lastgroup, got.span(), got.groupdict())) == (want and (want.lastgroup, want.span(), want.groupdict()))
        run, plain_run = runs.match(text, pos), plain_runs.match(text, pos)
        assert (run and run.span()) == (plain_run and plain_run.span())


@settings(max_examples=400, deadline=None)
@given(st.lists(_MARKER, max_size=5, unique=True).map(tuple), st.lists(_PIECES, max_size=40).map("".join))
def test_a_line_event_starts_with_one_of_its_first_characters(markers: tuple[str, ...], text: str) -> None:
    """The scanner tells a line that is no event, or no separator, by its first character
    (``kind_firsts``, ``SEP_FIRSTS``) before it tries a match: every match starts with one."""
    kind, _, _ = scan_module._line_kinds(markers)
    runs = scan_module._SEP_RUNS[markers]
    firsts = scan_module.kind_firsts(markers)
    for pos in range(len(text) + 1):
        first = text[pos : pos + 1]
        m = kind.match(text, pos)
        if m is not None:
            assert firsts is None or first in firsts
            if m.lastgroup == "sep":
                assert first in scan_module.SEP_FIRSTS
        run = runs.match(text, pos)
        if run is not None and run.end() > pos:
            assert first in scan_module.SEP_FIRSTS
