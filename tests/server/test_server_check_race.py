"""A workspace check that was running when an Apply changed the files does not get the last
word: its plan is of the files before the Apply, so the lens above the applied action would
say ``Apply`` again (seen on a busy machine: the check of the open outlasted the Apply). The
check's slowness is made certain by ``hooks/slow_check.py``."""

from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from action_lsp.dialects import NAMES

from .conftest import WORKSPACE, Session, attach, make_params

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

HOOK = Path(__file__).with_name("hooks") / "slow_check.py"
PLACE = Path(tempfile.mkdtemp(prefix="action-lsp-check-race-"))
atexit.register(shutil.rmtree, PLACE, True)
STARTED = PLACE / "started"
CONFIG = ClientServerConfig(
    server_command=[sys.executable, str(HOOK)],
    server_env={**os.environ, "ACTION_LSP_TEST_CHECK_STARTED": str(STARTED)},
)


@pytest_lsp.fixture(config=CONFIG)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[Session]:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    s = Session(lsp_client, "neovim", root)
    attach(lsp_client, s)
    s.init_result = await lsp_client.initialize_session(make_params("neovim", root))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    if lsp_client.capabilities is not None:
        await lsp_client.shutdown_session()


@pytest.fixture
def session(client: LanguageClient) -> Session:
    return client.session  # type: ignore[attr-defined,no-any-return]


async def _titles(session: Session, uri: str) -> list[tuple[int, str]]:
    lenses = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    return [(lens.range.start.line, lens.command.title) for lens in lenses or [] if lens.command]


async def test_a_check_that_outlasts_an_apply_does_not_bring_its_apply_lens_back(session: Session) -> None:
    session.buffered = True  # (the edit lives in the editor's buffer until saved)
    uri = session.open("edits.md")
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    while not STARTED.exists() and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert STARTED.exists(), "the workspace check of the open never started"
    args: dict[str, Any] = {"uri": uri, "version": 1, "action": 1}
    applied = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.apply", arguments=[args]))
    assert applied["applied"] is True and len(session.applied_edits) == 1
    await asyncio.sleep(2.5)  # the slow check has ended, its plan made before the Apply
    assert (9, "Applied ✓") in await _titles(session, uri)
    again = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.apply", arguments=[args]))
    assert "Already applied" in again["message"] and len(session.applied_edits) == 1
