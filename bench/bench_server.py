"""Keystroke latency of the language server on a large transcript (a script, not a test).

    .venv/bin/python bench/bench_server.py [--transcript PATH] [--session PATH] [--edits 50]

A client (pytest-lsp's, over stdio, VS Code capabilities: pushed diagnostics, utf-16) starts
``action-lsp serve``, opens the transcript, then types single characters at spread-out places;
for each ``didChange`` it times the ``publishDiagnostics`` of that version. The same runs on the
first 40 KB of the transcript (cut at a line). Also reported: process start to the
``initialize`` answer, the server's CPU time per keystroke (user + system, from
``/proc/PID/stat``: less sensitive to a loaded machine than the latencies), and its resident
memory with the transcript open.

Two documents are measured: a markdown transcript (``--transcript``, default a generated 4 MB
action-dense one) and a Claude Code session JSONL (``--session``, default a generated 4 MB one,
see ``bench_sessions.py``), each at 40 KB and in full, with a table of both at the end.
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


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(
    text: str, edits: int, label: str, name: str = "bench.md", settle: float = 0.0, root: Path | None = None
) -> dict[str, float]:
    """``settle``: seconds to wait after the open (the debounced workspace checks run and
    their findings are then converted with every keystroke's publish); ``root``: the
    workspace folder (default: the current directory)."""
    client = make_test_lsp_client()
    versions: dict[str, int | None] = {}
    counts: dict[tuple[str, int | None], int] = {}
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
        counts[key] = len(params.diagnostics)

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    t0 = time.perf_counter()
    await client.start_io(sys.executable, "-m", "action_lsp", "serve")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=(root or Path.cwd()).resolve().as_uri(),
        )
    )
    t_init = time.perf_counter() - t0
    uri = f"untitled:{name}"

    async def wait_for(version: int, since: float) -> float:
        while (uri, version) not in arrived:
            await asyncio.sleep(0.0005)
        return arrived[(uri, version)] - since

    t = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="jsonl" if name.endswith(".jsonl") else "markdown", version=1, text=text
            )
        )
    )
    t_open = await wait_for(1, t)
    if len(text) > DEFER_CHARS:
        while (uri, 1) not in full:
            await asyncio.sleep(0.0005)
        t_full = full[(uri, 1)] - t
    else:
        t_full = t_open
    if settle:
        await asyncio.sleep(settle)
    index = LineIndex(text)
    rng = random.Random(7)
    lines = index.line_count()
    times = []
    assert client._server is not None
    cpu0 = cpu_s(client._server.pid)
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
    cpu = (cpu_s(client._server.pid) - cpu0) / max(1, edits)
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
        "cpu_ms": cpu * 1000,
        "diagnostics": counts.get((uri, edits + 1), 0),
        "rss_mb": rss,
    }
    print(
        f"{label:>8}: {out['chars']:>9,} chars  start→initialize {t_init * 1000:6.0f} ms  "
        f"open→first diagnostics {t_open * 1000:6.0f} ms (all {t_full * 1000:6.0f} ms)  keystroke→diagnostics median "
        f"{out['median_ms']:6.2f} ms  p95 {out['p95_ms']:6.2f} ms  server CPU {out['cpu_ms']:5.2f} ms  "
        f"RSS {rss:6.1f} MB  diagnostics {out['diagnostics']}"
    )
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--transcript", type=Path, help="a markdown transcript (default: a generated 4 MB one)")
    p.add_argument("--session", type=Path, help="a session JSONL (default: a generated 4 MB Claude Code one)")
    p.add_argument("--only", choices=("markdown", "session"), help="measure one kind of document only")
    p.add_argument("--edits", type=int, default=50)
    p.add_argument("--settle", type=float, default=0.0, help="seconds to wait after opening (workspace checks)")
    p.add_argument("--root", type=Path, help="the workspace folder (default: the current directory)")
    args = p.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    docs: list[tuple[str, str, str]] = []  # (kind, file name, text)
    if args.only != "session":
        if args.transcript is not None:
            text = args.transcript.read_text(encoding="utf-8")
        else:
            from bench_parse import generate

            text = generate(4_000_000)[0]
        docs.append(("markdown", "bench.md", text))
    if args.only != "markdown":
        if args.session is not None:
            text = args.session.read_text(encoding="utf-8")
        else:
            import tempfile

            from bench_sessions import generate as generate_session

            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp, "session.jsonl")
                generate_session(path, 4_000_000)
                text = path.read_text(encoding="utf-8")
        docs.append(("session", "bench.jsonl", text))
    rows = []
    worst = 0.0
    for kind, name, text in docs:
        cut = text.rfind("\n", 0, 40_000) + 1
        small = asyncio.run(run(text[:cut], args.edits, f"{kind} 40 KB", name, args.settle, args.root))
        big = asyncio.run(run(text, args.edits, f"{kind} {len(text) / 1e6:.0f} MB", name, args.settle, args.root))
        ratio = big["median_ms"] / small["median_ms"]
        worst = max(worst, ratio)
        rows.append((kind, small, big, ratio))
    print("\n| document | 40 KB median / p95 / server CPU | full median / p95 / server CPU | median full/40 KB |")
    print("|---|--:|--:|--:|")
    for kind, small, big, ratio in rows:
        print(
            f"| {kind} ({big['chars'] / 1e6:.1f} M chars) "
            f"| {small['median_ms']:.2f} / {small['p95_ms']:.2f} / {small['cpu_ms']:.2f} ms "
            f"| {big['median_ms']:.2f} / {big['p95_ms']:.2f} / {big['cpu_ms']:.2f} ms | {ratio:.2f}x |"
        )
    print(f"worst median ratio full/40 KB: {worst:.2f}x (target: within 3x)")
    return 0 if worst <= 3 else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
