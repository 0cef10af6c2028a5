"""A planted journal file larger than a write could have made is refused before it is read (a
1 GiB journal.json was read whole: 2.1 GB for the command line, 2.16 GB for the server)."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path

import pytest

from action_lsp.edit import journal as journal_mod
from action_lsp.edit.journal import JournalError, recover

GIB = 1 << 30


def _plant(root: Path, record: dict, *, committed: bool) -> Path:
    jdir = root / journal_mod.JOURNAL_DIR
    jdir.mkdir(mode=0o700)
    st = os.stat(jdir)
    record = {"version": 1, "place": [st.st_dev, st.st_ino], "label": "", "dirs": [], **record}
    (jdir / journal_mod.JOURNAL_FILE).write_text(json.dumps(record))
    (jdir / journal_mod.BACKUP_FILE).write_bytes(b"")
    if committed:
        (jdir / journal_mod.COMMITTED_FILE).write_bytes(b"")
    return jdir


def _peak(fn) -> int:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_journal_larger_than_any_write_makes_is_refused_unread(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    jdir = _plant(root, {"id": "0123456789ab", "entries": []}, committed=False)
    with open(jdir / journal_mod.JOURNAL_FILE, "r+b") as fh:  # sparse: no disk used
        fh.truncate(GIB)

    def refused() -> None:
        with pytest.raises(JournalError, match="larger than a write makes it"):
            recover(root)

    assert _peak(refused) < 1 << 20
    assert (jdir / journal_mod.JOURNAL_FILE).stat().st_size == GIB  # left for the user to see


def test_a_backup_larger_than_its_entries_say_is_refused_unread(tmp_path: Path) -> None:
    """The backup holds the old bytes of the entries, at the offsets they name: a longer one
    is not the write's."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_bytes(b"new\n")
    jid = "0123456789ab"
    jdir = _plant(root, {"id": jid, "entries": [{
        "op": "replace", "rel": "a.txt", "target": "a.txt", "temp": f".action-lsp.{jid}.0.tmp",
        "old_sha": journal_mod.sha(b"old\n"), "new_sha": journal_mod.sha(b"new\n"),
        "backup": [0, 4]}]}, committed=True)
    (jdir / journal_mod.BACKUP_FILE).write_bytes(b"old\n")
    files = journal_mod._Files(root, jdir, json.loads((jdir / journal_mod.JOURNAL_FILE).read_text()))
    assert files.old_bytes(files.entries[0]) == b"old\n"
    with open(jdir / journal_mod.BACKUP_FILE, "r+b") as fh:
        fh.truncate(GIB)
    files = journal_mod._Files(root, jdir, json.loads((jdir / journal_mod.JOURNAL_FILE).read_text()))

    def refused() -> None:
        with pytest.raises(JournalError, match="larger than a write makes it"):
            files.old_bytes(files.entries[0])

    assert _peak(refused) < 1 << 20


def test_a_huge_restoring_marker_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    jdir = _plant(root, {"id": "0123456789ab", "entries": []}, committed=True)
    with open(jdir / journal_mod.RESTORING_FILE, "wb") as fh:
        fh.truncate(GIB)
    files = journal_mod._Files(root, jdir, {"id": "0123456789ab"})
    assert _peak(files.restoring) < 1 << 20
    (jdir / journal_mod.RESTORING_FILE).write_text("3")
    assert files.restoring() == 3


def test_a_write_never_makes_a_journal_a_recovery_would_refuse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from action_lsp.edit import WriteError
    from action_lsp.edit.plan import FileChange
    from action_lsp.edit.write import write_plan

    monkeypatch.setattr(journal_mod, "MAX_JOURNAL_BYTES", 300)
    changes = [FileChange(tmp_path / f"f{i}.txt", f"f{i}.txt", "create", None, b"x\n") for i in range(20)]
    with pytest.raises(WriteError, match="too many changes for one write"):
        write_plan(changes, root=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written, no journal left
