"""The write journal: a write killed at a chosen point is rolled back (before the commit mark)
or forward (after it) by the next recovery, and leaves no litter either way."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit import journal as journal_mod
from action_lsp.edit import write as write_mod
from action_lsp.edit.journal import recover
from action_lsp.edit.plan import FileChange

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

JDIR = ".action-lsp-journal"
NEW = {"a.py": b"a = 2\n", "b.py": b"b = 2\n", "c.py": b"c = 2\n", "d/e/n1.txt": b"n1\n",
       "d/e/n2.txt": b"n2\n"}


def populate(root: Path) -> None:
    root.mkdir(exist_ok=True)
    for name in "abc":
        (root / f"{name}.py").write_bytes(f"{name} = 1\n".encode())
    (root / "gone.txt").write_bytes(b"to delete\n")


def make_plan(root: Path, tx):  # type: ignore[no-untyped-def]
    t = tx()
    plan = plan_changes(
        [t.modify("a.py", ("a = 1\n", "a = 2\n")), t.create("d/e/n1.txt", "n1\n"),
         t.modify("b.py", ("b = 1\n", "b = 2\n")), t.create("d/e/n2.txt", "n2\n"),
         t.modify("c.py", ("c = 1\n", "c = 2\n")), t.delete("gone.txt")],
        Workspace(root),
    )
    assert plan.ok
    return plan


def expected_after(before: dict) -> dict:
    after = {k: v for k, v in before.items() if k != "gone.txt"}
    for rel, data in NEW.items():
        old = before.get(rel)
        after[rel] = ("file", data, old[2] if old else 0o666 & ~_umask(), 1)
    after["d"] = after["d/e"] = ("dir", b"", 0o777 & ~_umask(), 0)
    return after


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_success_leaves_no_journal(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    before = set(killing.snapshot(tmp_path))
    write_plan(make_plan(tmp_path, tx), root=tmp_path)
    assert set(killing.snapshot(tmp_path)) == (before - {"gone.txt"}) | set(NEW) | {"d", "d/e"}


@pytest.mark.parametrize("marker", ["dir", "file"])
def test_workspace_marker_untouched(tmp_path: Path, tx, killing, marker: str) -> None:
    """`.action-lsp` (an empty directory or a file) marks a workspace root for the editors;
    the journal lives beside it and leaves it as it was."""
    populate(tmp_path)
    if marker == "dir":
        (tmp_path / ".action-lsp").mkdir()
    else:
        (tmp_path / ".action-lsp").write_text("")
    write_plan(make_plan(tmp_path, tx), root=tmp_path)
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    mark = tmp_path / ".action-lsp"
    assert (mark.is_dir() and os.listdir(mark) == []) if marker == "dir" else mark.is_file()
    assert not (tmp_path / JDIR).exists()


def test_kill_while_writing_temporaries_rolls_back(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        calls = []
        real = write_mod.write_new

        def dying(*args, **kwargs):  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) == 3:
                killing.die()
            return real(*args, **kwargs)

        write_mod.write_new = dying  # type: ignore[assignment]
        write_plan(plan, root=tmp_path, label="apply --write t.md")

    assert killing.in_child(child) == "killed"
    litter = [p for p in killing.snapshot(tmp_path) if p not in before]
    assert any(".action-lsp." in p and p.endswith(".tmp") for p in litter)
    assert (tmp_path / JDIR / "journal.json").exists()
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-back"
    assert "apply --write t.md" in rec.message() and "rolled back" in rec.message()
    assert killing.snapshot(tmp_path) == before
    assert recover(tmp_path) is None


def _die_on_rename(n: int, killing) -> None:  # type: ignore[no-untyped-def]
    """In the child: SIGKILL at the n-th rename of a temporary over a target."""
    real = os.replace
    calls = []

    def dying(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and "/journal/" not in os.fspath(src):
            calls.append(1)
            if len(calls) == n:
                killing.die()
        return real(src, dst, *a, **k)

    os.replace = dying  # type: ignore[assignment]


def test_kill_during_renames_rolls_forward(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        _die_on_rename(3, killing)
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    # Half applied on disk: two renamed, the rest waiting.
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    assert (tmp_path / "b.py").read_bytes() == b"b = 1\n"
    assert (tmp_path / JDIR / "committed").exists()
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward" and not rec.conflicts
    assert "was finished" in rec.message()
    assert killing.snapshot(tmp_path) == expected_after(before)


def test_kill_while_writing_the_journal_changes_nothing(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        journal_mod.json.dumps = lambda *a, **k: killing.die()  # type: ignore[assignment]
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    assert (tmp_path / JDIR / "backup").exists()
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "cleaned"
    assert killing.snapshot(tmp_path) == before


def test_kill_in_the_middle_of_an_in_place_write(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    os.link(tmp_path / "b.py", tmp_path / "b-link.py")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("a = 1\n", "a = 2\n")),
                         t.modify("b.py", ("b = 1\n", "b = 2 + 20 + 200\n"))], Workspace(tmp_path))

    def child() -> None:
        def half(path: Path, data: bytes) -> None:
            fd = os.open(path, os.O_WRONLY)  # as write_in_place: from the start, no O_TRUNC
            os.write(fd, data[:5])
            os.close(fd)
            killing.die()

        write_mod.write_in_place = half  # type: ignore[assignment]
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    assert (tmp_path / "b-link.py").read_bytes() == b"b = 2\n"  # torn: new start, old end
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward" and not rec.conflicts
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    assert (tmp_path / "b-link.py").read_bytes() == b"b = 2 + 20 + 200\n"
    assert os.path.samefile(tmp_path / "b.py", tmp_path / "b-link.py")
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / JDIR).exists()


def test_a_file_changed_after_the_crash_is_left_alone(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        _die_on_rename(2, killing)
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    (tmp_path / "c.py").write_bytes(b"c = 'edited by the user'\n")
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward"
    assert rec.conflicts == ["c.py"] and "c.py" in rec.message()
    assert (tmp_path / "c.py").read_bytes() == b"c = 'edited by the user'\n"
    assert (tmp_path / "b.py").read_bytes() == b"b = 2\n"
    assert not [p for p in killing.snapshot(tmp_path) if ".action-lsp" in p]


def test_lost_temporary_after_commit_restores_the_backup(tmp_path: Path, tx, killing) -> None:
    """Rolling forward is impossible without the new bytes: everything goes back instead."""
    populate(tmp_path)
    (tmp_path / "a.py").chmod(0o640)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        _die_on_rename(3, killing)
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    for temp in tmp_path.rglob(".action-lsp.*.tmp"):
        temp.unlink()
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-back"
    assert killing.snapshot(tmp_path) == before


def test_rename_failure_rolls_back_at_once(tmp_path: Path, tx, killing, monkeypatch) -> None:
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)
    real = os.replace
    calls = []

    def failing(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and "/journal/" not in os.fspath(src):
            calls.append(1)
            if len(calls) == 3:
                raise OSError(5, "Input/output error")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(WriteError, match="rolled back"):
        write_plan(plan, root=tmp_path)
    assert killing.snapshot(tmp_path) == before


def test_journal_area_is_not_a_target(tmp_path: Path, tx) -> None:
    t = tx()
    plan = plan_changes([t.create(f"{JDIR}/journal.json", "{}")], Workspace(tmp_path))
    assert [d.code for d in plan.diagnostics] == ["protected-path"] and not plan.changes
    change = FileChange(tmp_path / JDIR / "journal.json", f"{JDIR}/journal.json", "create",
                        None, b"{}")
    with pytest.raises(WriteError, match="journal"):  # a change made by hand: refused too
        write_plan([change], root=tmp_path)
    assert not (tmp_path / JDIR).exists()


TRANSCRIPT = """<modify_file>
<path>a.py</path>
<search>
a = 1
</search>
<replace>
a = 2
</replace>
</modify_file>
"""


def test_cli_apply_recovers_first_and_says_so(tmp_path: Path, tx, killing, capsys) -> None:
    root = tmp_path / "ws"
    populate(root)
    before = killing.snapshot(root)
    plan = make_plan(root, tx)

    def child() -> None:
        _die_on_rename(2, killing)
        write_plan(plan, root=root, label="apply --write big.md")

    assert killing.in_child(child) == "killed"
    transcript = tmp_path / "t.md"
    transcript.write_text(TRANSCRIPT)
    assert main(["apply", "--root", str(root), str(transcript)]) == 0  # a dry run
    err = capsys.readouterr().err
    assert "an interrupted apply (apply --write big.md)" in err and "was finished" in err
    assert killing.snapshot(root) == expected_after(before)
    # `check` never touches the workspace, and skips the hidden journal directory.
    (root / JDIR).mkdir(parents=True)
    (root / JDIR / "x.md").write_text("<create_file>\n<path>/etc/x</path>\n")
    assert main(["check", str(root)]) == 0
    assert "x.md" not in capsys.readouterr().out


def test_a_live_write_is_not_recovered_under_it(tmp_path: Path, tx, killing) -> None:
    """A recovery (another apply, a server start) waits for the lock of a running write."""
    populate(tmp_path)
    plan = make_plan(tmp_path, tx)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(r)

            def slow(*args, **kwargs):  # type: ignore[no-untyped-def]
                os.write(w, b"x")
                os.kill(os.getpid(), signal.SIGSTOP)

            write_mod.write_new = slow  # type: ignore[assignment]
            write_plan(plan, root=tmp_path)
        finally:
            os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"x"  # the child holds the lock, mid-write
    os.waitpid(pid, os.WUNTRACED)
    import threading

    result: list[object] = []
    def run() -> None:
        try:
            result.append(recover(tmp_path))
        except BaseException as exc:
            result.append(exc)
            raise

    t = threading.Thread(target=run)
    t.start()
    t.join(0.3)
    assert t.is_alive(), result  # blocked on the lock
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    t.join(5)
    assert result and result[0] is not None and result[0].outcome == "rolled-back"


def test_interrupt_after_commit_finishes_at_once(tmp_path: Path, tx, killing, monkeypatch) -> None:
    """Ctrl-C during the renames: the write is finished before the exception goes on."""
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)
    real = os.replace
    calls = []

    def interrupted(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and "/journal/" not in os.fspath(src):
            calls.append(1)
            if len(calls) == 2:
                raise KeyboardInterrupt
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_plan(plan, root=tmp_path)
    monkeypatch.setattr(os, "replace", real)
    assert killing.snapshot(tmp_path) == expected_after(before)


def test_file_and_directory_at_one_path_fails_before_anything(tmp_path: Path, tx, killing) -> None:
    """`a` created as a file and as the parent of `a/b`: refused with nothing left behind (the
    planner refuses such a plan; the write does not rely on it)."""
    t = tx()
    changes = [*plan_changes([t.create("a", "file\n")], Workspace(tmp_path)).changes,
               *plan_changes([t.create("a/b", "child\n")], Workspace(tmp_path)).changes]
    with pytest.raises(WriteError, match="both a file and a directory"):
        write_plan(changes, root=tmp_path)
    assert killing.snapshot(tmp_path) == {}


def test_failing_commit_mark_leaves_nothing(tmp_path: Path, tx, killing, monkeypatch) -> None:
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def full(self) -> None:  # type: ignore[no-untyped-def]
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal_mod.Journal, "commit", full)
    with pytest.raises(WriteError, match="No space left") as info:
        write_plan(plan, root=tmp_path)
    assert info.value.settled
    assert killing.snapshot(tmp_path) == before


# -- a journal this process did not write is never acted upon --------------------------------


def _interrupted(root: Path, tx, killing, rename: int = 2) -> None:  # type: ignore[no-untyped-def]
    populate(root)
    plan = make_plan(root, tx)

    def child() -> None:
        _die_on_rename(rename, killing)
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"


def test_copied_journal_is_left_alone(tmp_path: Path, tx, killing, capsys) -> None:
    import shutil

    _interrupted(tmp_path / "ws", tx, killing)
    shutil.copytree(tmp_path / "ws", tmp_path / "clone", symlinks=True)  # e.g. a repository
    state = killing.snapshot(tmp_path / "clone")
    with pytest.raises(journal_mod.JournalError, match="not written in this directory"):
        recover(tmp_path / "clone")
    assert killing.snapshot(tmp_path / "clone") == state
    transcript = tmp_path / "t.md"
    transcript.write_text(TRANSCRIPT)
    main(["apply", "--root", str(tmp_path / "clone"), str(transcript)])
    assert "could not recover" in capsys.readouterr().err
    assert killing.snapshot(tmp_path / "clone") == state


@pytest.mark.parametrize("field", ["temp", "target"])
def test_journal_naming_other_files_is_refused(tmp_path: Path, tx, killing, field: str) -> None:
    import json

    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"precious\n")
    root = tmp_path / "ws"
    _interrupted(root, tx, killing)
    (root / "victim.txt").write_bytes(b"mine\n")
    path = root / JDIR / "journal.json"
    record = json.loads(path.read_text())
    entry = next(e for e in record["entries"] if e["op"] == "rename" and e["temp"])
    entry[field] = "victim.txt" if field == "temp" else str(outside)
    path.write_text(json.dumps(record))
    with pytest.raises(journal_mod.JournalError, match="may not"):
        recover(root)
    assert (root / "victim.txt").read_bytes() == b"mine\n"
    assert outside.read_bytes() == b"precious\n"


def test_journal_directory_behind_a_symlink_is_refused(tmp_path: Path, tx, killing) -> None:
    root = tmp_path / "ws"
    populate(root)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / JDIR)
    before = killing.snapshot(root)
    with pytest.raises(WriteError, match="symbolic link"):
        write_plan(make_plan(root, tx), root=root)
    assert killing.snapshot(root) == before
    assert os.listdir(tmp_path / "elsewhere") == []


def test_in_place_target_edited_after_the_kill_is_kept(tmp_path: Path, tx, killing) -> None:
    populate(tmp_path)
    os.link(tmp_path / "b.py", tmp_path / "b-link.py")
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        write_mod.write_in_place = lambda path, data: killing.die()  # type: ignore[assignment]
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    (tmp_path / "b-link.py").write_bytes(b"b = 'the user was here'\n")
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward" and rec.conflicts == ["b.py"]
    assert (tmp_path / "b.py").read_bytes() == b"b = 'the user was here'\n"
    assert (tmp_path / "c.py").read_bytes() == b"c = 2\n"
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / JDIR).exists()


# -- a kill while the journal itself is being removed ----------------------------------------


def _die_removing_journal(n: int, killing) -> None:  # type: ignore[no-untyped-def]
    """In the child: SIGKILL just before the n-th removal of a journal file or directory."""
    real_unlink, real_rmdir = os.unlink, os.rmdir
    calls = []

    def dying(real):  # type: ignore[no-untyped-def]
        def call(path, *a, **k):  # type: ignore[no-untyped-def]
            if JDIR in os.fspath(path):
                calls.append(1)
                if len(calls) == n:
                    killing.die()
            return real(path, *a, **k)

        return call

    os.unlink, os.rmdir = dying(real_unlink), dying(real_rmdir)  # type: ignore[assignment]


# backup, committed, journal.json, journal.json.tmp (absent), the directory: five removals
REMOVALS = range(1, 6)


@pytest.mark.parametrize("n", REMOVALS)
def test_kill_removing_the_journal_of_a_finished_write(tmp_path: Path, tx, killing,
                                                       n: int) -> None:
    """Every file is written; only the journal's removal was cut short. The next recovery
    leaves every new file, and what it reports is true: it never says nothing was changed."""
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        real_commit = journal_mod.Journal.commit

        def commit(self) -> None:  # type: ignore[no-untyped-def]
            real_commit(self)
            _die_removing_journal(n, killing)

        journal_mod.Journal.commit = commit  # type: ignore[method-assign]
        write_plan(plan, root=tmp_path, label="apply --write t.md")

    assert killing.in_child(child) == "killed"
    rec = recover(tmp_path)
    assert killing.snapshot(tmp_path) == expected_after(before)
    if rec is not None:  # none: killed just before the empty directory's removal
        assert rec.outcome in ("rolled-forward", "finished"), rec.message()
        assert ("all 6 planned change(s) are written" in rec.message()
                or "had finished and was stopped while removing its journal" in rec.message())
    assert recover(tmp_path) is None


@pytest.mark.parametrize("n", REMOVALS)
def test_kill_removing_the_journal_of_a_rolled_back_write(tmp_path: Path, tx, killing,
                                                          n: int) -> None:
    """A rename failed after the commit mark, the write was rolled back, and the journal's
    removal was cut short: the next recovery keeps every old file and says so."""
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx)

    def child() -> None:
        real = os.replace
        calls = []

        def failing(src, dst, *a, **k):  # type: ignore[no-untyped-def]
            if ".action-lsp." in os.fspath(src) and JDIR not in os.fspath(src):
                calls.append(1)
                if len(calls) == 3:
                    _die_removing_journal(n, killing)
                    raise OSError(5, "Input/output error")
            return real(src, dst, *a, **k)

        os.replace = failing  # type: ignore[assignment]
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    rec = recover(tmp_path)
    assert killing.snapshot(tmp_path) == before
    if rec is not None:
        assert rec.outcome in ("rolled-back", "cleaned"), rec.message()
        assert "as they were" in rec.message() or "every file as it was" in rec.message()
    assert recover(tmp_path) is None


# -- what apply --write says when the disk fails ---------------------------------------------

THREE = "".join(
    f"<modify_file>\n<path>{n}.py</path>\n<search>\n{n} = 1\n</search>\n<replace>\n{n} = 2\n"
    "</replace>\n</modify_file>\n" for n in "abc"
)


def test_cli_says_half_way_when_neither_write_nor_rollback_worked(
    tmp_path: Path, killing, capsys, monkeypatch
) -> None:
    """A rename fails, and so does every rename that would put the files back: the files are
    part old, part new. `apply --write` must not say "nothing written"; it says the write
    failed half-way and that the next apply settles it, which it does."""
    root = tmp_path / "ws"
    populate(root)
    before = killing.snapshot(root)
    transcript = tmp_path / "t.md"
    transcript.write_text(THREE)
    real = os.replace
    calls = []

    def failing(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and JDIR not in os.fspath(src):
            calls.append(1)
            if len(calls) >= 2:
                raise OSError(5, "Input/output error")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", failing)
    assert main(["apply", "--write", "--root", str(root), str(transcript)]) == 1
    err = capsys.readouterr().err
    assert "write failed half-way" in err and "nothing written" not in err
    assert "is kept" in err and "the next `action-lsp apply`" in err
    assert (root / "a.py").read_bytes() == b"a = 2\n" and (root / "b.py").read_bytes() == b"b = 1\n"
    monkeypatch.setattr(os, "replace", real)
    assert main(["apply", "--root", str(root), str(transcript)]) == 0
    err = capsys.readouterr().err
    assert "an interrupted apply" in err
    assert killing.snapshot(root) in (before, {**before, **{
        f"{n}.py": ("file", f"{n} = 2\n".encode(), before[f"{n}.py"][2], 1) for n in "abc"}})
    assert not (root / JDIR).exists()


def test_cli_warns_when_the_journal_of_a_finished_write_stays(
    tmp_path: Path, killing, capsys, monkeypatch
) -> None:
    """Every file is written but the journal cannot be removed: `apply --write` reports the
    files as written (exit 0) and warns; the next apply removes the journal and says so."""
    root = tmp_path / "ws"
    populate(root)
    transcript = tmp_path / "t.md"
    transcript.write_text(THREE)
    real = os.unlink

    def failing(path, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(path).endswith(f"{JDIR}/journal.json") and os.path.exists(path):
            raise PermissionError(13, "Permission denied")
        return real(path, *a, **k)

    monkeypatch.setattr(os, "unlink", failing)
    assert main(["apply", "--write", "--root", str(root), str(transcript)]) == 0
    err = capsys.readouterr().err
    assert "modified a.py" in err and "modified c.py" in err
    assert "warning: every change is written, but its journal" in err
    assert "could not be removed" in err and "nothing written" not in err
    monkeypatch.setattr(os, "unlink", real)
    assert main(["apply", "--root", str(root), str(transcript)]) == 0
    err = capsys.readouterr().err
    assert "was finished: all 3 planned change(s) are written" in err
    assert [(root / f"{n}.py").read_bytes() for n in "abc"] == [b"a = 2\n", b"b = 2\n", b"c = 2\n"]
    assert not (root / JDIR).exists()


# -- found by a review: a user's change after the crash, the server's extra roots, Ctrl-C ---


def _two(root: Path, tx, **ws):  # type: ignore[no-untyped-def]
    for name in "ac":
        (root / f"{name}.py").write_bytes(f"{name} = 1\n".encode())
    t = tx()
    return plan_changes([t.modify("a.py", ("a = 1\n", "a = 2\n")),
                         t.modify("c.py", ("c = 1\n", "c = 2\n"))], Workspace(root, **ws))


def test_a_file_the_user_deleted_after_the_crash_is_not_brought_back(tmp_path: Path, tx,
                                                                      killing) -> None:
    """Killed after a.py was renamed; the user then deletes a.py. That is the user's change:
    a.py stays deleted and is named as changed since, and the rest of the write is finished
    (a rollback once brought a.py back from the backup)."""
    plan = _two(tmp_path, tx)

    def child() -> None:
        _die_on_rename(2, killing)
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    os.unlink(tmp_path / "a.py")
    rec = recover(tmp_path)
    assert rec is not None and rec.conflicts == ["a.py"], rec and rec.message()
    assert rec.outcome == "rolled-forward"
    assert not (tmp_path / "a.py").exists() and (tmp_path / "c.py").read_bytes() == b"c = 2\n"


def test_a_user_truncating_an_in_place_file_after_the_crash_is_not_overwritten(
    tmp_path: Path, tx, killing
) -> None:
    """Killed after the commit mark, before the hard-linked b.py is rewritten (the write
    shrinks it); the user then cuts b.py's last lines. That is not a half-done rollback (no
    rollback was running), so the recovery leaves the user's bytes alone."""
    old = b"b = 1\n" * 40
    (tmp_path / "b.py").write_bytes(old)
    os.link(tmp_path / "b.py", tmp_path / "b-link.py")
    t = tx()
    plan = plan_changes([t.modify("b.py", ("b = 1\n" * 40, "b = 2\n"))], Workspace(tmp_path))

    def child() -> None:
        write_mod.write_in_place = lambda *a, **k: killing.die()  # type: ignore[assignment]
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    mine = old[:-12]
    (tmp_path / "b.py").write_bytes(mine)
    rec = recover(tmp_path)
    assert rec is not None and rec.conflicts == ["b.py"], rec and rec.message()
    assert (tmp_path / "b.py").read_bytes() == mine


def test_a_kept_journal_naming_an_extra_root_does_not_block_the_server_s_next_write(
    tmp_path: Path, tx, killing
) -> None:
    """The server writes into an extra root and is killed after the commit mark. Its next
    write finishes the earlier one first (the extra roots are passed on) and then writes."""
    root, extra = tmp_path / "ws", tmp_path / "extra"
    root.mkdir()
    extra.mkdir()
    (root / "a.py").write_bytes(b"a = 1\n")
    (extra / "x.py").write_bytes(b"x = 1\n")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("a = 1\n", "a = 2\n")),
                         t.modify("x.py", ("x = 1\n", "x = 2\n"))],
                        Workspace(root, extra_roots=[extra]))
    assert plan.ok

    def child() -> None:
        _die_on_rename(2, killing)
        write_plan(plan, root=root, extra_roots=[extra])

    assert killing.in_child(child) == "killed"
    (root / "b.py").write_bytes(b"b = 1\n")
    t = tx()
    nxt = plan_changes([t.modify("b.py", ("b = 1\n", "b = 2\n"))], Workspace(root))
    write_plan(nxt, root=root, extra_roots=[extra])
    assert [p.read_bytes() for p in (root / "a.py", extra / "x.py", root / "b.py")] == [
        b"a = 2\n", b"x = 2\n", b"b = 2\n"]


def test_ctrl_c_then_a_failing_finish_is_not_called_settled(tmp_path: Path, tx,
                                                             monkeypatch) -> None:
    """Ctrl-C after the commit mark; finishing the write then fails (a disk error): the files
    are part new, part old, so the error is not "settled" ("nothing written") and says the
    journal is kept; the next recovery settles it."""
    plan = _two(tmp_path, tx)
    real = os.replace
    n = [0]

    def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if JDIR not in os.fspath(src):
            n[0] += 1
            if n[0] == 2:
                raise KeyboardInterrupt
            if n[0] == 3:
                raise OSError(5, "Input/output error")
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(WriteError, match=r"journal under .* is kept") as info:
        write_plan(plan, root=tmp_path)
    assert not info.value.settled
    assert [(tmp_path / f"{x}.py").read_bytes() for x in "ac"] == [b"a = 2\n", b"c = 1\n"]
    monkeypatch.setattr(os, "replace", real)
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward"
    assert [(tmp_path / f"{x}.py").read_bytes() for x in "ac"] == [b"a = 2\n", b"c = 2\n"]


def test_a_rollback_in_the_write_is_durable_before_the_commit_mark_goes(
    tmp_path: Path, tx, monkeypatch
) -> None:
    """A rename fails and the write puts a.py back: the directory holding the restored a.py
    is fsynced before the commit mark is removed (else a power loss could bring back an
    uncommitted journal over a new a.py, which a recovery would leave as it is)."""
    plan = _two(tmp_path, tx)
    events: list[tuple[str, str]] = []
    real_replace, real_unlink, real_fsync = os.replace, os.unlink, os.fsync
    calls = [0]

    def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if JDIR not in os.fspath(src):
            calls[0] += 1
            if calls[0] == 2:
                raise OSError(5, "Input/output error")
        real_replace(src, dst, *a, **k)
        events.append(("replace", os.fspath(dst)))

    def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
        real_unlink(p, *a, **k)
        events.append(("unlink", os.fspath(p)))

    def fsync(fd):  # type: ignore[no-untyped-def]
        real_fsync(fd)
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(WriteError, match="rolled back"):
        write_plan(plan, root=tmp_path)
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\n"
    restored = max(i for i, e in enumerate(events) if e == ("replace", str(tmp_path / "a.py")))
    mark = events.index(("unlink", str(tmp_path / JDIR / "committed")))
    assert restored < mark and ("fsync", str(tmp_path)) in events[restored:mark]
