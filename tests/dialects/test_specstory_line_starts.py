"""SpecStory's role lines (``_**Assistant**_``) and ``` ```diff ``` fence lines, found once per
scan: the same starts as the line-anchored reading (``^`` in multi-line mode: at the text's start
or after a ``\\n``), whatever the line endings and wherever the words stand."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet, specstory_diff
from action_lsp.scan_state import ScanState

PIECES = [
    "_**Assistant**_",
    "_**User**_",
    "_**Assistant (claude-4)**_",
    "```diff",
    "```diff  ",
    "```",
    "_**",
    "**_",
    "_",
    "x",
    " ",
    "\t",
    "\n",
    "\r",
    "\r\n",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_line_starts_are_the_line_anchored_ones(pieces: list[str]) -> None:
    text = "".join(pieces)
    for key, pattern in (
        ("roles", specstory_diff._ROLE_LINE),
        ("diffs", specstory_diff._DIFF_OPEN),
    ):
        anchored = re.compile("^" + pattern.pattern, re.MULTILINE)
        found = specstory_diff._starts(ScanState(text, DialectSet()), key, pattern)
        assert found == [m.start() for m in anchored.finditer(text)]


def test_a_role_inside_a_line_is_no_role_line() -> None:
    text = "_**User**_\nsee _**Assistant**_\n_**Assistant**_\r\nx\r_**User**_\n"
    assert specstory_diff._starts(
        ScanState(text, DialectSet()), "roles", specstory_diff._ROLE_LINE
    ) == [0, 31]
