"""What a write keeps: owner and group, mode, hard links, BOM and line endings; and read-only
files refused (`file-readonly`) unless forced."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.edit import Workspace, plan_changes, write_plan
from action_lsp.edit import write as write_mod

root_only = pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")


@root_only
def test_owner_group_and_setgid_mode_kept(tmp_path: Path, tx) -> None:
    f = tmp_path / "owned.py"
    f.write_bytes(b"x = 1\n")
    os.chown(f, 4321, 8765)
    f.chmod(0o2750)
    t = tx()
    write_plan(plan_changes([t.modify("owned.py", ("x = 1\n", "x = 2\n"))], Workspace(tmp_path)),
               root=tmp_path)
    st = f.stat()
    assert (st.st_uid, st.st_gid) == (4321, 8765)
    assert stat.S_IMODE(st.st_mode) == 0o2750
    assert f.read_bytes() == b"x = 2\n"


@root_only
def test_forced_create_over_a_file_keeps_its_owner(tmp_path: Path, tx) -> None:
    f = tmp_path / "cfg.txt"
    f.write_bytes(b"old\n")
    os.chown(f, 4321, 8765)
    t = tx()
    write_plan(plan_changes([t.create("cfg.txt", "new\n")],
                            Workspace(tmp_path, allow_overwrite=True)), root=tmp_path)
    assert (f.stat().st_uid, f.stat().st_gid) == (4321, 8765)
    assert f.read_bytes() == b"new\n"


def test_hard_linked_file_written_in_place(tmp_path: Path, tx) -> None:
    a = tmp_path / "a.txt"
    a.write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    (tmp_path / "sub").mkdir()
    b = tmp_path / "sub/b.txt"
    os.link(a, b)
    inode = a.stat().st_ino
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("two\n", "TWO\nthree\n"))], Workspace(tmp_path))
    write_plan(plan, root=tmp_path)
    want = b"\xef\xbb\xbfone\r\nTWO\r\nthree\r\n"
    assert a.read_bytes() == want and b.read_bytes() == want
    assert a.stat().st_ino == inode and a.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a.txt", "b.txt", "sub"]


def test_owner_that_cannot_be_kept_means_in_place(tmp_path: Path, tx, monkeypatch) -> None:
    """Without the right to chown, a new inode would change the owner: write in place."""
    f = tmp_path / "theirs.txt"
    f.write_bytes(b"a\n")
    inode = f.stat().st_ino
    monkeypatch.setattr(write_mod, "_may_keep_owner", lambda st: False)
    t = tx()
    write_plan(plan_changes([t.modify("theirs.txt", ("a\n", "b\n"))], Workspace(tmp_path)),
               root=tmp_path)
    assert f.read_bytes() == b"b\n" and f.stat().st_ino == inode


def test_ordinary_file_replaced_atomically(tmp_path: Path, tx) -> None:
    f = tmp_path / "plain.txt"
    f.write_bytes(b"a\n")
    inode = f.stat().st_ino
    t = tx()
    write_plan(plan_changes([t.modify("plain.txt", ("a\n", "b\n"))], Workspace(tmp_path)),
               root=tmp_path)
    assert f.read_bytes() == b"b\n" and f.stat().st_ino != inode


def _readonly_file(tmp_path: Path) -> Path:
    f = tmp_path / "locked.py"
    f.write_bytes(b"x = 1\n")
    f.chmod(0o444)
    return f


def test_readonly_file_refused_at_plan_time(tmp_path: Path, tx) -> None:
    _readonly_file(tmp_path)
    t = tx()
    plan = plan_changes([t.modify("locked.py", ("x = 1\n", "x = 2\n"))], Workspace(tmp_path))
    assert not plan.ok
    [d] = plan.diagnostics
    assert d.code == "file-readonly" and "0444" in d.message and "--force" in d.message
    # Delete and create-over are refused as well; a file the transcript creates is not.
    plan = plan_changes([t.delete("locked.py")], Workspace(tmp_path))
    assert [d.code for d in plan.diagnostics] == ["file-readonly"]
    plan = plan_changes([t.create("locked.py", "y\n")], Workspace(tmp_path, allow_overwrite=True))
    assert [d.code for d in plan.diagnostics] == ["file-readonly"]
    plan = plan_changes([t.modify("locked.py", ("x = 1\n", "x = 1\n"))], Workspace(tmp_path))
    assert "file-readonly" not in [d.code for d in plan.diagnostics]  # nothing to write


def test_readonly_forced_write_keeps_mode(tmp_path: Path, tx) -> None:
    f = _readonly_file(tmp_path)
    t = tx()
    plan = plan_changes([t.modify("locked.py", ("x = 1\n", "x = 2\n"))],
                        Workspace(tmp_path, allow_readonly=True))
    assert plan.ok
    write_plan(plan, root=tmp_path)
    assert f.read_bytes() == b"x = 2\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o444


MODIFY = """<modify_file>
<path>locked.py</path>
<search>
x = 1
</search>
<replace>
x = 2
</replace>
</modify_file>
"""


def test_readonly_through_the_cli(tmp_path: Path, capsys) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    f = _readonly_file(root)
    transcript = tmp_path / "t.md"
    transcript.write_text(MODIFY)
    # The dry run and `check --root` show what --write would refuse.
    assert main(["apply", "--root", str(root), str(transcript)]) == 1
    assert "[file-readonly]" in capsys.readouterr().err
    assert main(["check", "--root", str(root), str(transcript)]) == 1
    assert "is read-only (mode 0444)" in capsys.readouterr().out
    assert main(["apply", "--write", "--root", str(root), str(transcript)]) == 1
    assert f.read_bytes() == b"x = 1\n"
    capsys.readouterr()
    assert main(["apply", "--write", "--force", "--root", str(root), str(transcript)]) == 0
    assert f.read_bytes().startswith(b"x = 2")
    assert stat.S_IMODE(f.stat().st_mode) == 0o444
    assert sorted(os.listdir(root)) == ["locked.py"]


@pytest.mark.skipif(not hasattr(os, "setxattr"), reason="extended attributes are Linux only")
def test_extended_attributes_kept(tmp_path: Path, tx) -> None:
    f = tmp_path / "tagged.txt"
    f.write_bytes(b"a\n")
    try:
        os.setxattr(f, "user.origin", b"review-42")
    except OSError:
        pytest.skip("this file system has no user extended attributes")
    t = tx()
    write_plan(plan_changes([t.modify("tagged.txt", ("a\n", "b\n"))], Workspace(tmp_path)),
               root=tmp_path)
    assert f.read_bytes() == b"b\n"
    assert os.getxattr(f, "user.origin") == b"review-42"


def _as_nobody(fn) -> int:  # type: ignore[no-untyped-def]
    """Run ``fn`` in a child process switched to an unprivileged user; its exit code."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 3
        try:
            os.setgid(65534)
            os.setgroups([])
            os.setuid(65534)
            code = fn()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


@pytest.fixture
def open_dir():  # type: ignore[no-untyped-def]
    """A directory every user can reach (pytest's tmp_path sits under a root-only one)."""
    d = Path(tempfile.mkdtemp(prefix="action-lsp-"))
    d.chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@root_only
def test_unprivileged_user_and_someone_elses_files(open_dir: Path, tx) -> None:
    """As another user: a file they may not write is `file-readonly`; one they may write but do
    not own is written in place, so it keeps its owner (a new inode would be theirs)."""
    tmp_path = open_dir
    theirs = tmp_path / "theirs.txt"
    theirs.write_bytes(b"a\n")
    theirs.chmod(0o644)
    shared = tmp_path / "shared.txt"
    shared.write_bytes(b"a\n")
    shared.chmod(0o666)
    inode = shared.stat().st_ino
    t = tx()

    def child() -> int:
        plan = plan_changes([t.modify("theirs.txt", ("a\n", "b\n"))], Workspace(tmp_path))
        if [d.code for d in plan.diagnostics] != ["file-readonly"]:
            return 10
        plan = plan_changes([t.modify("shared.txt", ("a\n", "b\n"))], Workspace(tmp_path))
        write_plan(plan, root=tmp_path)
        return 0

    assert _as_nobody(child) == 0
    assert theirs.read_bytes() == b"a\n"
    assert shared.read_bytes() == b"b\n"
    st = shared.stat()
    assert (st.st_ino, st.st_uid, st.st_gid) == (inode, 0, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shared.txt", "theirs.txt"]
