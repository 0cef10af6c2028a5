"""The ledger of applied, unsaved edits (``action_lsp.server.ledger``): the pending text counts
while the disk holds what it held right after the edit, and not once the disk says otherwise."""

from __future__ import annotations

from pathlib import Path

from action_lsp.server.ledger import Ledger


def test_pending_until_saved(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("old\n")
    ledger = Ledger()
    ledger.record(f, "new\n")
    assert ledger.pending(f) == "new\n"
    assert ledger.snapshot() == {f: "new\n"}
    f.write_text("new\n")  # saved
    assert ledger.pending(f) is None and len(ledger) == 0


def test_changed_otherwise_or_removed(tmp_path: Path) -> None:
    f = tmp_path / "a.py"
    f.write_text("")  # the editor's CreateFile made the empty file
    ledger = Ledger()
    ledger.record(f, "created\n")
    assert ledger.pending(f) == "created\n"
    f.unlink()  # undone in the editor
    assert ledger.pending(f) is None
    g = tmp_path / "b.py"
    ledger.record(g, "x\n")  # not on disk at all
    assert ledger.pending(g) == "x\n"
    g.write_text("something else\n")
    assert ledger.snapshot() == {}


def test_forget(tmp_path: Path) -> None:
    ledger = Ledger()
    ledger.record(tmp_path / "c.py", "x")
    ledger.forget(tmp_path / "c.py")
    assert ledger.pending(tmp_path / "c.py") is None
