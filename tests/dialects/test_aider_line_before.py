"""A block's second ``=======`` looked for up to its REPLACE marker only (``aider._line_before``):
what the remembered whole-text finder finds, when it is before that line start; the line start
otherwise. Random texts of marker-like lines, with every line ending, blanks before markers and
markers in mid-line."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects.aider import _DIVIDER, _UPDATED, _finder, _line_before
from action_lsp.markdown import line_start

_PIECES = st.sampled_from(["=======", "=====", "==========", "x", " ", "\t", "\n", "\r\n", "\r", ">>>>>>> REPLACE", "a ====="])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join), st.integers(0, 300), st.integers(0, 300), st.booleans())
def test_line_before_is_the_finder_up_to_a_line_start(text: str, pos: int, limit: int, to_end: bool) -> None:
    """(``limit``: a line start, or the text's end: where the REPLACE finder stops.)"""
    n = len(text)
    pos = min(pos, n)
    limit = n if to_end else line_start(text, min(max(limit, pos), n))
    if limit < pos:
        return
    for rx in (_DIVIDER, _UPDATED):
        found = _finder(text, rx).next(pos)
        assert _line_before(text, rx, pos, limit) == (found if found < limit else limit), (text, pos, limit)
