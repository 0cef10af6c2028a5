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


def _big_with_files() -> str:
    """A large transcript with file actions at its top and bottom (lenses and symbols)."""
    create = "<create_file>\n<path>src/{}.py</path>\n<content>\nx = 1\n</content>\n</create_file>\n\n"
    prose = "Some prose about the change, long enough to be a paragraph of its own.\n\n" * 2
    block = '```actions\n{"actions": [{"type": "create_task", "content": "a"}, {"type": "create_memory", "content": "b"}]}\n```\n\n'
    middle = (prose + block) * 4_000  # 1 MB, 8,000 actions: thirty slices of about 10 ms (idle) of scanning
    return "# user\n\n" + create.format("top") + middle + "# assistant\n\n" + create.format("bottom")


async def test_requests_on_a_document_being_opened_wait_without_blocking_others(session: Session) -> None:
    """Lenses, symbols and hovers of a large transcript need its whole analysis: they wait for
    the scan, which goes on in slices, while another document's requests are answered at once.
    Their answers are those of the finished document."""
    text = _big_with_files()
    small = session.open("small.md", "<create_file>\n<path>/etc/x</path>\n<content>x\n</content>\n</create_file>\n")
    await session.diagnostics(small)
    uri = session.open("big.md", text)
    doc = types.TextDocumentIdentifier(uri=uri)
    bottom = text.count("\n", 0, text.index("src/bottom.py"))
    lens = asyncio.ensure_future(session.client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)))
    symbols = asyncio.ensure_future(
        session.client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))
    )
    hover = asyncio.ensure_future(
        session.client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=types.Position(line=bottom, character=8))
        )
    )
    await asyncio.sleep(0.01)  # (sent before the next one)
    other = await session.client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=small))
    )
    assert other
    # Answered between two slices of the large document's scan, which its requests wait for.
    assert not (lens.done() or symbols.done() or hover.done())
    during = await lens, await symbols, await hover
    after = (
        await session.client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)),
        await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc)),
        await session.client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=types.Position(line=bottom, character=8))
        ),
    )
    assert during == after
    assert {lens.range.start.line for lens in during[0]} == {2, bottom - 1}
    assert during[2] is not None and "bottom.py" in str(during[2].contents)


async def test_typing_while_a_large_document_is_being_opened(session: Session) -> None:
    """Edits that arrive while the scan runs (at the top, in the part not scanned yet) do not
    wait for it; the diagnostics at the end are those of the edited text."""
    text = _big()
    uri = session.open("big.md", text)
    bottom = text.count("\n", 0, text.index("launch_rocket"))
    session.change(uri, (1, 0), (1, 0), '```actions\n{"actions": [{"type": "fly"}]}\n```\n')  # 3 lines
    end = text.count("\n") + 3
    session.change(uri, (end, 0), (end, 0), "<create_file>\n<path>../up.py</path>\n")
    for _ in range(400):
        diags = await session.diagnostics(uri)
        if any(d.code == "path-traversal" for d in diags):
            break
        await asyncio.sleep(0.05)
    by_code = {(d.code, d.range.start.line) for d in diags}
    assert ("unknown-action", 2) in by_code  # the new block at the top
    assert ("unknown-action", 6) in by_code  # the old first block, three lines down
    assert ("unknown-action", bottom + 3) in by_code
    assert ("path-traversal", end + 1) in by_code, by_code
    # The same as the edited text opened afresh.
    lines = text.split("\n")
    lines[1:1] = ["```actions", '{"actions": [{"type": "fly"}]}', "```"]
    edited = "\n".join(lines) + "<create_file>\n<path>../up.py</path>\n"
    again = await session.diagnostics(session.open("again.md", edited))
    for _ in range(400):
        if any(d.code == "path-traversal" for d in again):
            break
        await asyncio.sleep(0.05)
        again = await session.diagnostics(session.uri("again.md"))
    assert sorted((d.code, d.range.start.line, d.message) for d in diags) == sorted(
        (d.code, d.range.start.line, d.message) for d in again
    )


async def test_outline_of_a_large_transcript_does_not_wait_for_its_workspace_checks(session: Session) -> None:
    """A long history with few actions: its outline (asked with its lenses, which wait for the
    workspace checks, as Neovim's plugin asks at the open) is answered once the scan ends, not
    after the checks, whose findings are published later."""
    modify = "<modify_file>\n<path>src/app.py</path>\n<search>no such line</search>\n<replace>x</replace>\n</modify_file>\n\n"
    text = _big() + modify
    events: list[str] = []
    features = session.client.protocol.fm.features
    inner = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        if params.uri.endswith("big.md") and any(d.code == "search-not-found" for d in params.diagnostics):
            events.append("workspace findings")
        inner(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    uri = session.open("big.md", text)
    doc = types.TextDocumentIdentifier(uri=uri)
    lens = asyncio.ensure_future(session.client.text_document_code_lens_async(types.CodeLensParams(text_document=doc)))
    await asyncio.sleep(0.01)  # (sent before the outline)
    symbols = await session.client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))
    events.append("outline")
    assert symbols
    await lens
    for _ in range(400):
        if "workspace findings" in events:
            break
        await asyncio.sleep(0.05)
    assert events == ["outline", "workspace findings"]
