"""Document symbols and folding ranges, end to end."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session


async def test_symbols_group_actions_under_blocks(session: Session) -> None:
    uri = session.open("tasks.md")
    symbols = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert symbols is not None
    groups = [s for s in symbols if isinstance(s, types.DocumentSymbol) and s.children]
    assert [len(g.children or []) for g in groups] == [3, 1]
    names = [c.name for c in groups[0].children or []]
    assert names == ["create_task", "create_tsk", "update_task"]
    for g in groups:
        for c in g.children or []:
            assert g.range.start.line <= c.range.start.line <= c.range.end.line <= g.range.end.line
            assert c.range.start.line <= c.selection_range.start.line


async def test_folding_blocks_and_actions(session: Session) -> None:
    uri = session.open("tasks.md")
    ranges = await session.client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert ranges
    spans = {(r.start_line, r.end_line) for r in ranges}
    assert any(start <= 5 and end >= 9 for start, end in spans)  # the first block
    assert all(r.end_line > r.start_line for r in ranges)


async def test_outline_of_a_large_document_edited_while_it_is_scanned(session: Session) -> None:
    """The outline asked while a large transcript is still being scanned, and edited meanwhile,
    is that of one text (the one before the edit, or the edited one; never a mix), and the
    outline asked after the edit is that of the edited text opened afresh."""
    import asyncio

    from pygls.exceptions import JsonRpcException

    from .test_server_large import _big_with_files

    text = _big_with_files()
    uri = session.open("big.md", text)

    def ask(u: str) -> asyncio.Future[list[types.DocumentSymbol]]:
        return asyncio.ensure_future(session.client.text_document_document_symbol_async(  # type: ignore[arg-type]
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=u))))

    during = ask(uri)
    await asyncio.sleep(0.01)
    added = "<create_file>\n<path>src/added.py</path>\n<content>\ny = 2\n</content>\n</create_file>\n\n"
    session.change(uri, (2, 0), (2, 0), added)
    after = await ask(uri)
    edited = text.split("\n")
    edited[2:2] = added.split("\n")[:-1]
    fresh = await ask(session.open("fresh.md", "\n".join(edited)))
    old = await ask(session.open("old.md", text))

    def names(symbols: list[types.DocumentSymbol]) -> list[tuple[str, int, list[str]]]:
        return [(s.name, s.range.start.line, [c.name for c in s.children or []]) for s in symbols]

    assert names(after) == names(fresh)
    assert after == fresh
    assert any("src/added.py" in c.name for s in after for c in s.children or [])
    try:
        first = await during
    except JsonRpcException:
        return  # (ContentModified: the client asks again)
    assert first in (old, fresh)
