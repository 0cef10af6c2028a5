"""SWE-agent 0.x ``edit N:M`` as a search/replace, checked against the trajectory itself.

``edit N:M`` (``windowed_edit_linting``) replaces lines N..M of the open file by the lines of
its body without saying what they held. The trajectory does show them: SWE-agent prints a
window of numbered lines after ``open``, ``goto``, ``scroll_*``, ``create`` and every edit::

    [File: /repo/src/x.py (372 lines total)]
    (272 more lines above)
    273:    text of line 273
    ...
    (72 more lines below)

:class:`Known` keeps, per file, the lines the trajectory last showed (and what its verified
line edits made of them). A line edit becomes applicable only when (1) every line it replaces
was shown since the file last changed by other means, and (2) the window printed after it
shows the file with the edit's result: the right total, the edited lines as the body, and every
other shown line as it was. Its search text is then the replaced lines with up to
:data:`CONTEXT` known lines around them, so it applies only to a file that still holds them.
Anything else is a reason (a string) to show the edit and not apply it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CONTEXT = 3  # known lines kept around the replaced ones in the search text

_HEADER = re.compile(r"\[File: ([^\n]+) \((\d+) lines total\)\]\r?(?:\n|\Z)")
_ABOVE = re.compile(r"\(\d+ more lines above\)\r?(?:\n|\Z)")
_NUMBERED = re.compile(r"(\d+):([^\n]*)(?:\n|\Z)")
ORIGINAL = "This is the original code before your edit"


@dataclass(slots=True)
class Window:
    """One printed window: the file's path as printed, its total line count, the lines shown."""

    path: str
    total: int
    lines: dict[int, str]


def windows(text: str) -> list[Window]:
    """Every window of numbered lines in an observation, in order."""
    out: list[Window] = []
    at = text.find("[File: ")
    while at >= 0:
        if at == 0 or text[at - 1] == "\n":
            out.extend(_window(text, at))
        at = text.find("[File: ", at + 1)
    return out


def _window(text: str, at: int) -> list[Window]:
    """The window whose header line starts at ``at`` (none if it is no header)."""
    m = _HEADER.match(text, at)
    if m is None:
        return []
    i = m.end()
    above = _ABOVE.match(text, i)
    if above is not None:
        i = above.end()
    shown: dict[int, str] = {}
    expect = 0
    while (n := _NUMBERED.match(text, i)) is not None:
        k = int(n.group(1))
        if shown and k != expect:
            break
        shown[k] = n.group(2)
        expect, i = k + 1, n.end()
    return [Window(m.group(1), int(m.group(2)), shown)]


@dataclass(slots=True)
class FileLines:
    """What the trajectory has shown of one file: its line count and some of its lines."""

    total: int
    lines: dict[int, str] = field(default_factory=dict)


class Known:
    """The lines shown of each file (by absolute path), as the trajectory goes."""

    def __init__(self) -> None:
        self.files: dict[str, FileLines] = {}

    def forget(self) -> None:
        """Something may have changed any file (a shell command, another edit tool)."""
        self.files.clear()

    def see(self, text: object) -> None:
        """Record the windows an observation printed (of a refusal, only the original code)."""
        if not isinstance(text, str):
            return
        for w in windows(text):
            old = self.files.get(w.path)
            if old is None or old.total != w.total:
                old = self.files[w.path] = FileLines(w.total)
            old.lines.update(w.lines)


@dataclass(frozen=True, slots=True)
class Replacement:
    """A checked line edit: ``search`` / ``replace`` (empty search: insert before ``line``)."""

    search: str
    replace: str
    line: int


def body_lines(body: str) -> list[str]:
    """The lines an ``edit N:M`` body puts in the file (one per line read up to end_of_edit)."""
    if not body:
        return []
    return (body[:-1] if body.endswith("\n") else body).split("\n")


def check(known: Known, path: str, first: int, last: int, body: list[str], observation: object) -> Replacement | str:
    """The edit ``first:last`` → ``body`` of ``path`` as a search/replace, or why not."""
    before = known.files.get(path)
    if last < first:
        return f"the range {first}:{last} is empty"
    if before is None:
        return "the trajectory did not show the file's lines before it"
    if last > before.total:
        return f"the file had {before.total} lines, fewer than {last}"
    missing = [n for n in range(first, last + 1) if n not in before.lines]
    if missing:
        return f"the trajectory did not show line {missing[0]} before it (what it replaces)"
    shown = next((w for w in windows(observation) if w.path == path), None) if isinstance(observation, str) else None
    if shown is None:
        return "its observation shows no window of the file after it"
    total = before.total - (last - first + 1) + len(body)
    after = _after(before, first, last, body)
    if shown.total != total:
        return f"its observation says {shown.total} lines, the edit gives {total}"
    edited = range(first, first + len(body)) if body else range(max(1, first - 1), first + 1)
    if not any(n in shown.lines for n in edited):
        return "its observation does not show the edited lines"
    for n, t in sorted(shown.lines.items()):
        if n in after and after[n] != t:
            return f"its observation shows line {n} as {t!r}, the edit gives {after[n]!r}"
    result = _replacement(before, first, last, body)
    after.update(shown.lines)
    known.files[path] = FileLines(total, after)
    return result


def _after(before: FileLines, first: int, last: int, body: list[str]) -> dict[int, str]:
    shift = len(body) - (last - first + 1)
    out = {n: t for n, t in before.lines.items() if n < first}
    out.update({first + k: t for k, t in enumerate(body)})
    out.update({n + shift: t for n, t in before.lines.items() if n > last})
    return out


def _replacement(before: FileLines, first: int, last: int, body: list[str]) -> Replacement:
    lines = before.lines
    a = first
    while a > 1 and first - a < CONTEXT and a - 1 in lines:
        a -= 1
    b = last
    while b < before.total and b - last < CONTEXT and b + 1 in lines:
        b += 1
    head = [lines[n] for n in range(a, first)]
    tail = [lines[n] for n in range(last + 1, b + 1)]
    old = head + [lines[n] for n in range(first, last + 1)] + tail
    new = head + body + tail
    # Whole lines only: the newline before the block (when it does not start the file) and
    # after it (when it does not end the file) are part of the text searched.
    lead = "\n" if a > 1 else ""
    trail = "\n" if b < before.total else ""
    search = lead + "\n".join(old) + trail
    # Lines removed with no line kept around them: one newline stays between their neighbours.
    gap = "\n" if lead and trail else ""
    replace = lead + "\n".join(new) + trail if new else gap
    return Replacement(search, replace, a - 1 if a > 1 else 1)
