"""The write journal: what `apply --write` is about to change, kept on disk until it is done.

``write_plan`` records every change under ``<root>/.action-lsp-journal/`` *before* it touches
any file of the workspace, so that a kill at any moment can be undone or finished later:

``journal.json``
    one entry per file (target, temporary file, how it is written, SHA-256 of the old and new
    bytes, mode/owner/group) and the directories the write creates; written to a temporary
    name, fsynced and renamed, so it is either absent or complete.
``backup``
    the old bytes of every file to modify or delete, concatenated (offsets in the entries).
``committed``
    created once every new content sits fsynced in its temporary file, just before the first
    rename.
``kept.<n>``
    one more name of a file the write deletes that has other names, so that undoing the
    deletion gives the same file back.
``restoring``
    a committed write is being undone: from the rollback's first step on, and naming the
    in-place entry it is rewriting, if any.

The rule (:func:`recover`): an interrupted write whose journal is **not committed** is rolled
**back** (its temporary files and the directories it created are removed; no target had been
touched yet); a **committed** one is rolled **forward** (the remaining temporaries renamed, the
in-place writes redone, the deletions done). If rolling forward is impossible (a temporary is
gone and its target still holds the old bytes), every file is restored from the backup
instead; a rollback once begun is only ever continued. A target that holds neither its old nor
its new bytes (or is gone, or is now a symbolic link) was changed by someone else since: it is
left alone and reported. Afterwards the journal directory is removed. (It is not
inside ``.action-lsp``, which the editors take as a workspace-root marker, a file or a
directory of the user's.)

An exclusive ``flock`` on the journal directory keeps a second apply (or a recovery started by
the server) away from a write in progress.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Literal

try:  # pragma: no cover - always there on POSIX
    import fcntl
except ImportError:  # pragma: no cover - Windows: no locking between processes
    fcntl = None  # type: ignore[assignment]

JOURNAL_DIR = ".action-lsp-journal"
JOURNAL_FILE = "journal.json"
MAX_JOURNAL_BYTES = 64 << 20  # a journal.json larger than this is refused unread (and never written)
BACKUP_FILE = "backup"
COMMITTED_FILE = "committed"
# A committed write being undone: the file exists from the rollback's first step on (so a
# recovery never turns back to finishing it), and holds the number of the in-place entry the
# rollback is rewriting, if any.
RESTORING_FILE = "restoring"
KEPT_PREFIX = "kept."  # kept.<n>: another name of a file a write deletes
VERSION = 1

Op = Literal["rename", "inplace", "delete"]


class JournalError(Exception):
    """The journal cannot be written or read."""


class JournalBusy(JournalError):
    """Another process holds the journal lock (asked not to wait for it)."""


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def temp_name(target: Path, journal_id: str, index: int) -> Path:
    """The temporary file beside ``target`` (short: a long file name must not overflow)."""
    return target.parent / f".action-lsp.{journal_id}.{index}.tmp"


@dataclass(slots=True)
class Entry:
    """One file of an interrupted write, as recorded in ``journal.json``."""

    op: Op
    rel: str  # as shown to the user
    target: str  # relative to the journal's root when inside it, else absolute
    temp: str | None = None
    old_sha: str | None = None  # None: the file did not exist
    new_sha: str | None = None  # None: the file is deleted
    backup: tuple[int, int] | None = None  # (offset, length) in the backup file
    mode: int | None = None
    uid: int | None = None
    gid: int | None = None
    # A deleted file with other names: one more name for it in the journal directory, so
    # that undoing the deletion gives the same file back (its other names stay its own).
    kept: str | None = None
    # A deleted name of a file the write modifies under another name: the file's new bytes,
    # which it may hold when this name goes (or comes back).
    linked_new: str | None = None


@dataclass(slots=True)
class Recovery:
    """What :func:`recover` did with an interrupted write."""

    root: Path
    outcome: Literal["rolled-forward", "rolled-back", "finished", "cleaned"]
    files: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    label: str = ""
    started: float | None = None
    journal_left: str = ""  # why the journal could not be removed afterwards, if it could not

    def message(self) -> str:
        what = f" ({self.label})" if self.label else ""
        when = (
            time.strftime(" started %Y-%m-%d %H:%M:%S", time.localtime(self.started))
            if self.started
            else ""
        )
        head = f"an interrupted apply{what}{when} under {self.root}"
        n, c = len(self.files), len(self.conflicts)
        if self.outcome == "rolled-forward":
            text = (f"{head} was finished: all {n} planned change(s) are written" if not c else
                    f"{head} was finished: {n - c} of its {n} planned change(s) are written")
        elif self.outcome == "rolled-back":
            text = (f"{head} was rolled back: its {n} file(s) are as they were before it"
                    if not c else f"{head} was rolled back: {n - c} of its {n} file(s) are "
                    "as they were before it")
        elif self.outcome == "finished":
            text = f"{head} had finished and was stopped while removing its journal"
        else:
            text = f"{head} left every file as it was"
        if c:
            text += (
                f"; {c} file(s) changed since and were left as they are: "
                + ", ".join(self.conflicts)
            )
        if self.journal_left:
            text += (f"; its journal could not be removed ({self.journal_left}): the next "
                     "recovery removes it")
        elif self.outcome in ("finished", "cleaned"):
            text += "; its journal is removed now"
        return text


# -- small file-system helpers -------------------------------------------------------------


# A directory that cannot be opened or synced at all (Windows, some network file systems):
# nothing to make durable that way, not a failing disk.
_NO_DIR_SYNC = {errno.EACCES, errno.EPERM, errno.EINVAL, errno.EISDIR, errno.EBADF,
                getattr(errno, "ENOTSUP", errno.EINVAL), getattr(errno, "EOPNOTSUPP", errno.EINVAL)}


def fsync_dir(directory: Path, *, strict: bool = False) -> None:
    """Make ``directory``'s entries durable; ``strict``: a failing disk raises, not ignored (for
    the journal and its commit mark, which everything after them relies on)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as exc:
        if strict and exc.errno not in _NO_DIR_SYNC:
            raise
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if strict and exc.errno not in _NO_DIR_SYNC:
            raise
    finally:
        os.close(fd)


def _digest(path: Path) -> str | None:
    """SHA-256 of a regular file's bytes, None when it does not exist; a symbolic link or a
    directory is neither a file's old nor its new bytes."""
    fd = _open_regular(path)
    if isinstance(fd, str) or fd is None:
        return fd
    with open(fd, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def _a_file(digest: str | None) -> bool:
    """Whether :func:`_digest` found a regular file (not nothing, a link, a directory...)."""
    return digest is not None and not digest.startswith("<")


def _read_own(path: Path, limit: int) -> bytes:
    """The bytes of one of the journal's own files, which must be a regular file (a planted
    link to a FIFO or to /dev/zero must not hang or fill the memory of a recovery) of at most
    ``limit`` bytes (what a write could have made; a larger one is refused unread)."""
    fd = _open_regular(path)
    if fd is None:
        raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
    if isinstance(fd, str):
        raise JournalError(f"{path} is not a regular file; the journal is left untouched: "
                           "check it, then delete the directory")
    with open(fd, "rb") as fh:
        too_large = os.fstat(fd).st_size > limit
        data = b"" if too_large else fh.read(limit + 1)
    if too_large or len(data) > limit:
        raise JournalError(f"{path} is larger than a write makes it ({limit:,} bytes at most); "
                           "the journal is left untouched: check it, then delete the directory")
    return data


def _open_regular(path: Path) -> int | str | None:
    """A descriptor of the regular file at ``path`` (not through a link, never blocking on a
    FIFO); None when nothing is there, else what is there instead."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                     | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return "<directory>"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "<symlink>"
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return "<directory>" if stat.S_ISDIR(mode) else "<not a file>"
    return fd


def set_owner(fd: int, uid: int | None, gid: int | None) -> None:
    """Give ``fd`` the owner and group, as far as this process may (before the mode: chown
    clears set-id bits)."""
    if uid is None or gid is None or not hasattr(os, "fchown"):
        return
    st = os.fstat(fd)
    if (st.st_uid, st.st_gid) == (uid, gid):
        return
    try:
        os.fchown(fd, uid, gid)
    except OSError:
        with contextlib.suppress(OSError):
            os.fchown(fd, -1, gid)


def copy_xattrs(source: Path, fd: int) -> None:
    """Best effort: the extended attributes of ``source`` (POSIX ACLs, SELinux label, user
    attributes) onto ``fd``."""
    if not hasattr(os, "listxattr"):  # pragma: no cover - not Linux
        return
    try:
        names = os.listxattr(source)
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            os.setxattr(fd, name, os.getxattr(source, name))


def write_new(
    path: Path, data: bytes, mode: int, uid: int | None, gid: int | None,
    xattrs_from: Path | None = None,
) -> None:
    """Create ``path`` (must not exist) with ``data``, owner, group, mode and (from
    ``xattrs_from``) extended attributes, fsynced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        _write_all(fd, data)
        set_owner(fd, uid, gid)
        os.fchmod(fd, mode)
        if xattrs_from is not None:
            copy_xattrs(xattrs_from, fd)
        os.fsync(fd)
    finally:
        os.close(fd)


def write_in_place(path: Path, data: bytes) -> None:
    """Overwrite ``path``'s content keeping its inode (hard links, owner, mode, ACLs)."""
    fd = os.open(path, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0))
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


# -- the journal ---------------------------------------------------------------------------


def journal_dir(root: Path) -> Path:
    return root / JOURNAL_DIR


@contextlib.contextmanager
def locked(
    root: Path, *, create: bool, wait: bool = True, on_wait: Callable[[str], None] | None = None,
) -> Iterator[Path | None]:
    """Hold the journal lock of ``root``; yields the journal directory (None when there is
    none and ``create`` is false). ``wait`` false: raise :class:`JournalBusy` at once when
    another process holds it; ``wait`` true: block until it is free, first telling ``on_wait``
    what it waits for (a user at a terminal must not see a silent hang)."""
    jdir = journal_dir(root)
    if os.name == "nt":  # pragma: no cover - no directory handles to lock
        if create:
            os.makedirs(jdir, exist_ok=True)
        yield jdir if jdir.is_dir() else None
        return
    while True:
        if os.path.islink(jdir):  # a planted link must not send the journal elsewhere
            raise JournalError(f"{jdir} is a symbolic link; action-lsp keeps its journal only "
                               "in a real directory")
        if create:
            # Owner-only: the backup holds the old bytes of files that may be private.
            os.makedirs(jdir, mode=0o700, exist_ok=True)
        try:
            fd = os.open(jdir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                         | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            if create:
                continue
            yield None
            return
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    busy = (f"another process holds the journal lock of {root} (an apply "
                            "--write under way, or suspended)")
                    if not wait:
                        raise JournalBusy(busy) from None
                    if on_wait is not None:
                        on_wait(f"waiting: {busy}")
                    fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.stat(jdir), os.fstat(fd))
            except FileNotFoundError:
                same = False
            if not same:  # removed by the holder before we got it: start again
                if create:
                    continue
                yield None
                return
            yield jdir
            return
        finally:
            os.close(fd)


class Journal:
    """The record of one write, in ``jdir`` (the caller holds the lock)."""

    def __init__(self, root: Path, jdir: Path, label: str = "") -> None:
        self.root = root
        self.jdir = jdir
        self.id = secrets.token_hex(6)
        self.label = label
        self.entries: list[Entry] = []
        self.dirs: list[Path] = []  # to create, parents first

    def store(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def keep_link(self, path: Path, index: int) -> str | None:
        """A name for ``path``'s file in the journal directory (None where hard links cannot
        be made there: another file system, or not permitted)."""
        name = f"{KEPT_PREFIX}{index}"
        try:
            os.link(path, self.jdir / name, follow_symlinks=False)
        except OSError:
            return None
        return name

    def prepare(self, backups: Sequence[bytes]) -> None:
        """Write the backup and the journal, fsynced: from now on a kill is recoverable."""
        fd = os.open(self.jdir / BACKUP_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with open(fd, "wb") as fh:
            for data in backups:
                fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        st = os.stat(self.jdir)
        record = {
            "version": VERSION,
            "id": self.id,
            "place": [st.st_dev, st.st_ino],
            "label": self.label,
            "started": time.time(),
            "dirs": [self.store(d) for d in self.dirs],
            "entries": [asdict(e) for e in self.entries],
        }
        data = json.dumps(record).encode()
        if len(data) > MAX_JOURNAL_BYTES:  # (a recovery refuses to read more)
            raise JournalError(f"too many changes for one write ({len(self.entries):,} files)")
        _replace_file(self.jdir / JOURNAL_FILE, data, strict=True)

    def commit(self) -> None:
        fd = os.open(self.jdir / COMMITTED_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
        fsync_dir(self.jdir, strict=True)

    def discard(self, *, written: bool = False) -> None:
        """Remove the journal: ``written``, every change is on disk; else none is (never
        begun, or undone)."""
        remove_journal(self.root, self.jdir, written=written)


# The order of removal keeps every state a kill can leave telling the truth to the next
# recovery. ``journal.json`` goes before ``backup`` (a replayed journal may need the old bytes)
# and, after a finished write, before the commit mark: a commit mark without a journal then
# means "all written". After an undone write the mark goes first, so that a leftover is only
# ever an uncommitted journal, or a backup alone ("nothing changed").
_WRITTEN_ORDER = (
    RESTORING_FILE, RESTORING_FILE + ".tmp", JOURNAL_FILE + ".tmp", JOURNAL_FILE, BACKUP_FILE,
    COMMITTED_FILE,
)
_UNDONE_ORDER = (
    COMMITTED_FILE, RESTORING_FILE, RESTORING_FILE + ".tmp", JOURNAL_FILE + ".tmp",
    JOURNAL_FILE, BACKUP_FILE,
)
_OWN_FILES = frozenset(_WRITTEN_ORDER)  # besides kept.<n>


def remove_journal(
    root: Path, jdir: Path, *, keep_dir: bool = False, written: bool = False
) -> bool:
    """Delete the journal's files and its directory when empty (unless ``keep_dir``: the lock
    is held on it for a write to come); whether anything was there. ``written``: the write
    the journal recorded is complete (see the orders above)."""
    found = False
    kept: list[str] = []
    with contextlib.suppress(FileNotFoundError):
        kept = sorted(n for n in os.listdir(jdir) if n.startswith(KEPT_PREFIX))
    # Kept names go after the journal (a replay may still need them) and before the commit mark
    # of a finished write (a mark alone must mean "all written"); after everything of an undone
    # one (a leftover then reads "nothing changed").
    if written:
        at = _WRITTEN_ORDER.index(JOURNAL_FILE) + 1
        names = [*_WRITTEN_ORDER[:at], *kept, *_WRITTEN_ORDER[at:]]
    else:
        names = [*_UNDONE_ORDER, *kept]
    for name in names:
        try:
            os.unlink(jdir / name)
        except FileNotFoundError:
            continue
        found = True
        if name == (JOURNAL_FILE if written else COMMITTED_FILE):
            # Durable before the next removal: after a power loss neither a journal without
            # its mark (after a finished write) nor a mark with its journal (after an undone
            # one) may come back.
            fsync_dir(jdir, strict=True)
    if keep_dir:
        return found
    # An empty journal directory that cannot go (a root the user may not write, where the
    # directory was made for them; someone else's file in it) is harmless: it is no journal.
    with contextlib.suppress(OSError):
        os.rmdir(jdir)
    fsync_dir(root)
    return found


# -- finishing or undoing ------------------------------------------------------------------


class _Files:
    """Entries with their paths resolved against the root and access to the backup."""

    def __init__(self, root: Path, jdir: Path, record: dict) -> None:
        self.root = root
        self.jdir = jdir
        self.id = str(record.get("id", ""))
        self.entries = [_entry(e) for e in record.get("entries", [])]
        self.dirs = [self.path(d) for d in record.get("dirs", [])]
        self._backup: bytes | None = None

    def validate(self, record: dict, extra_roots: Iterable[Path | str]) -> None:
        """Refuse a journal this process did not write here: one copied with the workspace, or
        planted in a repository to make a recovery overwrite or delete files. It must sit in
        the very directory it names (device and inode), and every path must be a target inside
        the roots, its temporary a journal temporary beside it."""
        st = os.stat(self.jdir)
        if record.get("place") != [st.st_dev, st.st_ino]:
            raise JournalError(
                f"{self.jdir} holds a journal that was not written in this directory (copied "
                "or planted); it is left untouched: check it, then delete the directory"
            )
        for name in os.listdir(self.jdir):  # its own files: never a link to somewhere else
            if name not in _OWN_FILES and not name.startswith(KEPT_PREFIX):
                continue  # someone else's (an indexer's folder): not read, left alone
            if not stat.S_ISREG(os.lstat(self.jdir / name).st_mode):
                raise JournalError(f"{self.jdir / name} is not a regular file; the journal is "
                                   "left untouched: check it, then delete the directory")
        roots = [Path(os.path.realpath(r)) for r in (self.root, *extra_roots)]
        journal_id = str(record.get("id", ""))
        if not re.fullmatch(r"[0-9a-f]{12}", journal_id):
            raise JournalError(f"{self.jdir}: the journal's id is not one action-lsp writes")
        temp_re = re.compile(rf"\.action-lsp\.{re.escape(journal_id)}\.\d+\.tmp")

        def inside(p: Path) -> bool:
            try:
                if b"\x00" in os.fsencode(p):  # (no file system takes it)
                    return False
            except UnicodeEncodeError:  # a lone surrogate: no name this system can write
                return False
            real = Path(os.path.realpath(p.parent)) / p.name
            return ".." not in p.parts and any(real.is_relative_to(r) for r in roots)

        for e in self.entries:
            target = self.path(e.target)
            ok = isinstance(e.rel, str) and e.op in ("rename", "inplace", "delete")
            ok = ok and inside(target) and all(
                h is None or re.fullmatch(r"[0-9a-f]{64}", str(h)) is not None
                for h in (e.old_sha, e.new_sha, e.linked_new)
            )
            # A kept name is one of the journal's own (a file name in its directory).
            ok = ok and (e.kept is None or (
                e.op == "delete" and re.fullmatch(rf"{re.escape(KEPT_PREFIX)}\d+", e.kept)
                is not None))
            if e.temp is not None:
                temp = self.path(e.temp)
                ok = ok and temp.parent == target.parent and bool(temp_re.fullmatch(temp.name))
            if not ok:
                shown = repr(e.rel[:200]) if isinstance(e.rel, str) else "(not a string)"
                raise JournalError(f"{self.jdir}: the journal names a path it may not: {shown}")
        for d in self.dirs:
            if not inside(d):
                raise JournalError(f"{self.jdir}: the journal names a directory it may not")

    def path(self, stored: str) -> Path:
        p = Path(stored)
        return p if p.is_absolute() else self.root / p

    def restore_temp(self, index: int, e: Entry) -> Path:
        """Where entry ``index``'s old bytes are written before they are renamed back: its
        temporary, or (a deletion has none) a name of its own (``r`` before the index: the
        write numbers its temporaries otherwise). Never a random name, so that a recovery
        killed in the middle leaves nothing the next one does not know."""
        if e.temp is not None:
            return self.path(e.temp)
        target = self.path(e.target)
        return target.parent / f".action-lsp.{self.id}.r{index}.tmp"

    def rolling_back(self) -> bool:
        """Whether a rollback of this (committed) write was under way."""
        return (self.jdir / RESTORING_FILE).exists()

    def restoring(self) -> int | None:
        """The entry a rollback was rewriting in place when it stopped, if any."""
        try:
            return int(_read_own(self.jdir / RESTORING_FILE, 32).decode("ascii"))
        except (OSError, ValueError, JournalError):
            return None

    def old_bytes(self, e: Entry) -> bytes:
        if self._backup is None:
            sizes = [off + n for off, n in (x.backup for x in self.entries if x.backup)]
            self._backup = _read_own(self.jdir / BACKUP_FILE, max(sizes, default=0))
        assert e.backup is not None
        off, n = e.backup
        data = self._backup[off : off + n]
        if len(data) != n or sha(data) != e.old_sha:
            raise JournalError(f"{e.rel}: the backup in the journal is damaged")
        return data


def _entry(raw: dict) -> Entry:
    backup = raw.get("backup")
    return Entry(
        op=raw["op"], rel=raw["rel"], target=raw["target"], temp=raw.get("temp"),
        old_sha=raw.get("old_sha"), new_sha=raw.get("new_sha"),
        backup=(int(backup[0]), int(backup[1])) if backup else None,
        mode=_number(raw.get("mode"), 0o7777), uid=_number(raw.get("uid"), 2**32 - 1),
        gid=_number(raw.get("gid"), 2**32 - 1), kept=raw.get("kept"),
        linked_new=raw.get("linked_new"),
    )


def _number(value: object, top: int) -> int | None:
    """A mode, owner or group as the journal holds it: an integer from 0 to ``top``, or None."""
    if value is None or (type(value) is int and 0 <= value <= top):
        return value
    raise ValueError(f"expected a number from 0 to {top}, or null")


def _unlink(path: Path | None) -> None:
    if path is not None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def remove_dirs(dirs: Iterable[Path]) -> None:
    """Remove the directories a write created (deepest first, only when empty)."""
    parents = set()
    for d in sorted(dirs, key=lambda p: len(p.parts), reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(d)
            parents.add(d.parent)
    for parent in parents:
        fsync_dir(parent)


def roll_back_uncommitted(files: _Files) -> None:
    """Nothing was renamed yet: remove the temporaries and the directories made for them."""
    for e in files.entries:
        _unlink(files.path(e.temp) if e.temp else None)
    remove_dirs(files.dirs)


def apply_entry(files: _Files, index: int, e: Entry, conflicts: list[str]) -> bool:
    """Finish entry ``index`` of a committed write; False when it cannot be finished (its
    target still holds the old bytes and the new ones are lost)."""
    target = files.path(e.target)
    temp = files.path(e.temp) if e.temp else None
    current = _digest(target)
    if e.op == "delete":
        if current is None:
            return True
        if current in (e.old_sha, e.linked_new):
            os.unlink(target)
        else:
            conflicts.append(e.rel)
        return True
    if current == e.new_sha:
        _unlink(temp)
        return True
    temp_ok = temp is not None and _digest(temp) == e.new_sha
    ours = current == e.old_sha or (
        e.op == "inplace" and _a_file(current) and _torn(target, temp, e, files, index)
    )
    if not ours:  # changed (or removed, or made a link) by someone since the kill
        conflicts.append(e.rel)
        _unlink(temp)
        return True
    if not temp_ok:
        _unlink(temp)
        return False
    assert temp is not None
    if e.op == "inplace":
        write_in_place(target, temp.read_bytes())
        os.unlink(temp)
    else:
        os.replace(temp, target)
    return True


def _cut_short(current: bytes, writing: bytes, was: bytes) -> bool:
    """Whether ``current`` is what an in-place write of ``writing`` over ``was``, cut short,
    leaves: the first bytes of ``writing``, then the rest of ``was`` (:func:`write_in_place`
    writes from the start, then truncates)."""
    k = 0
    limit = min(len(current), len(writing))
    while k < limit and current[k] == writing[k]:
        k += 1
    return current[k:] == was[k:]


def _torn(target: Path, temp: Path | None, e: Entry, files: _Files, index: int) -> bool:
    """Whether in-place entry ``index``'s target was cut short by this machinery: while being
    rewritten with its new bytes (kept in ``temp`` until that is done), or -- only when the
    journal says a rollback was doing it -- back with its old ones."""
    if temp is None or _digest(temp) != e.new_sha:
        return False
    current, new, old = target.read_bytes(), temp.read_bytes(), files.old_bytes(e)
    if _cut_short(current, new, old):
        return True
    return files.restoring() == index and _interleaved(current, old, new)


def _interleaved(current: bytes, old: bytes, new: bytes) -> bool:
    """Whether every byte of ``current`` is the old or the new byte at its offset, at a length
    one of the writes or truncations leaves: what in-place writes of either, each cut short
    (by a kill, or a disk error before the truncation), leave behind in any order."""
    if len(current) not in (len(old), len(new), max(len(old), len(new))):
        return False
    step = 4096
    for at in range(0, len(current), step):
        part = current[at:at + step]
        if part == old[at:at + step] or part == new[at:at + step]:
            continue
        for i, byte in enumerate(part, at):
            if not ((i < len(old) and old[i] == byte) or (i < len(new) and new[i] == byte)):
                return False
    return True


def restore_entry(files: _Files, index: int, e: Entry, conflicts: list[str]) -> None:
    """Put entry ``index``'s target back as it was before the write."""
    target = files.path(e.target)
    tmp = files.restore_temp(index, e)
    current = _digest(target)
    if e.op == "delete" and e.linked_new is not None and current == e.linked_new:
        # Undone last, after the other name's restore: still the new bytes means it is no
        # longer that file (someone broke the link since), or that restore was left alone.
        conflicts.append(e.rel)
        return
    if (
        e.op == "inplace" and _a_file(current) and current not in (e.old_sha, e.new_sha)
        and _torn(target, tmp, e, files, index)
    ):
        current = e.new_sha  # half written by the write or by an earlier restore: ours
    if current == e.old_sha:
        _unlink(tmp)
        return
    if (current is not None and current != e.new_sha) or (
        current is None and e.op != "delete"  # removed since: the write never removes these
    ):
        conflicts.append(e.rel)
        _unlink(tmp)
        return
    if e.old_sha is None:
        assert current is not None
        os.unlink(target)
        _unlink(tmp)
        return
    if e.op == "delete" and e.kept is not None and os.path.lexists(files.jdir / e.kept):
        kept = files.jdir / e.kept
        if _digest(kept) != e.old_sha:  # changed since through its other names: theirs now
            conflicts.append(e.rel)
            return
        os.link(kept, target, follow_symlinks=False)  # the same file back under its name
        return
    data = files.old_bytes(e)
    if e.op == "inplace":
        # The new bytes sit in the temporary until the old ones are all back (copied there
        # first when a roll-forward had already removed it), and the journal names the entry
        # being rewritten: a restore killed half-way is then recognised by the next recovery
        # as its own, not taken for someone else's edit.
        if _digest(tmp) != e.new_sha:
            _unlink(tmp)
            write_new(tmp, target.read_bytes(), 0o600, None, None)
        _replace_file(files.jdir / RESTORING_FILE, str(index).encode())
        fsync_dir(tmp.parent)
        write_in_place(target, data)
        _unlink(tmp)
        return
    _unlink(tmp)
    try:
        write_new(tmp, data, e.mode if e.mode is not None else 0o644, e.uid, e.gid)
        os.replace(tmp, target)
    finally:
        _unlink(tmp)


def _replace_file(path: Path, data: bytes, *, strict: bool = False) -> None:
    """``path`` holds ``data`` or what it held before, whenever a kill comes (never a part of
    either): written to ``<name>.tmp``, fsynced, renamed over it, its directory fsynced
    (``strict`` as in :func:`fsync_dir`)."""
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0),
                 0o600)
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent, strict=strict)


def settle_order(files: _Files, *, backwards: bool) -> list[int]:
    """The order entries are finished (or, ``backwards``, undone) in: the deletion of a name
    whose file is also modified under another name comes last either way, when that other
    name's write (or restore) is complete and the deleted name holds its bytes in full."""
    order = list(range(len(files.entries)))
    if backwards:
        order.reverse()
    plain = [i for i in order if files.entries[i].linked_new is None]
    return plain + [i for i in order if files.entries[i].linked_new is not None]


def roll_back_committed(files: _Files, conflicts: list[str]) -> None:
    if not files.rolling_back():  # from now on a recovery only ever continues the rollback
        _replace_file(files.jdir / RESTORING_FILE, b"")
    for index in settle_order(files, backwards=True):
        restore_entry(files, index, files.entries[index], conflicts)
    remove_dirs(files.dirs)


def _sync_parents(files: _Files) -> None:
    for d in {files.path(e.target).parent for e in files.entries}:
        fsync_dir(d)


def _recover_locked(
    root: Path, jdir: Path, *, keep_dir: bool = False, extra_roots: Iterable[Path | str] = ()
) -> Recovery | None:
    try:
        raw = _read_own(jdir / JOURNAL_FILE, MAX_JOURNAL_BYTES)
    except FileNotFoundError:
        # A commit mark without a journal: killed while removing the journal of a finished
        # write. Anything else: killed while writing the journal (nothing was touched yet),
        # or while removing the journal of an undone write.
        rec = Recovery(root, "finished" if (jdir / COMMITTED_FILE).exists() else "cleaned")
        try:
            found = remove_journal(
                root, jdir, keep_dir=keep_dir, written=rec.outcome == "finished"
            )
        except OSError as exc:
            rec.journal_left, found = str(exc), True
        return rec if found or rec.outcome == "finished" else None
    try:
        record = json.loads(raw.decode("utf-8"))
        files = _Files(root, jdir, record)
        files.validate(record, extra_roots)
    except RecursionError:  # a planted journal.json nested deeper than the decoder goes
        raise JournalError(f"{jdir / JOURNAL_FILE}: cannot read the journal: nested too "
                           "deeply") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise JournalError(f"{jdir / JOURNAL_FILE}: cannot read the journal: "
                           f"{str(exc)[:200]}") from exc
    for index, e in enumerate(files.entries):  # left by a restore that was killed
        if e.temp is None:
            _unlink(files.restore_temp(index, e))
    label, started = record.get("label", ""), record.get("started")
    rec = Recovery(
        root, "rolled-back", [e.rel for e in files.entries],
        label=label[:200] if isinstance(label, str) else "",
        started=started if type(started) in (int, float) and 0 < started < 1e11 else None,
    )
    if not (jdir / COMMITTED_FILE).exists():
        roll_back_uncommitted(files)
    elif files.rolling_back():  # a rollback was under way: it goes on (never back to forward)
        roll_back_committed(files, rec.conflicts)
    else:
        finished = True
        for index in settle_order(files, backwards=False):
            if not apply_entry(files, index, files.entries[index], rec.conflicts):
                finished = False
                break
        if finished:
            rec.outcome = "rolled-forward"
        else:
            rec.conflicts.clear()
            roll_back_committed(files, rec.conflicts)
    _sync_parents(files)
    try:
        remove_journal(root, jdir, keep_dir=keep_dir, written=rec.outcome == "rolled-forward")
    except OSError as exc:  # the files are settled; what is left of the journal says how
        rec.journal_left = str(exc)
    return rec


def recover(
    root: Path | str, extra_roots: Iterable[Path | str] = (), *, wait: bool = True,
    on_wait: Callable[[str], None] | None = None,
) -> Recovery | None:
    """Finish or undo an interrupted write under ``root``; None when there was none.
    ``extra_roots``: other directories the write may have touched (the server's extra roots);
    ``wait`` false: :class:`JournalBusy` when another process holds the lock.

    Cheap when there is nothing to do (one ``stat`` that fails)."""
    root = Path(root)
    if not journal_dir(root).is_dir():
        return None
    with locked(root, create=False, wait=wait, on_wait=on_wait) as jdir:
        if jdir is None:
            return None
        return _recover_locked(root, jdir, extra_roots=extra_roots)


def recover_messages(
    roots: Iterable[Path | str], extra_roots: Iterable[Path | str] = (),
    on_wait: Callable[[str], None] | None = None,
) -> list[str]:
    """:func:`recover` for each root, as messages for the user (errors included)."""
    out: list[str] = []
    extra = list(extra_roots)
    for root in roots:
        try:
            rec = recover(root, extra, on_wait=on_wait)
        except (OSError, JournalError) as exc:
            out.append(f"action-lsp: could not recover an interrupted apply under {root}: {exc}")
            continue
        if rec is not None:
            out.append(f"action-lsp: {rec.message()}")
    return out
