"""The language server's memory over open/close cycles, and a very large document (a script).

    .venv/bin/python bench/bench_memory.py [--cycles 1000] [--small PATH] [--big PATH] [--huge-mb 50]

1. ``--cycles`` didOpen/didClose cycles of a 45 KB action-dense transcript (``--small``, else
   generated), then of a 1 MB one (``--big``; a tenth of the cycles): the server's resident
   memory (``VmRSS``) after the first cycle (the baseline) and after the last.
2. A ``--huge-mb`` MB transcript opened: time to its first diagnostics, a hover on another
   small document answered meanwhile (its latency), peak RSS while open and RSS after close.

Inputs are generated (``bench_parse.generate``) unless paths are given.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

sys.path.insert(0, str(Path(__file__).parent))
from bench_parse import generate


def status_mb(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def start() -> object:
    client = make_test_lsp_client()
    published: dict[tuple[str, int | None], float] = {}
    log: list[tuple[float, str, int]] = []
    client.publish_log = log  # type: ignore[attr-defined]

    def publish(params: types.PublishDiagnosticsParams) -> None:
        # the first publish of a version (a large document's second one adds the rest)
        published.setdefault((params.uri, params.version), time.perf_counter())
        log.append((time.perf_counter(), params.uri, len(params.diagnostics)))

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    client.published = published  # type: ignore[attr-defined]
    await client.start_io(sys.executable, "-m", "action_lsp", "serve")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"), root_uri=Path.cwd().as_uri()
        )
    )
    return client


async def wait_published(client: object, uri: str, version: int, timeout: float = 600) -> float:
    t0 = time.perf_counter()
    published = client.published  # type: ignore[attr-defined]
    while (uri, version) not in published:
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError(uri)
        await asyncio.sleep(0.001)
    return published[(uri, version)]


def open_doc(client: object, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(  # type: ignore[attr-defined]
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=version, text=text)
        )
    )


def close_doc(client: object, uri: str) -> None:
    client.text_document_did_close(  # type: ignore[attr-defined]
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def cycles(text: str, n: int, label: str) -> dict[str, float]:
    client = await start()
    pid = client._server.pid  # type: ignore[attr-defined]
    uri = "untitled:cycle.md"
    baseline = 0.0
    t0 = time.perf_counter()
    for k in range(n):
        open_doc(client, uri, text, k + 1)
        await wait_published(client, uri, k + 1)
        close_doc(client, uri)
        if k == 0:
            await asyncio.sleep(0.2)
            baseline = status_mb(pid, "VmRSS")
    await asyncio.sleep(0.5)
    end = status_mb(pid, "VmRSS")
    elapsed = time.perf_counter() - t0
    await client.shutdown_session()  # type: ignore[attr-defined]
    await client.stop()  # type: ignore[attr-defined]
    growth = (end - baseline) / baseline * 100
    print(
        f"{label}: {n} open/close cycles of {len(text) / 1e3:,.0f} KB in {elapsed:.0f}s: RSS after the "
        f"first {baseline:.1f} MB, after the last {end:.1f} MB ({growth:+.1f}%)",
        flush=True,
    )
    return {"baseline_mb": baseline, "end_mb": end, "growth_pct": growth}


async def huge(text: str) -> dict[str, float]:
    client = await start()
    pid = client._server.pid  # type: ignore[attr-defined]
    small_uri, uri = "untitled:small.md", "untitled:huge.md"
    open_doc(client, small_uri, "# hi\n\n<create_file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</create_file>\n")
    await wait_published(client, small_uri, 1)
    before = status_mb(pid, "VmRSS")
    t0 = time.perf_counter()
    open_doc(client, uri, text)
    await asyncio.sleep(0.05)
    t1 = time.perf_counter()
    await client.text_document_document_symbol_async(  # type: ignore[attr-defined]
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=small_uri))
    )
    other = time.perf_counter() - t1
    first = await wait_published(client, uri, 1) - t0
    log = client.publish_log  # type: ignore[attr-defined]
    while sum(1 for _, u, _ in log if u == uri) < 2:
        await asyncio.sleep(0.01)
    done = [t for t, u, _ in log if u == uri][-1] - t0
    peak = status_mb(pid, "VmHWM")
    close_doc(client, uri)
    await asyncio.sleep(1.0)
    after = status_mb(pid, "VmRSS")
    await client.shutdown_session()  # type: ignore[attr-defined]
    await client.stop()  # type: ignore[attr-defined]
    mb = len(text.encode("utf-8")) / 1e6
    print(
        f"huge: {mb:.0f} MB document: first diagnostics after {first:.1f}s, all after {done:.1f}s; a request on another "
        f"document answered in {other * 1e3:.0f} ms meanwhile; RSS before {before:.0f} MB, peak "
        f"{peak:.0f} MB ({(peak - before) / mb:.1f}x the document), after close {after:.0f} MB",
        flush=True,
    )
    return {"first_s": first, "other_ms": other * 1e3, "peak_mb": peak, "after_mb": after}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cycles", type=int, default=1000)
    p.add_argument("--small", type=Path)
    p.add_argument("--big", type=Path)
    p.add_argument("--huge-mb", type=float, default=50)
    args = p.parse_args()
    small = args.small.read_text(encoding="utf-8") if args.small else generate(45_000, 1)[0]
    big = args.big.read_text(encoding="utf-8") if args.big else generate(1_000_000, 2)[0]
    if args.cycles:
        asyncio.run(cycles(small, args.cycles, "45 KB"))
        asyncio.run(cycles(big, max(1, args.cycles // 10), "1 MB"))
    if args.huge_mb:
        asyncio.run(huge(generate(int(args.huge_mb * 1e6), 3)[0]))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
