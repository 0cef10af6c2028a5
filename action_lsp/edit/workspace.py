"""The files an action may touch: path resolution inside the roots, and faithful reading.

A path from a transcript is accepted only when it is relative and its *real* path (every
symlink resolved, parent directories included) stays inside one of the workspace roots. Files
are read as bytes and decoded as UTF-8 (with or without a BOM); what is needed to write them
back unchanged — BOM, line-ending style, file mode — is kept beside the text.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from ..paths import (
    PROTECTED_DIRS,
    PathProblem,
    check_path,
    protected_part,
    protected_problem,
    runs_code,
    too_long,
)

BOM = b"\xef\xbb\xbf"

Newline = Literal["\n", "\r\n", "mixed", "none"]


@dataclass(frozen=True, slots=True)
class Target:
    """A resolved action path: ``path`` is the real path written, ``rel`` the path as shown."""

    path: Path
    rel: str
    root: Path


@dataclass(frozen=True, slots=True)
class FileText:
    """A file's decoded text and what it takes to write it back the same way."""

    text: str
    raw: bytes | None  # bytes on disk (None when the text comes only from an open editor)
    bom: bool
    newline: Newline
    mode: int | None  # permission bits (st_mode & 0o7777)
    readonly: bool = False  # no write permission (mode without any w bit, or not for us)

    def encode(self, text: str) -> bytes:
        return (BOM if self.bom else b"") + text.encode("utf-8")


@dataclass(frozen=True, slots=True)
class ReadProblem:
    code: Literal["file-not-found", "file-unreadable"]
    message: str


def newline_style(text: str) -> Newline:
    crlf = text.count("\r\n")
    lf = text.count("\n")
    if lf == 0:
        return "none"
    if crlf == lf:
        return "\r\n"
    return "\n" if crlf == 0 else "mixed"


def decode(data: bytes) -> tuple[str, bool] | None:
    """(text, had BOM), or None when ``data`` is not UTF-8."""
    bom = data.startswith(BOM)
    try:
        return data[len(BOM) :].decode("utf-8") if bom else data.decode("utf-8"), bom
    except UnicodeDecodeError:
        return None


def _readonly(path: Path, st: os.stat_result) -> bool:
    """No write bit at all (``chmod a-w``, even for root), or none this process may use."""
    return not st.st_mode & 0o222 or not os.access(path, os.W_OK)


def _protected_dirs(roots: Iterable[Path]) -> list[Path]:
    """The protected directories of each root and of every directory above it (a root may
    lie in a repository, itself inside another), and where a ``.git`` file (a worktree)
    points."""
    out: list[Path] = []
    for root in roots:
        for d in (root, *root.parents):
            here = [d / name for name in sorted(PROTECTED_DIRS) if os.path.lexists(d / name)]
            for p in here:
                if p.is_dir() and not p.is_symlink():
                    out.append(p)
                elif p.name == ".git" and p.is_file():
                    out.extend(_gitdir_of(p))
    return out


def _gitdir_of(gitfile: Path) -> list[Path]:
    """The directories a ``.git`` file (``gitdir: ...``) names, with the common one."""
    try:
        first = gitfile.read_text(encoding="utf-8", errors="replace")[:4096].splitlines()[0]
    except (OSError, IndexError):
        return []
    if not first.startswith("gitdir:"):
        return []
    gitdir = (gitfile.parent / first[len("gitdir:"):].strip()).resolve()
    out = [gitdir] if gitdir.is_dir() else []
    try:
        common = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        if common and (gitdir / common).resolve().is_dir():
            out.append((gitdir / common).resolve())
    except OSError:
        pass
    return out


def _linked(st: os.stat_result) -> tuple[int, int] | None:
    """(device, inode) of a regular file with other names (hard links); None for a file with
    one name (its real path says it all), or whose file system gives no inode."""
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and st.st_ino else None


def _identity(path: Path) -> tuple[Path, tuple[int, int] | None]:
    """A file's real path and, when it has other names, its (device, inode) (:func:`_linked`;
    None too when it is not there, ``-``)."""
    real = path.resolve()
    try:
        return real, _linked(os.stat(real))
    except OSError:
        return real, None


class Workspace:
    """The roots actions are resolved against, and the way files are read.

    One is made for each operation (a check, a plan and its write, a request): each path it
    resolves is resolved on disk once (a session writes the same few files thousands of times).
    """

    def __init__(
        self,
        root: Path | str,
        extra_roots: Iterable[Path | str] = (),
        allow_overwrite: bool = False,
        read_override: Callable[[Path], str | None] | None = None,
        allow_readonly: bool = False,
        *,
        transcript: Path | str | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        #: The transcript being applied (its real path and its file's identity): no action of
        #: it may change, rename or delete it -- nor a hard link to it (see :meth:`_resolve`).
        self.transcript: tuple[Path, tuple[int, int] | None] | None = (
            _identity(Path(transcript)) if transcript is not None else None
        )
        self.roots: tuple[Path, ...] = (self.root, *(Path(r).resolve() for r in extra_roots))
        self.allow_overwrite = allow_overwrite
        self.read_override = read_override
        self.allow_readonly = allow_readonly  # write files without write permission (--force)
        self._resolved: dict[str, Target | PathProblem] = {}
        self._runs: dict[Target, str | None] = {}  # runs_code's answers (asked at each action)
        self._protected_files: set[tuple[int, int]] | None = None  # see protected_inodes

    def contains(self, real: Path) -> bool:
        return any(real == r or real.is_relative_to(r) for r in self.roots)

    def resolve(self, rel: str) -> Target | PathProblem:
        """The real path of ``rel``: refused when absolute or when it leaves every root."""
        found = self._resolved.get(rel)
        if found is None:
            found = self._resolved[rel] = self._resolve(rel)
        return found

    def _resolve(self, rel: str) -> Target | PathProblem:
        problem = check_path(rel)
        if problem is not None:
            return problem
        posix = str(PurePosixPath(*[p for p in re.split(r"[\\/]", rel) if p not in ("", ".")]))
        candidates = []
        for root in self.roots:
            joined = root / posix
            try:
                real = joined.resolve()
            except (OSError, RuntimeError) as exc:  # symlink loop
                return PathProblem("path-traversal", f"{rel!r} cannot be resolved: {exc}")
            if (long := too_long(str(real))) is not None:
                return long
            candidates.append((root, joined, real))
        # The first root where the path exists, else the main root (a file to create).
        chosen = next((c for c in candidates if os.path.lexists(c[1])), candidates[0])
        root, _joined, real = chosen
        if not self.contains(real):
            how = "through a symlink " if ".." not in posix.split("/") else ""
            return PathProblem(
                "path-traversal", f"{rel!r} leads {how}outside the workspace (to {real})"
            )
        inside = next(r for r in self.roots if real == r or real.is_relative_to(r))
        part = protected_part(real.relative_to(inside).parts)
        if part is not None:  # a symlinked file or parent leading into .git, ...
            return protected_problem(rel, part, "leads through a symbolic link into")
        if self.transcript is not None and self._is_transcript(real):
            return PathProblem(
                "protected-path",
                f"`{rel}` is the transcript being applied; no action of it may change, rename "
                "or delete it",
            )
        if self._linked_into_protected(real):
            return PathProblem(
                "protected-path",
                f"`{rel}` is a hard link to a file inside a protected directory "
                f"({', '.join(sorted(PROTECTED_DIRS))}); no action may change it",
            )
        return Target(real, posix, root)

    def _is_transcript(self, real: Path) -> bool:
        """Whether ``real`` is the transcript being applied (the same path, or a hard link)."""
        assert self.transcript is not None
        path, inode = self.transcript
        if real == path:
            return True
        if inode is None:
            return False
        try:
            st = os.stat(real)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == inode

    def runs_code(self, target: Target) -> str | None:
        """Why writing ``target`` would make a tool run code by itself (as typed, or where a
        symlink leads), or None; see :func:`action_lsp.paths.runs_code`."""
        if target in self._runs:
            return self._runs[target]
        why = runs_code(PurePosixPath(target.rel).parts)
        if why is None:
            inside = next((r for r in self.roots if target.path.is_relative_to(r)), None)
            if inside is not None:
                why = runs_code(target.path.relative_to(inside).parts)
        self._runs[target] = why
        return why

    def _linked_into_protected(self, real: Path) -> bool:
        """Whether ``real`` is a file with other names, one of them inside a protected
        directory (a hard link into ``.git``): writing it in place would change that file."""
        try:
            linked = _linked(os.lstat(real))
        except OSError:
            return False
        return linked is not None and linked in self.protected_inodes()

    def protected_inodes(self) -> set[tuple[int, int]]:
        """(device, inode) of the files with several names in the protected directories of
        each root and of the directories above it (walked once, and only when a target has
        several names: a large ``.git`` costs its walk then)."""
        if self._protected_files is None:
            found: set[tuple[int, int]] = set()
            for top in _protected_dirs(self.roots):
                for dirpath, _dirs, files in os.walk(top):
                    for name in files:
                        try:
                            linked = _linked(os.lstat(os.path.join(dirpath, name)))
                        except OSError:
                            continue
                        if linked is not None:
                            found.add(linked)
            self._protected_files = found
        return self._protected_files

    def read(self, path: Path) -> FileText | ReadProblem:
        """Read an existing file (``path`` is a real path from :meth:`resolve`)."""
        override = self.read_override(path) if self.read_override is not None else None
        try:
            st = os.stat(path)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            return ReadProblem("file-unreadable", f"cannot read {path}: {exc.strerror}")
        if override is not None:
            raw = None
            bom = False
            if st is not None and stat.S_ISREG(st.st_mode):
                try:
                    with open(path, "rb") as fh:
                        bom = fh.read(3) == BOM
                except OSError:
                    pass
            mode = stat.S_IMODE(st.st_mode) if st is not None else None
            ro = st is not None and _readonly(path, st)
            return FileText(override, raw, bom, newline_style(override), mode, ro)
        if st is None:
            return ReadProblem("file-not-found", "the file does not exist")
        if stat.S_ISDIR(st.st_mode):
            return ReadProblem("file-unreadable", "the path is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            return ReadProblem("file-unreadable", "the path is not a regular file")
        try:
            data = path.read_bytes()
        except OSError as exc:
            return ReadProblem("file-unreadable", f"cannot read the file: {exc.strerror}")
        decoded = decode(data)
        if decoded is None:
            return ReadProblem(
                "file-unreadable",
                "the file is not UTF-8 text (binary or another encoding); "
                "action-lsp will not modify it",
            )
        text, bom = decoded
        return FileText(
            text, data, bom, newline_style(text), stat.S_IMODE(st.st_mode), _readonly(path, st)
        )

    def exists(self, path: Path) -> bool:
        return os.path.lexists(path)
