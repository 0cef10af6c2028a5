"""The message loop: pygls's ``run_async``, with an answer to every request it cannot read.

pygls decodes each message with ``json.loads`` and, when that raises, logs the traceback and
goes on: a request whose params are nested deeper than the decoder goes (``RecursionError``),
hold an integer over Python's 4,300-digit limit (``ValueError``) or are not JSON at all was
never answered, and the client waited for it forever. Here such a request gets an error
response with its id (``-32602`` invalid params; ``-32700`` for text that is not JSON), read
from the top level of the message without decoding the rest (:func:`read_id`); a notification,
or a message whose id cannot be read, is logged in one line. The server goes on serving.

Used for stdio (:mod:`.stdio`) and TCP (:func:`serve_tcp`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable
from threading import Event
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcParseError

if TYPE_CHECKING:
    from pygls.protocol import JsonRPCProtocol

    from .server import ActionLanguageServer

log = logging.getLogger("action_lsp.server")

_CONTENT_LENGTH = re.compile(rb"^Content-Length: (\d+)\r\n$")
# A JSON string (escapes included) or one of the characters that shape the structure.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\]:,]', re.DOTALL)
_SCALAR_START = re.compile(r'\s*(["\-0-9])')


async def run_messages(
    stop_event: Event, reader: Any, protocol: JsonRPCProtocol,
    error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
) -> None:
    """Read framed messages from ``reader`` (``readline`` / ``readexactly``) and hand them to
    ``protocol`` until the input ends or ``stop_event`` is set."""
    content_length = 0
    while not stop_event.is_set():
        header = await reader.readline()
        if not header:
            break
        if not content_length:
            match = _CONTENT_LENGTH.fullmatch(header)
            if match:
                content_length = int(match.group(1))
        if content_length and not header.strip():
            tracked = isinstance(getattr(protocol, "body_pending", None), int)  # (an ActionProtocol: see server.warm_up)
            if tracked:
                protocol.body_pending = content_length  # type: ignore[attr-defined]
            body = await reader.readexactly(content_length)
            if tracked:
                protocol.body_pending = 0  # type: ignore[attr-defined]
            content_length = 0
            if not body:
                break
            try:
                message = decode(body, protocol)
            except Exception as exc:  # (JsonRpcException from structure_message included)
                answer_unreadable(protocol, body, exc)
                continue
            try:
                protocol.handle_message(message)
            except Exception as exc:
                log.exception("Unable to handle message")
                if error_handler is not None:
                    error_handler(exc, JsonRpcException)


LARGE_BODY = 1 << 16  # a message this long is decoded by msgspec first (see decode)


def decode(body: bytes, protocol: JsonRPCProtocol) -> Any:
    """A message as pygls reads it: ``json.loads`` with pygls's ``structure_message`` for each
    object. A long one (a large document's ``didOpen``) is decoded by msgspec first, in C,
    then structured from the top: 8 ms instead of 21 for 4 MB of UTF-8 text. The standard
    decoder decides whatever msgspec refuses (lone surrogates, NaN, numbers out of range,
    invalid UTF-8: the same value or the same error as before), and a message with an inner
    ``"jsonrpc"`` key, which pygls's hook would structure as a message of its own."""
    if len(body) >= LARGE_BODY and body.count(b'"jsonrpc"') == 1:
        try:
            value = (_msgspec_decode or _msgspec_decoder())(body)
        except Exception:  # refused: the standard decoder decides
            pass
        else:
            if type(value) is dict:
                return protocol.structure_message(value)
    return json.loads(body, object_hook=protocol.structure_message)


def _msgspec_decoder() -> Callable[[bytes], Any]:
    """msgspec's decoder, made for the first long message (not imported at the start)."""
    global _msgspec_decode
    import msgspec

    _msgspec_decode = msgspec.json.Decoder().decode
    return _msgspec_decode


_msgspec_decode: Callable[[bytes], Any] | None = None


def answer_unreadable(protocol: JsonRPCProtocol, body: bytes, exc: Exception) -> None:
    """Answer a request that could not be decoded with an error carrying its id; log the rest."""
    msg_id, method = read_id(body)
    if isinstance(exc, RecursionError):
        why = "nested too deeply"
    elif isinstance(exc, json.JSONDecodeError):
        why = f"not valid JSON ({exc.msg} at character {exc.pos})"
    elif isinstance(exc, ValueError) and "digits" in str(exc):
        why = "a number is too long (over 4,300 digits)"
    else:
        why = f"{type(exc).__name__}: {str(exc)[:200]}"
    what = method[:100] if method is not None else "a message"
    log.warning("action-lsp: cannot read %s (id %r): %s", what, msg_id, why)
    if msg_id is None or method is None or isinstance(exc, JsonRpcException):
        return  # a notification or a response (nobody waits), or already answered
    error: JsonRpcException
    if isinstance(exc, json.JSONDecodeError):
        error = JsonRpcParseError(message=f"action-lsp: cannot read {what}: {why}")
    else:
        error = JsonRpcInvalidParams(message=f"action-lsp: cannot read the params of {what}: {why}")
    protocol._send_response(msg_id, None, error.to_response_error())


def read_id(body: bytes) -> tuple[int | str | None, str | None]:
    """The ``id`` (an integer or a string) and the ``method`` of a JSON-RPC message, read from
    its top-level object only, without decoding anything else: None for each that is absent
    or cannot be read."""
    text = body.decode("utf-8", errors="replace")
    depth = 0
    previous = ""
    key: str | None = None
    found: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    first = _TOKEN.search(text)
    if first is None or first.group() != "{":
        return None, None  # not an object
    for token in _TOKEN.finditer(text, first.start()):
        t = token.group()
        if t in "{[":
            depth += 1
        elif t in "}]":
            depth -= 1
            if depth <= 0:
                break
        elif t == ":" and depth == 1 and key in ("id", "method") and key not in found:
            start = _SCALAR_START.match(text, token.end())
            if start is not None:
                try:
                    found[key], _ = decoder.raw_decode(text, start.start(1))
                except ValueError:  # (a number over the digit limit)
                    found[key] = None
        elif t.startswith('"') and depth == 1 and previous in ("{", ","):
            try:
                key = json.loads(t)
            except ValueError:
                key = None
        previous = t
        if len(found) == 2:
            break
    msg_id = found.get("id")
    method = found.get("method")
    if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
        msg_id = None
    return msg_id, method if isinstance(method, str) else None


def serve_tcp(server: ActionLanguageServer, host: str, port: int) -> None:
    """What pygls's ``start_tcp`` does, with :func:`run_messages` reading each connection."""
    server._stop_event = stop = Event()

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server.protocol.set_writer(writer)
        await run_messages(stop, reader, server.protocol, server.report_server_error)
        server.shutdown()  # (closes the listening socket: one client, as with pygls)

    async def main() -> None:
        tcp = await asyncio.start_server(connection, host, port)
        server._server = tcp  # (pygls's shutdown() closes it)
        log.info("serving on %s", ", ".join(str(s.getsockname()) for s in tcp.sockets))
        async with tcp:
            await tcp.serve_forever()

    with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
        asyncio.run(main())
