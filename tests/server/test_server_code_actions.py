"""Quick fixes from the core and the missing-field placeholder, end to end."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session


async def _actions(session: Session, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


async def test_rename_and_repair_fixes(session: Session) -> None:
    uri = session.open("tasks.md")
    diags = {d.code: d for d in await session.diagnostics(uri)}
    actions = await _actions(session, uri, diags["unknown-action"])
    rename = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert rename.title == "Rename to `create_task`"
    assert rename.is_preferred
    assert rename.diagnostics and rename.diagnostics[0].code == "unknown-action"
    assert rename.edit is not None and rename.edit.changes is not None
    (edit,) = rename.edit.changes[uri]
    assert edit.new_text == "create_task"
    assert edit.range == diags["unknown-action"].range
    repair = await _actions(session, uri, diags["bad-json"])
    assert any(a.title == "Repair the JSON" and a.is_preferred for a in repair)


async def test_missing_field_placeholder(session: Session) -> None:
    uri = session.open("tasks.md")
    diags = {d.code: d for d in await session.diagnostics(uri)}
    actions = await _actions(session, uri, diags["missing-field"])
    fix = next(a for a in actions if a.title == 'Insert "task_id"')
    assert fix.edit is not None and fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == ', "task_id": ""'
    # It lands after the last field of the action, on its line.
    assert edit.range.start.line == diags["missing-field"].range.start.line
