"""Lifecycle: initialize answers, errors stay in their request, shutdown + exit end the process."""

from __future__ import annotations

import asyncio

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from action_lsp.server.guard import guard

from .conftest import Session


async def test_capabilities_and_encoding(session: Session) -> None:
    result = session.init_result
    assert result is not None and result.server_info is not None
    assert result.server_info.name == "action-lsp"
    caps = result.capabilities
    sync = caps.text_document_sync
    assert isinstance(sync, types.TextDocumentSyncOptions)
    assert sync.change == types.TextDocumentSyncKind.Incremental
    assert caps.execute_command_provider is not None
    assert set(caps.execute_command_provider.commands) == {
        "action-lsp.apply",
        "action-lsp.applyAll",
        "action-lsp.previewDiff",
        "action-lsp.applyCandidate",
        "action-lsp.applyForced",
        "action-lsp.applyMerge",
    }
    assert caps.code_lens_provider is not None and caps.hover_provider
    assert caps.position_encoding == ("utf-8" if session.kind == "neovim" else "utf-16")


async def test_errors_stay_in_their_request(session: Session) -> None:
    with pytest.raises(Exception, match="not open"):
        await session.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=session.uri("missing.md")),
                position=types.Position(line=0, character=0),
            )
        )
    with pytest.raises(Exception):  # noqa: B017 - any error response will do
        await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="action-lsp.apply", arguments=["nonsense"])
        )
    uri = session.open("tasks.md")
    assert await session.diagnostics(uri)  # still serving


async def test_watcher_registered_when_supported(session: Session) -> None:
    for _ in range(50):
        if session.registrations:
            break
        await asyncio.sleep(0.05)
    methods = {r.method for r in session.registrations}
    if session.kind == "visual-studio-code":  # dynamic registration of file watchers
        assert "workspace/didChangeWatchedFiles" in methods
    else:
        assert "workspace/didChangeWatchedFiles" not in methods


async def test_shutdown_and_exit_end_the_process(fresh_session: Session) -> None:
    session = fresh_session
    client = session.client
    await client.shutdown_async(None)
    client.exit(None)
    server = client._server
    assert server is not None
    code = await asyncio.wait_for(server.wait(), 10)
    assert code == 0
    client.capabilities = None  # already shut down: the fixture must not do it again


class _Reporter:
    def __init__(self) -> None:
        self.crashes: list[tuple[str, BaseException]] = []

    def report_crash(self, feature: str, exc: BaseException) -> None:
        self.crashes.append((feature, exc))


def test_guard_turns_crashes_into_error_responses() -> None:
    rep = _Reporter()

    def boom(params: object) -> None:
        raise KeyError("x")

    wrapped = guard(rep, "textDocument/hover", boom)
    with pytest.raises(JsonRpcException) as info:
        wrapped(None)
    assert "textDocument/hover failed" in info.value.message
    assert rep.crashes and rep.crashes[0][0] == "textDocument/hover"


def test_guard_drops_crashing_notifications_and_passes_rpc_errors() -> None:
    rep = _Reporter()

    def boom(params: object) -> None:
        raise ValueError("bad")

    assert guard(rep, "textDocument/didChange", boom, is_request=False)(None) is None
    assert len(rep.crashes) == 1

    def refuse(params: object) -> None:
        raise JsonRpcException(message="refused")

    with pytest.raises(JsonRpcException, match="refused"):
        guard(rep, "x", refuse)(None)
    assert len(rep.crashes) == 1


async def test_guard_async() -> None:
    rep = _Reporter()

    async def boom(params: object) -> None:
        raise RuntimeError("late")

    with pytest.raises(JsonRpcException):
        await guard(rep, "textDocument/diagnostic", boom)(None)
    assert rep.crashes[0][0] == "textDocument/diagnostic"
