"""Cursor's role lines (``**User**`` / ``**Cursor**`` alone on a line), found once per scan:
the same starts and roles as the line-anchored reading (``^`` in multi-line mode: at the text's
start or after a ``\\n``), whatever the line endings and wherever the words stand."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet, cursor_edit
from action_lsp.scan_state import ScanState

_ANCHORED = re.compile(r"^\*\*(?P<role>User|Cursor)\*\*[ \t]*\r?$", re.MULTILINE)

PIECES = [
    "**User**",
    "**Cursor**",
    "**Cursor**  ",
    "**User**\t",
    "*",
    "**",
    "User",
    "Cursor",
    "x",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "**Usr**",
    "***User**",
    "**User***",
]


def _expected(text: str) -> tuple[list[int], list[bool]]:
    found = list(_ANCHORED.finditer(text))
    return [m.start() for m in found], [m.group("role") == "Cursor" for m in found]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_role_lines_are_the_line_anchored_ones(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert cursor_edit._roles(ScanState(text, DialectSet())) == _expected(text)


def test_a_role_word_inside_a_line_is_no_role_line() -> None:
    text = "**User**\nsee **Cursor**\n**Cursor**\r\nx **User**\r**User** \n"
    starts, cursor = cursor_edit._roles(ScanState(text, DialectSet()))
    assert starts == [0, 24]  # (after a lone \r: no line start, as ``^`` reads it)
    assert cursor == [False, True]
