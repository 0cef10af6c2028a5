"""Hover on the tool calls of an agent session: what the call was, and what became of it."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from action_lsp.dialects import NAMES

from .conftest import Session

pytestmark = pytest.mark.skipif("claude-code" not in NAMES, reason="needs the claude-code dialect")

SESSION = Path(__file__).resolve().parents[1] / "fixtures" / "dialects" / "claude-code" / "session.jsonl"


async def _hover(session: Session, uri: str, line: int, character: int) -> str:
    hover = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hover_on_a_failed_call_says_what_it_was_and_why_it_is_not_applied(session: Session) -> None:
    text = SESSION.read_text(encoding="utf-8")
    uri = session.open("session.jsonl", text)
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if '"id":"toolu_03Edit"' in t)
    value = await _hover(session, uri, line, lines[line].index('"name":"Edit"') + 9)
    assert "src/greet.py" in value, value
    assert "Edit" in value
    assert "failed in the session" in value
    assert "String to replace not found in file" in value  # the tool result
    assert "not applied" in value
    assert "`other`" not in value and "other action" not in value
