"""Message separators (headings, rules, chat roles) the scanner files with its units: every
separator line outside a fence, once, in order -- runs of them (Aider's user messages, a
``#### `` line each) included, and tags on them passed."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet
from action_lsp.scan import scan

_LINES = st.sampled_from([
    "#### please edit a.py", "#### <write_to_file><path>x.txt</path></write_to_file> is it", "#### ", "# Heading", "###### six",
    "####### seven", "#x", "---", "- - -", "***", "___", "User: hi", "**Assistant:**", "model: ok",
    "prose", "", "   ", "```", "```python", "````", "~~~", " ```", "``` a`b", "#### /run ls", "#### !ls", "  #### x",
])
_MARKERS = ("#### /run ", "#### !")  # Aider's command lines: its tool output follows, no separator
_DIALECTS = DialectSet.named(None)


def _separators(lines: list[str]) -> list[int]:
    """The line numbers of the separators, read line by line (CommonMark fences)."""
    sep = re.compile(
        r"#{1,6}[ \t]|(?:-[ \t]*){3,}$|(?:\*[ \t]*){3,}$|(?:_[ \t]*){3,}$"
        r"|\*{0,2}(?:[Uu]ser|[Aa]ssistant|[Hh]uman|AI|[Ss]ystem|[Mm]odel)\*{0,2}[ \t]*:"
    )
    opener = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
    found, fence = [], ""
    for i, line in enumerate(lines):
        if fence:
            m = re.fullmatch(r" {0,3}(`{3,}|~{3,})[ \t]*", line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = ""
        elif (m := opener.match(line)) and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence = m.group(1)
        elif sep.match(line) and not line.startswith(_MARKERS):
            found.append(i)
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINES, min_size=1, max_size=30), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_every_separator_outside_fences_is_filed_once_in_order(lines: list[str], eol: str, last_eol: bool) -> None:
    text = eol.join(lines) + (eol if last_eol else "")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + len(eol))
    filed = [s for u in scan(text, _DIALECTS) for s in u.separators]
    expected = [(starts[i], starts[i] + len(lines[i])) for i in _separators(lines)]
    assert filed == expected
