"""The breaks of an escaped JSON string found by array operations (a long string, read a byte
a character when it is ASCII, else four) are those a plain search of its value finds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.jsonscan import _ESCAPED, _NUMPY_FROM, _escaped_breaks

_PIECES = st.sampled_from(["a", "x = 1", "\n", "\t", '"', "\\", "\b", "\f", "\r", "é", "🌍", "\u2028", " " * 40])


def _plain(value: str, start: int) -> tuple[list[int], list[int]]:
    at = [m.start() for m in _ESCAPED.finditer(value)]
    return [v + 1 for v in at], [v + k + start + 2 for k, v in enumerate(at)]


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(_PIECES, max_size=120), long=st.booleans(), start=st.integers(0, 1000))
def test_the_breaks_of_a_long_string_are_its_escaped_characters(pieces: list[str], long: bool, start: int) -> None:
    value = "".join(pieces)
    if long:
        value = value + "y" * _NUMPY_FROM  # (the array path)
    idx, src = _escaped_breaks(value, start)
    assert (list(idx), list(src)) == _plain(value, start)
