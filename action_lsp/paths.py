"""The one path validator: what can be told from a path's text alone.

Used by the transcript rule (:mod:`action_lsp.rules.paths`, which adds the quick fix that makes
an absolute path relative) and by the edit engine (:meth:`action_lsp.edit.workspace.Workspace.
resolve`, which then resolves symlinks against the roots), so both say the same thing about the
same path and a front that merges their findings shows each problem once.

A path is refused when it is empty, absolute (``/x``, ``~/x``, ``C:``, UNC), leaves the
workspace through ``..``, holds a control character (C0, DEL, C1) or a bidirectional control
character (the "Trojan Source" trick: ``src/\\u202etxt.exe`` displays as ``src/exe.txt``), has a
component longer than the 255 bytes file systems allow, is longer than ``PATH_MAX``, or uses a
name Windows reserves. Nothing here touches the file system.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

PathCode = Literal["path-traversal", "absolute-path", "invalid-path"]

NAME_MAX = 255  # bytes per path component (ext4, APFS, NTFS in UTF-16 units: 255 too)
PATH_MAX = 4096  # bytes of a whole path on Linux, terminating NUL included

_DRIVE = re.compile(r"^[A-Za-z]:")
_SEP = re.compile(r"[\\/]")
_RESERVED = frozenset(
    ["con", "prn", "aux", "nul"] + [f"com{i}" for i in range(1, 10)] + [f"lpt{i}" for i in range(1, 10)]
)
_WINDOWS_BAD = re.compile(r'[<>:"|?*]')
# C0 controls, DEL, C1 controls; and the bidirectional formatting characters (embeddings,
# overrides, isolates, marks) that reorder how a path is displayed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_BIDI = re.compile(r"[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True, slots=True)
class PathProblem:
    """What is wrong with a path; ``start``/``end`` locate the culprit inside the path string
    when it is a single character (else None: the whole path)."""

    code: PathCode
    message: str
    start: int | None = None
    end: int | None = None


def _char_name(ch: str) -> str:
    if ch == "\x00":
        return "a NUL character"
    name = unicodedata.name(ch, "")
    return f"the control character U+{ord(ch):04X}" + (f" ({name})" if name else "")


def check_path(path: str) -> PathProblem | None:
    """The first thing wrong with ``path`` as written in a transcript, or None."""
    # A transcript names the same few files again and again: answers for short paths are kept.
    return _check_short(path) if len(path) <= 512 else _check_path(path)


def _check_path(path: str) -> PathProblem | None:
    if not path.strip():
        return PathProblem("invalid-path", "the path is empty; name a file relative to the workspace")
    bad = _CONTROL.search(path)
    if bad:
        what = _char_name(bad.group())
        return PathProblem("invalid-path", f"{path!r} contains {what}", bad.start(), bad.end())
    bad = _BIDI.search(path)
    if bad:
        ch = bad.group()
        name = unicodedata.name(ch, "a bidirectional control")
        return PathProblem(
            "invalid-path",
            f"{path!r} contains the bidirectional control character U+{ord(ch):04X} ({name}), "
            "which makes the path display differently from what it is",
            bad.start(),
            bad.end(),
        )
    if path != path.strip():
        return PathProblem("invalid-path", f"`{path}` has leading or trailing spaces")
    if path.startswith(("\\\\", "//")):
        return PathProblem("absolute-path", f"`{path}` is a UNC/network path; use a path relative to the workspace")
    if path.startswith("~"):
        return PathProblem(
            "absolute-path", f"`{path}` is relative to a home directory; use a path relative to the workspace"
        )
    if _DRIVE.match(path):
        return PathProblem("absolute-path", f"`{path}` names a drive; use a path relative to the workspace")
    if path.startswith(("/", "\\")):
        return PathProblem("absolute-path", f"`{path}` is absolute; use a path relative to the workspace")
    parts = _SEP.split(path)
    depth = 0
    for part in parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return PathProblem(
                    "path-traversal",
                    f"`{path}` leaves the workspace through `..`; actions may only touch files inside it",
                )
        elif part not in ("", "."):
            depth += 1
    if depth == 0:
        return PathProblem("invalid-path", f"`{path}` names no file inside the workspace")
    if len(path.encode("utf-8", "surrogatepass")) >= PATH_MAX:
        return PathProblem("invalid-path", f"the path is longer than {PATH_MAX - 1} bytes")
    for part in parts:
        size = len(part.encode("utf-8", "surrogatepass"))
        if size > NAME_MAX:
            short = part[:24] + "…"
            return PathProblem(
                "invalid-path",
                f"the path component `{short}` is {size} bytes long; file systems allow {NAME_MAX}",
            )
        stem = part.split(".", 1)[0].lower()
        if stem in _RESERVED:
            return PathProblem("invalid-path", f"`{part}` is a reserved device name on Windows")
        if part not in ("", ".", "..") and part[-1] in ". ":
            return PathProblem("invalid-path", f"`{part}` ends with a dot or space, which Windows drops")
        bad = _WINDOWS_BAD.search(part)
        if bad:
            return PathProblem(
                "invalid-path", f"`{part}` contains `{bad.group()}`, which is not allowed in file names on Windows"
            )
    return None


_check_short = functools.lru_cache(maxsize=4096)(_check_path)


def too_long(real: str) -> PathProblem | None:
    """A resolved path (root included) the operating system would refuse as too long."""
    if len(real.encode("utf-8", "surrogatepass")) >= PATH_MAX:
        return PathProblem("invalid-path", f"the path in the workspace is longer than {PATH_MAX - 1} bytes")
    return None
