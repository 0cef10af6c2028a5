"""One unified diff for a plan: ``--- a/PATH`` / ``+++ b/PATH``, ``/dev/null`` for created and
deleted files. Lines keep their own line endings (a CRLF file's lines end in CRLF in the diff)
and a last line without a line break gets ``\\ No newline at end of file``, so that ``patch``
and ``git apply`` reproduce the change byte for byte (BOMs aside: a BOM is never changed).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

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
    out = [f"--- {a}\n", f"+++ {b}\n"]
    old_lines, new_lines = _lines(old), _lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
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
