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
