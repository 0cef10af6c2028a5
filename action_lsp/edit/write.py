"""Write a plan to disk, all or nothing.

Every new content goes to a temporary file beside its target (same directory, so the final
rename is atomic), is fsynced and given the old file's mode; only when all of them are ready
are they renamed over their targets. A failure before that removes the temporaries and the
directories this write created, and raises: nothing visible has changed. Before writing, every
target is checked against the bytes the plan was made from, so a file changed in between is
never overwritten. Bytes are written exactly as planned (BOM and line endings included).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .plan import FileChange, Plan


class WriteError(Exception):
    """Nothing was written (or, for a failed rename, what could be was rolled back)."""


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _check_unchanged(change: FileChange) -> None:
    path = change.path
    if change.kind == "mkdir":
        if os.path.lexists(path) and not path.is_dir():
            raise WriteError(f"{change.rel}: a file now exists where a directory is to be made")
        return
    if change.old_bytes is None:
        if os.path.lexists(path):
            raise WriteError(f"{change.rel}: the file appeared since the plan was made")
        return
    try:
        current = path.read_bytes()
    except OSError as exc:
        raise WriteError(f"{change.rel}: cannot read it again: {exc.strerror}") from exc
    if current != change.old_bytes:
        raise WriteError(f"{change.rel}: the file changed since the plan was made")


def _make_parents(directory: Path, created: list[Path]) -> None:
    missing: list[Path] = []
    d = directory
    while not d.exists():
        missing.append(d)
        if d.parent == d:
            break
        d = d.parent
    for d in reversed(missing):
        os.mkdir(d)
        created.append(d)


def write_plan(plan: Plan | list[FileChange]) -> None:
    """Apply the changes of ``plan`` to disk, all or none (raises :class:`WriteError`)."""
    changes = plan.changes if isinstance(plan, Plan) else plan
    for change in changes:
        _check_unchanged(change)
    created_dirs: list[Path] = []
    temps: list[tuple[str, FileChange]] = []
    default_mode = 0o666 & ~_umask()
    try:
        for change in changes:
            if change.kind == "mkdir":
                _make_parents(change.path, created_dirs)
                continue
            if change.kind == "delete":
                continue
            _make_parents(change.path.parent, created_dirs)
            fd, tmp = tempfile.mkstemp(
                prefix=f".{change.path.name}.", suffix=".action-lsp.tmp", dir=change.path.parent
            )
            temps.append((tmp, change))
            with os.fdopen(fd, "wb") as fh:
                fh.write(change.new_bytes)
                fh.flush()
                os.fchmod(fh.fileno(), change.mode if change.mode is not None else default_mode)
                os.fsync(fh.fileno())
    except BaseException as exc:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        for d in reversed(created_dirs):
            with contextlib.suppress(OSError):
                os.rmdir(d)
        if isinstance(exc, OSError):
            raise WriteError(f"nothing was written: {exc}") from exc
        raise
    # The commit point: renames (atomic each); deletions last.
    done: list[FileChange] = []
    try:
        for tmp, change in temps:
            os.replace(tmp, change.path)
            done.append(change)
        for change in changes:
            if change.kind == "delete":
                os.unlink(change.path)
                done.append(change)
    except OSError as exc:
        _roll_back(done, [t for t, c in temps if c not in done])
        raise WriteError(f"write failed and was rolled back: {exc}") from exc
    for directory in {c.path.parent for c in changes}:
        _fsync_dir(directory)


def _roll_back(done: list[FileChange], pending: list[str]) -> None:
    for tmp in pending:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
    for change in reversed(done):
        with contextlib.suppress(OSError):
            if change.old_bytes is None:
                os.unlink(change.path)
            else:
                fd, tmp = tempfile.mkstemp(dir=change.path.parent)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(change.old_bytes)
                    if change.mode is not None:
                        os.fchmod(fh.fileno(), change.mode)
                os.replace(tmp, change.path)


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
