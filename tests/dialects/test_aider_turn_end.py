"""Where a reply's turn ends in Aider's history (``Reports``): found by its words with
``str.find``, the same line as the regex that defines them, on random texts."""

from __future__ import annotations

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
    reports = Reports(text)
    for q in [min(q, len(text)) for q in queries] + list(range(len(text) + 1)):
        assert reports.turns.next(q) == _plain_turn_end(text, q), (text, q)
