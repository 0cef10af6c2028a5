"""Hover on a chat answer's code block: which convention named its file, and what applying it
would do (a new file is created; a lazy snippet of an existing file is never written whole)."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session


async def _hover(session: Session, uri: str, line: int, character: int) -> str:
    hover = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


async def test_hover_names_the_convention_and_the_effect(session: Session) -> None:
    (session.root / "src").mkdir(exist_ok=True)
    (session.root / "src" / "old.js").write_text("function a() {}\n\nfunction b() {}\n")
    text = (
        "_**Assistant**_\n\n"
        "```ts:src/fresh.ts\nexport const x = 1;\n```\n\n"
        "**src/old.js**\n```js\n// ... existing code ...\nfunction b() { return 2; }\n```\n"
    )
    uri = session.open("chat.md", text)
    fresh = await _hover(session, uri, 2, 5)
    assert "**fence-info** `src/fresh.ts` · chat-answer" in fresh, fresh
    assert "info string names the file" in fresh
    assert "create" in fresh.lower(), fresh
    lazy = await _hover(session, uri, 8, 1)
    assert "**path-line** `src/old.js`" in lazy, lazy
    assert "line before the block" in lazy
    assert "merged into the file by syntax" in lazy
    # the effect: the merge, shown as a diff that keeps `a`
    assert "(lazy snippet merged)" in lazy and "+function b() { return 2; }" in lazy, lazy
    assert "-function a" not in lazy, lazy
