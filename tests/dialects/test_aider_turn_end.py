"""Where a reply's turn ends in Aider's history (``Reports``): found as the next user line, and
a line of the other words before it (one search from line break to line break), the same line
as the regex that defines them, on random texts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects.aider_reports import _QUOTE, _REPORT_PREFIX, _TURN, Reports
from action_lsp.markdown import line_start

_PIECES = st.sampled_from([
    "Applied edit to ", "Did not apply edit to ", "Applied edit t", "SEARCH/REPLACE blocks failed to match!",
    "SEARCH/REPLACE block failed to match!", "SEARCH/REPLACE block", "####", "#### ", "####\t", "#", "^^^ ", "^^^",
    "> ", ">", "# 2 ", "x", " ", "\n", "\r\n", "\r",
])


def _plain_turn_end(text: str, pos: int) -> int:
    """The definition: the first match of ``_TURN`` at or after ``pos`` whose line prefix
    fits it, the matches searched one after the other."""
    m = _TURN.search(text, pos)
    while m is not None:
        line = line_start(text, m.start())
        prefix = text[line : m.start()]
        word = m.group(0)
        if word.startswith("SEARCH"):
            ok = _REPORT_PREFIX.fullmatch(prefix) is not None
        elif word.startswith("#"):
            ok = not prefix
        else:
            ok = not prefix or _QUOTE.fullmatch(prefix) is not None
        if ok and line >= pos:
            return line
        m = _TURN.search(text, m.end())
    return len(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join), st.lists(st.integers(0, 400), max_size=8))
def test_turn_end_is_the_regex_search(text: str, queries: list[int]) -> None:
    # (cr=False, the scan's search for a text without a carriage return: its line feeds only)
    for cr in (True, False) if "\r" not in text else (True,):
        reports = Reports(text, cr=cr)
        for q in [min(q, len(text)) for q in queries] + list(range(len(text) + 1)):
            assert reports.turns.next(q) == _plain_turn_end(text, q), (text, q, cr)


@pytest.mark.parametrize("line", [
    "Applied edit to a.py", ">Applied edit to a.py", "> Applied edit to a.py", "> > Applied edit to a.py",
    ">Did not apply edit to a.py", "^^^ Expected `=======`", "> ^^^ Expected", ">^^^ x",
    "# 2 SEARCH/REPLACE blocks failed to match!", "> # 1 SEARCH/REPLACE block failed to match!",
    ">#  1 SEARCH/REPLACE block failed to match!", "># 12 SEARCH/REPLACE block failed to match!",
    "  Applied edit to a.py", "#### next", "x Applied edit to a.py",
])
@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_each_turn_line_as_the_regex_reads_it(line: str, eol: str) -> None:
    text = eol.join(["reply", line, "more", line]) + eol
    for cr in (True, False) if eol == "\n" else (True,):
        reports = Reports(text, cr=cr)
        assert [reports.turns.next(q) for q in range(len(text) + 1)] == [_plain_turn_end(text, q) for q in range(len(text) + 1)]
