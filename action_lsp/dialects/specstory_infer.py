"""The file of a SpecStory Cursor diff that no prose names, inferred from the document itself.

:mod:`specstory_diff` names a diff's file from the prose around it. When no prose does, two
readings are still safe (each stays ``shown-only``: listed, applied only once the user confirms
the file):

* **By content** (a ``modify``): the diff's unchanged and removed lines are all found, in order,
  in the text the same document last showed for exactly one file -- the file a diff created, or
  the lines an earlier diff of that file showed, as the document's earlier diffs left them -- and
  in no other file's. A diff of a file whose lines are not in what was known of it replaces that
  knowledge by its own lines (what was known came from a misnamed diff, or is stale). Lines that tell no file apart (blank lines, ``}``) are not enough: the lines
  matched must hold at least :data:`MIN_CHARS` characters that are not blanks.
* **By the turn's report** (a new file): the prose after the turn's last diff says which files
  it created, one per listed item (``I've created both: 1. `src/tool.1` ... 2. `README.md` ...``);
  when every other new file of the turn is named by its own prose, the one name left is this one.

The model of the document's files is built in one pass over its SpecStory diffs in order (kept
in the scan's cache, so a document's diffs cost one pass, not one each).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

Ops = list[tuple[str, str]]  # one fence: (op, line without its two-character prefix)
MIN_CHARS = 30  # non-blank characters the matched lines must hold to tell a file apart


@dataclass(frozen=True, slots=True)
class Record:
    """One SpecStory diff of the document: where it is, its fences' lines, the file its prose
    names (None: none), and whether it is a new file."""

    start: int
    end: int
    line: int  # 1-based line of its first fence
    new_file: bool
    prose_path: str | None
    fences: tuple[Ops, ...]


Reader = Callable[[int], "Record | None"]  # the record of a ```diff fence at an offset, if SpecStory's
_DIFF = re.compile(r"(?:^|(?<=\n))```diff[ \t]*\r?$", re.MULTILINE)


def _key(path: str) -> str:
    return path.removeprefix("./")


def _same(a: str, b: str) -> bool:
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


def _apply(text: list[str], ops: Ops) -> list[str] | None:
    """``text`` with one fence applied, its unchanged and removed lines found in order (the
    first place each fits); None when they are not all found."""
    out: list[str] = []
    pos = 0
    for op, line in ops:
        if op == "+":
            out.append(line)
            continue
        want = line.rstrip()
        k = pos
        while k < len(text) and text[k].rstrip() != want:
            k += 1
        if k == len(text):
            return None
        out.extend(text[pos:k])
        if op == " ":
            out.append(text[k])
        pos = k + 1
    out.extend(text[pos:])
    return out


def _post(ops: Ops) -> list[str]:
    return [line for op, line in ops if op != "-"]


@dataclass(slots=True)
class Model:
    """What the document showed of each file so far: its texts (a whole file a diff created, or
    the lines a diff of it showed), and the file found for each diff read."""

    upto: int = -1  # the start of the last diff read
    texts: dict[str, list[list[str]]] = field(default_factory=dict)
    last: dict[str, int] = field(default_factory=dict)  # line of the diff that last showed it
    paths: dict[int, tuple[str, str] | None] = field(default_factory=dict)  # by start: (path, how)

    def _file(self, path: str) -> str:
        for k in self.texts:
            if _same(k, path):
                return k if len(k) >= len(path) else self._rename(k, path)
        self.texts[path] = []
        return path

    def _rename(self, old: str, new: str) -> str:
        self.texts[new] = self.texts.pop(old)
        self.last[new] = self.last.pop(old, 0)
        return new

    def add(self, rec: Record, path: str | None) -> None:
        self.upto = rec.start
        if path is None:
            return
        k = self._file(_key(path))
        self.last[k] = rec.line
        if rec.new_file:
            self.texts[k] = [[line for op, line in rec.fences[0] if op == "+"]]
            return
        for ops in rec.fences:
            for i, text in enumerate(self.texts[k]):
                done = _apply(text, ops)
                if done is not None:
                    self.texts[k][i] = done
                    break
            else:
                # Its lines are not in what was known of the file: that knowledge is wrong or
                # stale (an earlier diff misnamed), so only what this diff shows is kept.
                self.texts[k] = [_post(ops)]

    def by_content(self, fences: tuple[Ops, ...]) -> tuple[str, str] | None:
        """The one file whose text holds the fences' unchanged and removed lines in order, and
        how that was found; None when no file or more than one does, or the lines tell too little."""
        before = [line for ops in fences for op, line in ops if op != "+"]
        if sum(len(line.strip()) for line in before) < MIN_CHARS:
            return None
        found = [k for k, texts in self.texts.items() if any(_fits(text, fences) for text in texts)]
        if len(found) != 1:
            return None
        k = found[0]
        return k, (f"its lines: its unchanged and removed lines are found in order only in the text this "
                   f"document showed for `{k}` (last at line {self.last.get(k, 0)})")


def _fits(text: list[str], fences: tuple[Ops, ...]) -> bool:
    current: list[str] | None = text
    for ops in fences:
        current = _apply(current, ops) if current is not None else None
    return current is not None


def model(cache: dict[str, object], start: int, records: Callable[[int], list[Record]],
          report: Callable[[Record], tuple[str, str] | None]) -> Model:
    """The model of the files shown before ``start`` (from the scan's ``cache``, read on from
    where it stopped when the diffs are asked for in document order). ``records(start)`` lists
    the SpecStory diffs before ``start``; ``report`` names a new file no prose names."""
    m = cache.get("specstory-model")
    if not isinstance(m, Model) or m.upto >= start:
        m = Model()
        cache["specstory-model"] = m
    for rec in records(start):
        if rec.start <= m.upto:
            continue
        m.add(rec, path_of(m, rec, report))
    return m


def path_of(m: Model, rec: Record, report: Callable[[Record], tuple[str, str] | None]) -> str | None:
    """The file of ``rec``: its prose's, else inferred (remembered in ``m.paths``)."""
    if rec.prose_path is not None:
        return rec.prose_path
    if rec.start not in m.paths:
        m.paths[rec.start] = report(rec) if rec.new_file else m.by_content(rec.fences)
    found = m.paths[rec.start]
    return found[0] if found is not None else None


# -- the turn's report of the files it created ---------------------------------------------------

_CREATED = re.compile(r"\b(?:created|added)\b", re.IGNORECASE)
_ITEM = re.compile(r"[ \t]*(?:\d{1,2}[.)]|[-*])[ \t]+(?:\*\*)?`(?P<path>(?:[\w.@+\-]+/)*[\w@+\-][\w.@+\-]*\.[A-Za-z0-9]{1,12})`")
REPORT_LINES = 40  # lines of the report read


def reported_names(text: str, at: int, stop: int) -> list[tuple[str, int]] | None:
    """The files the report from ``at`` (to ``stop``) says were created: a line saying so that
    ends with ``:``, then one list item per file, each opening with the file in backticks (the
    lines under an item are its details); with where each is written. None: no such report."""
    lines: list[tuple[int, int]] = []
    pos = at
    while pos < stop and len(lines) < REPORT_LINES:
        end = text.find("\n", pos, stop)
        end = stop if end < 0 else end
        if text[pos:end].strip():
            lines.append((pos, end))
        pos = end + 1
    for k, (a, b) in enumerate(lines):
        head = text[a:b].rstrip()
        if not head.endswith(":") or _CREATED.search(head) is None or _ITEM.match(head):
            continue
        names: list[tuple[str, int]] = []
        indent = _indent(head)
        for c, d in lines[k + 1:]:
            line = text[c:d]
            if (m := _ITEM.match(line)) is not None and _indent(line) <= indent:
                names.append((m.group("path"), c + m.start("path")))
            elif _indent(line) > indent and names:
                continue  # an item's details
            else:
                break
        return names or None
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
