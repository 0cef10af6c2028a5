"""A chat buffer still being written, end to end: chunks appended with didChange show the
unclosed action at the end as information (no error, no Apply lens) while it grows; it becomes
an error once the text has not grown for ``streamingGraceSeconds``, or when it is saved."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from action_lsp.text import LineIndex

from .conftest import CLIENTS, SERVER, WORKSPACE, Session, attach, make_params

GRACE = 1.5
ANSWER = 'Sure, here it is.\n\n<dyad-write path="src/new.ts" description="x">\nexport const a = 1;\nexport const b = 2;\n'


@pytest_lsp.fixture(config=SERVER, params=CLIENTS)
async def stream_client(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[Session]:
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    s = Session(lsp_client, request.param, root)
    attach(lsp_client, s)
    options = {"actionLsp": {"streamingGraceSeconds": GRACE}}
    s.init_result = await lsp_client.initialize_session(make_params(request.param, root, options))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    await lsp_client.shutdown_session()


@pytest.fixture
def stream(stream_client: LanguageClient) -> Session:
    return stream_client.session  # type: ignore[attr-defined,no-any-return]


class Buffer:
    """A chat buffer the test appends to, as CodeCompanion or avante.nvim do."""

    def __init__(self, session: Session, rel: str) -> None:
        self.session = session
        self.text = ""
        self.uri = session.open(rel, "")

    def append(self, chunk: str) -> None:
        enc = self.session.encoding
        end = LineIndex(self.text).position(len(self.text), enc)  # type: ignore[arg-type]
        self.session.change(self.uri, (end.line, end.character), (end.line, end.character), chunk)
        self.text += chunk


def _unclosed(diags: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diags if d.code == "unclosed-tag"]


async def _until_error(session: Session, uri: str, timeout: float) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        diags = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if any(d.severity == types.DiagnosticSeverity.Error for d in _unclosed(diags)):
            return diags
        if loop.time() > deadline:
            raise TimeoutError(f"unclosed-tag never became an error: {diags}")
        await asyncio.sleep(0.1)


async def _lenses(session: Session, uri: str) -> list[str]:
    got = await session.client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [c.command.title for c in got or [] if c.command]


async def test_growing_end_is_information_then_an_error_after_the_grace_period(stream: Session) -> None:
    session = stream
    buf = Buffer(session, "chat.md")
    for i in range(0, len(ANSWER), 9):
        buf.append(ANSWER[i : i + 9])
        diags = await session.diagnostics(buf.uri)
        assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], buf.text
        await asyncio.sleep(0.05)
    diags = await session.diagnostics(buf.uri)
    (d,) = _unclosed(diags)
    assert d.severity == types.DiagnosticSeverity.Information
    assert d.message.startswith("in progress:")
    assert "Apply" not in await _lenses(session, buf.uri)
    started = asyncio.get_running_loop().time()
    diags = await _until_error(session, buf.uri, timeout=GRACE + 5)
    assert asyncio.get_running_loop().time() - started >= GRACE - 0.5
    (d,) = _unclosed(diags)
    assert "in progress" not in d.message


async def test_saving_makes_it_final_and_closing_it_clears_it(stream: Session) -> None:
    session = stream
    buf = Buffer(session, "chat.md")
    buf.append(ANSWER)
    diags = await session.diagnostics(buf.uri)
    assert [d.severity for d in _unclosed(diags)] == [types.DiagnosticSeverity.Information]
    session.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=buf.uri))
    )
    await _until_error(session, buf.uri, timeout=GRACE / 2)
    buf.append("</dyad-write>\n")
    diags = await session.diagnostics(buf.uri)
    assert not _unclosed(diags)
    assert "Apply" in await _lenses(session, buf.uri)


class NeovimBuffer(Buffer):
    """A chat buffer as Neovim syncs it: its text always ends with the line break of its last
    line ('eol'), and an append is the change Neovim computes -- the inserted text *before*
    that final line break, which old and new text share (CodeCompanion, CopilotChat)."""

    def __init__(self, session: Session, rel: str) -> None:
        self.session = session
        self.text = "\n"
        self.uri = session.open(rel, "\n")

    def append(self, chunk: str) -> None:
        enc = self.session.encoding
        at = len(self.text) - 1
        pos = LineIndex(self.text).position(at, enc)  # type: ignore[arg-type]
        self.session.change(self.uri, (pos.line, pos.character), (pos.line, pos.character), chunk)
        self.text = self.text[:at] + chunk + self.text[at:]


async def test_an_answer_growing_before_the_final_line_break_is_in_progress(stream: Session) -> None:
    """Neovim's change for an append ends before the buffer's final line break: that is the
    end growing too (it was read as an edit in the middle, and the unclosed end an error)."""
    session = stream
    buf = NeovimBuffer(session, "chat.md")
    for i in range(0, len(ANSWER), 9):
        buf.append(ANSWER[i : i + 9])
        await asyncio.sleep(0.05)
    diags = await session.diagnostics(buf.uri)
    (d,) = _unclosed(diags)
    assert d.severity == types.DiagnosticSeverity.Information, buf.text
    assert "Apply" not in await _lenses(session, buf.uri)
    await _until_error(session, buf.uri, timeout=GRACE + 5)


async def test_an_edit_in_the_middle_is_no_growth(stream: Session) -> None:
    """Text typed above the end (a user editing an old message) is not streaming: the unclosed
    end stays an error."""
    session = stream
    buf = NeovimBuffer(session, "chat.md")
    buf.append(ANSWER)
    await _until_error(session, buf.uri, timeout=GRACE + 5)
    session.change(buf.uri, (0, 0), (0, 0), "more words ")
    buf.text = "more words " + buf.text
    diags = await session.diagnostics(buf.uri)
    assert [d.severity for d in _unclosed(diags)] == [types.DiagnosticSeverity.Error]
