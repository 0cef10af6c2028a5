"""Everything issue 12 asks to measure, in one run (a script, not a test).

    .venv/bin/python bench/bench_all.py [--quick] [--dense PATH] [--prose PATH] [--files N]

1. Throughput: ``analyze`` on action-dense and prose transcripts of 4 and 40 MB (``--quick``:
   4 MB only), in MB/s of CPU and wall time, beside the naive scan of all four dialects (one
   lazy regex per construct + ``json.loads``) in the same process, and their ratio.
2. The adversarial shapes of ``bench/adversarial.py`` at two sizes, with their time ratio.
3. The language server: open-to-first-diagnostics and keystroke-to-diagnostics latency on a
   40 KB and a 4 MB action-dense transcript.
4. ``action-lsp check DIR`` on ``--files`` generated transcripts (default 1,000): wall time with
   ``--jobs 1`` and with every CPU.

Inputs are generated (``bench_parse.generate`` / ``generate_prose``) unless paths are given;
nothing is read from anywhere else.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import bench_server
import bench_stress
from bench_parse import generate, generate_prose, naive_all

from action_lsp.batch import default_jobs
from action_lsp.document import analyze
from action_lsp.syntax import forget


def best(fn, runs: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(best CPU, best wall) seconds of ``runs`` calls."""
    cpu = wall = float("inf")
    for _ in range(runs):
        gc.collect()
        forget()  # every run cold: no parse or code check remembered from the run before
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall


def throughput(texts: list[tuple[str, str]]) -> None:
    print("## Throughput (analyze = scan + every rule; naive = regex + json.loads, all four dialects)\n")
    print("| input | MB | analyze CPU s | MB/s (CPU) | MB/s (wall) | naive CPU s | naive MB/s | analyze / naive |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|")
    for name, text in texts:
        mb = len(text.encode("utf-8")) / 1e6
        runs = 3 if mb <= 5 else 1
        cpu, wall = best(lambda t=text: analyze(t), runs)
        ncpu, _ = best(lambda t=text: naive_all(t), 3)
        print(
            f"| {name} | {mb:.1f} | {cpu:.2f} | {mb / cpu:.1f} | {mb / wall:.1f} | {ncpu:.3f} "
            f"| {mb / ncpu:.0f} | {cpu / ncpu:.1f}x |",
            flush=True,
        )
    print()


def server(dense4: str) -> None:
    print("## Language server (VS Code capabilities, pushed diagnostics)\n", flush=True)
    cut = dense4.rfind("\n", 0, 40_000) + 1
    asyncio.run(bench_server.run(dense4[:cut], 30, "40 KB"))
    asyncio.run(bench_server.run(dense4, 30, "4 MB"))
    print()


def check_dir(n: int) -> None:
    print(f"## check DIR: {n} generated transcripts\n", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        total = 0
        for i in range(n):
            text = generate(4_000 + (i * 7919) % 16_000, seed=i)[0]
            total += len(text)
            Path(tmp, f"t{i:05}.md").write_text(text, encoding="utf-8")
        jobs = default_jobs()
        outs = []
        for j in (1, jobs):
            t0 = time.perf_counter()
            r = subprocess.run(
                [sys.executable, "-m", "action_lsp", "check", "--jobs", str(j), "--format", "json", tmp],
                capture_output=True,
                text=True,
                check=False,
            )
            elapsed = time.perf_counter() - t0
            outs.append(r.stdout)
            print(f"- `--jobs {j}`: {elapsed:.1f} s wall ({total / 1e6:.1f} MB, exit {r.returncode})", flush=True)
        print(f"- same output with 1 and {jobs} jobs: {outs[0] == outs[-1]}\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 MB inputs only, smaller stress sizes")
    ap.add_argument("--dense", type=Path, help="an action-dense transcript (default: generated)")
    ap.add_argument("--prose", type=Path, help="a prose transcript (default: generated)")
    ap.add_argument("--files", type=int, default=1000, help="transcripts for check DIR (0: skip)")
    ap.add_argument("--no-server", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}\n")
    dense4 = args.dense.read_text(encoding="utf-8") if args.dense else generate(4_000_000)[0]
    prose4 = args.prose.read_text(encoding="utf-8") if args.prose else generate_prose(4_000_000)
    texts = [("dense 4 MB", dense4), ("prose 4 MB", prose4)]
    if not args.quick:
        texts += [("dense 40 MB", generate(40_000_000)[0]), ("prose 40 MB", generate_prose(40_000_000))]
    throughput(texts)
    del texts
    print("## Adversarial shapes (CPU s, best of 2)\n", flush=True)
    small = 20_000 if args.quick else 100_000
    bench_stress.run(small, 10, [], 120.0)
    print()
    if not args.no_server:
        server(dense4)
    if args.files:
        check_dir(args.files)
    print(f"total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
