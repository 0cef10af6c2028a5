"""Dialects declared in the workspace's ``.action-lsp.toml``, end to end: they parse, get the
built-ins' diagnostics, quick fixes, hover and lenses, and the server reloads the file when it
changes on disk (a wrong file is shown to the user, never a crash)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from .conftest import CLIENTS, SERVER, Session, attach, make_params

FIXTURE = Path(__file__).parent.parent / "fixtures" / "declared"

EXTRA = """
[dialects.codecompanion.actions.copy]
tag = "action"
kind = "other"
path = "path"
required = ["path", "new_path"]
doc = "Copy a file to new_path."
"""

CHAT = """Copy it, then create one:

<tools><tool name="files">
<action type="copy">
<path>old.txt</path>
<new_path>b.txt</new_path>
</action>
<action type="create">
<contents>x = 1</contents>
</action>
</tool></tools>
"""


@pytest_lsp.fixture(config=SERVER, params=CLIENTS)
async def declared_client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[Session]:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    s = Session(lsp_client, request.param, root)
    attach(lsp_client, s)
    s.init_result = await lsp_client.initialize_session(make_params(request.param, root))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    await lsp_client.shutdown_session()


@pytest.fixture
def ws(declared_client: LanguageClient) -> Session:
    return declared_client.session  # type: ignore[attr-defined,no-any-return]


def _watched(session: Session, name: str) -> None:
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri(name), type=types.FileChangeType.Changed)]
        )
    )


async def _codes_until(session: Session, uri: str, want, timeout: float = 10.0) -> list[types.Diagnostic]:
    """Diagnostics once ``want(codes)`` holds (a reload re-publishes, or answers the next pull)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        diags = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if want({d.code for d in diags}):
            return diags
        if loop.time() > deadline:
            raise TimeoutError(str([(d.code, d.message) for d in diags]))
        await asyncio.sleep(0.1)


async def test_codecompanion_example_has_lenses_and_no_problems(ws: Session) -> None:
    uri = ws.open("chat.md")
    assert await ws.diagnostics(uri) == []
    lenses = await ws.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    titles = [c.command.title for c in lenses or [] if c.command]
    assert titles.count("Apply") == 2  # create and rename; the command is never applied
    hover = await ws.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=7, character=20),  # on "create" of type="create"
        )
    )
    assert isinstance(hover.contents, types.MarkupContent)  # type: ignore[union-attr]
    assert "**create** `src/hello.py` · codecompanion" in hover.contents.value  # type: ignore[union-attr]
    assert "Would create `src/hello.py`" in hover.contents.value  # type: ignore[union-attr]


async def test_fix_and_reload_on_change_and_a_wrong_file(ws: Session) -> None:
    uri = ws.open("cc.md", CHAT)
    diags = await _codes_until(ws, uri, lambda c: "unknown-action" in c)
    missing = next(d for d in diags if d.code == "missing-field")
    actions = await ws.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=missing.range,
            context=types.CodeActionContext(diagnostics=[missing]),
        )
    )
    assert "Insert <path>" in [a.title for a in actions or [] if isinstance(a, types.CodeAction)]
    ws.change(uri, (8, 0), (8, 0), "<")  # typing a child element of <action type="create">
    got = await ws.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=8, character=1)
        )
    )
    items = got.items if isinstance(got, types.CompletionList) else got or []
    assert {"path", "contents"} <= {i.label.strip("<>") for i in items}, [i.label for i in items]
    ws.change(uri, (8, 0), (8, 1), "")

    config = ws.root / ".action-lsp.toml"
    config.write_text(config.read_text(encoding="utf-8") + EXTRA, encoding="utf-8")
    _watched(ws, ".action-lsp.toml")
    await _codes_until(ws, uri, lambda c: "unknown-action" not in c and "missing-field" in c)

    config.write_text(config.read_text(encoding="utf-8").replace('kind = "other"', 'kind = "copy"'), encoding="utf-8")
    _watched(ws, ".action-lsp.toml")
    await _codes_until(ws, uri, lambda c: not c)  # its dialect is off: nothing is read
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not ws.client.messages and loop.time() < deadline:
        await asyncio.sleep(0.05)
    (shown,) = ws.client.messages
    assert shown.type == types.MessageType.Error
    assert ".action-lsp.toml" in shown.message and "dialects.codecompanion.actions.copy.kind" in shown.message
    hover = await ws.client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    )
    assert hover is None  # still serving


async def test_the_server_names_the_configuration_it_reads(ws: Session) -> None:
    wanted = f"action-lsp: configuration: {ws.root / '.action-lsp.toml'}"
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while wanted not in [m.message for m in ws.client.log_messages] and loop.time() < deadline:
        await asyncio.sleep(0.05)
    assert wanted in [m.message for m in ws.client.log_messages]


@pytest_lsp.fixture(config=SERVER, params=CLIENTS)
async def below_a_configuration(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[Session]:
    """A workspace folder (a repository) whose parent directory holds a configuration."""
    shutil.copy(FIXTURE / ".action-lsp.toml", tmp_path / ".action-lsp.toml")
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    shutil.copy(FIXTURE / "chat.md", root / "chat.md")
    s = Session(lsp_client, request.param, root)
    attach(lsp_client, s)
    s.init_result = await lsp_client.initialize_session(make_params(request.param, root))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    await lsp_client.shutdown_session()


async def test_a_configuration_above_the_workspace_is_not_read(below_a_configuration: LanguageClient) -> None:
    s: Session = below_a_configuration.session  # type: ignore[attr-defined]
    uri = s.open("chat.md")
    assert await s.diagnostics(uri) == []
    lenses = await s.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert not [c for c in lenses or [] if c.command and c.command.title == "Apply"]  # no declared dialect
    assert not [m for m in s.client.log_messages if "configuration:" in m.message]
