"""The server's trust items end to end (issue 8): what it applied and the editor has not saved is
not applied again, lenses follow Apply, saves and changes on disk; a refused edit leaves no
directory; previews never follow a planted link nor replace anything; each path problem shows
once, and no path breaks a whole request; every request gets an answer (bad params, after
``shutdown``)."""

from __future__ import annotations

import asyncio
import atexit
import inspect
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import AsyncIterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import to_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from action_lsp.dialects import NAMES

from .conftest import CLIENTS, WORKSPACE, Session, attach, make_params

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

# The server's TMPDIR: a directory of this test run, so that planting a link at the old
# predictable preview path touches nothing outside it.
SERVER_TMP = Path(tempfile.mkdtemp(prefix="action-lsp-trust-"))
atexit.register(shutil.rmtree, SERVER_TMP, True)
CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "action_lsp", "serve"],
    server_env={**os.environ, "TMPDIR": str(SERVER_TMP)},
)


@pytest_lsp.fixture(config=CONFIG, params=CLIENTS)
async def client(request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[Session]:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    s = Session(lsp_client, request.param, root)
    attach(lsp_client, s)
    s.init_result = await lsp_client.initialize_session(make_params(request.param, root))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    if lsp_client.capabilities is not None:
        await lsp_client.shutdown_session()


@pytest.fixture
def session(client: LanguageClient) -> Session:
    return client.session  # type: ignore[attr-defined,no-any-return]


def _td(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _run(session: Session, command: str, **args: Any) -> Any:
    return await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[args])
    )


async def _titles(session: Session, uri: str) -> list[tuple[int, str]]:
    lenses = await session.client.text_document_code_lens_async(types.CodeLensParams(text_document=_td(uri)))
    return [(lens.range.start.line, lens.command.title) for lens in lenses or [] if lens.command]


async def _until(check: Any, timeout: float = 10.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        got = await check()
        if got or loop.time() > deadline:
            return got
        await asyncio.sleep(0.1)


async def _codes(session: Session, uri: str) -> list[str]:
    if session.pull:
        return [str(d.code) for d in await session.diagnostics(uri)]
    return [str(d.code) for d in session.client.diagnostics.get(uri, [])]


def _watched(session: Session, *rels: str) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(r), type=types.FileChangeType.Changed) for r in rels]
        )
    )


# -- the ledger -------------------------------------------------------------------------------


async def test_apply_twice_before_saving_applies_once(session: Session) -> None:
    """Neovim's ``:ActionApply`` twice before ``:wall``: the edit lives in a buffer the server
    does not see, the disk still has the old text."""
    session.buffered = True
    app = session.root / "src/app.py"
    before = app.read_text()
    uri = session.open("edits.md")
    first = await _run(session, "action-lsp.apply", uri=uri, version=1, action=1)
    assert first["applied"] is True and len(session.applied_edits) == 1
    assert app.read_text() == before  # not saved yet
    # the lens says so at once, before any save, and so does the `applied` hint

    async def hinted() -> bool:
        return "applied" in await _codes(session, uri)

    assert (9, "Applied ✓") in await _titles(session, uri)
    assert await _until(hinted), await _codes(session, uri)
    second = await _run(session, "action-lsp.apply", uri=uri, version=1, action=1)
    assert second["applied"] is True and "Already applied" in second["message"]
    assert len(session.applied_edits) == 1  # nothing sent again
    session.save_all()  # :wall
    _watched(session, "src/app.py")  # as VS Code's file watcher tells
    assert app.read_text().count('print("bye")') == 1 and "hello" not in app.read_text()
    assert (9, "Applied ✓") in await _titles(session, uri)
    # the file changes on disk (another tool reverts it): the lens offers Apply again
    app.write_text(before)
    _watched(session, "src/app.py")

    async def apply_again() -> bool:
        return (9, "Apply") in await _titles(session, uri)

    assert await _until(apply_again)


async def test_second_action_on_a_pending_file_is_placed_in_the_pending_text(session: Session) -> None:
    """Apply a create, then a modify of the created (unsaved) file: the modify sees the text
    the editor holds, not the empty file on disk."""
    session.buffered = True
    text = (
        "<create_file>\n<path>pkg/mod.py</path>\n<content>\nA = 1\nB = 2\n</content>\n</create_file>\n\n"
        "<modify_file>\n<path>pkg/mod.py</path>\n<search>B = 2</search>\n<replace>B = 3</replace>\n</modify_file>\n"
    )
    (session.root / "t.md").write_text(text)
    uri = session.open("t.md", text)
    assert (await _run(session, "action-lsp.apply", uri=uri, version=1, action=0))["applied"] is True
    assert (session.root / "pkg/mod.py").read_text() == ""  # the editor made the empty file
    assert (await _run(session, "action-lsp.apply", uri=uri, version=1, action=1))["applied"] is True
    second = session.applied_edits[-1].edit.document_changes or []
    assert [type(c).__name__ for c in second] == ["TextDocumentEdit"]  # no second create
    session.save_all()
    assert (session.root / "pkg/mod.py").read_text() == "A = 1\nB = 3\n"


# -- directories ------------------------------------------------------------------------------

DIRS = (
    "<create_directory>\n<path>docs/empty</path>\n</create_directory>\n\n"
    "<create_file>\n<path>pkg/sub/mod.py</path>\n<content>\nX = 1\n</content>\n</create_file>\n"
)


async def test_refused_edit_leaves_no_directory(session: Session) -> None:
    session.refuse_edits = True
    (session.root / "dirs.md").write_text(DIRS)
    uri = session.open("dirs.md", DIRS)
    result = await _run(session, "action-lsp.applyAll", uri=uri, version=1, actions=[0, 1])
    assert result["applied"] is False
    assert len(session.applied_edits) == 1
    assert not (session.root / "docs").exists() and not (session.root / "pkg").exists()


async def test_directories_come_with_the_accepted_edit(session: Session) -> None:
    (session.root / "dirs.md").write_text(DIRS)
    uri = session.open("dirs.md", DIRS)
    result = await _run(session, "action-lsp.applyAll", uri=uri, version=1, actions=[0, 1])
    assert result["applied"] is True
    (params,) = session.applied_edits
    changes = params.edit.document_changes or []
    create = changes[0]
    assert isinstance(create, types.CreateFile) and create.uri.endswith("pkg/sub/mod.py")
    assert (session.root / "docs/empty").is_dir()
    assert (session.root / "pkg/sub/mod.py").read_text().strip() == "X = 1"


# -- preview ----------------------------------------------------------------------------------


async def test_preview_is_private_and_never_follows_a_planted_link(session: Session, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    planted = SERVER_TMP / "action-lsp-preview"
    planted.mkdir(exist_ok=True)
    for name in ("app.py.1.diff", "1"):
        link = planted / name
        if not link.is_symlink():
            link.symlink_to(victim)
    uri = session.open("edits.md")
    result = await _run(session, "action-lsp.previewDiff", uri=uri, version=1, action=1)
    again = await _run(session, "action-lsp.previewDiff", uri=uri, version=1, action=1)
    assert victim.read_text() == "precious\n"
    shown = session.client.shown_documents
    assert [s.uri for s in shown] == [result["uri"], again["uri"]]  # once per preview
    assert result["uri"] != again["uri"]  # a new file each time: no stale buffer
    path = Path(to_fs_path(result["uri"]) or "")
    assert path.read_text() == result["diff"] and '+    print("bye")' in result["diff"]
    assert path.name == "app.py.1.diff"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    private = path.parent.parent
    assert private.parent == SERVER_TMP and private != planted
    assert stat.S_IMODE(private.stat().st_mode) == 0o700


# -- paths ------------------------------------------------------------------------------------

LONG = "a" * 256
PATHS = (
    "<create_file>\n<path>src/\u202etxt.exe</path>\n<content>\nx\n</content>\n</create_file>\n\n"
    f"<create_file>\n<path>{LONG}/x.py</path>\n<content>\nx\n</content>\n</create_file>\n\n"
    "<create_file>\n<path>../out.py</path>\n<content>\nx\n</content>\n</create_file>\n\n"
    "<modify_file>\n<path>src/app.py</path>\n<search>no such line</search>\n<replace>y</replace>\n</modify_file>\n"
)


async def test_each_path_problem_shows_once_and_lenses_still_work(session: Session) -> None:
    (session.root / "paths.md").write_text(PATHS)
    uri = session.open("paths.md", PATHS)

    async def checked() -> list[str] | None:
        codes = await _codes(session, uri)
        return codes if "search-not-found" in codes else None

    codes = await _until(checked)
    assert codes is not None, "the workspace checks never ran"
    assert sorted(c for c in codes if c in ("invalid-path", "path-traversal", "absolute-path")) == [
        "invalid-path",
        "invalid-path",
        "path-traversal",
    ]
    titles = await _titles(session, uri)  # a component over 255 bytes used to fail the request
    assert ("Apply" in {t for _, t in titles}) and len(titles) >= 4
    hover = await session.client.text_document_hover_async(
        types.HoverParams(text_document=_td(uri), position=types.Position(line=7, character=2))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Cannot apply" in hover.contents.value


# -- every request gets an answer --------------------------------------------------------------


async def _raw_request(session: Session, msg_id: str, method: str, params: Any) -> Any:
    """Send a request as raw JSON-RPC (params the typed client would refuse to send)."""
    protocol = session.client.protocol
    fut: Future[Any] = Future()
    protocol._request_futures[msg_id] = fut
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}).encode()
    assert protocol.writer is not None
    written = protocol.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    if inspect.isawaitable(written):
        await written
    return await asyncio.wait_for(asyncio.wrap_future(fut), 10)


async def test_bad_params_get_an_invalid_params_error(session: Session) -> None:
    uri = session.open("edits.md")
    with pytest.raises(JsonRpcException) as info:
        await _raw_request(session, "raw-1", "textDocument/hover", {"textDocument": 5, "position": {}})
    assert info.value.code == -32602 and "textDocument/hover" in info.value.message
    with pytest.raises(JsonRpcException) as info:
        await _raw_request(session, "raw-2", "textDocument/codeLens", {"textDocument": {"uri": 7}})
    assert info.value.code == -32602
    # the server goes on serving
    assert await _titles(session, uri)


async def test_requests_after_shutdown_get_an_error(session: Session) -> None:
    uri = session.open("edits.md")
    await session.client.shutdown_async(None)
    with pytest.raises(JsonRpcException) as info:
        await _raw_request(
            session, "raw-3", "textDocument/codeLens", {"textDocument": {"uri": uri}}
        )
    assert info.value.code == -32600 and "shutting down" in info.value.message
    session.client.exit(None)
    server = session.client._server
    assert server is not None
    assert await asyncio.wait_for(server.wait(), 10) == 0
    session.client.capabilities = None  # already shut down
