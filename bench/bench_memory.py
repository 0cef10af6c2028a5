"""The language server's memory over open/close cycles, and a very large document (a script).

    .venv/bin/python bench/bench_memory.py [--cycles 1000] [--small PATH] [--big PATH] [--huge-mb 50] [--session-mb 100]

1. ``--cycles`` didOpen/didClose cycles of a 45 KB action-dense transcript (``--small``, else
   generated), then of a 1 MB one (``--big``; a tenth of the cycles): the server's resident
   memory (``VmRSS``) after the first cycle (the baseline) and after the last.
2. A ``--huge-mb`` MB action-dense markdown transcript, then a ``--session-mb`` MB Claude Code
   session JSONL (``bench_sessions.generate``), each opened: time to its first and to all
   diagnostics; hover, completion and codeLens requests on another small document sent one
   after another meanwhile (their latency, median and worst) and what VS Code asks of the large
   document itself on open -- documentSymbol, foldingRange and codeLens (answered when its
   analysis is complete); the server's RSS sampled
   every 50 ms (peak, and the peak over the document's size) and after close.

Inputs are generated (``bench_parse.generate``) unless paths are given.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

sys.path.insert(0, str(Path(__file__).parent))
from bench_parse import generate

TIMELINE = False
_RAW = {types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.TEXT_DOCUMENT_FOLDING_RANGE, types.TEXT_DOCUMENT_CODE_LENS}


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
    # The answers of the large document (outline, folding, lenses: 10-35 MB of JSON each) are
    # kept as JSON: turned into lsprotocol objects, they kept this client's own event loop busy
    # for seconds (cattrs, 100,000 symbols), and every request timed meanwhile waited for it.
    # An editor parses such an answer in a fraction of a second.
    typed = client.protocol.get_result_type
    client.protocol.get_result_type = lambda method: None if method in _RAW else typed(method)  # type: ignore[method-assign]
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


async def _latency(client: object, request: str, uri: str, line: int) -> float:
    """Seconds one ``request`` (hover, completion, codeLens) on ``uri`` took to answer."""
    doc = types.TextDocumentIdentifier(uri=uri)
    pos = types.Position(line=line, character=1)
    t = time.perf_counter()
    if request == "hover":
        await client.text_document_hover_async(types.HoverParams(text_document=doc, position=pos))  # type: ignore[attr-defined]
    elif request == "completion":
        await client.text_document_completion_async(types.CompletionParams(text_document=doc, position=pos))  # type: ignore[attr-defined]
    elif request == "documentSymbol":
        await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=doc))  # type: ignore[attr-defined]
    elif request == "foldingRange":
        await client.text_document_folding_range_async(types.FoldingRangeParams(text_document=doc))  # type: ignore[attr-defined]
    else:
        await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))  # type: ignore[attr-defined]
    return time.perf_counter() - t


SMALL = "# hi\n\n<create_file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</create_file>\n"


async def huge(text: str, label: str, language_id: str = "markdown", uri: str = "untitled:huge.md") -> dict[str, float]:
    """Open ``text``; meanwhile ask hover, completion and codeLens on a small document (and
    once on the large one), sample the server's RSS, then close it."""
    client = await start()
    pid = client._server.pid  # type: ignore[attr-defined]
    small_uri = "untitled:small.md"
    open_doc(client, small_uri, SMALL)
    await wait_published(client, small_uri, 1)
    before = status_mb(pid, "VmRSS")
    samples: list[float] = []
    times: list[float] = []
    done_flag = False

    async def sample() -> None:
        while not done_flag:
            samples.append(status_mb(pid, "VmRSS"))
            times.append(time.perf_counter())
            await asyncio.sleep(0.05)

    sampler = asyncio.ensure_future(sample())
    t0 = time.perf_counter()
    client.text_document_did_open(  # type: ignore[attr-defined]
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=text)
        )
    )
    # What VS Code asks of the large document itself right after opening it (answered once its
    # analysis is complete): the outline, folding ranges and code lenses.
    big_symbols = asyncio.ensure_future(_latency(client, "documentSymbol", uri, 0))
    big_folding = asyncio.ensure_future(_latency(client, "foldingRange", uri, 0))
    big_lens = asyncio.ensure_future(_latency(client, "codeLens", uri, 0))
    log = client.publish_log  # type: ignore[attr-defined]
    waits: list[float] = []
    k = 0
    while sum(1 for _, u, _ in log if u == uri) < 2 and not big_lens.done():
        request = ("hover", "completion", "codeLens")[k % 3]
        waits.append(await _latency(client, request, small_uri, 3))
        k += 1
        await asyncio.sleep(0.1)
    first = await wait_published(client, uri, 1) - t0
    while sum(1 for _, u, _ in log if u == uri) < 2:
        await asyncio.sleep(0.01)
    done = [t for t, u, _ in log if u == uri][-1] - t0
    # Then while the large document's outline, folding ranges and lenses are made and sent.
    after_scan: list[float] = []
    while not (big_lens.done() and big_symbols.done() and big_folding.done()):
        request = ("hover", "completion", "codeLens")[k % 3]
        after_scan.append(await _latency(client, request, small_uri, 3))
        k += 1
        await asyncio.sleep(0.1)
    lens_s = await big_lens
    symbols_s, folding_s = await big_symbols, await big_folding
    t_lens = time.perf_counter()
    await asyncio.sleep(2)
    rest = status_mb(pid, "VmRSS")  # open, answered, nothing asked
    peak = max([*samples, status_mb(pid, "VmHWM")])
    close_doc(client, uri)
    # After close: the lowest RSS within 30 s (a workspace check still planning the closed
    # document in a worker thread holds its analysis until it ends).
    after = status_mb(pid, "VmRSS")
    for _ in range(60):
        await asyncio.sleep(0.5)
        after = min(after, status_mb(pid, "VmRSS"))
    done_flag = True
    await sampler
    if TIMELINE:
        # The highest RSS in each phase: where the peak comes from.
        marks = [("open to first diagnostics", t0 + first), ("to all diagnostics", t0 + done),
                 ("to its outline, folding and codeLens", t_lens), ("until close, then after", float("inf"))]
        lo = t0
        for name, hi in marks:
            seen = [r for r, t in zip(samples, times, strict=False) if lo <= t < hi]
            print(f"  {name}: max RSS {max(seen) if seen else float('nan'):.0f} MB over {len(seen)} samples")
            lo = hi
    await client.shutdown_session()  # type: ignore[attr-defined]
    await client.stop()  # type: ignore[attr-defined]
    mb = len(text.encode("utf-8")) / 1e6
    waits.sort()
    worst = waits[-1] if waits else float("nan")
    median = waits[len(waits) // 2] if waits else float("nan")
    after_scan.sort()
    later = (
        f"; after the scan, {len(after_scan)} more in {after_scan[len(after_scan) // 2] * 1e3:.0f} ms median, "
        f"{after_scan[-1] * 1e3:.0f} ms worst" if after_scan else ""
    )
    print(
        f"{label}: {mb:.0f} MB document: first diagnostics after {first:.1f}s, all after {done:.1f}s, outline, folding and codeLens "
        f"on it after {symbols_s:.1f} / {folding_s:.1f} / {lens_s:.1f}s; meanwhile {len(waits)} hover/completion/codeLens requests on another document "
        f"answered in {median * 1e3:.0f} ms median, {worst * 1e3:.0f} ms worst{later}; RSS before {before:.0f} MB, peak "
        f"{peak:.0f} MB ({(peak - before) / mb:.1f}x the document, {peak / mb:.1f}x in all), open at rest {rest:.0f} MB, after close {after:.0f} MB",
        flush=True,
    )
    return {"first_s": first, "all_s": done, "other_ms": worst * 1e3, "after_scan_ms": after_scan[-1] * 1e3 if after_scan else 0.0, "peak_mb": peak, "rest_mb": rest, "after_mb": after}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cycles", type=int, default=1000)
    p.add_argument("--small", type=Path)
    p.add_argument("--big", type=Path)
    p.add_argument("--huge-mb", type=float, default=50, help="an action-dense markdown transcript (0: none)")
    p.add_argument("--session-mb", type=float, default=100, help="a Claude Code session JSONL (0: none)")
    p.add_argument("--timeline", action="store_true", help="the highest RSS in each phase of a large open")
    args = p.parse_args()
    global TIMELINE
    TIMELINE = args.timeline
    small = args.small.read_text(encoding="utf-8") if args.small else generate(45_000, 1)[0]
    big = args.big.read_text(encoding="utf-8") if args.big else generate(1_000_000, 2)[0]
    if args.cycles:
        asyncio.run(cycles(small, args.cycles, "45 KB"))
        asyncio.run(cycles(big, max(1, args.cycles // 10), "1 MB"))
    if args.huge_mb:
        asyncio.run(huge(generate(int(args.huge_mb * 1e6), 3)[0], "markdown"))
    if args.session_mb:
        from bench_sessions import generate as generate_session

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "session.jsonl"
            generate_session(path, int(args.session_mb * 1e6))
            text = path.read_text(encoding="utf-8")
        asyncio.run(huge(text, "session JSONL", "jsonl", "untitled:session.jsonl"))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
