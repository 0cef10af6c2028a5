"""``action-lsp serve`` over stdio: messages read on the event loop from a pipe, and as pygls
reads them from anything else (a file, a socket shared with stdout)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from action_lsp.server.stdio import _own_pipe

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pipes and fstat as on POSIX")

SESSION = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "untitled:t.md", "languageId": "markdown", "version": 1,
        "text": '```actions\n{"actions": [{"type": "create_tsk"}]}\n```\n'}}},
    {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]


def _framed(messages: list[dict[str, Any]]) -> bytes:
    out = b""
    for m in messages:
        data = json.dumps(m).encode()
        out += b"Content-Length: %d\r\n\r\n" % len(data) + data
    return out


def _messages(data: bytes) -> list[dict[str, Any]]:
    out = []
    while data:
        head, _, rest = data.partition(b"\r\n\r\n")
        length = next(int(v) for k, _, v in (h.partition(b":") for h in head.split(b"\r\n")) if k == b"Content-Length")
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def _answers(stdout: bytes) -> tuple[dict[str, object], list[str]]:
    """The responses by id, and the codes of the published diagnostics."""
    by_id, codes = {}, []
    for m in _messages(stdout):
        if "id" in m and "method" not in m:
            by_id[str(m["id"])] = m
        elif m.get("method") == "textDocument/publishDiagnostics":
            codes += [d["code"] for d in m["params"]["diagnostics"]]  # type: ignore[index]
    return by_id, codes


def _serve(stdin: IO[bytes] | int, tmp_path: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", "serve"], stdin=stdin, capture_output=True, cwd=tmp_path, timeout=60
    )


def test_a_pipe_is_read_on_the_loop(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    stdout, _ = proc.communicate(_framed(SESSION), timeout=60)
    by_id, codes = _answers(stdout)
    assert by_id["1"]["result"]["serverInfo"]["name"] == "action-lsp"  # type: ignore[index]
    assert "error" not in by_id["2"]
    assert codes == ["unknown-action"]
    assert proc.returncode == 0


def test_a_file_on_stdin_is_read_as_pygls_reads_it(tmp_path: Path) -> None:
    messages = tmp_path / "in.bin"
    messages.write_bytes(_framed(SESSION))
    with messages.open("rb") as stdin:
        proc = _serve(stdin, tmp_path)
    by_id, codes = _answers(proc.stdout)
    assert set(by_id) == {"1", "2"} and codes == ["unknown-action"]


def test_only_a_pipe_of_its_own_is_read_on_the_loop(tmp_path: Path) -> None:
    r, w = os.pipe()
    a, b = socket.socketpair()
    regular = (tmp_path / "f").open("wb+")
    try:
        with open(r, "rb", closefd=False) as pipe_in, open(w, "wb", closefd=False) as pipe_out:
            assert _own_pipe(pipe_in, regular)
            assert not _own_pipe(pipe_in, pipe_in)  # the same pipe: stdout would turn non-blocking too
            assert not _own_pipe(regular, pipe_out)
        sock = a.makefile("rwb")
        assert not _own_pipe(sock, sock)  # a socket for both directions
        with b.makefile("rb") as sock_in:
            assert _own_pipe(sock_in, regular)  # Neovim and VS Code (libuv) give their servers a socket for stdin alone
        sock.close()
    finally:
        os.close(r), os.close(w), a.close(), b.close(), regular.close()


def test_a_socket_of_its_own_is_read_on_the_loop(tmp_path: Path) -> None:
    """Neovim starts its servers with a socket for stdin (libuv's stdio), another for stdout:
    read on the loop too, so that a request is read between two slices of a long scan."""
    ours, theirs = socket.socketpair()
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve", "--log-level", "INFO"],
        stdin=theirs.fileno(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    theirs.close()
    ours.sendall(_framed(SESSION))
    ours.shutdown(socket.SHUT_WR)
    stdout, stderr = proc.communicate(timeout=60)
    ours.close()
    by_id, codes = _answers(stdout)
    assert set(by_id) == {"1", "2"} and codes == ["unknown-action"]
    assert proc.returncode == 0
    assert b"reading stdin on the event loop" in stderr


def test_a_client_gone_mid_message_ends_the_server_quietly(tmp_path: Path) -> None:
    """The pipe closes in the middle of a body (the editor was killed): exit 0, no traceback."""
    cut = _framed(SESSION[:1]) + b'Content-Length: 100\r\n\r\n{"jsonrpc"'
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
    )
    stdout, stderr = proc.communicate(cut, timeout=60)
    by_id, _ = _answers(stdout)
    assert set(by_id) == {"1"}
    assert b"Traceback" not in stderr
    assert proc.returncode == 0
