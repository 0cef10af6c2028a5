"""Aider's user lines, searched once per scan for its reader, its reports and its architect
verdicts (``aider_users.UserLines``): each reader's answer is the plain one -- the first line at or
after a position of its kind, read line by line -- whatever the order of the questions and
however the three readers' questions interleave on one instance."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects.aider_users import UserLines

_LINES = st.sampled_from([
    "#### make it so  ", "#### make it so", "#### ", "####\t", "####\tx  ", "####", "#####  x  ", "  #### indented  ",
    "\t#### tab", " x #### y  ", "a #### b", "####   ", "####  ", "#### x ", "> Tokens: 1k  ", "", "x = 1", "##### ",
])
_EOL = st.sampled_from(["\n", "\r\n", "\r"])
_KINDS = ("line", "unindented", "prompt")


def _starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]


def _plain(text: str, kind: str, pos: int) -> int:
    for start in _starts(text):
        if start < pos:
            continue
        line = re.match(r"[^\r\n]*", text[start:]).group(0)  # type: ignore[union-attr]
        if kind == "line" and re.match(r"####[ \t]", line.lstrip(" \t")):
            return start
        if kind == "unindented" and re.match(r"####[ \t]", line):
            return start
        if kind == "prompt" and re.fullmatch(r"#### .*  ", line):
            return start
    return len(text)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_LINES, _EOL), min_size=1, max_size=20),
    st.lists(st.tuples(st.sampled_from(_KINDS), st.integers(0, 400)), min_size=1, max_size=25),
    st.booleans(),
)
def test_each_reader_finds_the_plain_next_user_line(
    lines: list[tuple[str, str]], queries: list[tuple[str, int]], last_eol: bool
) -> None:
    text = "".join(line + eol for line, eol in lines)
    if not last_eol:
        text = text[: -len(lines[-1][1])]
    users = UserLines(text)
    for kind, pos in queries:
        pos = min(pos, len(text))
        assert getattr(users, kind)(pos) == _plain(text, kind, pos), (text, kind, pos)
