"""Plans that reach one hard-linked file under several names (modified under one, deleted
under another), killed at every point of the write and of the recovery, in both plan orders,
with and without a failing rename; and what a review of that support found (each test failed
before its fix)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit import journal as journal_mod
from action_lsp.edit import write as write_mod
from action_lsp.edit.journal import JournalError, recover

OLD = "h = 1\n" * 40
NEW = "h = 22\n" * 40


def populate(root: Path) -> None:
    (root / "h.txt").write_bytes(OLD.encode())
    os.link(root / "h.txt", root / "h2.txt")
    (root / "a.py").write_bytes(b"a = 1\n")


def make_plan(root: Path, tx, order: str):  # type: ignore[no-untyped-def]
    t = tx()
    mod = t.modify("h.txt", (OLD, NEW))
    a = t.modify("a.py", ("a = 1", "a = 2"))  # renamed after h.txt's in-place write
    dele = t.delete("h2.txt")
    acts = [dele, mod, a] if order == "delete-first" else [mod, a, dele]
    plan = plan_changes(acts, Workspace(root))
    assert plan.ok
    return plan


def _ref(tmp_path: Path, tx, killing, order: str):  # type: ignore[no-untyped-def]
    ref = tmp_path / "ref"
    ref.mkdir()
    populate(ref)
    before = killing.snapshot(ref)
    assert write_plan(make_plan(ref, tx, order), root=ref) == []
    return before, killing.snapshot(ref)


def _check(rec, now, before, after, where):  # type: ignore[no-untyped-def]
    assert now in (before, after), f"{where}: mixed or litter: {rec and rec.message()}"
    if rec is None:
        return
    assert not rec.conflicts, f"{where}: untruthful report: {rec.message()}"
    want = ("rolled-forward", "finished") if now == after else ("rolled-back", "cleaned")
    assert rec.outcome in want, f"{where}: {rec.message()}"


@pytest.mark.parametrize("failing", [False, True], ids=["write", "rename-fails"])
@pytest.mark.parametrize("order", ["delete-first", "modify-first"])
def test_linked_plan_killed_at_every_point(tmp_path, tx, killing, order, failing):
    before, after = _ref(tmp_path, tx, killing, order)
    failures = []
    for half in (False, True):
        n = 0
        while True:
            n += 1
            root = tmp_path / f"ws-{int(half)}-{n}"
            root.mkdir()
            populate(root)
            plan = make_plan(root, tx, order)

            def child(n=n, half=half, root=root, plan=plan):  # type: ignore[no-untyped-def]
                if failing:
                    os.replace = killing.rename_fails(1, OSError(5, "EIO"))
                killing.kill_at(n, half)
                write_plan(plan, root=root)

            if killing.in_child(child) == "exited":
                assert killing.snapshot(root) == (before if failing else after)
                break
            rec = recover(root)
            where = f"{order} failing={failing}: write killed at {n}{' (half)' if half else ''}"
            try:
                _check(rec, killing.snapshot(root), before, after, where)
            except AssertionError as exc:
                failures.append(str(exc).splitlines()[0])
            recover(root)
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("failing", [False, True], ids=["write", "rename-fails"])
@pytest.mark.parametrize("order", ["delete-first", "modify-first"])
def test_linked_plan_recovery_killed_at_every_point(fast_dir, tx, killing, order, failing):
    tmp_path = fast_dir  # tmpfs: thousands of files
    before, after = _ref(tmp_path, tx, killing, order)
    case = [0]

    def killed_write(n: int, half: bool) -> Path | None:
        case[0] += 1
        root = tmp_path / f"w-{case[0]}"
        root.mkdir()
        populate(root)
        plan = make_plan(root, tx, order)

        def child() -> None:
            if failing:
                os.replace = killing.rename_fails(1, OSError(5, "EIO"))
            killing.kill_at(n, half)
            write_plan(plan, root=root)

        return root if killing.in_child(child) == "killed" else None

    failures = []
    for half_write in (False, True):
        n = 0
        while True:
            n += 1
            probe = killed_write(n, half_write)
            if probe is None:
                break
            if not (probe / ".action-lsp-journal" / "journal.json").exists():
                continue
            for half in (False, True):
                m = 0
                while True:
                    m += 1
                    root = killed_write(n, half_write)
                    assert root is not None

                    def recovery(m=m, half=half, root=root) -> None:  # type: ignore[no-untyped-def]
                        killing.kill_at(m, half)
                        recover(root)

                    if killing.in_child(recovery) == "exited":
                        break
                    rec = recover(root)
                    where = (f"write killed at {n}{' (half)' if half_write else ''}, "
                             f"recovery at {m}{' (half)' if half else ''}")
                    try:
                        _check(rec, killing.snapshot(root), before, after, where)
                    except AssertionError as exc:
                        failures.append(str(exc).splitlines()[0])
    assert not failures, "\n".join(failures[:10]) + f"\n... {len(failures)} in all"


# -- deterministic reproductions ------------------------------------------------------------



def _rollback_killed_before_truncate(plan, root: Path, killing) -> None:  # type: ignore[no-untyped-def]
    """Write ``plan``; its first rename fails, and the rollback is killed while rewriting h.txt
    with its old bytes, after writing them and before the truncation."""

    def child() -> None:
        os.replace = killing.rename_fails(1, OSError(5, "EIO"))
        real = journal_mod.write_in_place

        def wip(path, data):  # type: ignore[no-untyped-def]
            if data == OLD.encode():
                fd = os.open(path, os.O_WRONLY)
                os.write(fd, data)
                killing.die()  # before the ftruncate
            return real(path, data)

        journal_mod.write_in_place = wip
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"


def test_delete_first_roll_forward_over_a_torn_in_place_write(tmp_path, tx, killing):
    """Plan [delete h2.txt, modify h.txt]; killed half-way through h.txt's in-place write (both
    names see the torn bytes). The linked deletion is settled after h.txt is finished (it was
    once settled first, kept as "changed since": h2.txt stayed, and a false conflict)."""
    populate(tmp_path)
    plan = make_plan(tmp_path, tx, "delete-first")

    def child() -> None:
        def wip(path, data):  # type: ignore[no-untyped-def]
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, data[:100])
            killing.die()

        write_mod.write_in_place = wip
        write_plan(plan, root=tmp_path)

    assert killing.in_child(child) == "killed"
    rec = recover(tmp_path)
    assert rec is not None and rec.outcome == "rolled-forward"
    assert (tmp_path / "h.txt").read_bytes() == NEW.encode()
    assert not rec.conflicts, rec.message()
    assert not (tmp_path / "h2.txt").exists()


def test_modify_first_rollback_over_an_interleaved_restore_names_no_conflict(
        tmp_path, tx, killing):
    """Plan [modify h.txt, modify a.py, delete h2.txt]; a.py's rename fails, the write rolls
    back and is killed while rewriting h.txt with its old bytes (before the truncate). The
    linked deletion is undone after h.txt (it was once undone first, and named as "changed
    since" over an all-old tree)."""
    populate(tmp_path)
    before = killing.snapshot(tmp_path)
    plan = make_plan(tmp_path, tx, "modify-first")

    _rollback_killed_before_truncate(plan, tmp_path, killing)
    rec = recover(tmp_path)
    assert killing.snapshot(tmp_path) == before
    assert rec is not None and rec.outcome == "rolled-back"
    assert not rec.conflicts, rec.message()


def test_a_recovery_killed_while_marking_keeps_the_mark(tmp_path, tx, killing):
    """Any in-place file written before a failing rename: the rollback is killed before the
    truncate of h.txt's restore, then a recovery is killed while rewriting the `restoring`
    marker. The marker is replaced whole (it was once truncated first, left empty, and the next
    recovery kept h.txt in pieces as "changed since")."""
    (tmp_path / "h.txt").write_bytes(OLD.encode())
    os.link(tmp_path / "h.txt", tmp_path / "h-link.txt")
    (tmp_path / "a.py").write_bytes(b"a = 1\n")
    before = killing.snapshot(tmp_path)
    t = tx()
    plan = plan_changes([t.modify("h.txt", (OLD, NEW)), t.modify("a.py", ("a = 1", "a = 2"))],
                        Workspace(tmp_path))

    _rollback_killed_before_truncate(plan, tmp_path, killing)

    def recovery() -> None:
        real = journal_mod._write_all

        def write_all(fd, data):  # type: ignore[no-untyped-def]
            if data == b"0":  # the marker naming h.txt's entry, just opened with O_TRUNC
                killing.die()
            return real(fd, data)

        journal_mod._write_all = write_all
        recover(tmp_path)

    assert killing.in_child(recovery) == "killed"
    rec = recover(tmp_path)
    assert killing.snapshot(tmp_path) == before, rec and rec.message()


def test_a_crafted_hash_cannot_match_a_link(tmp_path):
    """A crafted journal whose hash is one of the placeholders the recovery gives a link or a
    FIFO ('<symlink>') would have deleted a user's link on roll-forward: hashes must be
    SHA-256 hex digests, else the journal is refused."""
    (tmp_path / "real.txt").write_bytes(b"x")
    os.symlink("real.txt", tmp_path / "link.txt")
    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    st = os.stat(jdir)
    import json
    (jdir / "journal.json").write_text(json.dumps({
        "version": 1, "id": "0" * 12, "place": [st.st_dev, st.st_ino], "dirs": [],
        "entries": [{"op": "delete", "rel": "link.txt", "target": "link.txt",
                     "old_sha": "0" * 64, "linked_new": "<symlink>"}]}))
    (jdir / "committed").write_bytes(b"")
    with pytest.raises(JournalError, match="may not"):
        recover(tmp_path)
    assert os.path.islink(tmp_path / "link.txt")


def test_one_directory_entry_reached_twice_is_not_both_changed_and_deleted(tmp_path, tx):
    """A/x.txt modified and B/x.txt deleted, B a bind mount of A (one directory entry): once
    written, the deletion removed the new file. Refused. (Needs a mount namespace: skipped
    where there is none.)"""
    import ctypes
    import subprocess
    (tmp_path / "A").mkdir()
    (tmp_path / "B").mkdir()
    (tmp_path / "A/x.txt").write_bytes(b"x = 1\n")
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        out = "?"
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(0x00020000) != 0:
                out = "skip"
            else:
                subprocess.run(["mount", "--make-rprivate", "/"], check=True)
                subprocess.run(["mount", "--bind", str(tmp_path / "A"), str(tmp_path / "B")],
                               check=True)
                t = tx()
                plan = plan_changes([t.modify("A/x.txt", ("x = 1", "x = 2")),
                                     t.delete("B/x.txt")], Workspace(tmp_path))
                try:
                    write_plan(plan, root=tmp_path)
                    out = "written"
                except WriteError as exc:
                    out = f"refused: {exc}"
        except BaseException as exc:
            out = f"error: {exc!r}"
        os.write(w, out.encode())
        os._exit(0)
    os.close(w)
    out = os.read(r, 4096).decode()
    os.waitpid(pid, 0)
    if out == "skip" or out.startswith("error"):
        pytest.skip(out)
    assert out.startswith("refused") or (tmp_path / "A/x.txt").exists(), out


def test_a_journal_directory_that_cannot_be_listed_is_not_passed_over(tmp_path, tx, killing,
                                                                         monkeypatch):
    """Listing the journal directory fails: a kept name in it was once silently left (h.txt kept
    an extra link, and the next recovery said "left every file as it was"). Now the write
    refuses to start, with nothing written."""
    populate(tmp_path)
    plan = make_plan(tmp_path, tx, "modify-first")
    real = os.listdir

    def listdir(p="."):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith(".action-lsp-journal"):
            raise OSError(5, "EIO")
        return real(p)

    before = killing.snapshot(tmp_path)
    monkeypatch.setattr(journal_mod.os, "listdir", listdir)
    with pytest.raises(WriteError) as info:
        write_plan(plan, root=tmp_path)
    monkeypatch.undo()
    assert info.value.settled
    (tmp_path / ".action-lsp-journal").rmdir()
    assert killing.snapshot(tmp_path) == before
