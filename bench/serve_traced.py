"""``action-lsp serve`` with a trace of one large open (a bench tool, not a test).

    TRACE_OUT=trace.txt [PROFILE_OUT=open.prof] python bench/serve_traced.py

Serves stdio as ``action-lsp serve`` does, and from the arrival of the first message over 1 MB
(a large document's ``didOpen``) to the first list answer written after it (the outline) logs,
with the wall and the process's CPU time of each: the body read, each message handled and
written, the end of the scan, each run of the rules of the last slices, and the collector's
collections; ``PROFILE_OUT`` also writes a cProfile of that window. ``bench_open.py --trace``
starts the server this way (``--trace-start``: ``TRACE_START=1``, the trace begins when the
server is made, before the ``initialize``; the faults are the process's minor page faults, each
a few microseconds of CPU on this machine). It wraps the server's methods from outside (a measuring tool): the
server itself is the one installed, or the one ``PYTHONPATH`` names.
"""

from __future__ import annotations

import cProfile
import gc
import os
import resource
import time
from typing import Any

from action_lsp import codecache, collector

collector.pause()  # (as ``action-lsp serve`` starts: see cli/serve.py)
codecache.install()

from action_lsp import document  # noqa: E402
from action_lsp.server import create_server, stdio  # noqa: E402
from action_lsp.server import server as server_module  # noqa: E402

LARGE = 1_000_000  # bytes: a message this long starts the trace

events: list[tuple[str, float, float, int]] = []
profile = cProfile.Profile() if os.environ.get("PROFILE_OUT") else None
collected = [0.0, 0]  # seconds in collections, collections
_started: list[float] = []
_done = [False]
_large = [False]  # the large message has arrived


def event(name: str) -> None:
    events.append((name, time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_SELF).ru_minflt))


def _write() -> None:
    _done[0] = True
    if profile is not None:
        profile.disable()
        profile.dump_stats(os.environ["PROFILE_OUT"])
    event(f"collector: {collected[0] * 1000:.1f} ms in {collected[1]} collections")
    out = os.environ.get("TRACE_OUT")
    if out and events:
        t0, c0, f0 = events[0][1], events[0][2], events[0][3]
        with open(out, "w", encoding="utf-8") as f:
            for name, t, c, faults in events:
                f.write(f"{(t - t0) * 1000:8.1f} ms wall {(c - c0) * 1000:8.1f} ms CPU {faults - f0:6} faults  {name}\n")


def _collections(phase: str, info: dict[str, Any]) -> None:
    if phase == "start":
        _started[:] = [time.perf_counter()]
    elif _started and events and not _done[0]:
        collected[0] += time.perf_counter() - _started[0]
        collected[1] += 1


def main() -> None:
    read = stdio._PipeReader.readexactly

    async def readexactly(self: Any, n: int) -> bytes:
        if n < LARGE or _large[0]:
            return await read(self, n)
        _large[0] = True
        event(f"reading a message of {n:,} bytes")
        data = await read(self, n)
        event("read")
        if profile is not None:
            profile.enable()
        return data

    send = server_module.ActionProtocol._send_data

    def send_data(self: Any, data: Any) -> None:
        listed = isinstance(getattr(data, "result", None), list)
        name = getattr(data, "method", None) or ("a list answer" if listed else "an answer")
        send(self, data)
        if events and not _done[0]:
            event(f"written: {name}")
            if listed:
                _write()

    handle = server_module.ActionProtocol.handle_message

    def handle_message(self: Any, message: Any) -> None:
        if events and not _done[0]:
            event(f"handling: {getattr(message, 'method', None) or 'a response'}")
        handle(self, message)

    check_some = document.IncrementalDocument.check_some

    def checked(self: Any, units: int) -> bool:
        if _large[0] and not _done[0] and self.scanned:
            event("rules of scanned units")
        return check_some(self, units)

    scan_some = document.IncrementalDocument.scan_some

    def scanned(self: Any, chars: int, *, rules: bool = True) -> bool:
        was = self.scanned
        done = scan_some(self, chars, rules=rules)
        if _large[0] and not _done[0] and done and not was:
            event("the text is scanned")
        return done

    stdio._PipeReader.readexactly = readexactly  # type: ignore[method-assign]
    server_module.ActionProtocol._send_data = send_data  # type: ignore[method-assign]
    server_module.ActionProtocol.handle_message = handle_message  # type: ignore[method-assign]
    document.IncrementalDocument.check_some = checked  # type: ignore[method-assign]
    document.IncrementalDocument.scan_some = scanned  # type: ignore[method-assign]
    gc.callbacks.append(_collections)
    server = create_server()
    if os.environ.get("TRACE_START"):  # (the start too: the trace's times count from here)
        event("server created")
    stdio.serve_stdio(server)



if __name__ == "__main__":
    main()
