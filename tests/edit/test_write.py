"""write_plan(): all or nothing, bytes exact (BOM, CRLF, mode), no stray temporaries."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_create_modify_mkdir_written(tmp_path: Path, tx) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\ny = 2\n")
    t = tx()
    plan = plan_changes(
        [t.create("src/new.py", "n = 1\n"), t.modify("a.py", ("y = 2\n", "y = 3\n")),
         t.mkdir("empty/dir")],
        Workspace(tmp_path),
    )
    assert plan.ok
    write_plan(plan)
    assert (tmp_path / "src/new.py").read_bytes() == b"n = 1\n"
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\ny = 3\n"
    assert (tmp_path / "empty/dir").is_dir()
    assert listing(tmp_path) == ["a.py", "empty", "empty/dir", "src", "src/new.py"]


def test_crlf_and_bom_kept(tmp_path: Path, tx) -> None:
    original = b"\xef\xbb\xbfline one\r\nline two\r\nline three\r\n"
    (tmp_path / "w.txt").write_bytes(original)
    t = tx()
    plan = plan_changes([t.modify("w.txt", ("line two\n", "line 2\nline 2b\n"))],
                        Workspace(tmp_path))
    write_plan(plan)
    assert (tmp_path / "w.txt").read_bytes() == (
        b"\xef\xbb\xbfline one\r\nline 2\r\nline 2b\r\nline three\r\n"
    )


def test_crlf_replacement_in_lf_file_becomes_lf(tmp_path: Path, tx) -> None:
    (tmp_path / "u.txt").write_bytes(b"a\nb\nc\n")
    t = tx()
    write_plan(plan_changes([t.modify("u.txt", ("b\r\n", "B\r\nB2\r\n"))], Workspace(tmp_path)))
    assert (tmp_path / "u.txt").read_bytes() == b"a\nB\nB2\nc\n"


def test_untouched_bytes_identical_and_unicode(tmp_path: Path, tx) -> None:
    body = "héllo\t→ wörld 🎉  \n" * 50 + "target\n" + "tail ✓\x0c\u2028x\n" * 50
    (tmp_path / "u.txt").write_bytes(body.encode())
    t = tx()
    write_plan(plan_changes([t.modify("u.txt", ("target\n", "TARGET\n"))], Workspace(tmp_path)))
    assert (tmp_path / "u.txt").read_bytes() == body.replace("target\n", "TARGET\n").encode()


def test_mode_kept(tmp_path: Path, tx) -> None:
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\necho a\n")
    script.chmod(0o750)
    t = tx()
    write_plan(plan_changes([t.modify("run.sh", ("echo a\n", "echo b\n"))], Workspace(tmp_path)))
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_bytes() == b"#!/bin/sh\necho b\n"


def test_reindented_replacement_on_disk(tmp_path: Path, tx) -> None:
    (tmp_path / "c.py").write_bytes(b"class C:\n    def f(self):\n        return 1\n")
    t = tx()
    plan = plan_changes(
        [t.modify("c.py", ("def f(self):\n    return 1\n",
                           "def f(self):\n    if self:\n        return 2\n    return 1\n"))],
        Workspace(tmp_path),
    )
    write_plan(plan)
    assert (tmp_path / "c.py").read_bytes() == (
        b"class C:\n    def f(self):\n        if self:\n            return 2\n        return 1\n"
    )


def test_failing_action_means_nothing_is_planned_for_it(tmp_path: Path, tx) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    t = tx()
    plan = plan_changes(
        [t.create("new/file.py", "n\n"), t.modify("a.py", ("not there\nat all\n", "y\n"))],
        Workspace(tmp_path),
    )
    assert not plan.ok
    # The CLI writes nothing when the plan is not ok; the engine never wrote anything.
    assert listing(tmp_path) == ["a.py"]
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\n"


def test_failure_before_rename_leaves_nothing(tmp_path: Path, tx, monkeypatch) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    t = tx()
    plan = plan_changes(
        [t.create("d1/d2/new.py", "n\n"), t.modify("a.py", ("x = 1\n", "x = 2\n"))],
        Workspace(tmp_path),
    )
    assert plan.ok
    real_fsync = os.fsync
    calls = {"n": 0}

    def failing_fsync(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError(28, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(WriteError):
        write_plan(plan)
    assert listing(tmp_path) == ["a.py"]
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\n"


def test_file_changed_since_plan_is_not_overwritten(tmp_path: Path, tx) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 1\n")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("x = 1\n", "x = 2\n")), t.create("b.py", "b\n")],
                        Workspace(tmp_path))
    (tmp_path / "a.py").write_bytes(b"x = 1\n# edited by the user\n")
    with pytest.raises(WriteError):
        write_plan(plan)
    assert (tmp_path / "a.py").read_bytes() == b"x = 1\n# edited by the user\n"
    assert listing(tmp_path) == ["a.py"]  # no journal left either


def test_symlinked_file_inside_keeps_link(tmp_path: Path, tx) -> None:
    (tmp_path / "real.txt").write_bytes(b"a\n")
    os.symlink("real.txt", tmp_path / "alias.txt")
    t = tx()
    write_plan(plan_changes([t.modify("alias.txt", ("a\n", "b\n"))], Workspace(tmp_path)))
    assert (tmp_path / "alias.txt").is_symlink()
    assert (tmp_path / "real.txt").read_bytes() == b"b\n"


def test_new_file_gets_default_mode(tmp_path: Path, tx) -> None:
    t = tx()
    write_plan(plan_changes([t.create("n.txt", "x")], Workspace(tmp_path)))
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((tmp_path / "n.txt").stat().st_mode) == 0o666 & ~mask


def test_overwrite_with_force_keeps_crlf_and_bom(tmp_path: Path, tx) -> None:
    (tmp_path / "a.txt").write_bytes(b"\xef\xbb\xbfold\r\n")
    t = tx()
    plan = plan_changes([t.create("a.txt", "new\nlines\n")],
                        Workspace(tmp_path, allow_overwrite=True))
    write_plan(plan)
    assert (tmp_path / "a.txt").read_bytes() == b"\xef\xbb\xbfnew\r\nlines\r\n"
