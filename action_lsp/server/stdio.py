"""Serving over stdin/stdout, with the client's messages read on the event loop.

pygls reads stdin in a worker thread, one call per header line and one for the body, each a
round trip through its executor. While the server scans a large document in slices
(``Diagnostics.open_in_steps``), every round trip waits for the scan to hand the GIL over (the
interpreter's 5 ms switch interval) and for the loop's next turn: a request on another
document took 100-200 ms just to be read (median, on an idle machine), and a few requests
queued behind each other were read only when the scan had ended. Reading the pipe on the event
loop itself takes whatever has arrived at each turn, between two slices.

Only a pipe or a socket of its own is read that way (Neovim and VS Code start their servers
with a socket for stdin and another for stdout: libuv's stdio), and only on POSIX: the loop makes the
descriptor non-blocking, which must not also change how stdout is written (a terminal, or one
socket for both directions). Anything else is read as pygls reads it.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from threading import Event
from typing import TYPE_CHECKING, Any, BinaryIO

from pygls.io_ import StdinAsyncReader, StdoutWriter

from ..early_init import Early, Replay, own_pipe
from .framing import run_messages

if TYPE_CHECKING:
    from .server import ActionLanguageServer

log = logging.getLogger("action_lsp.server")

BUFFER_LIMIT = 1 << 22  # bytes read ahead before the pipe is paused (a large didOpen arrives in few turns)


_own_pipe = own_pipe  # (also asked before the server is imported: early_init.py)


class _PipeReader:
    """pygls's reader interface over an ``asyncio.StreamReader``: at the end of the input,
    also in the middle of a message (the client is gone), both reads answer ``b""``, which ends
    pygls's loop as the end of stdin does."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        try:
            return await self.stream.readline()
        except asyncio.IncompleteReadError:
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


async def _loop_reader(stdin: BinaryIO) -> _PipeReader | None:
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=BUFFER_LIMIT, loop=loop)
    try:
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin)
    except (OSError, ValueError, NotImplementedError) as exc:
        log.info("reading stdin in a thread (%s)", exc)
        return None
    log.info("reading stdin on the event loop")
    return _PipeReader(stream)


def serve_stdio(
    server: ActionLanguageServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None,
    early: Early | None = None,
) -> None:
    """What pygls's ``start_io`` does, with stdin read on the event loop when it is a pipe
    (and every request answered: :mod:`.framing`). ``early``: what ``early_init.answer`` read
    from stdin before the server was built (read again first) and the answer it gave."""
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    server._stop_event = stop = Event()  # (pygls's shutdown() sets it)
    server.protocol.set_writer(StdoutWriter(stdout))
    if early is not None and early.msg_id is not None:  # (its answer is kept, or was given: see server.py)
        server.protocol.early = early  # type: ignore[attr-defined]  # (an ActionProtocol)

    async def main() -> None:
        reader: Any = await _loop_reader(stdin) if _own_pipe(stdin, stdout) else None
        if reader is None:
            reader = StdinAsyncReader(stdin, server.thread_pool)
        if early is not None and early.consumed:
            reader = Replay(early.consumed, reader)
        await run_messages(stop, reader, server.protocol, server.report_server_error)

    try:
        asyncio.run(main())
    except BrokenPipeError:
        log.error("the connection to the client is lost; shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()
