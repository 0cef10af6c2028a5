"""Write a plan to disk, all or nothing, even across a crash.

1. Under the journal lock, every target is checked against the bytes the plan was made from
   (a file changed in between is never overwritten) and its mode, owner, group and link count
   are read.
2. The journal (:mod:`.journal`) is written and fsynced: every entry, and the old bytes of
   every file to modify or delete. Nothing of the workspace has been touched yet.
3. The missing directories are created and every new content is written to a temporary file
   beside its target, fsynced, with the target's owner, group and mode (new files: the
   directory's group as the system gives it, mode ``0666 & ~umask``). A failure here removes
   the temporaries and the new directories and raises :class:`WriteError`.
4. The journal is marked committed; then the temporaries are renamed over their targets
   (atomic each). A file with several hard links, or whose owner this process could not give
   back, is instead written *in place* (same inode: every name sees the change; the journal's
   backup makes it recoverable). Deletions come last. Right before each of these, the target
   is checked again (:func:`_still_as_planned`: inode, size, modification time, content): a
   file saved by someone meanwhile is a conflict, and the whole write is rolled back (the
   rollback leaves that file as it is, the rule of the recovery).
5. The journal is removed.

A kill before 4 is rolled back by the next recovery, a kill after it rolled forward (see
:func:`.journal.recover`). Bytes are written exactly as planned (BOM and line endings).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from ..paths import protected_part
from .journal import (
    COMMITTED_FILE,
    JOURNAL_DIR,
    JOURNAL_FILE,
    Entry,
    Journal,
    JournalError,
    _Files,
    _open_regular,
    _recover_locked,
    _sync_parents,
    fsync_dir,
    locked,
    remove_dirs,
    remove_journal,
    roll_back_committed,
    sha,
    temp_name,
    write_in_place,
    write_new,
)
from .plan import FileChange, Plan


class WriteError(Exception):
    """A write that did not happen. ``settled``: every file is as it was before (nothing was
    written, or what was is rolled back); false only when rolling back failed too, and the
    journal is kept for the next recovery to finish."""

    def __init__(self, message: str, *, settled: bool = True) -> None:
        super().__init__(message)
        self.settled = settled


def _half_way(what: str, journal: Journal) -> WriteError:
    """The error of a write left part new, part old, with its journal kept."""
    return WriteError(
        f"{what}; some files are written, some not: the journal under {journal.jdir} is kept, "
        "and the next `action-lsp apply` (or the language server's start) finishes or undoes it",
        settled=False,
    )


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


def _no_new_symlink(change: FileChange) -> None:
    """Raise if a symlink now stands on the way to the target. The plan resolved every path
    (symlinks included) and checked it lies in the workspace; a link planted since then (the
    target or a directory above it) could lead the write out of it."""
    at = change.path
    while not os.path.lexists(at) and at.parent != at:
        at = at.parent
    if os.path.realpath(at) != str(at):
        raise WriteError(f"{change.rel}: a symlink appeared on its path since the plan was made "
                         f"({at} now leads to {os.path.realpath(at)})")


def _check_unchanged(change: FileChange) -> os.stat_result | None:
    """Raise unless the target is as planned; the stat of an existing file to modify/delete."""
    path = change.path
    _no_new_symlink(change)
    if change.kind == "mkdir":
        if os.path.lexists(path) and not path.is_dir():
            raise WriteError(f"{change.rel}: a file now exists where a directory is to be made")
        return None
    if change.old_bytes is None:
        if os.path.lexists(path):
            raise WriteError(f"{change.rel}: the file appeared since the plan was made")
        return None
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            current = fh.read()
    except OSError as exc:
        raise WriteError(f"{change.rel}: cannot read it again: {exc.strerror}") from exc
    if not stat.S_ISREG(st.st_mode):
        raise WriteError(f"{change.rel}: no longer a regular file")
    if current != change.old_bytes:
        raise WriteError(f"{change.rel}: the file changed since the plan was made")
    return st


class _Changed(Exception):
    """A target changed since the plan, found just before its final rename or write."""

    def __init__(self, rel: str, how: str) -> None:
        super().__init__(f"{rel}: {how}")
        self.rel, self.how = rel, how


def _still_as_planned(
    entry: Entry, target: Path, st: os.stat_result | None, ours: set[tuple[int, int]]
) -> None:
    """Raise :class:`_Changed` unless ``target`` is as the plan (and the check at the start,
    ``st``) found it: absent for a new file; else the same inode, size, modification time and
    content (SHA-256). ``ours``: files this write has already rewritten in place, which may
    hold their new bytes (one file under several names)."""
    if entry.old_sha is None:
        if os.path.lexists(target):
            raise _Changed(entry.rel, "a file appeared there")
        return
    assert st is not None
    fd = _open_regular(target)
    if fd is None:
        raise _Changed(entry.rel, "it is gone")
    if isinstance(fd, str):
        raise _Changed(entry.rel, f"it is now a {fd.strip('<>')}")
    with open(fd, "rb") as fh:
        now = os.fstat(fh.fileno())
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
    key = (now.st_dev, now.st_ino)
    if key in ours and now.st_ino and digest in (entry.new_sha, entry.linked_new):
        return
    if key != (st.st_dev, st.st_ino):
        raise _Changed(entry.rel, "replaced by another file: a new inode")
    if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns) or digest != entry.old_sha:
        raise _Changed(entry.rel, "modified")


def _linked_new_bytes(
    changes: list[FileChange], stats: list[os.stat_result | None]
) -> dict[int, bytes]:
    """Changes that reach one file under several names (hard links, or one file mounted twice):
    every modification of it must give the same bytes (else the write is refused); a deletion
    of one of its names gets those bytes, which the file may hold when it is deleted. (A file
    system that numbers no inode, ``st_ino`` 0, is not checked.)"""
    groups: dict[tuple[int, int], list[int]] = {}
    for i, st in enumerate(stats):
        if st is not None and st.st_ino:
            groups.setdefault((st.st_dev, st.st_ino), []).append(i)
    out: dict[int, bytes] = {}
    for group in groups.values():
        modified = [i for i in group if changes[i].kind == "modify"]
        if len(group) < 2 or not modified:
            continue
        first = changes[modified[0]]
        modified_entries = {_entry_key(changes[m].path) for m in modified}
        for i in group:
            if changes[i].kind == "delete":
                if _entry_key(changes[i].path) in modified_entries:
                    raise WriteError(f"{changes[i].rel} is {first.rel} reached by another path "
                                     "(a bind mount, a linked directory); a write may not both "
                                     "change and delete it")
                out[i] = first.new_bytes
        for i in modified[1:]:
            if changes[i].new_bytes != first.new_bytes:
                raise WriteError(f"{first.rel} and {changes[i].rel} are the same file (hard "
                                 "links, or one file reached twice); a write may not give it "
                                 "two different contents")
    return out


def _entry_key(path: Path) -> tuple[int, int, str]:
    """One directory entry, however it is reached: its directory's file and its name."""
    st = os.stat(path.parent)
    return st.st_dev, st.st_ino, path.name


def _missing_dirs(directory: Path, planned: set[Path], out: list[Path]) -> None:
    missing: list[Path] = []
    d = directory
    while d not in planned and not d.exists():
        missing.append(d)
        if d.parent == d:
            break
        d = d.parent
    for d in reversed(missing):
        planned.add(d)
        out.append(d)


def _may_keep_owner(st: os.stat_result) -> bool:
    """Whether a new inode could get ``st``'s owner and group back."""
    if os.geteuid() == 0:
        return True
    if st.st_uid != os.geteuid():
        return False
    return st.st_gid == os.getegid() or st.st_gid in os.getgroups()


def _common_root(changes: list[FileChange]) -> Path:
    parents = [str(c.path if c.kind == "mkdir" else c.path.parent) for c in changes]
    root = Path(os.path.commonpath(parents))
    while not root.is_dir() and root.parent != root:
        root = root.parent
    return root


def write_plan(
    plan: Plan | list[FileChange], *, root: Path | str | None = None, label: str = "",
    extra_roots: Iterable[Path | str] = (), on_wait: Callable[[str], None] | None = None,
) -> list[str]:
    """Apply the changes of ``plan`` to disk, all or none (raises :class:`WriteError`).

    The journal lives under ``root`` (the workspace root; default: the deepest directory
    holding every change); ``label`` names the write in a later recovery report;
    ``extra_roots``: the other directories a write here may touch (the server's extra roots),
    for finishing an earlier interrupted one first. Returns warnings for the user about a write
    that is complete (its journal could not be removed).
    """
    changes = [c for c in (plan.changes if isinstance(plan, Plan) else plan)]
    if not changes:
        return []
    base = Path(root) if root is not None else _common_root(changes)
    jarea = base.resolve() / JOURNAL_DIR
    for change in changes:
        if change.path == jarea or change.path.is_relative_to(jarea):
            raise WriteError(f"{change.rel}: action-lsp keeps its journal there")
        # The plan refuses these (protected-path); a list of changes made by hand is checked too.
        part = protected_part(change.path.relative_to(base.resolve()).parts
                              if change.path.is_relative_to(base.resolve()) else ())
        if part is not None:
            raise WriteError(f"{change.rel}: inside {part}, which no write may touch")
    try:
        with locked(base, create=True, on_wait=on_wait) as jdir:
            assert jdir is not None
            try:
                # A write interrupted earlier (and not yet recovered by the caller) goes first.
                try:
                    earlier = _recover_locked(base, jdir, keep_dir=True, extra_roots=extra_roots)
                except (OSError, JournalError) as exc:
                    raise WriteError(
                        f"an earlier interrupted apply under {base} could not be finished or "
                        f"undone first: {exc}"
                    ) from exc
                if earlier is not None and earlier.journal_left:
                    raise WriteError(f"an earlier interrupted apply under {base} was settled, "
                                     f"but its journal could not be removed: "
                                     f"{earlier.journal_left}")
                said = [earlier.message()] if earlier is not None else []
                try:
                    return said + _write_locked(changes, Journal(base, jdir, label), extra_roots)
                except WriteError as exc:
                    if not said:
                        raise
                    raise WriteError(f"{exc} (before it: {said[0]})", settled=exc.settled) from exc
            except BaseException:
                if not (jdir / JOURNAL_FILE).exists():  # refused before the journal was made
                    with contextlib.suppress(OSError):  # the error to report is the first
                        # A commit mark alone: what is left of a finished write's journal.
                        remove_journal(base, jdir, written=(jdir / COMMITTED_FILE).exists())
                raise
    except (OSError, JournalError) as exc:
        raise WriteError(str(exc)) from exc


def _write_locked(
    changes: list[FileChange], journal: Journal, extra_roots: Iterable[Path | str] = ()
) -> list[str]:
    stats = [_check_unchanged(c) for c in changes]
    linked = _linked_new_bytes(changes, stats)
    default_mode = 0o666 & ~_umask()
    planned_dirs: set[Path] = set()
    backups: list[bytes] = []
    offset = 0
    jobs: list[tuple[Entry, Path, Path | None, bytes]] = []  # entry, target, temp, new bytes
    job_stats: list[os.stat_result | None] = []  # each job's target as checked at the start
    for i, (change, st) in enumerate(zip(changes, stats, strict=True)):
        if change.kind == "mkdir":
            _missing_dirs(change.path, planned_dirs, journal.dirs)
            continue
        entry = Entry("rename", change.rel, journal.store(change.path))
        if change.old_bytes is not None:
            assert st is not None
            entry.old_sha = sha(change.old_bytes)
            entry.backup = (offset, len(change.old_bytes))
            offset += len(change.old_bytes)
            backups.append(change.old_bytes)
            entry.mode = stat.S_IMODE(st.st_mode)
            entry.uid, entry.gid = st.st_uid, st.st_gid
        temp: Path | None = None
        if change.kind == "delete":
            entry.op = "delete"
            if st is not None and st.st_nlink > 1:
                entry.kept = journal.keep_link(change.path, i)
        else:
            _missing_dirs(change.path.parent, planned_dirs, journal.dirs)
            entry.new_sha = sha(change.new_bytes)
            if st is not None and (st.st_nlink > 1 or not _may_keep_owner(st)):
                entry.op = "inplace"
                if not os.access(change.path, os.W_OK):
                    raise WriteError(
                        f"{change.rel}: has {st.st_nlink} hard links or another owner, so it "
                        "must be written in place, and this process may not write it"
                    )
            if entry.mode is None:
                entry.mode = change.mode if change.mode is not None else default_mode
            temp = temp_name(change.path, journal.id, i)
            entry.temp = journal.store(temp)
        if change.kind == "delete" and i in linked:
            entry.linked_new = sha(linked[i])
        journal.entries.append(entry)
        jobs.append((entry, change.path, temp, change.new_bytes))
        job_stats.append(st)

    for entry, target, temp, _ in jobs:
        if temp is not None and target in planned_dirs:
            raise WriteError(f"{entry.rel}: is to be both a file and a directory")
    try:
        journal.prepare(backups)
    except BaseException:
        journal.discard()
        raise
    files = _Files(journal.root, journal.jdir, {"id": journal.id})
    files.entries, files.dirs = journal.entries, journal.dirs
    try:
        for d in journal.dirs:
            os.mkdir(d)
        for entry, target, temp, data in jobs:
            if temp is None:
                continue
            assert entry.mode is not None
            keep = target if entry.op == "rename" and entry.old_sha is not None else None
            write_new(temp, data, entry.mode, entry.uid, entry.gid, xattrs_from=keep)
        for d in {t.parent for _, _, t, _ in jobs if t is not None} | {
            d.parent for d in journal.dirs
        }:
            fsync_dir(d)
        journal.commit()  # from here on, a kill is rolled forward
    except BaseException as exc:
        for _, _, temp, _ in jobs:
            if temp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
        remove_dirs(journal.dirs)
        journal.discard()
        if isinstance(exc, OSError):
            raise WriteError(str(exc)) from exc
        raise

    ours: set[tuple[int, int]] = set()  # files rewritten in place by this write
    order = [j for j, job in enumerate(jobs) if job[0].op != "delete"] + [
        j for j, job in enumerate(jobs) if job[0].op == "delete"]
    try:
        for j in order:
            entry, target, temp, data = jobs[j]
            # Last look: a save since the check at the start is never overwritten.
            _still_as_planned(entry, target, job_stats[j], ours)
            if entry.op == "rename":
                assert temp is not None
                os.replace(temp, target)
            elif entry.op == "inplace":
                assert temp is not None
                write_in_place(target, data)
                st = os.stat(target)
                ours.add((st.st_dev, st.st_ino))
                os.unlink(temp)
            else:
                os.unlink(target)
    except (OSError, _Changed) as exc:
        conflicts: list[str] = []
        try:
            roll_back_committed(files, conflicts)
        except (OSError, JournalError) as again:
            raise _half_way(f"write failed ({exc}) and so did rolling it back ({again})",
                            journal) from exc
        _sync_parents(files)  # the old bytes durable before the commit mark goes
        journal.discard()
        kept = (f"; {len(conflicts)} file(s) changed by someone else meanwhile were left as "
                f"they are: {', '.join(conflicts)}") if conflicts else ""
        if isinstance(exc, _Changed):
            raise WriteError(f"{exc.rel} changed since the plan was made ({exc.how}; saved "
                             f"while it was being applied?): the write was rolled back{kept}"
                             ) from exc
        raise WriteError(f"write failed and was rolled back: {exc}{kept}") from exc
    except BaseException as interrupt:  # interrupted (Ctrl-C) after the commit mark: finish it
        try:
            _recover_locked(journal.root, journal.jdir, extra_roots=extra_roots)
        except (OSError, JournalError) as exc:
            raise _half_way(f"interrupted, and finishing the write failed ({exc})",
                            journal) from interrupt
        raise
    for d in {t.parent for _, t, _, _ in jobs}:
        fsync_dir(d)
    try:
        journal.discard(written=True)
    except OSError as exc:  # every change is on disk: not a failed write
        return [f"every change is written, but its journal under {journal.jdir} could not be "
                f"removed ({exc}); the next `action-lsp apply` removes it"]
    return []
