"""``action-lsp serve --tcp HOST:PORT``: the same server over a loopback socket (for debugging)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from typing import Any

import pytest


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def _receive(sock: socket.socket, buffer: bytearray) -> dict[str, Any]:
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        buffer += chunk
    head, _, rest = bytes(buffer).partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        rest += chunk
    buffer[:] = rest[length:]
    return json.loads(rest[:length])


def _response(sock: socket.socket, buffer: bytearray, request_id: int) -> dict[str, Any]:
    """The response to ``request_id``, skipping notifications and requests from the server."""
    for _ in range(200):
        message = _receive(sock, buffer)
        if message.get("id") == request_id and "method" not in message:
            return message
    raise AssertionError(f"no response to request {request_id}")


def test_serve_over_tcp_answers_initialize_and_shuts_down() -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError(f"server did not listen: {proc.stderr.read() if proc.stderr else ''}") from None
                time.sleep(0.1)
        with sock:
            buffer = bytearray()
            _send(sock, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None, "capabilities": {}}})
            result = _response(sock, buffer, 1)["result"]
            assert result["serverInfo"]["name"] == "action-lsp"
            assert result["capabilities"]["codeLensProvider"] is not None
            assert "action-lsp.apply" in result["capabilities"]["executeCommandProvider"]["commands"]
            _send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
            _send(sock, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
            assert _response(sock, buffer, 2)["result"] is None
            _send(sock, {"jsonrpc": "2.0", "method": "exit", "params": None})
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("value", ["8080", "localhost:http", "127.0.0.1:"])
def test_a_malformed_tcp_address_is_a_usage_error(value: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "action_lsp", "serve", "--tcp", value],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--tcp expects HOST:PORT" in done.stderr
    assert "Traceback" not in done.stderr
