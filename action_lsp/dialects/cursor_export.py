"""Cursor's own "Export chat" markdown: ``search_replace`` fences that name no file.

Read by the ``chat-answer`` dialect. Cursor (1.x, ``_Exported on 7/13/2025 at 20:08:52 GMT+2
from Cursor (1.2.4)_``) writes a chat as ``**User**`` and ``**Cursor**`` lines between ``---``
rules, and each ``search_replace`` call of its agent as one fence holding the old text, a line
``->`` between blank lines, and the new text -- *without the file*::

    **Cursor**

    Let me disable the wildcard route in `json_server.rb`:

    ```ruby
    Agoo::Server.handle(:GET, "/data/*", proxy_handler)

    ->

    # Agoo::Server.handle(:GET, "/data/*", proxy_handler)
    ```

Such a fence is a ``modify`` (type ``cursor-search-replace``) located by its old text. Its file
is inferred from the prose around it by the same rules as SpecStory's Cursor diffs
(:func:`specstory_diff.inferred_file`: the sentence leading into it, the line after it when it
reports the edit done), with ``named_by`` and the same ``shown-only`` note: listed, applied only
when the user confirms the file; of no path (never applied) when no file is named.

What makes a fence Cursor's: exactly one ``->`` line between blank lines in it, and the nearest
of Cursor's role lines (``**User**`` / ``**Cursor**`` alone on a line) within the chat dialect's
look-back is ``**Cursor**``, with no other chat's role line after it. The export's header is
not read (an open document re-reads only a block's look-back and look-ahead). Cursor writes an
``edit_file`` call as a plain fence of the new code, which nothing tells from a code block of
the answer: those stay examples.
"""

from __future__ import annotations

import re

from ..markdown import next_line_start
from ..model import Action, ActionKind, Edit, Field, SourceMap, Span
from .base import Construct, ScanContext
from .specstory_diff import inferred_file, shown_only

TYPE = "cursor-search-replace"
# The separator: a blank line, `->`, a blank line (the old text ends before it).
_ARROW = re.compile(r"(?:\r?\n|\r)[ \t]*(?:\r?\n|\r)->[ \t]*(?:\r?\n|\r)[ \t]*(?:\r?\n|\r)")
_ROLE = re.compile(r"(?:^|(?<=\n)|(?<=\r))\*\*(?P<role>User|Cursor)\*\*[ \t]*(?=\r|\n|\Z)")


def may_be(text: str, body_start: int) -> bool:
    """Cheap test on a fence's head: does a ``->`` line stand in it (before the next ``` line)?"""
    stop = text.find("```", body_start)
    stop = len(text) if stop < 0 else stop
    return text.find("->", body_start, stop) >= 0 and _ARROW.search(text, max(0, body_start - 1), stop) is not None


def parse(
    dialect: str, ctx: ScanContext, start: int, body_start: int, body_end: int, end: int, floor: int, other_role: int
) -> Construct | None:
    """The edit of the fence at ``start`` (body ``[body_start, body_end)``, ending at ``end``) if
    it is Cursor's ``search_replace`` (module docstring); else None (the caller reads it as any
    other fence, having read back to ``floor``). ``floor`` is the first offset the look-back may
    read, ``other_role`` the nearest other chat's role line in it (-1: none)."""
    t = ctx.text
    arrows = list(_ARROW.finditer(t, max(body_start - 1, 0), body_end))
    role = _cursor_turn(t, floor, start)
    behind = min(floor, start)
    if len(arrows) != 1 or role is None or other_role > role[0]:
        return None
    arrow = arrows[0]
    old_end = arrow.start() + (2 if t.startswith("\r\n", arrow.start()) else 1)  # (its last line's break)
    new_start = arrow.end()
    if old_end <= body_start or new_start >= body_end:
        return None
    search = Field("search", t[body_start:old_end], Span(body_start, old_end), None,
                   SourceMap.verbatim(body_start, old_end))
    replace = Field("replace", t[new_start:body_end], Span(new_start, body_end), None,
                    SourceMap.verbatim(new_start, body_end))
    span = Span(start, end)
    line_end = t.find("\n", start)
    name_span = Span(start, max(start + 3, line_end if line_end >= 0 else len(t)))
    fields, named, reach = inferred_file(t, start, role[1], floor, end if end < len(t) else None, end)
    action = Action(dialect, TYPE, ActionKind.MODIFY_FILE, span, name_span, fields, group=span,
                    group_label="Cursor export (search_replace)", edits=[Edit(search, replace)])
    note = shown_only(fields, named, "Cursor's export names no file for this search_replace", name_span)
    return Construct(span, [action], [note], lookahead=max(reach, end), behind=behind)


def _cursor_turn(text: str, floor: int, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the ``**Cursor**`` line opening the turn the fence at ``start``
    stands in, when the nearest of Cursor's role lines in ``[floor, start)`` is that one."""
    last = None
    for m in _ROLE.finditer(text, floor, start):
        last = m
    if last is None or last.group("role") != "Cursor":
        return None
    return last.start(), next_line_start(text, last.end()) if last.end() < len(text) else len(text)


def hover_note(action: Action) -> str:
    """What hover says of such an edit: the file is not named in the export, and where the
    name shown comes from."""
    head = "Cursor's export of a search_replace (old text, `->`, new text), which names no file: an edit located by its text."
    named_by = action.fields.get("named_by")
    if named_by is None:
        return head + " The file is not named in the export, nor around it: shown, never applied."
    return (head + f" The file is not named in the export: `{action.path}` is inferred from {named_by.value}."
            " Applied only when you confirm that file (\"Apply anyway\" after its diff, or apply --force).")
