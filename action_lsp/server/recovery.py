"""At start: finish or undo an apply that was interrupted (killed, power loss) under each
workspace folder, without ever blocking the event loop.

Each folder's recovery runs in a worker thread and takes the journal lock without waiting
(:func:`~action_lsp.edit.journal.recover` with ``wait=False``): while another process holds it
(an ``apply --write`` under way, or suspended in a terminal), the user is told once, the server
goes on answering, and the recovery is tried again after 0.5 s, then less and less often (at
most every :data:`RETRY_MAX` seconds) until it succeeds. A write the server makes itself finishes
or undoes an interrupted one first anyway.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from .server import ActionLanguageServer

# ``edit.journal.JOURNAL_DIR``, named here so that a start with no journal to recover (nearly
# every start) imports no part of the edit engine on the way to the first open (7-11 ms).
JOURNAL_DIR = ".action-lsp-journal"

RETRY_FIRST = 0.5  # seconds before the first retry of a folder whose journal is locked
RETRY_MAX = 30.0

_tasks: set[asyncio.Task[None]] = set()  # running recoveries (kept from the garbage collector)


def start(ls: ActionLanguageServer) -> None:
    """Recover every workspace folder that holds a journal, in the background (a folder
    without one has nothing to recover: ``recover`` looks no further either)."""
    pending = [root for root in ls.folders if _has_journal(root)]
    if not pending:
        return
    task = asyncio.ensure_future(_recover_folders(ls, pending))
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)


def _has_journal(root: Path) -> bool:
    try:
        return (root / JOURNAL_DIR).is_dir()
    except OSError:  # (unreadable: let the recovery say why)
        return True


async def _recover_folders(ls: ActionLanguageServer, pending: list[Path]) -> None:
    from ..edit.journal import JournalBusy, JournalError, recover

    told: set[Path] = set()
    delay = RETRY_FIRST
    while pending:
        busy: list[Path] = []
        for root in pending:
            try:
                rec = await asyncio.to_thread(recover, root, ls.roots(), wait=False)
            except JournalBusy as exc:
                busy.append(root)
                if root not in told:
                    told.add(root)
                    _tell(ls, f"action-lsp: an interrupted apply waits to be finished or undone: "
                              f"{exc}; it is tried again when that process is done")
                continue
            except (OSError, JournalError) as exc:
                _tell(ls, f"action-lsp: could not recover an interrupted apply under {root}: {exc}")
                continue
            except Exception as exc:  # never a crash of the server
                ls.report_crash("recovery of an interrupted apply", exc)
                continue
            if rec is not None:
                _tell(ls, f"action-lsp: {rec.message()}")
                ls.emit("files_changed", [])  # the files on disk changed: check again
        pending = busy
        if pending:
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)


def _tell(ls: ActionLanguageServer, message: str) -> None:
    ls.log_info(message)
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=message))
