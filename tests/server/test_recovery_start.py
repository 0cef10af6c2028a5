"""The start-up recovery of an interrupted apply (``server/recovery.py``) imports no part of the
edit engine when no workspace folder holds a journal (nearly every start: 7-11 ms of imports
on the way to the first open); a folder that holds one is recovered as before
(``test_server_recovery.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from action_lsp.edit.journal import JOURNAL_DIR
from action_lsp.server import recovery


def test_the_recovery_s_journal_is_the_edit_engine_s() -> None:
    assert recovery.JOURNAL_DIR == JOURNAL_DIR


STARTED = """
import asyncio, sys
from action_lsp.server.server import create_server

class Writer:
    def write(self, data):
        pass

async def main():
    ls = create_server()
    ls.protocol.set_writer(Writer())
    ls.warm_names = []
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "rootUri": ROOT}}))
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    await asyncio.sleep(0.2)
    print("action_lsp.edit.journal" in sys.modules)

asyncio.run(main())
"""


def test_a_start_with_no_journal_to_recover_imports_no_edit_engine(tmp_path: Path) -> None:
    code = STARTED.replace("ROOT", repr(tmp_path.as_uri()))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.split() == ["False"]
    (tmp_path / JOURNAL_DIR).mkdir()  # (an empty journal: the recovery looks, and finds nothing to do)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.split() == ["True"]
