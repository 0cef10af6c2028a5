"""The search for the next line starting (after blanks) with a dialect's line marker
(``scan_state._marker_lines``: blanks taken whole, the marker's first character checked before
its alternatives) finds what the plain lookahead finds, for random markers (blank-led ones too)
and texts, with and without carriage returns."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.scan_state import _marker_lines

_MARKERS = st.lists(st.sampled_from(["<<<", "#### /run ", "> x", "d", " x", "\tab", "<<< <", "##"]), min_size=1, max_size=4, unique=True)
_PIECES = st.sampled_from(["<<<", "<", "#### /run ", "####", "> x", ">", "d", "x", "ab", " ", "\t", "\n", "\r\n", "\r"])


@settings(max_examples=400, deadline=None)
@given(_MARKERS, st.lists(_PIECES, max_size=40).map("".join), st.booleans())
def test_marker_lines_are_the_plain_lookahead(markers: list[str], text: str, cr: bool) -> None:
    if not cr and "\r" in text:
        text = text.replace("\r", "")
    ms = tuple(markers)
    alts = "|".join(re.escape(m) for m in ms)
    plain = re.compile((r"(?:\n|\r(?!\n))" if cr else r"\n") + r"(?=[ \t]*(?:" + alts + "))")
    rx = _marker_lines(ms, cr)
    for pos in range(len(text) + 1):
        a, b = rx.search(text, pos), plain.search(text, pos)
        assert (a and a.span()) == (b and b.span()), (ms, text, pos)
