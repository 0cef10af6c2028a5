"""How far a JSON value in prose may run (`ScanState.next_bound`): in a text with no carriage
return, a pattern `re` finds by its first character, its answers remembered; it must give what
a fresh search of the general pattern gives, on any text (blank lines of spaces and tabs,
fences of backticks and tildes indented 0-4 spaces, carriage returns or none) and any sequence
of positions."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet
from action_lsp.scan_state import _BOUND, _LF_BOUND, ScanState

_PIECES = ["\n", "\n", "\r", "\r\n", " ", "   ", "\t", "`", "```", "~~~", "~~", "x", "{", '"a": 1', "é"]
_TEXTS = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)
_DIALECTS = DialectSet.named(None)


def _plain(text: str, at: int) -> int:
    """The bound as first defined: the general pattern searched from ``at``, nothing kept."""
    m = _BOUND.search(text, at)
    return m.end() if m else len(text)


@settings(max_examples=500, deadline=None)
@given(lead=st.lists(st.sampled_from([" ", "\t", "\n", "\r\n", "\r"]), max_size=4).map("".join), body=_TEXTS)
def test_the_bound_of_the_opening_value_is_next_bounds(lead: str, body: str) -> None:
    text = lead + "{" + body
    at = len(lead)
    assert ScanState(text, _DIALECTS).next_bound(at) == _plain(text, at)


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, data=st.data())
def test_any_positions_asked_in_turn(text: str, data: st.DataObject) -> None:
    """One scan asks for value after value (positions growing, or not): the remembered answer
    must be the one a search from there gives."""
    ctx = ScanState(text, _DIALECTS)
    for at in data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=8)):
        assert ctx.next_bound(at) == _plain(text, at)


@settings(max_examples=500, deadline=None)
@given(text=_TEXTS.map(lambda t: t.replace("\r", "")))
def test_with_no_carriage_return_the_patterns_match_alike(text: str) -> None:
    def ends(p: re.Pattern[str]) -> list[int]:
        return [m.end() for m in p.finditer(text)]

    assert ends(_LF_BOUND) == ends(_BOUND)


def test_known_texts() -> None:
    for text, bound in [
        ('{"a": 1}\n\nprose', 9),
        ('{"a": 1}\n  \t\nprose', 9),
        ('{"a":\n   ```\n1}', 6),
        ('{"a":\n    ```\n1}', 16),  # four spaces: no fence, to the end
        ('{\n  "a": "```"\n}', 16),
        ('{"a": 1}\r\n\r\n', 10),  # a carriage return: the general pattern
    ]:
        assert ScanState(text, _DIALECTS).next_bound(0) == bound == _plain(text, 0)
