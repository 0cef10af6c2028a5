"""A large transcript opens in steps: the top is published at once, the rest after a scan that
lets other requests through; pulled diagnostics wait for the whole scan."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .conftest import Session


def _big() -> str:
    top = '# user\n\n```actions\n{"actions": [{"type": "creat_task", "content": "x"}]}\n```\n\n'
    prose = "Some prose about the change, long enough to be a paragraph of its own.\n\n" * 10_000
    bottom = '```actions\n{"actions": [{"type": "launch_rocket"}]}\n```\n'
    return top + prose + bottom


async def test_large_transcript_publishes_the_top_first(session: Session) -> None:
    seen: list[list[types.Diagnostic]] = []
    features = session.client.protocol.fm.features
    inner = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        if params.uri.endswith("big.md"):
            seen.append(list(params.diagnostics))
        inner(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    text = _big()
    uri = session.open("big.md", text)
    # Meanwhile, another document is served.
    small = session.open("small.md", "<create_file>\n<path>/etc/x</path>\n<content>x\n</content>\n</create_file>\n")
    symbols = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=small))
    )
    assert symbols
    bottom_line = text.count("\n", 0, text.index("launch_rocket"))
    if session.pull:
        diags = await session.diagnostics(uri)
        assert {d.range.start.line for d in diags if d.code == "unknown-action"} == {3, bottom_line}
        return
    for _ in range(500):
        if any(any(d.range.start.line == bottom_line for d in ds) for ds in seen):
            break
        await asyncio.sleep(0.05)
    first, last = seen[0], seen[-1]
    assert [d.range.start.line for d in first if d.code == "unknown-action"] == [3]
    assert {d.range.start.line for d in last if d.code == "unknown-action"} == {3, bottom_line}
