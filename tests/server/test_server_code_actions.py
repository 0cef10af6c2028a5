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


async def test_missing_attribute_is_inserted_as_an_attribute(session: Session) -> None:
    """An <aether-write> without `path` gets ` path=""` in its start tag, not `<path></path>`
    inside the file body it writes."""
    text = '<aether-write language="python">\nprint(1)\n</aether-write>\n'
    uri = session.open("write.md", text)
    diags = [d for d in await session.diagnostics(uri) if d.code == "missing-field"]
    assert len(diags) == 1
    actions = await _actions(session, uri, diags[0])
    fix = next(a for a in actions if a.kind == types.CodeActionKind.QuickFix)
    assert fix.title == "Insert `path`"
    assert fix.edit is not None and fix.edit.changes is not None
    (edit,) = fix.edit.changes[uri]
    assert edit.new_text == ' path=""'
    assert edit.range.start == types.Position(line=0, character=len("<aether-write"))


async def test_json_repair_is_resolved_only_when_picked(session: Session) -> None:
    """A repair that needs json_repair is offered without edits and worked out in
    codeAction/resolve (both clients resolve ``edit``)."""
    text = 'Intro.\n\n```actions\n{"actions": [{"type": "create_task", "content": "no end}]}\n```\n'
    uri = session.open("broken.md", text)
    diags = [d for d in await session.diagnostics(uri) if d.code == "bad-json"]
    assert diags
    actions = await _actions(session, uri, diags[0])
    repair = next(a for a in actions if a.title == "Repair the JSON")
    assert repair.edit is None and repair.data is not None
    resolved = await session.client.code_action_resolve_async(repair)
    assert resolved.edit is not None and resolved.edit.changes is not None
    (edit,) = resolved.edit.changes[uri]
    assert '"content": "no end' in edit.new_text and edit.new_text.rstrip().endswith("}")
