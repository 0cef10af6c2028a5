"""A user saves a file while `apply --write` is writing it: the save is never lost.

Every target is checked again (inode, size, modification time, content hash) just before its
final rename, in-place write or deletion; a file changed since the plan is a conflict: the write
is rolled back as a whole, the user's file is left as the user left it, and the error names it.

The race is made deterministic with the kill-point interceptor of ``conftest.py``: the "user"
acts right before a chosen file-system call of the write (in a forked child, so the patched
``os`` functions never reach the test process).
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from action_lsp.cli import apply as apply_cli
from action_lsp.cli.common import CliError
from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit.journal import JOURNAL_DIR

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

# The real calls, for the "user" acting inside the intercepted child.
_open, _write, _close, _replace = os.open, os.write, os.close, os.replace

SAVED = b"# the user's line, saved during the apply\n"


def user_appends(path: Path) -> None:
    fd = _open(path, os.O_WRONLY | os.O_APPEND)
    try:
        _write(fd, SAVED)
    finally:
        _close(fd)


def user_saves_atomically(path: Path, data: bytes) -> None:
    """As editors save: a new file renamed over the old one (a new inode)."""
    tmp = path.with_name(path.name + ".swp")
    fd = _open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        _write(fd, data)
    finally:
        _close(fd)
    _replace(tmp, path)


def populate(root: Path, n: int = 6) -> None:
    for i in range(n):
        (root / f"f{i}.py").write_bytes(f"x{i} = 1\n".encode() * 20)
    (root / "gone.txt").write_bytes(b"to delete\n")
    (root / "linked.py").write_bytes(b"y = 1\n")
    os.link(root / "linked.py", root / "linked-2.py")  # written in place


def make_plan(root: Path, tx, n: int = 6):  # type: ignore[no-untyped-def]
    t = tx()
    actions = [t.modify(f"f{i}.py", (f"x{i} = 1\n" * 20, f"x{i} = 2\n" * 20)) for i in range(n)]
    actions += [t.create("new/made.txt", "new\n"), t.modify("linked.py", ("y = 1\n", "y = 2\n")),
                t.delete("gone.txt")]
    plan = plan_changes(actions, Workspace(root))
    assert plan.ok
    return plan


def when_journal_appears(act: Callable[[], None]) -> Callable[[str, tuple], None]:
    """An interceptor hook: ``act`` once, at the first call after ``journal.json`` is in place."""
    state = {"seen": False, "done": False}

    def before(name: str, args: tuple) -> None:
        if state["done"]:
            return
        if state["seen"]:
            state["done"] = True
            act()
        elif name in ("replace", "rename") and os.fspath(args[1]).endswith("journal.json"):
            state["seen"] = True

    return before


def before_nth_rename(n: int, act: Callable[[], None]) -> Callable[[str, tuple], None]:
    """An interceptor hook: ``act`` right before the n-th rename of a temporary over a target."""
    count = [0]

    def before(name: str, args: tuple) -> None:
        if name == "replace" and ".action-lsp." in os.fspath(args[0]) and JOURNAL_DIR not in (
            os.fspath(args[0])
        ):
            count[0] += 1
            if count[0] == n:
                act()

    return before


def write_in_child(root: Path, plan, before, killing, said: Path) -> None:  # type: ignore[no-untyped-def]
    def child() -> None:
        killing.intercept(before)
        try:
            write_plan(plan, root=root, label="apply --write t.md")
        except WriteError as exc:
            said.write_text(f"error settled={exc.settled}: {exc}")
        else:
            said.write_text("written")

    assert killing.in_child(child) == "exited"


def old_tree_but(root: Path, before: dict, changed: str, killing) -> None:  # type: ignore[no-untyped-def]
    """Every file as before the write, except ``changed``, which holds the user's bytes."""
    now = killing.snapshot(root)
    assert not (root / JOURNAL_DIR).exists()
    assert {k for k in now if k != changed} == {k for k in before if k != changed}
    for k, v in before.items():
        if k != changed:
            assert now[k] == v, f"{k} is not as before the write"


def test_a_line_appended_once_the_journal_appears_is_kept(tmp_path: Path, tx, killing) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    last = root / "f5.py"
    said = tmp_path / "said"
    write_in_child(root, plan, when_journal_appears(lambda: user_appends(last)), killing, said)
    assert last.read_bytes() == b"x5 = 1\n" * 20 + SAVED
    old_tree_but(root, before, "f5.py", killing)
    message = said.read_text()
    assert message.startswith("error settled=True")
    assert "f5.py" in message and "changed since" in message


@pytest.mark.parametrize("n", [1, 3, 5])
def test_a_save_after_some_renames_rolls_the_whole_write_back(tmp_path: Path, tx, killing,
                                                             n: int) -> None:
    """The user saves f5.py just before the n-th rename: the files renamed before it go back.
    (f5.py's own rename is the 6th: a save between its last check and that rename, a window
    of a few system calls, is the one this check cannot close.)"""
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    said = tmp_path / "said"
    write_in_child(root, plan, before_nth_rename(n, lambda: user_appends(root / "f5.py")),
                   killing, said)
    assert (root / "f5.py").read_bytes() == b"x5 = 1\n" * 20 + SAVED
    old_tree_but(root, before, "f5.py", killing)
    assert "f5.py" in said.read_text()


def test_an_editor_s_atomic_save_with_the_same_size_is_a_conflict(tmp_path: Path, tx,
                                                                 killing) -> None:
    """Same size, another inode (and content): the check does not rely on the size alone."""
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    mine = b"x2 = 9\n" * 20
    said = tmp_path / "said"
    write_in_child(root, plan, when_journal_appears(
        lambda: user_saves_atomically(root / "f2.py", mine)), killing, said)
    assert (root / "f2.py").read_bytes() == mine
    old_tree_but(root, before, "f2.py", killing)
    assert "f2.py" in said.read_text()


def test_a_touched_file_is_a_conflict(tmp_path: Path, tx, killing) -> None:
    """Same bytes, a new modification time: changed since the plan (a save of the same text)."""
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    said = tmp_path / "said"

    def touch() -> None:
        st = os.stat(root / "f1.py")
        os.utime(root / "f1.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))

    write_in_child(root, plan, when_journal_appears(touch), killing, said)
    assert killing.snapshot(root) == before or old_tree_but(root, before, "f1.py", killing) is None
    assert "f1.py" in said.read_text() and "changed since" in said.read_text()


def test_a_save_to_an_in_place_target_is_kept(tmp_path: Path, tx, killing) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    said = tmp_path / "said"
    write_in_child(root, plan, when_journal_appears(lambda: user_appends(root / "linked-2.py")),
                   killing, said)
    assert (root / "linked.py").read_bytes() == b"y = 1\n" + SAVED
    assert (root / "linked-2.py").read_bytes() == b"y = 1\n" + SAVED
    assert os.stat(root / "linked.py").st_ino == os.stat(root / "linked-2.py").st_ino
    now = killing.snapshot(root)
    for k, v in before.items():
        if not k.startswith("linked"):
            assert now[k] == v
    assert "linked.py" in said.read_text()


def test_a_file_created_by_the_user_where_the_write_creates_one_is_kept(tmp_path: Path, tx,
                                                                       killing) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    said = tmp_path / "said"
    theirs = b"the user's own file\n"
    write_in_child(root, plan, before_nth_rename(
        1, lambda: user_saves_atomically(root / "new" / "made.txt", theirs)), killing, said)
    assert (root / "new" / "made.txt").read_bytes() == theirs
    now = killing.snapshot(root)
    for k, v in before.items():
        assert now[k] == v
    assert set(now) - set(before) == {"new", "new/made.txt"}
    assert "made.txt" in said.read_text()


def test_a_file_to_delete_saved_meanwhile_is_kept(tmp_path: Path, tx, killing) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    plan = make_plan(root, tx)
    before = killing.snapshot(root)
    said = tmp_path / "said"
    write_in_child(root, plan, before_nth_rename(2, lambda: user_appends(root / "gone.txt")),
                   killing, said)
    assert (root / "gone.txt").read_bytes() == b"to delete\n" + SAVED
    old_tree_but(root, before, "gone.txt", killing)
    assert "gone.txt" in said.read_text()


def test_a_write_nobody_disturbs_is_written(tmp_path: Path, tx, killing) -> None:
    """The check passes on the write's own in-place writes (one file under two names)."""
    root = tmp_path / "ws"
    root.mkdir()
    populate(root)
    t = tx()
    plan = plan_changes([t.modify("linked.py", ("y = 1\n", "y = 2\n")),
                         t.modify("linked-2.py", ("y = 1\n", "y = 2\n"))], Workspace(root))
    assert plan.ok
    write_plan(plan, root=root)
    assert (root / "linked-2.py").read_bytes() == b"y = 2\n"


# -- through the command line ---------------------------------------------------------------


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="action-lsp")
    sub = parser.add_subparsers(dest="command")
    apply_cli.add_parser(sub)
    args = parser.parse_args(["apply", *argv])
    try:
        return int(args.run(args))
    except CliError:
        return 2


def test_apply_write_exits_1_and_keeps_the_save(tmp_path: Path, tx, killing, monkeypatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_bytes(b"x = 1\n")
    (root / "b.py").write_bytes(b"y = 1\n")
    transcript = tmp_path / "t.md"
    transcript.write_text("x" * 2000 + "\n")
    t = tx()
    actions = [t.modify("a.py", ("x = 1\n", "x = 2\n")), t.modify("b.py", ("y = 1\n", "y = 2\n"))]
    monkeypatch.setattr(apply_cli, "parse_transcript", lambda text: (actions, []))
    said = tmp_path / "said"

    def child() -> None:
        err = io.StringIO()
        sys.stderr = err
        killing.intercept(when_journal_appears(lambda: user_appends(root / "b.py")))
        code = run_cli(["--root", str(root), "--write", str(transcript)])
        said.write_text(f"{code}\n{err.getvalue()}")

    assert killing.in_child(child) == "exited"
    code, _, err = said.read_text().partition("\n")
    assert code == "1", err
    assert "b.py" in err and "changed since" in err and "nothing written" in err
    assert (root / "a.py").read_bytes() == b"x = 1\n"
    assert (root / "b.py").read_bytes() == b"y = 1\n" + SAVED
    assert not (root / JOURNAL_DIR).exists()
