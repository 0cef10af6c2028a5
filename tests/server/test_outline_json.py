"""The outline is written as JSON directly (server/symbols.py), not through lsprotocol objects:
what a client reads back is a valid list of ``DocumentSymbol`` that pygls would have written the
same way, with every range in the negotiated encoding."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from action_lsp.server.server import create_server

TEXT = (
    "# user \U0001f600 émoji\n\n"
    "<create_file>\n<path>src/é.py</path>\n<content>\nx = '\U0001f600'\n</content>\n</create_file>\n\n"
    '```actions\n{"actions": [{"type": "create_task", "content": "\U0001f600"}, {"type": "nope"}]}\n```\n'
)


def _outline(encoding: Any) -> list[dict[str, Any]]:
    ls = create_server()
    ls.encoding = encoding
    uri = "file:///tmp/outline-json.md"
    ls.open_document(types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=TEXT))
    handler = ls.protocol.fm.features[types.TEXT_DOCUMENT_DOCUMENT_SYMBOL]
    steps = handler(types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    try:
        while True:
            next(steps)  # (a turn of the event loop: nothing else runs here)
    except StopIteration as done:
        answer = done.value
    [written] = answer  # (the items, written as JSON: wire.Encoded)
    result: list[dict[str, Any]] = json.loads(b"[" + bytes(written.data) + b"]")
    return result


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_outline_reads_back_as_document_symbols(encoding: str) -> None:
    outline = _outline(encoding)
    converter = default_converter()
    symbols = converter.structure(outline, list[types.DocumentSymbol])
    assert converter.unstructure(symbols) == outline  # the JSON pygls writes for them
    children = [c for s in symbols for c in s.children or []]
    assert [c.name for c in children][:1] == ["create_file src/é.py"]
    for child in children:
        line = TEXT.split("\n")[child.range.start.line]
        width = {"utf-8": len(line.encode()), "utf-16": len(line.encode("utf-16-le")) // 2, "utf-32": len(line)}
        assert 0 <= child.range.start.character <= width[encoding]
    content = next(c for c in children if c.name.startswith("create_task"))
    line = TEXT.split("\n")[content.range.end.line]
    # The block's action ends after the emoji on its line: its column counts it in the encoding.
    assert content.range.end.character == {"utf-8": len(line[: line.index("}") + 1].encode()),
                                           "utf-16": len(line[: line.index("}") + 1].encode("utf-16-le")) // 2,
                                           "utf-32": line.index("}") + 1}[encoding]


LONE = "<create_file>\n<path>src/\ud800-é.py</path>\n<content>\nx\n</content>\n</create_file>\n\n"


def test_outline_of_many_symbols_with_a_lone_surrogate_reads_back() -> None:
    """The symbols are written by msgspec (``wire.values_encoder``); a title holding a lone
    surrogate (a client may send one, escaped) cannot be UTF-8, and its batch is written by the
    standard encoder, escaped, as before: every symbol is there, the surrogate read back."""
    global TEXT
    saved = TEXT
    TEXT = "".join(f"<create_file>\n<path>src/f{i}-é.py</path>\n<content>\nx\n</content>\n</create_file>\n\n" for i in range(150))
    TEXT += LONE + TEXT
    try:
        outline = _outline("utf-16")
    finally:
        TEXT = saved
    names = [c["name"] for s in outline for c in s.get("children", [s])]
    assert len(names) == 301
    assert names[150] == "create_file src/\ud800-é.py"
    assert names[0] == "create_file src/f0-é.py" and names[-1] == "create_file src/f149-é.py"


def test_each_group_of_a_long_outline_holds_its_actions() -> None:
    """A long outline (message groups of several actions, blocks of one): every action lies
    inside its group's range, whose selection starts where the range does."""
    global TEXT
    saved = TEXT
    message = "# user é\n\nDo it.\n\n<create_file>\n<path>a{0}.py</path>\n<content>\nx\n</content>\n</create_file>\n" \
        "<create_file>\n<path>b{0}.py</path>\n<content>\ny\n</content>\n</create_file>\n\n"
    block = '```actions\n{{"actions": [{{"type": "create_file", "path": "c{0}.py", "content": "é"}}]}}\n```\n\n'
    TEXT = "".join((message if i % 3 else block).format(i) for i in range(600))
    try:
        outline = _outline("utf-16")
    finally:
        TEXT = saved
    assert len(outline) == 600

    def at(p: dict[str, int]) -> tuple[int, int]:
        return p["line"], p["character"]

    for group in outline:
        children = group["children"]
        first, last = at(group["range"]["start"]), at(group["range"]["end"])
        assert all(first <= at(c["range"]["start"]) and at(c["range"]["end"]) <= last for c in children)
        assert at(group["selectionRange"]["start"]) == first
    assert sum(len(g["children"]) for g in outline) == 400 * 2 + 200
