"""Every request gets a response, also one whose JSON cannot be decoded into its params (issue
21): params nested deeper than the decoder goes, an integer over Python's 4,300-digit limit.
The response is an error with the request's id when the id can be read; the server goes on
serving, over stdio and over TCP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .test_stdio import _framed, _messages

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pipes as on POSIX")

URI = "untitled:t.md"
TEXT = '```actions\n{"actions": [{"type": "create_tsk"}]}\n```\n'


def _deep(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


def _raw(obj: dict[str, object], params: str) -> bytes:
    """A message whose params are given as JSON text (json.dumps cannot write them)."""
    text = json.dumps(obj)[:-1] + ', "params": ' + params + "}"
    return b"Content-Length: %d\r\n\r\n" % len(text.encode()) + text.encode()


def _symbols(msg_id: object) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/documentSymbol",
            "params": {"textDocument": {"uri": URI}}}


def _hostile_session() -> bytes:
    hover = {"jsonrpc": "2.0", "id": 0, "method": "textDocument/hover"}
    position = '{"textDocument": {"uri": "%s"}, "position": {"line": %s, "character": 0}}'
    return (
        _framed([
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": URI, "languageId": "markdown", "version": 1, "text": TEXT}}},
        ])
        + _raw({**hover, "id": 2}, _deep(1_000))
        + _raw({**hover, "id": 3}, position % (URI, "9" * 5000))
        + _raw({**hover, "id": "four"}, _deep(100_000))
        + _raw({"jsonrpc": "2.0", "method": "textDocument/didChange"}, _deep(100_000))  # nobody waits
        + _raw({"jsonrpc": "2.0", "method": "textDocument/hover", "id": 5}, '{"x": }')  # not even JSON
        + _framed([_symbols(6), {"jsonrpc": "2.0", "id": 7, "method": "shutdown"},
                   {"jsonrpc": "2.0", "method": "exit"}])
    )


def _check_answers(messages: list[dict[str, object]]) -> None:
    by_id = {str(m["id"]): m for m in messages if "id" in m and "method" not in m}
    for msg_id in ("2", "3", "four"):
        error = by_id[msg_id].get("error")
        assert isinstance(error, dict) and error["code"] == -32602, by_id[msg_id]
        assert "textDocument/hover" in error["message"]
    assert by_id["5"]["error"]["code"] == -32700  # type: ignore[index]
    assert "result" in by_id["6"], by_id["6"]
    assert [s["name"] for s in by_id["6"]["result"]]  # type: ignore[index]  # still serving
    assert "error" not in by_id["7"]


def test_every_request_is_answered_over_stdio(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    stdout, stderr = proc.communicate(_hostile_session(), timeout=120)
    _check_answers(_messages(stdout))
    assert b"Traceback" not in stderr, stderr.decode()[-3000:]
    assert proc.returncode == 0


def test_every_request_is_answered_over_tcp(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    try:
        for _ in range(300):
            try:
                conn = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("the server did not listen")
        with conn:
            conn.sendall(_hostile_session())
            conn.settimeout(60)
            data = b""
            while b'"id": 7' not in data and b'"id":7' not in data:
                chunk = conn.recv(1 << 16)
                if not chunk:
                    break
                data += chunk
        _check_answers(_messages(data))
    finally:
        proc.kill()
        proc.wait(timeout=30)


@pytest.mark.parametrize(("body", "found"), [
    (b'{"jsonrpc": "2.0", "id": 12, "method": "m", "params": [[[', (12, "m")),
    (b'{"params": {"id": 1, "method": "x"}, "method": "m", "id": "a\\"b"}', ('a"b', "m")),
    (b'{"method": "m", "params": {"text": "\\"id\\": 3"}}', (None, "m")),
    (b'{"id": ' + b"9" * 5000 + b', "method": "m"}', (None, "m")),
    (b"[1, 2]", (None, None)),
    (b'{"id": 1.5, "method": 7}', (None, None)),
])
def test_read_id_reads_only_the_top_level(body: bytes, found: tuple[object, object]) -> None:
    from action_lsp.server.framing import read_id

    assert read_id(body) == found
