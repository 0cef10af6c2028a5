"""Keystroke latency of the language server on a large transcript (a script, not a test).

    .venv/bin/python bench/bench_server.py [--transcript PATH] [--edits 50]   (default: a generated 4 MB transcript)

A client (pytest-lsp's, over stdio, VS Code capabilities: pushed diagnostics, utf-16) starts
``action-lsp serve``, opens the transcript, then types single characters at spread-out places;
for each ``didChange`` it times the ``publishDiagnostics`` of that version. The same runs on the
first 40 KB of the transcript (cut at a line). Also reported: process start to the
``initialize`` answer, and the server's resident memory with the transcript open.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from action_lsp.server.documents import DEFER_CHARS
from action_lsp.text import LineIndex


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(text: str, edits: int, label: str) -> dict[str, float]:
    client = make_test_lsp_client()
    versions: dict[str, int | None] = {}
    arrived: dict[tuple[str, int | None], float] = {}

    full: dict[tuple[str, int | None], float] = {}

    def publish(params: types.PublishDiagnosticsParams) -> None:
        key = (params.uri, params.version)
        now = time.perf_counter()
        if key in arrived:
            full[key] = now  # a large transcript: the second publish has everything
        else:
            arrived[key] = now
        versions[params.uri] = params.version

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    t0 = time.perf_counter()
    await client.start_io(sys.executable, "-m", "action_lsp", "serve")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=Path.cwd().as_uri(),
        )
    )
    t_init = time.perf_counter() - t0
    uri = "untitled:bench.md"

    async def wait_for(version: int, since: float) -> float:
        while (uri, version) not in arrived:
            await asyncio.sleep(0.0005)
        return arrived[(uri, version)] - since

    t = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)
        )
    )
    t_open = await wait_for(1, t)
    if len(text) > DEFER_CHARS:
        while (uri, 1) not in full:
            await asyncio.sleep(0.0005)
        t_full = full[(uri, 1)] - t
    else:
        t_full = t_open
    index = LineIndex(text)
    rng = random.Random(7)
    lines = index.line_count()
    times = []
    for k in range(edits):
        line = rng.randrange(lines)
        col = rng.randrange(len(index.line_text(line)) + 1)
        col = len(index.line_text(line)[:col].encode("utf-16-le")) // 2
        version = k + 2
        t = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=line, character=col),
                            end=types.Position(line=line, character=col),
                        ),
                        text="x",
                    )
                ],
            )
        )
        times.append(await wait_for(version, t))
        # the line index of the client side is not updated: one char per line at most shifts
        # columns a little, which is fine for choosing places to type.
    assert client._server is not None
    rss = rss_mb(client._server.pid)
    await client.shutdown_session()
    await client.stop()
    times.sort()
    out = {
        "chars": len(text),
        "init_s": t_init,
        "open_s": t_open,
        "open_full_s": t_full,
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1000,
        "rss_mb": rss,
    }
    print(
        f"{label:>8}: {out['chars']:>9,} chars  start→initialize {t_init * 1000:6.0f} ms  "
        f"open→first diagnostics {t_open * 1000:6.0f} ms (all {t_full * 1000:6.0f} ms)  keystroke→diagnostics median "
        f"{out['median_ms']:6.2f} ms  p95 {out['p95_ms']:6.2f} ms  RSS {rss:6.1f} MB"
    )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--transcript", type=Path, help="a transcript (default: a generated 4 MB one)")
    p.add_argument("--edits", type=int, default=50)
    args = p.parse_args()
    if args.transcript is not None:
        text = args.transcript.read_text(encoding="utf-8")
    else:
        sys.path.insert(0, str(Path(__file__).parent))
        from bench_parse import generate

        text = generate(4_000_000)[0]
    cut = text.rfind("\n", 0, 40_000) + 1
    small = asyncio.run(run(text[:cut], args.edits, "40 KB"))
    big = asyncio.run(run(text, args.edits, "4 MB" if len(text) > 3_000_000 else "full"))
    ratio = big["median_ms"] / small["median_ms"]
    print(f"median ratio full/40 KB: {ratio:.2f}x (target: within 3x)")
    return 0 if ratio <= 3 else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
