"""A line's call markers are found by one search: the same lines as one ``str.find`` per marker.

The tool-call dialect looks for its fifteen marker strings in each JSON line before walking
its decoded record (``tool_calls._MARKED``). They all begin with a quote, so one regular
expression of them is one fast pass over the line (the regular expression engine looks for the
quote, then tries the markers there); it must say "found" exactly when some marker occurs
inside the line's bounds. (The record readers' result markers do not share a first character:
there one ``str.find`` per marker stays the faster.)
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import tool_calls

_PIECES = st.sampled_from(['"tool_use"', '"tool', 'use"', '"model"', "_output", '_output"', '"', "a", "é", "🌍",
                           '"function"', '"functionCall"', "\n", '"tool_result"', "x.*+?"])
_TEXT = st.lists(_PIECES, max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXT, st.integers(0, 30), st.integers(0, 30))
def test_the_call_markers_are_found_as_before(text: str, a: int, cut: int) -> None:
    b = max(a, len(text) - cut)
    found = any(text.find(m, a, b) >= 0 for m in tool_calls._MARKERS)
    assert (tool_calls._MARKED.search(text, a, b) is not None) == found
