"""Edge cases of the write journal that three reviews of the kill and failure tests found (each
of these tests failed before its fix): a second kill during a recovery, a Ctrl-C in a write
that touches an extra root, crafted journals, one file under two names, a failed journal
removal, a file system whose directories cannot be synced, a user's change between the crash
and the recovery."""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit import journal as journal_mod
from action_lsp.edit.journal import JournalError, Recovery, recover

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


def test_ctrl_c_is_finished_in_a_write_touching_an_extra_root(tmp_path, tx, killing,
                                                              monkeypatch):
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
    monkeypatch.setattr(os, "replace", killing.rename_fails(2, KeyboardInterrupt()))
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


def test_a_crafted_in_place_entry_through_a_symlink_never_writes_through_it(tmp_path):
    """An in-place entry whose target is a symbolic link to a file outside the roots: a link
    is never a file's old or new bytes, so it is a conflict, left alone (and the in-place
    write opens with O_NOFOLLOW anyway); the file outside keeps its bytes."""
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
    rec = recover(root)
    assert rec is not None and rec.conflicts == ["link.txt"]
    assert secret.read_bytes() == b"known content\n", "recover() wrote outside the root"
    assert os.path.islink(root / "link.txt")


def test_one_file_changed_under_one_name_and_deleted_under_another(tmp_path, tx, killing):
    """h.txt and h2.txt are one file; the plan modifies h.txt and deletes h2.txt (a legitimate
    plan). Killed just before h2.txt's deletion, when it holds h.txt's new bytes: the recovery
    finishes the deletion (it once kept h2.txt as "changed since"); a rollback at that point
    brings h2.txt back as the same file."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "h.txt").write_bytes(b"h1\n")
    os.link(root / "h.txt", root / "h2.txt")
    before = killing.snapshot(root)
    t = tx()
    plan = plan_changes([t.modify("h.txt", ("h1", "h2")), t.delete("h2.txt")], Workspace(root))
    assert plan.ok

    def write() -> None:
        real = os.unlink

        def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
            if os.fspath(p).endswith("h2.txt"):
                killing.die()
            return real(p, *a, **k)

        os.unlink = unlink
        write_plan(plan, root=root)

    assert killing.in_child(write) == "killed"
    rec = recover(root)
    assert rec is not None and rec.outcome == "rolled-forward" and not rec.conflicts
    assert not (root / "h2.txt").exists() and (root / "h.txt").read_bytes() == b"h2\n"
    assert (root / "h.txt").stat().st_nlink == 1

    # The same write failing at the deletion is rolled back: both names, one file, old bytes.
    (root / "h.txt").write_bytes(b"h1\n")
    os.link(root / "h.txt", root / "h2.txt")
    assert killing.snapshot(root) == before
    plan = plan_changes([t.modify("h.txt", ("h1", "h2")), t.delete("h2.txt")], Workspace(root))
    real = os.unlink

    def failing(p, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith("h2.txt"):
            raise OSError(5, "Input/output error")
        return real(p, *a, **k)

    os.unlink = failing  # type: ignore[assignment]
    try:
        with pytest.raises(WriteError, match="rolled back"):
            write_plan(plan, root=root)
    finally:
        os.unlink = real  # type: ignore[assignment]
    assert killing.snapshot(root) == before


def test_one_file_given_two_contents_is_refused_and_the_same_content_is_not(tmp_path, tx,
                                                                           killing):
    """Two hard-linked copies (a `cp -al` tree): the same edit to both is written (both names
    stay one file); different edits can never both be right and are refused up front."""
    root = tmp_path / "ws"
    (root / "a").mkdir(parents=True)
    (root / "b").mkdir()
    (root / "a/cfg.h").write_bytes(b"#define N 1\n")
    os.link(root / "a/cfg.h", root / "b/cfg.h")
    before = killing.snapshot(root)
    t = tx()
    plan = plan_changes([t.modify("a/cfg.h", ("N 1", "N 2")), t.modify("b/cfg.h", ("N 1", "N 3"))],
                        Workspace(root))
    with pytest.raises(WriteError, match="two different contents") as info:
        write_plan(plan, root=root)
    assert info.value.settled and killing.snapshot(root) == before
    plan = plan_changes([t.modify("a/cfg.h", ("N 1", "N 2")), t.modify("b/cfg.h", ("N 1", "N 2"))],
                        Workspace(root))
    assert write_plan(plan, root=root) == []
    assert (root / "b/cfg.h").read_bytes() == b"#define N 2\n"
    assert os.path.samefile(root / "a/cfg.h", root / "b/cfg.h")


def test_a_file_system_without_inode_numbers_is_not_taken_for_one_file(tmp_path, tx,
                                                                       monkeypatch):
    """Some file systems report st_ino 0 for every file: two files there are not "the same
    file" (the check once refused every write of two files on them)."""
    from action_lsp.edit import write as write_mod
    (tmp_path / "a.txt").write_bytes(b"a\n")
    (tmp_path / "b.txt").write_bytes(b"b\n")
    real_fstat = os.fstat

    def fstat(fd):  # type: ignore[no-untyped-def]
        st = real_fstat(fd)
        return st if not stat.S_ISREG(st.st_mode) else os.stat_result(
            (st.st_mode, 0, *tuple(st)[2:10]))

    monkeypatch.setattr(write_mod.os, "fstat", fstat)
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a", "A")), t.modify("b.txt", ("b", "B"))],
                        Workspace(tmp_path))
    write_plan(plan, root=tmp_path)
    monkeypatch.undo()
    assert [(tmp_path / n).read_bytes() for n in ("a.txt", "b.txt")] == [b"A\n", b"B\n"]


def test_an_empty_journal_directory_that_cannot_go_is_no_journal(tmp_path, tx):
    """A root the user may not write, with a journal directory made for them: after each
    write the empty directory stays, without a warning and without a recovery report (one
    was once given on every write and every start)."""
    import subprocess

    from action_lsp.edit.journal import recover_messages
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".action-lsp-journal").mkdir(mode=0o700)
    (root / "src/a.txt").write_bytes(b"a\n")
    if subprocess.run(["chattr", "+i", str(root)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        t = tx()
        plan = plan_changes([t.modify("src/a.txt", ("a", "b"))], Workspace(root))
        assert write_plan(plan, root=root) == []
        assert recover_messages([root]) == []
        assert (root / "src/a.txt").read_bytes() == b"b\n"
    finally:
        subprocess.run(["chattr", "-i", str(root)])


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
    real_unlink = os.unlink

    def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith("/backup") and os.path.exists(p):
            raise OSError(5, "Input/output error")
        return real_unlink(p, *a, **k)

    monkeypatch.setattr(os, "replace", killing.rename_fails(2, KeyboardInterrupt()))
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


# -- from a third review --------------------------------------------------------------------

OLD = OLD_B[:50]
NEW = NEW_B[:50]
JID = "0123456789ab"


def _plant_entries(root: Path, entries: list, *, committed: bool, backup: bytes = b"") -> Path:
    jdir = root / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    st = os.stat(jdir)
    (jdir / "journal.json").write_text(json.dumps({
        "version": 1, "id": JID, "place": [st.st_dev, st.st_ino], "label": "", "dirs": [],
        "entries": entries}))
    (jdir / "backup").write_bytes(backup)
    if committed:
        (jdir / "committed").write_bytes(b"")
    return jdir


def test_a_planted_link_in_the_journal_directory_is_refused(tmp_path):
    """A crafted journal whose `restoring` file is a symbolic link to a file outside: the
    journal is refused (its own files must be regular files) and nothing is written there.
    (The marker is written with O_NOFOLLOW anyway.)"""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    victim = outside / "victim"
    victim.write_bytes(b"precious\n")
    (root / "b.txt").write_bytes(NEW)
    jdir = _plant_entries(root, [{
        "op": "inplace", "rel": "b.txt", "target": "b.txt",
        "temp": f".action-lsp.{JID}.0.tmp", "old_sha": journal_mod.sha(OLD),
        "new_sha": journal_mod.sha(NEW), "backup": [0, len(OLD)]}],
        committed=True, backup=OLD)
    os.symlink(victim, jdir / "restoring")  # "a rollback is under way"
    with pytest.raises(JournalError, match="not a regular file"):
        recover(root)
    assert victim.read_bytes() == b"precious\n", "recover() wrote outside the root"


@pytest.mark.parametrize("outcome", ["finished", "cleaned"])
def test_a_report_with_a_journal_left_does_not_also_say_it_was_removed(tmp_path, outcome):
    rec = Recovery(tmp_path, outcome, journal_left="[Errno 5] Input/output error")
    text = rec.message()
    assert "removed now" not in text and "was removed" not in text, text


def test_a_user_s_symlink_at_an_in_place_target_is_a_conflict(tmp_path, tx, killing):
    """Killed after the commit mark, before the hard-linked b.txt was rewritten; the user then
    makes b.txt a symbolic link (inside the root). That is the user's change: b.txt is left as
    it is and named, the rest is finished (the journal was once refused for good instead)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "b.txt").write_bytes(OLD)
    os.link(root / "b.txt", root / "b-link.txt")
    (root / "c.txt").write_bytes(b"c1\n")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")),
                         t.modify("b.txt", (OLD.decode(), NEW.decode())),
                         t.modify("c.txt", ("c1", "c2"))], Workspace(root))
    assert plan.ok

    def child() -> None:
        import action_lsp.edit.write as w

        def die(path, data):  # the in-place rewrite of b.txt: killed before it
            killing.die()

        w.write_in_place = die
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    (root / "b.txt").unlink()
    (root / "other.txt").write_bytes(b"mine\n")
    os.symlink("other.txt", root / "b.txt")  # the user's own change, inside the root
    try:
        rec = recover(root)
    except JournalError as exc:
        pytest.fail(f"a legitimate journal is refused, tree stays mixed: {exc}")
    assert rec is not None and rec.conflicts == ["b.txt"] and rec.outcome == "rolled-forward"
    assert [(root / n).read_bytes() for n in ("a.txt", "c.txt")] == [b"a2\n", b"c2\n"]
    assert os.readlink(root / "b.txt") == "other.txt"


def test_a_kept_file_edited_after_the_crash_is_not_brought_back_stale(tmp_path, tx, killing):
    """g.txt and keep.txt are one file; a write deletes g.txt and z.txt, z.txt's unlink fails,
    the rollback is killed just before linking g.txt back, and the user then edits keep.txt.
    g.txt is not recreated from the backup as a stale separate copy: it is a conflict."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "g.txt").write_bytes(b"g\n")
    os.link(root / "g.txt", root / "keep.txt")
    (root / "z.txt").write_bytes(b"z\n")
    t = tx()
    plan = plan_changes([t.delete("g.txt"), t.delete("z.txt")], Workspace(root))
    assert plan.ok

    def child() -> None:
        real_unlink, real_link = os.unlink, os.link

        def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
            if os.fspath(p).endswith("z.txt"):
                raise OSError(5, "Input/output error")
            return real_unlink(p, *a, **k)

        def link(src, dst, *a, **k):  # type: ignore[no-untyped-def]
            if os.fspath(dst).endswith("g.txt"):
                killing.die()
            return real_link(src, dst, *a, **k)

        os.unlink, os.link = unlink, link
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    assert not (root / "g.txt").exists()
    with open(root / "keep.txt", "ab") as fh:  # the user's edit, after the crash
        fh.write(b"user\n")
    rec = recover(root)
    assert rec is not None
    g, keep = root / "g.txt", root / "keep.txt"
    assert rec.conflicts == ["g.txt"] and not g.exists(), rec.message()
    assert keep.read_bytes() == b"g\nuser\n" and (root / "z.txt").read_bytes() == b"z\n"


def test_a_finished_write_stays_finished_when_the_user_edits_a_file_before_recovery(
        tmp_path, tx, killing):
    """A finished write (modifies a.txt, deletes the hard-linked g.txt) is killed while
    removing its journal; the user then edits a.txt. The recovery keeps the write finished
    and names a.txt (it once rolled everything back, and g.txt came back as a separate file,
    its kept name already removed)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "g.txt").write_bytes(b"g\n")
    os.link(root / "g.txt", root / "keep.txt")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")), t.delete("g.txt")], Workspace(root))
    assert plan.ok

    def child() -> None:
        real_unlink = os.unlink

        def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
            if os.fspath(p).endswith("journal.json") and os.path.exists(p):
                killing.die()
            return real_unlink(p, *a, **k)

        os.unlink = unlink
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    (root / "a.txt").write_bytes(b"user\n")
    rec = recover(root)
    assert rec is not None and rec.outcome == "rolled-forward" and rec.conflicts == ["a.txt"]
    assert not (root / "g.txt").exists() and (root / "a.txt").read_bytes() == b"user\n"
    assert (root / "keep.txt").stat().st_nlink == 1


def test_deleting_both_names_of_a_hard_linked_file_is_allowed(tmp_path, tx):
    """Deleting every name of a file is right in any order: not refused as one file changed
    under two names."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "h.txt").write_bytes(b"h\n")
    os.link(root / "h.txt", root / "h2.txt")
    t = tx()
    plan = plan_changes([t.delete("h.txt"), t.delete("h2.txt")], Workspace(root))
    assert plan.ok
    write_plan(plan, root=root)
    assert not (root / "h.txt").exists() and not (root / "h2.txt").exists()


def test_a_planted_kept_link_is_refused(tmp_path):
    """A crafted journal whose kept name of a deleted file is a symbolic link outside: refused,
    so the workspace never gets a name for a file outside."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    secret = outside / "config"
    secret.write_bytes(b"known\n")
    jdir = _plant_entries(root, [{
        "op": "delete", "rel": "g.txt", "target": "g.txt", "temp": None,
        "old_sha": journal_mod.sha(b"known\n"), "new_sha": None, "backup": [0, 6],
        "kept": "kept.0"}], committed=True, backup=b"known\n")
    (jdir / "restoring").write_bytes(b"")
    os.symlink(secret, jdir / "kept.0")
    with pytest.raises(JournalError, match="not a regular file"):
        recover(root)
    assert not os.path.lexists(root / "g.txt")


def test_an_uncommitted_journal_with_a_user_s_symlink_is_rolled_back(tmp_path, tx, killing):
    """Killed before the commit mark; the user then makes b.txt a symbolic link inside the
    root. The rollback removes the temporaries (the journal was once refused for good)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "b.txt").write_bytes(OLD)
    os.link(root / "b.txt", root / "b-link.txt")
    t = tx()
    plan = plan_changes([t.modify("b.txt", (OLD.decode(), NEW.decode()))], Workspace(root))

    def child() -> None:
        journal_mod.Journal.commit = lambda self: killing.die()
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    (root / "b.txt").unlink()
    os.symlink("b-link.txt", root / "b.txt")
    rec = recover(root)
    assert rec is not None and rec.outcome == "rolled-back"
    assert sorted(os.listdir(root)) == ["b-link.txt", "b.txt"]


def test_an_in_place_write_never_follows_a_link(tmp_path):
    """The in-place write opens with O_NOFOLLOW: a link put where a hard-linked file was is
    refused with an error, and the file it points to keeps its bytes."""
    (tmp_path / "target").write_bytes(b"mine\n")
    os.symlink("target", tmp_path / "b.txt")
    with pytest.raises(OSError):
        journal_mod.write_in_place(tmp_path / "b.txt", b"written\n")
    assert (tmp_path / "target").read_bytes() == b"mine\n"


def test_a_write_does_not_start_over_a_journal_it_could_not_remove(tmp_path, tx, killing,
                                                                   monkeypatch):
    """A finished write's leftover journal (its commit mark) cannot be removed by the next
    write's recovery: the next write refuses to start (its own journal would otherwise sit
    beside a stale commit mark and a kill before its commit would be rolled forward)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    jdir = root / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    (jdir / "committed").write_bytes(b"")
    real = os.unlink

    def unlink(p, *a, **k):  # type: ignore[no-untyped-def]
        if os.fspath(p).endswith("committed") and os.path.exists(p):
            raise OSError(5, "Input/output error")
        return real(p, *a, **k)

    monkeypatch.setattr(os, "unlink", unlink)
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2"))], Workspace(root))
    with pytest.raises(WriteError, match="could not be removed") as info:
        write_plan(plan, root=root)
    assert info.value.settled and (root / "a.txt").read_bytes() == b"a1\n"
    rec = recover(root)  # still failing: said, not hidden
    assert rec is not None and rec.outcome == "finished" and rec.journal_left
    assert "could not be removed" in rec.message() and "removed now" not in rec.message()
    monkeypatch.undo()
    rec = recover(root)
    assert rec is not None and rec.outcome == "finished" and not jdir.exists()


# -- from a fourth review -------------------------------------------------------------------

OLD4 = bytes(65 + i % 26 for i in range(100))
NEW4 = b"x" * 50  # shorter: the truncation matters


def _ws4(root: Path, tx):  # type: ignore[no-untyped-def]
    root.mkdir()
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "b.txt").write_bytes(OLD4)
    os.link(root / "b.txt", root / "b-link.txt")  # b.txt is written in place
    (root / "c.txt").write_bytes(b"c1\n")
    t = tx()
    plan = plan_changes([t.modify("a.txt", ("a1", "a2")),
                         t.modify("b.txt", (OLD4.decode(), NEW4.decode())),
                         t.modify("c.txt", ("c1", "c2"))], Workspace(root))
    assert plan.ok
    return plan


def _killed_before_in_place_write(root: Path, tx, killing) -> Path:  # type: ignore[no-untyped-def]
    """The workspace of :func:`_ws4`, its write killed after the commit mark, before b.txt's
    in-place rewrite (a.txt renamed, c.txt not yet)."""
    plan = _ws4(root, tx)

    def child() -> None:
        import action_lsp.edit.write as w
        w.write_in_place = lambda p, d: killing.die()  # type: ignore[assignment]
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    return root


def test_a_rollback_over_a_file_torn_by_a_disk_error_and_killed_is_finished(
        tmp_path, tx, killing):
    """The in-place write of b.txt writes every byte, then its truncation fails (EIO): b.txt
    is the new bytes and the old tail. The write rolls itself back and is killed 25 bytes into
    restoring b.txt: three pieces (old, new, old). Under the rollback's mark a file whose every
    byte is its old or new byte is recognised, and the rollback finished (it was once left in
    three pieces as "changed since")."""
    root = tmp_path / "ws"
    plan = _ws4(root, tx)

    def child() -> None:
        import action_lsp.edit.write as w

        def forward(path, data):  # type: ignore[no-untyped-def]
            fd = os.open(path, os.O_WRONLY)
            journal_mod._write_all(fd, data)
            os.close(fd)
            raise OSError(errno.EIO, "Input/output error (ftruncate)")

        def restore(path, data):  # type: ignore[no-untyped-def]
            fd = os.open(path, os.O_WRONLY)
            os.write(fd, data[:25])
            os.fsync(fd)
            killing.die()

        w.write_in_place = forward
        journal_mod.write_in_place = restore
        write_plan(plan, root=root)

    assert killing.in_child(child) == "killed"
    rec = recover(root)
    assert rec is not None
    assert (root / "b.txt").read_bytes() == OLD4, (root / "b.txt").read_bytes()
    assert rec.conflicts == [], rec.message()


def test_a_planted_journal_json_link_is_not_read(tmp_path):
    """A repository ships .action-lsp-journal/journal.json as a link to a FIFO (or /dev/zero)
    outside: the recovery at the server's start refuses it without reading through it (it
    once blocked for ever)."""
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.mkfifo(outside / "fifo")
    (root / ".action-lsp-journal").mkdir()
    os.symlink(outside / "fifo", root / ".action-lsp-journal" / "journal.json")
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        signal.alarm(3)
        code = 0
        try:
            recover(root)
        except JournalError:
            code = 3
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert not os.WIFSIGNALED(status), "recover() hung opening a file outside the root"
    assert os.waitstatus_to_exitcode(status) == 3  # refused


@pytest.mark.parametrize("name", ["a.txt", "b.txt"])  # renamed / in place
def test_a_target_replaced_by_a_directory_is_a_conflict(tmp_path, tx, killing, name):
    """Killed after the commit mark before b.txt's in-place write; the user then replaces
    a.txt or b.txt by a directory: a conflict, the rest finished (reading the directory once
    failed every recovery, and every later write)."""
    root = _killed_before_in_place_write(tmp_path / "ws", tx, killing)
    (root / name).unlink()
    (root / name).mkdir()
    rec = recover(root)
    assert rec is not None and rec.conflicts == [name]
    assert (root / "c.txt").read_bytes() == b"c2\n"


def test_a_foreign_directory_in_the_journal_directory_does_not_block_recovery(
        tmp_path, tx, killing):
    """Killed after the commit mark; an indexer (Synology @eaDir, netatalk .AppleDouble) then
    makes a directory inside .action-lsp-journal, and a .DS_Store: not the journal's files,
    not read, and the journal is recovered (it was once refused for good)."""
    root = _killed_before_in_place_write(tmp_path / "ws", tx, killing)
    (root / ".action-lsp-journal" / ".DS_Store").write_bytes(b"x")
    (root / ".action-lsp-journal" / "@eaDir").mkdir()
    rec = recover(root)
    assert rec is not None and (root / "b.txt").read_bytes() == NEW4


def test_a_report_with_a_conflict_does_not_say_all_changes_are_written(tmp_path, tx, killing):
    """Killed before b.txt's in-place write; the user edits b.txt. The report says 2 of the 3
    changes are written (it once said all 3, and then that one was left as it is)."""
    root = _killed_before_in_place_write(tmp_path / "ws", tx, killing)
    (root / "b.txt").write_bytes(b"mine\n")
    rec = recover(root)
    assert rec is not None and rec.conflicts == ["b.txt"]
    assert "all 3 planned change(s) are written" not in rec.message(), rec.message()
    assert "2 of its 3 planned change(s) are written" in rec.message()


def test_write_plan_reports_the_earlier_write_it_settles(tmp_path, tx, killing):
    """The server's next apply: write_plan first settles an earlier killed write (finished,
    with b.txt the user's since) and returns its report among the warnings (it was once
    dropped, and nothing told the user)."""
    root = _killed_before_in_place_write(tmp_path / "ws", tx, killing)
    (root / "b.txt").write_bytes(b"mine\n")
    (root / "d.txt").write_bytes(b"d1\n")
    t = tx()
    plan2 = plan_changes([t.modify("d.txt", ("d1", "d2"))], Workspace(root))
    warnings = write_plan(plan2, root=root)
    assert (root / "a.txt").read_bytes() == b"a2\n"  # the earlier write was finished ...
    assert any("b.txt" in w and "interrupted apply" in w for w in warnings), warnings


def test_a_journal_that_is_not_utf8_is_refused_not_a_crash(tmp_path):
    """A damaged journal.json (bytes that are not UTF-8) is a refused journal with a message,
    not an exception that stops the server's start."""
    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    (jdir / "journal.json").write_bytes(b"\xff\xfe{not json")
    with pytest.raises(JournalError, match="cannot read the journal"):
        recover(tmp_path)
    from action_lsp.edit.journal import recover_messages
    assert "could not recover" in recover_messages([tmp_path])[0]
