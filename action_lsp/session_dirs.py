"""The working directories a JSON Lines session records, as a scan carries them line by line.

Two directories decide where a tool call's path points:

- the session's **first** ``cwd`` -- the first ``"cwd": "..."`` member of the whole text (Claude
  Code's first record, Codex's ``session_meta``): the project directory, under which absolute
  paths are read (:func:`action_lsp.dialects.tool_calls.first_cwd`);
- the **turn's** directory -- the ``cwd`` of the last Codex ``turn_context`` (or
  ``session_meta``) record *before* a line: Codex reads a relative ``apply_patch`` path there
  (a turn run in ``/p/sub`` patching ``b.py`` wrote ``/p/sub/b.py``).

So a line's actions depend on records any number of lines before it (and, for the first
``cwd``, anywhere in the text). A scan that starts in the middle of a text -- the open
document's re-scan after an edit, a window of ``check``'s streamed read -- is handed both as
its start state (:data:`Dirs`, kept in the scan's ``cache`` under :data:`FIRST_CWD` and
:data:`TURN_CWD`); the open document re-scans every line when the first ``cwd`` changes, and
re-scans on past an edit until the turn's directory in force agrees with the old one
(``IncrementalDocument``), so that its result always equals a full scan's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

FIRST_CWD = "records:first-cwd"  # ScanContext.cache key: a 1-tuple holding the first cwd (or None)
TURN_CWD = "records:turn-cwd"  # ScanContext.cache key: the turn's directory in force (absent: none)

CWD_MEMBER = re.compile(r'"cwd"[ \t]*:[ \t]*("(?:[^"\\\r\n]|\\.)*")')
_NEEDLE = '"cwd"'

FirstCwd = tuple[str, int] | None
"""The session's first ``cwd`` and the offset of its member, or None."""

Dirs = tuple[FirstCwd, str | None]
"""A scan's start state: the session's first ``cwd`` (offset relative to the scanned text,
negative when it stands before it) and the turn's directory in force at the start."""

_SETTERS = frozenset({"turn_context", "session_meta"})


def cwd_of(m: re.Match[str] | None) -> str | None:
    """The directory a ``"cwd": "..."`` member matched by :data:`CWD_MEMBER` names (its string
    decoded), or None (no match, or not a string)."""
    if m is None:
        return None
    try:
        cwd = json.loads(m.group(1))
    except ValueError:
        return None
    return cwd if isinstance(cwd, str) else None


def cwd_at(line: str, pos: int) -> str | None:
    """The directory of a ``"cwd"`` member starting at ``pos`` of ``line``, or None. A member
    never spans lines, so the answer hangs on its own line only (inside a JSON string the
    quotes are escaped: only a record's member matches)."""
    return cwd_of(CWD_MEMBER.match(line, pos))


def find_cwd(text: str, start: int = 0, stop: int | None = None) -> FirstCwd:
    """The first ``"cwd"`` member of ``text[start:stop]`` that names a directory, and where."""
    end = len(text) if stop is None else stop
    at = text.find(_NEEDLE, start, end)
    while at >= 0:
        cwd = cwd_at(text, at)
        if cwd is not None:
            return cwd, at
        at = text.find(_NEEDLE, at + 1, end)
    return None


def turn_cwd(record: Any) -> str | None:
    """The directory a Codex ``turn_context`` or ``session_meta`` record sets for the lines
    after it (its payload's ``cwd``), or None (any other record)."""
    kind = record.get("type") if isinstance(record, dict) else None
    if not isinstance(kind, str) or kind not in _SETTERS:
        return None
    payload = record.get("payload")
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def first_after_edit(
    old: FirstCwd,
    delta: int,
    find: Callable[[int, int | None], FirstCwd],
    line_start: int,
    touched_end: int,
) -> FirstCwd:
    """The session's first ``cwd`` after an edit that shifted the text after it by ``delta``:
    ``old`` as it was, ``find(a, b)`` searching the new text's ``[a, b)`` (``b`` None: to the
    end), ``line_start`` the start of the edit's first line, ``touched_end`` the end of its last
    line in the new text. A member hangs on its own line only, so the lines before the edit
    keep theirs and the lines after it theirs, moved: only the edited lines are searched, and
    the rest of the text only when the old first member stood on them and is gone."""
    if old is not None and old[1] < line_start:
        return old  # (its line is before the edit's)
    if old is None:
        return find(line_start, touched_end)  # (no line anywhere had one: only the edited may)
    found = find(line_start, touched_end)
    if found is not None:
        return found
    if old[1] + delta >= touched_end:
        return old[0], old[1] + delta  # its line was not touched
    return find(touched_end, None)
