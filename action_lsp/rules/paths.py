"""``path-traversal``, ``absolute-path``, ``invalid-path``: what can be told from a path's text.

Symlinks that point out of the workspace need the file system; the edit engine checks those.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from ..model import Action, Diagnostic, Field, Fix, TextEdit
from . import RuleContext

PATH_FIELDS = ("path", "from", "to")
_DRIVE = re.compile(r"^[A-Za-z]:[\\/]?")
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(1, 10)] + [f"lpt{i}" for i in range(1, 10)]
)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_WINDOWS_BAD = re.compile(r'[<>:"|?*]')


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if not action.kind.is_file_action and action.kind.value != "read_file":
            continue
        for name in PATH_FIELDS:
            f = action.fields.get(name)
            if f is not None and isinstance(f.value, str):
                problem = path_problem(f, ctx.roots)
                if problem is not None:
                    yield problem


def path_problem(f: Field, roots: Sequence[str] = ()) -> Diagnostic | None:
    """The first thing wrong with the path in field ``f``, if any."""
    path: str = f.value
    span = f.span if len(f.span) else (f.key_span or f.span)
    if not path.strip():
        return Diagnostic("invalid-path", f"`{f.name}` is empty; name a file relative to the workspace", span)
    bad = _CONTROL.search(path)
    if bad:
        what = "a NUL character" if bad.group() == "\x00" else f"the control character U+{ord(bad.group()):04X}"
        return Diagnostic("invalid-path", f"`{path!r}` contains {what}", f.value_span(bad.start(), bad.end()))
    if path != path.strip():
        return Diagnostic("invalid-path", f"`{path}` has leading or trailing spaces", span)
    if path.startswith(("\\\\", "//")):
        return Diagnostic("absolute-path", f"`{path}` is a UNC/network path; use a path relative to the workspace", span)
    if path.startswith("~"):
        return Diagnostic("absolute-path", f"`{path}` is relative to a home directory; use a path relative to the workspace", span)
    if _DRIVE.match(path):
        return Diagnostic("absolute-path", f"`{path}` names a drive; use a path relative to the workspace", span)
    if path.startswith(("/", "\\")):
        return _absolute(f, path, span, roots)
    parts = re.split(r"[\\/]", path)
    depth = 0
    for part in parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return Diagnostic(
                    "path-traversal",
                    f"`{path}` leaves the workspace through `..`; actions may only touch files inside it",
                    span,
                )
        elif part not in ("", "."):
            depth += 1
    for part in parts:
        stem = part.split(".", 1)[0].lower()
        if stem in _RESERVED:
            return Diagnostic("invalid-path", f"`{part}` is a reserved device name on Windows", span)
        if part not in ("", ".", "..") and part[-1] in ". ":
            return Diagnostic("invalid-path", f"`{part}` ends with a dot or space, which Windows drops", span)
        bad = _WINDOWS_BAD.search(part)
        if bad:
            return Diagnostic("invalid-path", f"`{part}` contains `{bad.group()}`, which is not allowed in file names on Windows", span)
    return None


def _absolute(f: Field, path: str, span, roots: Sequence[str]) -> Diagnostic:
    fixes = []
    for root in roots:
        root_posix = PurePosixPath(os.path.normpath(root))
        candidate = PurePosixPath(os.path.normpath(path.replace("\\", "/")))
        try:
            rel = candidate.relative_to(root_posix)
        except ValueError:
            continue
        if str(rel) != ".":
            fixes.append(Fix(f"Make the path relative: {rel}", [TextEdit(f.span, str(rel))], True))
        break
    inside = " (it points inside the workspace)" if fixes else ""
    return Diagnostic("absolute-path", f"`{path}` is absolute{inside}; use a path relative to the workspace", span, fixes=fixes)
