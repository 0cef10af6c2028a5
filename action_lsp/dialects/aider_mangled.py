"""An old Aider block that a code formatter spaced out, as it stands in Aider's own example
transcripts (``aider/website/examples/*.md``, Apache-2.0)::

    ```python
    tests / test_commands.py
    << << << < ORIGINAL
    == == == =
    import os
    ...
    >> >> >> > UPDATED
    ```

A Python formatter run over the page read the markers as shift and comparison operators and the
file name as a division. Aider applied the block as the model wrote it (its log says ``Applied
edit to tests/test_commands.py``), so it is read as that block, narrowly: only the markers of
Aider's 2023 versions (``ORIGINAL`` / ``UPDATED``) spaced out exactly so, in a fence whose first
line is the file name, and the file name loses the spaces around its ``/`` (``a / b.py`` is
``a/b.py``) and nothing else; a name that still holds a blank names no file.
"""

from __future__ import annotations

import re

from ..markdown import FenceOpen, line_end, next_line_start
from ..model import Action, ActionKind, Edit, Field, SourceMap, Span
from .base import Construct, ScanContext

HEAD = "<< << << < ORIGINAL"
_HEAD = re.compile(r"[ \t]*<< << << < ORIGINAL[ \t]*(?=\r|\n|\Z)")
_DIVIDER = re.compile(r"[ \t]*== == == =[ \t]*(?=\r|\n|\Z)")
_UPDATED = re.compile(r"[ \t]*>> >> >> > UPDATED[ \t]*(?=\r|\n|\Z)")


def _line_matching(text: str, rx: re.Pattern[str], start: int, stop: int) -> int:
    """Line start of the first line in ``[start, stop)`` that ``rx`` matches whole (-1: none)."""
    pos = start
    while pos < stop:
        if rx.match(text, pos) is not None:
            return pos
        pos = next_line_start(text, line_end(text, pos))
    return -1


def mangled_block(ctx: ScanContext, fence: FenceOpen, dialect: str, type_name: str) -> Construct | None:
    """The spaced-out block filling ``fence``, as an action of ``dialect`` (None: not one)."""
    text = ctx.text
    name_start = fence.body_start
    name_stop = line_end(text, name_start)
    head = next_line_start(text, name_stop)
    if head >= len(text) or _HEAD.match(text, head) is None:
        return None
    close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
    if close is None:
        return None
    body_end, end = close
    search_start = next_line_start(text, line_end(text, head))
    divider = _line_matching(text, _DIVIDER, search_start, body_end)
    if divider < 0:
        return None
    replace_start = next_line_start(text, line_end(text, divider))
    updated = _line_matching(text, _UPDATED, replace_start, body_end)
    if updated < 0:
        return None
    raw = text[name_start:name_stop].strip()
    path = raw.replace(" / ", "/")
    if not path or any(c.isspace() for c in path):
        return None
    at = name_start + text[name_start:name_stop].index(raw)
    search = Field("search", text[search_start:divider], Span(search_start, divider), None,
                   SourceMap.verbatim(search_start, divider))
    replace = Field("replace", text[replace_start:updated], Span(replace_start, updated), None,
                    SourceMap.verbatim(replace_start, updated))
    fields = {"path": Field("path", path, Span(at, at + len(raw))), "search": search, "replace": replace}
    span = Span(fence.start, end)
    action = Action(dialect, type_name, ActionKind.MODIFY_FILE, span, Span(head, line_end(text, head)), fields,
                    group=span, group_label="aider edit")
    action.edits = [Edit(search, replace)]
    return Construct(span, [action], lookahead=end)
