"""Hand-built actions for the edit-engine tests (a transcript is faked field by field)."""

from __future__ import annotations

import builtins
import contextlib
import os
import shutil
import signal
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import pytest

from action_lsp.model import Action, ActionKind, Edit, Field, Span


class Transcript:
    """Builds actions whose fields have distinct, checkable spans."""

    def __init__(self) -> None:
        self.pos = 0

    def field(self, name: str, value: str) -> Field:
        start = self.pos
        self.pos += len(value) + 10
        return Field(name, value, Span(start, start + len(value)))

    def action(self, kind: ActionKind, path: str, **fields: str) -> Action:
        start = self.pos
        f = {"path": self.field("path", path)}
        for k, v in fields.items():
            f[k] = self.field(k, v)
        return Action("test", kind.value, kind, Span(start, self.pos), Span(start, start + 1), f)

    def create(self, path: str, content: str) -> Action:
        return self.action(ActionKind.CREATE_FILE, path, content=content)

    def modify(self, path: str, *pairs: tuple[str, str]) -> Action:
        a = self.action(ActionKind.MODIFY_FILE, path)
        a.edits = [Edit(self.field("search", s), self.field("replace", r)) for s, r in pairs]
        return a

    def mkdir(self, path: str) -> Action:
        return self.action(ActionKind.CREATE_DIRECTORY, path)

    def delete(self, path: str) -> Action:
        return self.action(ActionKind.DELETE_FILE, path)

    def other(self) -> Action:
        start = self.pos
        self.pos += 10
        return Action("test", "create_task", ActionKind.OTHER, Span(start, self.pos),
                      Span(start, start + 1), {})


@pytest.fixture
def tx() -> Callable[[], Transcript]:
    return Transcript


# -- killing a write ------------------------------------------------------------------------

# The calls a write makes that change something on disk (an ``os.open`` only when it opens
# for writing); a kill lands just before the n-th of them.
MUTATING = ("open", "write", "ftruncate", "fchmod", "fchown", "fsync", "replace", "rename",
            "unlink", "mkdir", "rmdir", "link", "setxattr")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT
os_write = os.write  # the real one, for a child whose os.write is made to fail



Snapshot = dict[str, tuple[str, bytes, int, int]]


def snapshot(root: Path) -> Snapshot:
    """Every entry under ``root`` (hidden ones too): kind, bytes, mode, link count."""
    out: Snapshot = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        rel = p.relative_to(root).as_posix()
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p).encode(), 0, 0)
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", b"", stat.S_IMODE(st.st_mode), 0)
        else:
            out[rel] = ("file", p.read_bytes(), stat.S_IMODE(st.st_mode), st.st_nlink)
    return out


def in_child(fn: Callable[[], object], kill_after: float | None = None) -> str:
    """Run ``fn`` in a forked process; "killed" when it died of SIGKILL (by itself or after
    ``kill_after`` seconds), else "exited"."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            fn()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    if kill_after is not None:
        time.sleep(kill_after)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return "killed"
    return "exited"


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def killing() -> SimpleNamespace:
    return SimpleNamespace(snapshot=snapshot, in_child=in_child, die=die,
                           rename_fails=rename_fails, kill_at=kill_at,
                           intercept=intercept)


@pytest.fixture
def fast_dir(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A directory in memory (tmpfs) when the system has one: creating a file on a busy disk
    costs up to a millisecond, and the kill tests create tens of thousands."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        d = Path(tempfile.mkdtemp(prefix="action-lsp-crash-", dir=shm))
        yield d
        shutil.rmtree(d, ignore_errors=True)
    else:
        yield tmp_path


def rename_fails(n: int, exc: BaseException) -> Callable[..., object]:
    """An ``os.replace`` whose n-th rename of a write's temporary over its target raises
    ``exc`` (a disk error, a Ctrl-C); every other call goes through."""
    real = os.replace
    calls = [0]

    def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and ".action-lsp-journal" not in os.fspath(src):
            calls[0] += 1
            if calls[0] == n:
                raise exc
        return real(src, dst, *a, **k)

    return replace


def intercept(before: Callable[[str, tuple], None]) -> None:
    """In the child: ``before(name, args)`` ahead of each mutating call (``open`` only for
    writing; a Python-level ``open`` for writing is named ``"pyopen"``)."""

    def wrap(name: str):  # type: ignore[no-untyped-def]
        real = getattr(os, name)

        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            if name != "open" or (len(args) > 1 and args[1] & WRITE_FLAGS):
                before(name, args)
            return real(*args, **kwargs)

        return call

    for name in MUTATING:
        if hasattr(os, name):
            setattr(os, name, wrap(name))
    real_open = builtins.open

    def py_open(file, mode="r", *args, **kwargs):  # type: ignore[no-untyped-def]
        if any(c in mode for c in "wax+"):
            before("pyopen", (file,))
        return real_open(file, mode, *args, **kwargs)

    builtins.open = py_open


def kill_at(n: int, half: bool) -> None:
    """In the child: SIGKILL before the n-th mutating call (``half``: after half the bytes of
    the n-th ``os.write``)."""
    count = [0]

    def before(name: str, args: tuple) -> None:
        if half and name != "write":
            return
        count[0] += 1
        if count[0] == n:
            if half:
                data = memoryview(args[1])
                os_write(args[0], data[: max(1, len(data) // 2)])
            die()

    intercept(before)
