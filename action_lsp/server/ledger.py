"""What the server applied through ``workspace/applyEdit`` and the editor has not saved yet.

An editor applies a workspace edit to buffers: the files on disk keep their old content until
the user saves (``:wall``), and a target that is not a transcript is a buffer the server never
sees. Planning against the disk would then apply the same modify twice, or place a second edit
with offsets from the old text. So after the editor accepts an edit, the server records per
target the text it now holds (``expected``) and what the disk held right after the edit
(``baseline``: the editor may already have created an empty file). While the disk still holds
the baseline, the expected text is the file's current content for every plan, lens and hint.

An entry ends when the disk says otherwise (the file was saved with the edit, or changed in any
other way: its bytes differ from the baseline) or when the file is opened in the editor (the
open document's text then wins, see ``ActionLanguageServer.workspace_for``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

_MISSING = "missing"
_UNREADABLE = "unreadable"


def disk_state(path: Path) -> str:
    """A digest of ``path``'s bytes (or ``missing`` / ``unreadable``)."""
    import hashlib  # (here: the server's start needs no OpenSSL digest)

    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except FileNotFoundError:
        return _MISSING
    except OSError:
        return _UNREADABLE


@dataclass(frozen=True, slots=True)
class Entry:
    expected: str  # the text the editor's buffer holds after the edit
    baseline: str  # disk_state() right after the editor accepted the edit


class Ledger:
    def __init__(self) -> None:
        self._entries: dict[Path, Entry] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def record(self, path: Path, expected: str) -> None:
        entry = Entry(expected, disk_state(path))
        with self._lock:
            self._entries[path] = entry

    def forget(self, path: Path) -> None:
        with self._lock:
            self._entries.pop(path, None)

    def pending(self, path: Path) -> str | None:
        """The unsaved text of ``path`` the server applied, or None (the disk is current)."""
        entry = self._entries.get(path)
        if entry is None:
            return None
        if disk_state(path) == entry.baseline:
            return entry.expected
        with self._lock:  # saved, or changed otherwise: the disk is the truth again
            if self._entries.get(path) is entry:
                del self._entries[path]
        return None

    def snapshot(self) -> dict[Path, str]:
        """Every pending text, checked against the disk now."""
        return {p: t for p in list(self._entries) if (t := self.pending(p)) is not None}
