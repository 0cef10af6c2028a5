"""The server's start-up recovery never blocks the event loop (issue 21): while another process
holds the journal lock (a suspended ``apply --write``), requests are answered, the user is told
that the recovery waits, and it is tried again once the lock is free."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import make_params
from .test_server_recovery import interrupt_after_commit

fcntl = pytest.importorskip("fcntl")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "action_lsp", "serve"])
TEXT = '```actions\n{"actions": [{"type": "create_task", "name": "x"}]}\n```\n'


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


async def _until(check, seconds: float) -> bool:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.05)):
        if check():
            return True
        await asyncio.sleep(0.05)
    return check()


async def test_requests_are_answered_while_another_process_holds_the_journal(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    interrupt_after_commit(root)
    fd = os.open(root / ".action-lsp-journal", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a suspended `apply --write` holds it
        await asyncio.wait_for(client.initialize_session(make_params("neovim", root)), 30)
        uri = from_fs_path(str(root / "t.md"))
        assert uri is not None
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=TEXT)))
        symbols = await asyncio.wait_for(client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))), 30)
        assert symbols  # answered while the lock is held
        assert await _until(lambda: any("another process" in m.message for m in client.messages), 30)
        assert (root / "b.py").read_text() == "b = 1\n"  # not recovered under someone's lock
    finally:
        os.close(fd)  # the other process is done
    assert await _until(lambda: any("was finished" in m.message for m in client.messages), 60), [
        m.message for m in client.messages]
    assert (root / "a.py").read_text() == "a = 2\n"
    assert (root / "b.py").read_text() == "b = 2\n"
    assert not (root / ".action-lsp-journal").exists()


WRITE = "<create_file>\n<path>made.txt</path>\n<content>\nx\n</content>\n</create_file>\n"


async def test_the_servers_own_write_waits_off_the_event_loop(client: LanguageClient, tmp_path: Path) -> None:
    """A client that cannot apply a workspace edit has the server write the files; while another
    process holds the journal lock the write waits in a worker and other requests are answered."""
    root = tmp_path / "ws"
    (root / ".action-lsp-journal").mkdir(parents=True)
    fd = os.open(root / ".action-lsp-journal", os.O_RDONLY)
    uri = from_fs_path(str(root / "t.md"))
    assert uri is not None
    doc = types.TextDocumentIdentifier(uri=uri)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        params = make_params("neovim", root)
        params.capabilities = types.ClientCapabilities()  # no workspace/applyEdit
        await asyncio.wait_for(client.initialize_session(params), 30)
        client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=WRITE)))
        lenses = await asyncio.wait_for(client.text_document_code_lens_async(
            types.CodeLensParams(text_document=doc)), 30)
        apply = next(lens.command for lens in lenses or [] if lens.command and lens.command.title == "Apply")
        writing = asyncio.ensure_future(client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=apply.command, arguments=apply.arguments)))
        await asyncio.sleep(0.5)
        symbols = await asyncio.wait_for(client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=doc)), 30)
        assert symbols and not writing.done()
        assert not (root / "made.txt").exists()
    finally:
        os.close(fd)
    result = await asyncio.wait_for(writing, 60)
    assert result["applied"] is True, result
    assert (root / "made.txt").read_text() == "x\n"
