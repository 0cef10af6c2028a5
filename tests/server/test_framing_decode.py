"""A long message (a large document's ``didOpen``) is decoded by msgspec, then structured by
pygls from the top (``framing.decode``): the server must read the same message, or fail with
the same error, as through ``json.loads`` with pygls's hook for every object."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types

from action_lsp.server import framing
from action_lsp.server.server import create_server

TEXT = "# user 😀 é 日本\n\n<create_file>\n<path>src/é.py</path>\n<content>\nx = '𝕏'\r\n</content>\n</create_file>\n" * 2_000


def _did_open(text: str, **extra: Any) -> dict[str, Any]:
    item = {"uri": "file:///tmp/t.md", "languageId": "markdown", "version": 1, "text": text, **extra}
    return {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}}


def _request(arguments: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand",
            "params": {"command": "action-lsp.apply", "arguments": arguments}}


def _read(body: bytes, reader: Any) -> tuple[str, Any]:
    try:
        return "ok", reader(body)
    except Exception as exc:
        return "error", type(exc)


BODIES = {
    "utf-8 text": json.dumps(_did_open(TEXT), ensure_ascii=False).encode(),
    "escaped text": json.dumps(_did_open(TEXT)).encode(),
    "lone surrogate": json.dumps(_did_open(TEXT + "\ud800 x")).encode(),  # (msgspec refuses it)
    "nested jsonrpc": json.dumps(_request([{"jsonrpc": "2.0", "id": 1}, TEXT])).encode(),
    "NaN": json.dumps(_request([float("nan"), TEXT])).encode(),
    "huge number": json.dumps(_request([TEXT])).encode().replace(b'"arguments": [', b'"arguments": [' + b"9" * 5000 + b", "),
    "not UTF-8": json.dumps(_did_open(TEXT)).encode().replace(b"# user", b"# \xff", 1),
    "not an object": json.dumps([_did_open(TEXT)]).encode(),
    "broken": json.dumps(_did_open(TEXT)).encode()[:-2],
}


@pytest.mark.parametrize("name", list(BODIES))
def test_a_long_message_reads_as_the_standard_decoder_reads_it(name: str) -> None:
    body = BODIES[name]
    assert len(body) >= framing.LARGE_BODY
    protocol = create_server().protocol
    ours = _read(body, lambda b: framing.decode(b, protocol))
    standard = _read(body, lambda b: json.loads(b, object_hook=protocol.structure_message))
    assert ours == standard
    if name == "utf-8 text":
        assert ours[0] == "ok" and isinstance(ours[1].params, types.DidOpenTextDocumentParams)
        assert ours[1].params.text_document.text == TEXT
        assert framing._msgspec_decode is not None  # (read by msgspec)
