"""File actions end to end: hover, links, lenses, workspace diagnostics, apply and preview."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from action_lsp.dialects import NAMES

from .conftest import Session

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")


def _td(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


async def _lenses(session: Session, uri: str) -> list[types.CodeLens]:
    return list(await session.client.text_document_code_lens_async(types.CodeLensParams(text_document=_td(uri))) or [])


async def _wait_codes(session: Session, uri: str, pred: Any, timeout: float = 10.0) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if session.pull:
            diags = await session.diagnostics(uri)
        else:
            diags = list(session.client.diagnostics.get(uri, []))
        if pred({d.code for d in diags}) or loop.time() > deadline:
            return diags
        await asyncio.sleep(0.1)


async def test_hover_says_what_it_would_do(session: Session) -> None:
    uri = session.open("edits.md")
    create = await session.client.text_document_hover_async(
        types.HoverParams(text_document=_td(uri), position=types.Position(line=3, character=3))
    )
    assert create is not None and isinstance(create.contents, types.MarkupContent)
    assert "Would create `src/new.py` (1 line)" in create.contents.value
    modify = await session.client.text_document_hover_async(
        types.HoverParams(text_document=_td(uri), position=types.Position(line=11, character=3))
    )
    assert modify is not None and isinstance(modify.contents, types.MarkupContent)
    assert "Would replace line 2 of `src/app.py`" in modify.contents.value
    assert '+    print("bye")' in modify.contents.value
    broken = await session.client.text_document_hover_async(
        types.HoverParams(text_document=_td(uri), position=types.Position(line=19, character=3))
    )
    assert broken is not None and isinstance(broken.contents, types.MarkupContent)
    assert "Cannot apply" in broken.contents.value
    assert (session.root / "src/app.py").read_text().count("hello") == 1  # nothing ran


async def test_links_to_existing_files(session: Session) -> None:
    uri = session.open("edits.md")
    links = await session.client.text_document_document_link_async(types.DocumentLinkParams(text_document=_td(uri)))
    targets = {link.target for link in links or []}
    assert targets == {session.uri("src/app.py")}
    assert all(link.range.start.line in (10, 18) for link in links or [])


async def test_workspace_diagnostics_follow_files(session: Session) -> None:
    uri = session.open("edits.md")
    diags = await _wait_codes(session, uri, lambda codes: "search-not-found" in codes)
    assert "search-not-found" in {d.code for d in diags}
    # The file changes on disk so that the search text is found: the finding goes away.
    app = session.root / "src/app.py"
    app.write_text(app.read_text() + "no such line\n")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=session.uri("src/app.py"), type=types.FileChangeType.Changed)]
        )
    )
    diags = await _wait_codes(session, uri, lambda codes: "search-not-found" not in codes)
    assert "search-not-found" not in {d.code for d in diags}


async def test_lenses_apply_all_then_applied(session: Session) -> None:
    uri = session.open("edits.md")
    lenses = await _lenses(session, uri)
    titles = [(lens.range.start.line, lens.command.title) for lens in lenses if lens.command]
    assert (2, "Apply") in titles and (2, "Preview diff") in titles
    assert (0, "Apply all 2") in titles
    apply_all = next(lens for lens in lenses if lens.command and lens.command.title == "Apply all 2")
    assert apply_all.command is not None
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=apply_all.command.command, arguments=apply_all.command.arguments)
    )
    assert result["applied"] is True
    (params,) = session.applied_edits
    kinds = [type(c).__name__ for c in params.edit.document_changes or []]
    assert kinds == ["CreateFile", "TextDocumentEdit", "TextDocumentEdit"]
    modify = params.edit.document_changes[2]  # type: ignore[index]
    assert isinstance(modify, types.TextDocumentEdit)
    assert modify.text_document.version is None  # not open in the editor
    (edit,) = modify.edits
    assert isinstance(edit, types.TextEdit) and edit.range.start.line == 1 == edit.range.end.line
    assert (session.root / "src/new.py").read_text().rstrip("\n") == "print(1)"
    assert 'print("bye")' in (session.root / "src/app.py").read_text()
    lenses = await _lenses(session, uri)
    titles = [(lens.range.start.line, lens.command.title) for lens in lenses if lens.command]
    assert (2, "Applied ✓") in titles and (9, "Applied ✓") in titles
    assert not any(t == "Apply all 2" for _, t in titles)
    diags = await _wait_codes(session, uri, lambda codes: "applied" in codes)
    assert "applied" in {d.code for d in diags}


async def test_failed_group_applies_nothing(session: Session) -> None:
    uri = session.open("edits.md")
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="action-lsp.applyAll", arguments=[{"uri": uri, "version": 1, "actions": [0, 2]}]
        )
    )
    assert result["applied"] is False
    assert session.applied_edits == []
    assert not (session.root / "src/new.py").exists()


async def test_stale_version_is_refused(session: Session) -> None:
    uri = session.open("edits.md")
    session.change(uri, (0, 0), (0, 0), "x")
    with pytest.raises(Exception, match="changed"):
        await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="action-lsp.apply", arguments=[{"uri": uri, "version": 1, "action": 0}])
        )


async def test_preview_diff_shows_a_diff_file(session: Session) -> None:
    uri = session.open("edits.md")
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.previewDiff", arguments=[{"uri": uri, "version": 1, "action": 1}])
    )
    assert '-    print("hello")' in result["diff"] and '+    print("bye")' in result["diff"]
    (shown,) = session.client.shown_documents
    assert shown.uri == result["uri"] and shown.uri.endswith(".diff")
    from pygls.uris import to_fs_path

    assert Path(to_fs_path(shown.uri) or "").read_text() == result["diff"]


async def test_rename_and_delete_are_file_operations(session: Session) -> None:
    """A Dyad rename is a RenameFile and a delete a DeleteFile in the WorkspaceEdit."""
    (session.root / "src/old.py").write_text("x = 1\n")
    (session.root / "src/gone.py").write_text("y = 1\n")
    text = (
        '<dyad-rename from="src/old.py" to="src/new_name.py"></dyad-rename>\n'
        '<dyad-delete path="src/gone.py"></dyad-delete>\n'
    )
    uri = session.open("moves.md", text)
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="action-lsp.applyAll", arguments=[{"uri": uri, "version": 1, "actions": [0, 1]}]
        )
    )
    assert result["applied"] is True
    (params,) = session.applied_edits
    changes = params.edit.document_changes or []
    assert [type(c).__name__ for c in changes] == ["RenameFile", "DeleteFile"]
    rename = changes[0]
    assert isinstance(rename, types.RenameFile)
    assert (rename.old_uri, rename.new_uri) == (session.uri("src/old.py"), session.uri("src/new_name.py"))
    assert (session.root / "src/new_name.py").read_text() == "x = 1\n"
    assert not (session.root / "src/old.py").exists() and not (session.root / "src/gone.py").exists()
