"""A file the user saves while the server writes a plan itself (a client that cannot apply
workspace edits) is not overwritten: the write is rolled back and the user told. The save is
made at a fixed point of the write by the kill-point interceptor (``hooks/save_race.py``)."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from action_lsp.dialects import NAMES

pytestmark = [
    pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="POSIX only"),
]

HOOK = Path(__file__).with_name("hooks") / "save_race.py"
# Made at import (the server's environment names it), so removed at exit too: a run that
# collects this module without running its test leaves nothing in the temporary directory.
PLACE = Path(tempfile.mkdtemp(prefix="action-lsp-save-race-"))
atexit.register(shutil.rmtree, PLACE, True)
ROOT = PLACE / "ws"
SERVER = ClientServerConfig(
    server_command=[sys.executable, str(HOOK)],
    server_env={**os.environ, "ACTION_LSP_TEST_SAVE_TO": str(ROOT / "b.py")},
)
SAVED = "# the user's line, saved during the apply\n"
TRANSCRIPT = "".join(
    f"<modify_file>\n<path>{n}.py</path>\n<search>\n{n} = 1\n</search>\n"
    f"<replace>\n{n} = 2\n</replace>\n</modify_file>\n" for n in "ab"
)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()
    shutil.rmtree(PLACE, ignore_errors=True)


async def test_a_save_during_the_server_s_own_write_is_kept(client: LanguageClient) -> None:
    ROOT.mkdir(parents=True)
    for n in "ab":
        (ROOT / f"{n}.py").write_text(f"{n} = 1\n")
    root_uri = from_fs_path(str(ROOT))
    assert root_uri is not None
    # No workspace/applyEdit: the server writes the files itself (write_plan).
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root_uri,
        workspace_folders=[types.WorkspaceFolder(uri=root_uri, name="ws")]))
    uri = from_fs_path(str(ROOT / "t.md"))
    assert uri is not None
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1,
                                             text=TRANSCRIPT)))
    result = await asyncio.wait_for(client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.applyAll",
                                   arguments=[{"uri": uri, "version": 1, "actions": [0, 1]}])),
        timeout=30)
    assert result["applied"] is False and "b.py changed since" in result["message"], result
    assert (ROOT / "b.py").read_text() == "b = 1\n" + SAVED
    assert (ROOT / "a.py").read_text() == "a = 1\n"
    assert not (ROOT / ".action-lsp-journal").exists()
    for _ in range(100):
        if any("Nothing applied" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.02)
    assert any("Nothing applied" in m.message and "b.py" in m.message for m in client.messages)
