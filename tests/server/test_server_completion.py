"""Completion of action types, fields, enum values and paths, end to end."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session


async def _complete(session: Session, uri: str, line: int, character: int) -> list[str]:
    result = await session.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    items = result.items if isinstance(result, types.CompletionList) else (result or [])
    return [i.label for i in items]


async def test_types_fields_values_paths(session: Session) -> None:
    text = (
        "```actions\n"
        '{"actions": [\n'
        '  {"type": "create_t"},\n'
        '  {"type": "update_task", "st"},\n'
        '  {"type": "update_task", "status": "p"},\n'
        '  {"type": "create_task", "path": "src/"}\n'
        "]}\n"
        "```\n"
    )
    uri = session.open("complete.md", text)
    labels = await _complete(session, uri, 2, len('  {"type": "create_t'))
    assert "create_task" in labels and "datavault_store" in labels
    labels = await _complete(session, uri, 3, len('  {"type": "update_task", "st'))
    assert "status" in labels and "task_id" in labels
    labels = await _complete(session, uri, 4, len('  {"type": "update_task", "status": "p'))
    assert labels == ["pending", "ongoing", "paused", "completed"]
    labels = await _complete(session, uri, 5, len('  {"type": "create_task", "path": "src/'))
    assert labels == ["src/app.py"]


async def test_action_plan_names(session: Session) -> None:
    text = '{"actions": [{"action": "TH", "context": "x"}], "can_extend": true, "reasoning": "r"}\n'
    uri = session.open("plan.md", text)
    labels = await _complete(session, uri, 0, len('{"actions": [{"action": "TH'))
    assert "THINK" in labels


async def test_attributes_and_child_elements_as_the_dialect_writes_them(session: Session) -> None:
    """`<dyad-write ` offers its attributes, not the body field; inside a Cline tool `<` offers
    its parameters as child elements."""
    text = '<dyad-write \n\n<write_to_file>\n<\n</write_to_file>\n'
    uri = session.open("fields.md", text)
    labels = await _complete(session, uri, 0, len("<dyad-write "))
    assert "path" in labels and "description" in labels and "content" not in labels
    labels = await _complete(session, uri, 3, 1)
    assert "path" in labels and "content" in labels
