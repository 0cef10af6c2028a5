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

Two lists of places also live here, so that the transcript rules, the edit engine and the
server judge them alike (see docs/edit-engine.md, "Protected paths"):

- :data:`PROTECTED_DIRS` (``.git``, ``.hg``, ``.svn``, ``.jj``, the write journal): nothing a
  transcript says may create, change, rename or delete anything in them (``protected-path``,
  never lifted). The names are compared case-insensitively and after dropping the code points
  HFS+ ignores, with ``..`` resolved first (``a/../.GIT/config``), as git itself compares them.
- :func:`runs_code`: files that make a tool run code when the folder is opened or entered, or
  a commit is made (``.vscode/``, ``.envrc``, ``.husky/``, shell start-up files, ...): written
  only with the user's explicit consent (``runs-code``, a warning; ``apply --allow-code-paths``).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

PathCode = Literal["path-traversal", "absolute-path", "invalid-path", "protected-path"]

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


#: Directories no action may touch: version-control data and action-lsp's own write journal.
PROTECTED_DIRS = frozenset({".git", ".hg", ".svn", ".jj", ".action-lsp-journal"})
# Windows' short (8.3) name of `.git`, which git refuses for the same reason.
_SHORT_NAMES = frozenset({"git~1"})
# Code points HFS+ ignores in names (git's `is_hfs_dotgit`): `.g\u200cit` is `.git` there.
_IGNORED = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")

# What makes a tool run code by itself. Directories (any file below them) and file names (in
# any directory: a workspace may be a home directory, or hold a tool's project), lower case.
_CODE_DIRS: dict[str, str] = {
    ".vscode": "holds VS Code tasks (run when the folder opens), launch configurations and "
               "settings that name programs",
    ".idea": "holds JetBrains run configurations and startup tasks",
    ".github/workflows": "holds GitHub Actions workflows, run on the next push",
    ".husky": "holds git hooks (husky), run at the next commit",
    ".devcontainer": "holds a dev container definition, whose commands run when the folder "
                     "is reopened in the container",
    ".circleci": "holds CircleCI jobs, run on the next push",
}
_CODE_FILES: dict[str, str] = {
    ".envrc": "is run by direnv when a shell enters the folder",
    ".pre-commit-config.yaml": "names the hooks pre-commit runs at the next commit",
    ".lefthook.yml": "names the git hooks lefthook runs", "lefthook.yml": "names the git hooks "
    "lefthook runs",
    ".gitlab-ci.yml": "holds GitLab CI jobs, run on the next push",
    ".devcontainer.json": "holds a dev container definition, whose commands run when the "
                          "folder is reopened in the container",
    ".nvim.lua": "is run by Neovim (`exrc`) when it starts in the folder",
    ".nvimrc": "is run by Neovim (`exrc`) when it starts in the folder",
    ".exrc": "is run by Vim and Neovim (`exrc`) when they start in the folder",
    ".mise.toml": "may hold mise hooks, run when a shell enters the folder",
    "mise.toml": "may hold mise hooks, run when a shell enters the folder",
    **{name: "is run by a shell when it starts" for name in (
        ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
        ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".login",
        ".kshrc", ".mkshrc", ".inputrc")},
}
_CODE_SUFFIXES: dict[str, str] = {
    ".code-workspace": "is a VS Code workspace file, whose tasks and settings run or name "
                       "programs when it is opened",
}


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


def absolute_place(path: str) -> str:
    """Where an absolute path is, to report a transcript's absolute paths once per place: its
    root and first two components (``/Users/dev``, ``C:/Apps``, ``~``, ``/server/share``)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    head = "/" if path[:1] in "/\\" else ""
    return head + "/".join(parts[:2]) if len(parts) > 2 else head + "/".join(parts[:1])


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
    kept: list[str] = []  # the path's components once `.` and `..` are resolved
    for part in parts:
        if part == "..":
            if not kept:
                return PathProblem(
                    "path-traversal",
                    f"`{path}` leaves the workspace through `..`; actions may only touch files inside it",
                )
            kept.pop()
        elif part not in ("", "."):
            kept.append(part)
    if not kept:
        return PathProblem("invalid-path", f"`{path}` names no file inside the workspace")
    protected = protected_part(kept)
    if protected is not None:
        return protected_problem(path, protected)
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


def _folded(part: str) -> str:
    """A name as a case-insensitive file system (and HFS+) compares it."""
    return _IGNORED.sub("", part).casefold()


def protected_part(parts: Sequence[str]) -> str | None:
    """The protected directory (:data:`PROTECTED_DIRS`) among ``parts``, a path's components
    relative to the workspace root, ``..`` already resolved; None when there is none."""
    for part in parts:
        name = _folded(part)
        if name in PROTECTED_DIRS or name in _SHORT_NAMES:
            return part
    return None


def protected_problem(path: str, part: str, how: str = "is in") -> PathProblem:
    return PathProblem(
        "protected-path",
        f"`{path}` {how} `{part}`, which holds version-control data or action-lsp's journal; "
        "no action may create, change, rename or delete anything there",
    )


def runs_code(parts: Sequence[str]) -> str | None:
    """Why the file at ``parts`` (components relative to the workspace root, ``..`` resolved)
    makes a tool run code by itself; None when it does not."""
    folded = [_folded(p) for p in parts]
    for i in range(len(folded)):
        for length in (1, 2):  # `.vscode/...`, `.github/workflows/...`
            key = "/".join(folded[i:i + length])
            if key in _CODE_DIRS and i + length <= len(folded):
                return f"`{key}/` {_CODE_DIRS[key]}"
    name = folded[-1] if folded else ""
    if name in _CODE_FILES:
        return f"`{name}` {_CODE_FILES[name]}"
    for suffix, why in _CODE_SUFFIXES.items():
        if name.endswith(suffix):
            return f"a `{suffix}` file {why}"
    return None


def too_long(real: str) -> PathProblem | None:
    """A resolved path (root included) the operating system would refuse as too long."""
    if len(real.encode("utf-8", "surrogatepass")) >= PATH_MAX:
        return PathProblem("invalid-path", f"the path in the workspace is longer than {PATH_MAX - 1} bytes")
    return None


def under_root(path: str, root: str) -> int | None:
    """Where the workspace-relative part of the absolute ``path`` starts when it lies under the
    directory ``root`` (a session's recorded working directory), else None.

    Windows paths compare as Windows does: a drive letter in either case, ``\\`` and ``/``
    alike, and the rest of the path case-insensitively (``c:\\Apps\\shop\\src\\a.ts`` is under
    ``C:/Apps/shop``). POSIX paths compare exactly. The root itself, or a root that is no
    absolute path, gives None: what stays is an ``absolute-path`` error.
    """
    trimmed = root.rstrip("/\\")
    windows = bool(_DRIVE.match(trimmed))
    if not trimmed or not (windows or trimmed.startswith("/")) or len(path) <= len(trimmed):
        return None
    head, sep = path[: len(trimmed)], path[len(trimmed)]
    if windows:
        same = head.replace("\\", "/").casefold() == trimmed.replace("\\", "/").casefold()
        if not same or sep not in "/\\":
            return None
    elif head != trimmed or sep != "/":
        return None
    cut = len(trimmed) + 1
    while cut < len(path) and path[cut] in "/\\":
        cut += 1
    return cut if cut < len(path) else None
