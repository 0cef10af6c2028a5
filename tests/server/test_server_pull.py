"""Pulled diagnostics: only for a client that can also be asked to pull again
(``workspace/diagnostic/refresh``). It gets the transcript's findings at once and is asked to
pull again when the workspace checks end; a client that can pull but cannot be asked again
(Neovim 0.11) is pushed to (tests/server/test_server_diagnostics.py)."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from .conftest import WORKSPACE, make_params

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "action_lsp", "serve"])


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


def _pull(client: LanguageClient, uri: str, previous: str | None = None) -> asyncio.Future[types.DocumentDiagnosticReport]:
    return client.text_document_diagnostic_async(  # type: ignore[return-value]
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous)
    )


async def test_a_client_that_can_be_asked_to_pull_again_pulls(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    refreshes: list[None] = []

    def refresh(params: None) -> None:
        refreshes.append(params)

    client.protocol.fm.features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = refresh  # (pytest-lsp answers it too)

    params = make_params("neovim", root)
    params.capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)  # type: ignore[union-attr]
    result = await asyncio.wait_for(client.initialize_session(params), 20)
    assert result.capabilities.diagnostic_provider is not None
    text = (root / "tasks.md").read_text(encoding="utf-8") + "\n" + (root / "edits.md").read_text(encoding="utf-8")
    uri = (root / "both.md").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)))
    first = await asyncio.wait_for(_pull(client, uri), 20)
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport)
    assert "unknown-action" in {d.code for d in first.items}
    codes: set[str] = set()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while "search-not-found" not in codes and loop.time() < deadline:
        while not refreshes and loop.time() < deadline:
            await asyncio.sleep(0.02)
        report = await asyncio.wait_for(_pull(client, uri), 20)
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        codes = {str(d.code) for d in report.items}
    assert refreshes, "never asked to pull again"
    assert {"unknown-action", "search-not-found"} <= codes
    again = await _pull(client, uri, report.result_id)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert client.diagnostics == {}  # nothing pushed to a pulling client
