"""Edge cases of the write journal that a review of the kill and failure tests found (each of
these tests failed before its fix): a second kill during a recovery, a Ctrl-C in a write that
touches an extra root, crafted journals, one file under two names, a failed journal removal,
a file system whose directories cannot be synced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit import journal as journal_mod
from action_lsp.edit.journal import recover

OLD_B = b"A" * 100
NEW_B = b"B" * 100


def _populate(root: Path) -> None:
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "b.txt").write_bytes(OLD_B)
    os.link(root / "b.txt", root / "b-link.txt")  # b.txt is written in place
    (root / "c.txt").write_bytes(b"c1\n")


def _plan(root: Path, tx):  # type: ignore[no-untyped-def]
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")),
                         t.modify("b.txt", (OLD_B.decode(), NEW_B.decode())),
                         t.modify("c.txt", ("c1", "c2"))], Workspace(root))
    assert plan.ok
    return plan


def _tear_and_die(when: bytes, n: int, killing):  # type: ignore[no-untyped-def]
    """In the child: the in-place rewrite (journal's write_in_place) of ``when`` writes only
    its first ``n`` bytes, then the process is SIGKILLed."""
    real = journal_mod.write_in_place

    def wip(path, data):  # type: ignore[no-untyped-def]
        if data == when:
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, data[:n])
            os.fsync(fd)
            killing.die()
        return real(path, data)

    journal_mod.write_in_place = wip


def test_a_rollback_killed_twice_is_never_turned_into_a_roll_forward(tmp_path, tx, killing):
    """A write rolls itself back (a rename failed) and is killed half-way through rewriting
    b.txt with its old bytes. The recovery goes on with the rollback -- it once finished the
    write instead, and a second kill then left b.txt in three pieces, kept as "changed since"
    -- and a recovery killed in the same place is finished by the next one."""
    root = tmp_path / "ws"
    root.mkdir()
    _populate(root)
    before = killing.snapshot(root)
    plan = _plan(root, tx)

    def write() -> None:  # c.txt's rename fails (EIO): the write rolls itself back ...
        real = os.replace

        def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
            if os.fspath(dst).endswith("c.txt"):
                raise OSError(5, "Input/output error")
            return real(src, dst, *a, **k)

        os.replace = replace
        _tear_and_die(OLD_B, 60, killing)  # ... and is killed restoring b.txt: AAA..BBB
        write_plan(plan, root=root)

    assert killing.in_child(write) == "killed"
    assert (root / "b.txt").read_bytes() == b"A" * 60 + b"B" * 40
    assert (root / ".action-lsp-journal" / "restoring").exists()

    def recovery() -> None:  # goes on restoring b.txt, and is killed half-way again
        _tear_and_die(OLD_B, 30, killing)
        tear = journal_mod.write_in_place

        def never_forward(path, data):  # type: ignore[no-untyped-def]
            if data == NEW_B:
                os._exit(7)  # finishing the write: "exited", not "killed"
            return tear(path, data)

        journal_mod.write_in_place = never_forward
        recover(root)

    assert killing.in_child(recovery) == "killed"
    rec = recover(root)
    assert rec is not None and rec.outcome == "rolled-back" and not rec.conflicts
    assert killing.snapshot(root) == before, rec.message()


def test_ctrl_c_is_finished_in_a_write_touching_an_extra_root(tmp_path, tx, monkeypatch):
    """A Ctrl-C after the commit mark finishes the write before the exception goes on, also
    when the write touches an extra root (the finishing recovery gets the extra roots)."""
    root, other = tmp_path / "ws", tmp_path / "other"
    root.mkdir()
    other.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    (other / "y.txt").write_bytes(b"y1\n")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")), t.modify("y.txt", ("y1", "y2"))],
                        Workspace(root, extra_roots=[other]))
    assert plan.ok
    real = os.replace
    calls = [0]

    def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and ".action-lsp-journal" not in os.fspath(src):
            calls[0] += 1
            if calls[0] == 2:
                raise KeyboardInterrupt
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write_plan(plan, root=root, extra_roots=[other])
    assert (root / "a.txt").read_bytes() == b"a2\n"
    assert (other / "y.txt").read_bytes() == b"y2\n"


def _plant(root: Path, record: dict, committed: bool) -> None:
    """A journal written by someone else, in the right directory (so its 'place' is right)."""
    import json
    jdir = root / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    st = os.stat(jdir)
    record = {"version": 1, "place": [st.st_dev, st.st_ino], "label": "", "dirs": [], **record}
    (jdir / "journal.json").write_text(json.dumps(record))
    (jdir / "backup").write_bytes(b"")
    if committed:
        (jdir / "committed").write_bytes(b"")


def test_a_crafted_journal_id_cannot_reach_outside_the_root(tmp_path):
    """A deletion's restore temporary is named after the journal's id: an id that is not one
    action-lsp writes (here with '/..') makes the journal refused, and nothing is removed."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    victim = outside / "victim.r0.tmp"
    victim.write_bytes(b"precious\n")
    (root / "g.txt").write_bytes(b"g\n")
    (root / ".action-lsp.x").mkdir()  # planted with the journal
    _plant(root, {"id": "x/../../outside/victim", "entries": [{
        "op": "delete", "rel": "g.txt", "target": "g.txt", "temp": None,
        "old_sha": journal_mod.sha(b"g\n"), "new_sha": None, "backup": None}]},
        committed=False)
    with pytest.raises(journal_mod.JournalError, match="id"):
        recover(root)
    assert victim.exists(), "recover() deleted a file outside the root"


def test_a_crafted_in_place_entry_through_a_symlink_is_refused(tmp_path):
    """An in-place entry whose target is a symbolic link to a file outside the roots: the
    journal is refused (and the in-place write never follows a link anyway)."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    secret = outside / "config"
    secret.write_bytes(b"known content\n")
    os.symlink(secret, root / "link.txt")
    jid = "0123456789ab"
    (root / f".action-lsp.{jid}.0.tmp").write_bytes(b"attacker's bytes\n")
    _plant(root, {"id": jid, "entries": [{
        "op": "inplace", "rel": "link.txt", "target": "link.txt",
        "temp": f".action-lsp.{jid}.0.tmp", "old_sha": journal_mod.sha(b"known content\n"),
        "new_sha": journal_mod.sha(b"attacker's bytes\n"), "backup": [0, 0]}]},
        committed=True)
    with pytest.raises(journal_mod.JournalError, match="may not"):
        recover(root)
    assert secret.read_bytes() == b"known content\n", "recover() wrote outside the root"


def test_one_file_under_two_names_in_one_write_is_refused(tmp_path, tx, killing):
    """h.txt and h2.txt are one file; a plan that modifies h.txt and deletes h2.txt has no
    order in which both end right (a kill between them left h2.txt holding h.txt's new bytes,
    reported as "changed since"): the write is refused before anything is touched."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "h.txt").write_bytes(b"h1\n")
    os.link(root / "h.txt", root / "h2.txt")
    before = killing.snapshot(root)
    t = tx()
    plan = plan_changes([t.modify("h.txt", ("h1", "h2")), t.delete("h2.txt")], Workspace(root))
    with pytest.raises(WriteError, match="one file") as info:
        write_plan(plan, root=root)
    assert info.value.settled and killing.snapshot(root) == before


def test_undoing_the_deletion_of_a_hard_linked_file_gives_the_same_file_back(
        tmp_path, tx, killing, monkeypatch):
    """g.txt and keep.txt are one file; a write deletes g.txt and then fails. Undone from the
    backup, g.txt would be a new file of its own; the journal keeps a name for it instead."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "g.txt").write_bytes(b"g\n")
    os.link(root / "g.txt", root / "keep.txt")
    (root / "z.txt").write_bytes(b"z\n")
    before = killing.snapshot(root)
    t = tx()
    plan = plan_changes([t.delete("g.txt"), t.delete("z.txt")], Workspace(root))
    assert plan.ok
    real = os.unlink

    def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith("z.txt"):
            raise OSError(5, "Input/output error")
        return real(p, *a, **k)

    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(WriteError) as info:
        write_plan(plan, root=root)
    monkeypatch.undo()
    assert info.value.settled  # "write failed and was rolled back"
    assert killing.snapshot(root) == before


def test_a_journal_left_after_a_ctrl_c_was_finished_is_reported_as_finished(
        tmp_path, tx, killing, monkeypatch):
    """Ctrl-C after the commit mark: the write is finished, then removing its backup fails
    (EIO). What is left keeps the commit mark (it once lost it first, and the next recovery
    said every file was as before -- all were new): the next recovery says "finished"."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "c.txt").write_bytes(b"c1\n")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")), t.modify("c.txt", ("c1", "c2"))],
                        Workspace(root))
    real_replace, real_unlink = os.replace, os.unlink
    calls = [0]

    def replace(src, dst, *a, **k):  # type: ignore[no-untyped-def]
        if ".action-lsp." in os.fspath(src) and ".action-lsp-journal" not in os.fspath(src):
            calls[0] += 1
            if calls[0] == 2:
                raise KeyboardInterrupt
        return real_replace(src, dst, *a, **k)

    def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith("/backup") and os.path.exists(p):
            raise OSError(5, "Input/output error")
        return real_unlink(p, *a, **k)

    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(os, "unlink", unlink)
    with pytest.raises(KeyboardInterrupt):
        write_plan(plan, root=root)
    monkeypatch.undo()
    assert sorted(os.listdir(root / ".action-lsp-journal")) == ["backup", "committed"]
    assert (root / "a.txt").read_bytes() == b"a2\n" and (root / "c.txt").read_bytes() == b"c2\n"
    rec = recover(root)
    assert rec is not None and rec.outcome == "finished", rec and rec.message()
    assert not (root / ".action-lsp-journal").exists()


def test_a_file_system_whose_directories_cannot_be_synced_still_takes_writes(
        tmp_path, tx, monkeypatch):
    """Opening a directory raises PermissionError on Windows (and some network file systems
    refuse a directory fsync): the journal's strict fsyncs take that for "nothing to sync",
    not for a failing disk. (A simulation: opening a directory is made to fail.)"""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2"))], Workspace(root))
    real_open = os.open

    def fake_open(path, flags, *a, **k):  # type: ignore[no-untyped-def]
        if os.path.isdir(path) and not flags & getattr(os, "O_DIRECTORY", 0):
            raise PermissionError(13, "Permission denied")  # what Windows says
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", fake_open)
    write_plan(plan, root=root)
    assert (root / "a.txt").read_bytes() == b"a2\n"
