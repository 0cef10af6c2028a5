"""Diagnostics end to end: pushed to VS Code and Neovim (pulled, with result ids, only by a client
that can be asked to pull again: tests/server/test_server_pull.py), never both."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .conftest import Session


async def test_codes_links_and_source(session: Session) -> None:
    uri = session.open("tasks.md")
    diags = await session.diagnostics(uri)
    by_code = {d.code: d for d in diags}
    assert {"unknown-action", "missing-field", "invalid-value", "bad-json"} <= set(by_code)
    for d in diags:
        assert d.source == "action-lsp"
        assert d.code_description is not None
        assert d.code_description.href.endswith(f"#{d.code}")
        assert isinstance(d.data, dict) and d.data["code"] == d.code
    unknown = by_code["unknown-action"]
    assert unknown.severity == types.DiagnosticSeverity.Error
    assert unknown.range.start == types.Position(line=7, character=12)
    assert by_code["missing-field"].data["field"] == "task_id"


async def test_pull_or_push_never_both(session: Session) -> None:
    caps = session.init_result.capabilities  # type: ignore[union-attr]
    uri = session.open("tasks.md")
    if session.pull:
        assert caps.diagnostic_provider is not None
        first = await session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert isinstance(first, types.RelatedFullDocumentDiagnosticReport)
        again = await session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                previous_result_id=first.result_id,
            )
        )
        assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
        session.change(uri, (7, 12), (7, 22), "create_task")
        third = await session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                previous_result_id=first.result_id,
            )
        )
        assert isinstance(third, types.RelatedFullDocumentDiagnosticReport)
        assert "unknown-action" not in {d.code for d in third.items}
        await asyncio.sleep(0.5)
        assert session.client.diagnostics == {}  # nothing pushed to a pulling client
    else:
        assert caps.diagnostic_provider is None
        diags = await session.pushed(uri)
        assert "unknown-action" in {d.code for d in diags}
        session.change(uri, (7, 12), (7, 22), "create_task")
        diags = await session.pushed(uri)
        assert "unknown-action" not in {d.code for d in diags}


async def test_incremental_edits_keep_positions(session: Session) -> None:
    uri = session.open("tasks.md")
    await session.diagnostics(uri)
    # Two lines inserted above everything: every diagnostic moves down by two lines.
    before = {d.code: d.range for d in await session.diagnostics(uri)}
    session.change(uri, (0, 0), (0, 0), "intro\n\n")
    after = {d.code: d.range for d in await session.diagnostics(uri)}
    for code, r in before.items():
        assert after[code].start.line == r.start.line + 2
        assert after[code].start.character == r.start.character


async def test_non_ascii_columns_follow_the_encoding(session: Session) -> None:
    # U+2028 is not a line break for LSP; the emoji is 2 UTF-16 units and 4 UTF-8 bytes.
    text = '```actions\n{"actions": [{"type": "creat\u2028e_tsk", "x": "\U0001F600"}, {"type": "nope"}]}\n```\n'
    uri = session.open("emoji.md", text)
    diags = await session.diagnostics(uri)
    nope = [d for d in diags if d.code == "unknown-action" and d.range.start.character > 40]
    assert nope, diags
    col = text.split("\n")[1].index('nope')
    prefix = text.split("\n")[1][:col]
    expected = len(prefix.encode("utf-16-le")) // 2 if session.encoding == "utf-16" else len(prefix.encode("utf-8"))
    assert nope[0].range.start == types.Position(line=1, character=expected)
    assert session.encoding == ("utf-8" if session.kind == "neovim" else "utf-16")


async def test_severity_setting_and_off(session: Session) -> None:
    uri = session.open("tasks.md")
    await session.diagnostics(uri)
    session.client.set_configuration(
        {"severity": {"unknown-action": "hint", "invalid-value": "off"}}, section="actionLsp"
    )
    session.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while True:
        await asyncio.sleep(0.1)
        if session.pull:
            diags = await session.diagnostics(uri)
        else:
            diags = list(session.client.diagnostics.get(uri, []))
        codes = {d.code: d for d in diags}
        if "invalid-value" not in codes or loop.time() > deadline:
            break
    assert "invalid-value" not in codes
    assert codes["unknown-action"].severity == types.DiagnosticSeverity.Hint


async def test_close_clears_pushed(session: Session) -> None:
    uri = session.open("tasks.md")
    assert await session.diagnostics(uri)
    session.client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    if not session.pull:
        for _ in range(100):
            await asyncio.sleep(0.02)
            if not session.client.diagnostics.get(uri, [None]):
                break
        assert list(session.client.diagnostics[uri]) == []


async def test_transcript_findings_come_before_the_workspace_ones(session: Session) -> None:
    """Both clients are pushed to (Neovim can pull, but cannot be asked to pull again once the
    workspace checks end: its first diagnostics would wait for them): the transcript's own
    findings at once, the workspace's when their checks end."""
    text = (session.root / "tasks.md").read_text(encoding="utf-8") + "\n" + (session.root / "edits.md").read_text(encoding="utf-8")
    seen: list[set[str]] = []
    fm = session.client.protocol.fm
    keep = fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        if params.uri.endswith("/both.md"):
            seen.append({str(d.code) for d in params.diagnostics})
        keep(params)

    fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    assert not session.pull
    session.open("both.md", text)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    while not any("search-not-found" in codes for codes in seen) and loop.time() < deadline:
        await asyncio.sleep(0.02)
    assert seen, "nothing was pushed"
    assert "unknown-action" in seen[0] and "search-not-found" not in seen[0]
    assert any({"unknown-action", "search-not-found"} <= codes for codes in seen)
