"""What Aider writes into its chat history when a reply in its ``udiff`` / ``udiff-simple`` or
``patch`` edit format does not apply, read so that what failed is shown failed, never applied.

``udiff`` (``UnifiedDiffCoder.apply_edits`` in Aider's ``aider/coders/udiff_coder.py``): Aider
applies each hunk on its own, writes those that apply, and reports the others, one message for
all of them (the first line quoted, the rest as it is)::

    > UnifiedDiffNoMatch: hunk failed to apply!

    src/x.py does not contain lines that match the diff you provided!
    ...
    src/x.py does not contain these 2 exact lines in a row:
    ```
    def f():
        return 1
    ```

(``UnifiedDiffNotUnique`` for a hunk whose lines stand in several places: ``src/x.py contains
multiple copies of these 2 lines:``). The lines are the hunk's context and removed lines. A
hunk of a reply is failed when a report after it, before the next user message, names its file
(or the same name in another folder) and its lines (compared line by line without blanks). The
hunks of a file that the report does not name were applied: a file's action keeps them, and its
failed hunks become an action of their own, shown failed.

``patch`` (``PatchCoder`` in ``aider/coders/patch_coder.py``, Codex's ``*** Begin Patch``): a
patch Aider could not parse (``Error parsing patch content: ...``, ``Unexpected error parsing
patch: ...``) is applied not at all: every file of it is failed. A file that failed while
applying (``Error applying action 'update' to src/x.py: ...``) is failed, and so is every file
after it in the patch (Aider stops there); the files before it were written.

The echoes in these messages are no actions: the ``aider`` dialect claims the message after
Aider's edit-errors link as a tool message (:mod:`aider_reports`), and the echoed lines stand in
a plain fence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..markdown import line_end, line_start, next_line_start, text_finder
from ..model import Action, Diagnostic, Span
from .aider_reports import lines_key, reports, same_file
from .tool_use import failed

_UDIFF = re.compile(r"(?:> ?)?(?P<kind>UnifiedDiffNoMatch|UnifiedDiffNotUnique): hunk failed to apply!")
_WHERE = re.compile(
    r"(?P<path>\S[^\r\n]*?) (?:does not contain these \d+ exact lines in a row|contains multiple copies of these \d+ lines):[ \t]*$"
)
_PATCH = re.compile(
    r"(?:> ?)?(?:(?P<parse>Error parsing patch content: |Unexpected error parsing patch: )"
    r"|Error applying action '(?P<type>\w+)' to (?P<path>[^\r\n]*?): )"
)
_READ_LINES = 12  # lines from a udiff report's heading to its `... exact lines in a row:` line
# The strings whose insertion after a diff or patch can make a report about it appear.
WATCH = ("UnifiedDiff", "Error parsing patch", "Unexpected error parsing patch", "Error applying action")


@dataclass(slots=True)
class HunkEcho:
    path: str
    lines: tuple[str, ...]
    heading: Span


@dataclass(slots=True)
class PatchFailure:
    path: str | None  # None: the patch did not parse, nothing of it was applied
    message: str
    heading: Span


class _Found:
    def __init__(self, text: str) -> None:
        self.udiff = text_finder(text, "UnifiedDiff")
        self.parse = text_finder(text, "rror parsing patch")  # (Error / Unexpected error)
        self.apply = text_finder(text, "Error applying action '")


def _found(cache: dict[str, object], text: str) -> _Found:
    found = cache.get("aider-hunks")
    if not isinstance(found, _Found):
        found = cache["aider-hunks"] = _Found(text)
    return found


def _turn_end(cache: dict[str, object], text: str, end: int) -> int:
    """Where the turn of a reply ending at ``end`` ends: the next user message (or the end)."""
    return reports(cache, text).users.next(end)


def _udiff_echoes(text: str, found: _Found, start: int, stop: int) -> list[HunkEcho]:
    echoes: list[HunkEcho] = []
    at = found.udiff.next(start)
    while at < stop:
        line = line_start(text, at)
        head = _UDIFF.match(text, line)
        if head is not None and head.start("kind") == at:
            echo = _udiff_echo(text, line, stop)
            if echo is not None:
                echoes.append(echo)
        at = text.find("UnifiedDiff", at + 1, stop)
        if at < 0:
            break
    return echoes


def _udiff_echo(text: str, heading: int, stop: int) -> HunkEcho | None:
    pos = next_line_start(text, line_end(text, heading))
    for _ in range(_READ_LINES):
        if pos >= stop:
            return None
        end = line_end(text, pos)
        where = _WHERE.match(text[pos:end])
        pos = next_line_start(text, end)
        if where is None:
            continue
        if not text.startswith("```", pos):
            return None
        pos = next_line_start(text, line_end(text, pos))
        lines: list[str] = []
        while pos < stop and not text.startswith("```", pos):
            end = line_end(text, pos)
            lines.append(text[pos:end])
            pos = next_line_start(text, end)
        return HunkEcho(where.group("path").strip(), lines_key("\n".join(lines)), Span(heading, line_end(text, heading)))
    return None


def _patch_failures(text: str, found: _Found, start: int, stop: int) -> list[PatchFailure]:
    out: list[PatchFailure] = []
    for finder, needle in ((found.parse, "rror parsing patch"), (found.apply, "Error applying action '")):
        at = finder.next(start)
        while 0 <= at < stop:
            line = line_start(text, at)
            m = _PATCH.match(text, line)
            if m is not None:
                path = None if m.group("parse") else m.group("path").strip()
                out.append(PatchFailure(path, text[m.end() : line_end(text, line)].strip(), Span(line, line_end(text, line))))
            at = text.find(needle, at + 1, stop)
    return out


def mark_failed_hunks(
    cache: dict[str, object], text: str, actions: list[Action], end: int, diagnostics: list[Diagnostic]
) -> tuple[list[Action], int, tuple[str, ...]]:
    """The diff's ``actions`` (ending at ``end``) with the hunks an Aider report after them
    names shown failed; how far that was read (-1: to the end, then see the watched strings)."""
    stop = _turn_end(cache, text, end)
    read, watch = (stop, ()) if stop < len(text) else (-1, WATCH)
    echoes = _udiff_echoes(text, _found(cache, text), end, stop)
    if not echoes:
        return actions, read, watch
    out: list[Action] = []
    for a in actions:
        path = a.text("path")
        bad = [
            i for i, e in enumerate(a.edits)
            if path is not None and (key := lines_key(e.search.value)) and any(
                h.lines == key and same_file(h.path, path) for h in echoes)
        ]
        if not bad:
            out.append(a)
            continue
        heading = next(h.heading for h in echoes if same_file(h.path, path or ""))
        message = f"Aider reported that {'this hunk' if len(bad) == 1 else f'{len(bad)} hunks'} of {path} failed to apply"
        if len(bad) < len(a.edits):
            kept = [e for i, e in enumerate(a.edits) if i not in bad]
            failing = Action(a.dialect, a.type, a.kind, a.span, a.name_span, dict(a.fields), a.group, a.group_label,
                             [a.edits[i] for i in bad])
            a.edits = kept
            out.append(a)
            a = failing
        a, hint = failed(a, message, heading)
        diagnostics.append(hint)
        out.append(a)
    return out, read, watch


def mark_failed_patch(
    cache: dict[str, object], text: str, actions: list[Action], end: int, diagnostics: list[Diagnostic]
) -> tuple[int, tuple[str, ...]]:
    """Mark failed the files of an Aider ``patch`` reply (``actions``, ending at ``end``) that a
    failure report after it says were not applied; how far that was read (as above)."""
    stop = _turn_end(cache, text, end)
    read, watch = (stop, ()) if stop < len(text) else (-1, WATCH)
    failures = _patch_failures(text, _found(cache, text), end, stop)
    if not failures:
        return read, watch
    first = failures[0]
    since = 0 if first.path is None else next(
        (i for i, a in enumerate(actions) if (p := a.text("path")) is not None and same_file(p, first.path)), len(actions))
    for i in range(since, len(actions)):
        why = "Aider could not parse this patch" if first.path is None else (
            f"Aider failed to apply the patch at {first.path}" + ("" if i == since else ", and stopped there"))
        actions[i], hint = failed(actions[i], f"{why}: {first.message}", first.heading)
        diagnostics.append(hint)
    return read, watch
