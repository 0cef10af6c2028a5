"""One unified diff for a plan: ``--- a/PATH`` / ``+++ b/PATH``, ``/dev/null`` for created and
deleted files. Lines keep their own line endings (a CRLF file's lines end in CRLF in the diff)
and a last line without a line break gets ``\\ No newline at end of file``, so that ``patch``
and ``git apply`` reproduce the change byte for byte (BOMs aside: a BOM is never changed).
"""

from __future__ import annotations

import bisect
import difflib
from collections.abc import Iterable
from typing import Any

from .plan import FileChange, Plan

NO_EOL = "\\ No newline at end of file\n"


def _lines(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    n = len(text)
    while start < n:
        nl = text.find("\n", start)
        end = n if nl < 0 else nl + 1
        out.append(text[start:end])
        start = end
    return out


def file_diff(change: FileChange, context: int = 3) -> str:
    if change.kind == "mkdir":
        return ""
    old = change.old_text or ""
    new = change.new_text if change.kind != "delete" else ""
    if old == new and change.kind == "modify":
        return ""
    a = "/dev/null" if change.kind == "create" and change.old_bytes is None else f"a/{change.rel}"
    b = "/dev/null" if change.kind == "delete" else f"b/{change.rel}"
    # A chat answer merged into the file says so after the name (a tab: the field a unified
    # diff gives a date, which patch, git apply and unidiff read past).
    title = f"\t({change.merged} merged)" if change.merged else ""
    out = [f"--- {a}\n", f"+++ {b}{title}\n"]
    old_lines, new_lines = _lines(old), _lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    if change.kind == "modify" and len(change.edits) > 1:
        matcher.opcodes = _opcodes(old, old_lines, new_lines, change.edits)  # type: ignore[attr-defined]
    for group in matcher.get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@\n")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_emit(" ", old_lines[a1:a2]))
                continue
            if tag in ("replace", "delete"):
                out.extend(_emit("-", old_lines[a1:a2]))
            if tag in ("replace", "insert"):
                out.extend(_emit("+", new_lines[b1:b2]))
    return "".join(out) if len(out) > 2 else ""


def _opcodes(old: str, old_lines: list[str], new_lines: list[str],
             edits: list[tuple[int, int, str]]) -> list[tuple[str, int, int, int, int]] | None:
    """The line opcodes of a change from its edits: lines no edit touches are equal, and only
    the lines around each edit are compared (difflib over the whole file compares every edit's
    lines with the rest: a diff of 20,000 edits took minutes). None when the edits do not make
    ``new_lines`` (then the whole file is compared)."""
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    last = len(old_lines)
    regions: list[list[Any]] = []  # [first old line, end old line, edits]
    for s, e, t in edits:
        a = bisect.bisect_right(starts, s) - 1
        if a == last and a and not old_lines[-1].endswith("\n"):
            a -= 1  # appended to a last line without its line break: that line changes
        b = max(a, min(last, bisect.bisect_left(starts, e)))  # the first line at or after e
        if regions and a <= regions[-1][1]:
            regions[-1][1] = max(regions[-1][1], b)
            regions[-1][2].append((s, e, t))
        else:
            regions.append([a, b, [(s, e, t)]])
    codes: list[tuple[str, int, int, int, int]] = []
    i = j = k = 0
    while k < len(regions):
        a, b, group = regions[k]
        pos, pieces = starts[a], []
        for s, e, t in group:
            pieces.append(old[pos:s] + t)
            pos = e
        if pos > starts[b]:
            return None
        text = "".join(pieces) + old[pos : starts[b]]
        if text and not text.endswith("\n") and b < last:  # the next line joins it
            regions[k][1] = b + 1
            if k + 1 < len(regions) and regions[k + 1][0] <= b + 1:
                nxt = regions.pop(k + 1)
                regions[k][1] = max(b + 1, nxt[1])
                regions[k][2].extend(nxt[2])
            continue
        k += 1
        if a > i:
            codes.append(("equal", i, a, j, j + a - i))
            j += a - i
        new_part = _lines(text)
        if new_lines[j : j + len(new_part)] != new_part:
            return None
        local = difflib.SequenceMatcher(None, old_lines[a:b], new_part, autojunk=False)
        codes.extend((tag, a + a1, a + a2, j + b1, j + b2) for tag, a1, a2, b1, b2 in local.get_opcodes())
        i, j = b, j + len(new_part)
    if last - i != len(new_lines) - j:
        return None
    codes.append(("equal", i, last, j, len(new_lines)))
    merged: list[tuple[str, int, int, int, int]] = []
    for code in codes:  # one equal run between changes, as difflib gives it; no empty ones
        if code[0] == "equal" and code[2] == code[1]:
            continue
        if merged and code[0] == merged[-1][0] == "equal":
            prev = merged.pop()
            code = ("equal", prev[1], code[2], prev[3], code[4])
        merged.append(code)
    return merged or [("equal", 0, 0, 0, 0)]


def _range(start: int, stop: int) -> str:
    length = stop - start
    first = start + 1 if length else start
    return f"{first}" if length == 1 else f"{first},{length}"


def _emit(prefix: str, lines: Iterable[str]) -> Iterable[str]:
    for line in lines:
        if line.endswith("\n"):
            yield prefix + line
        else:
            yield prefix + line + "\n"
            yield NO_EOL


def unified_diff(plan: Plan | Iterable[FileChange], context: int = 3) -> str:
    changes = plan.changes if isinstance(plan, Plan) else list(plan)
    return "".join(file_diff(c, context) for c in changes)


def validate(diff_text: str) -> int:
    """Parse ``diff_text`` with unidiff; returns the number of files (raises when malformed)."""
    from unidiff import PatchSet

    return len(PatchSet(diff_text))
