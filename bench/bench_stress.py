"""Adversarial inputs: ``analyze`` time on every shape of ``bench/adversarial.py`` at two sizes.

    .venv/bin/python bench/bench_stress.py [--small 100k] [--factor 10] [--only NAME ...]

Each shape is generated at about ``--small`` characters and ``--factor`` times that; the report
gives both CPU times (best of 2) and their ratio. Linear work gives a ratio near the factor; the
issue's bound is 1.5 times the factor (``10x the input <= 15x the time``), and a ratio above it
is flagged. A run over ``--timeout`` seconds is cut and reported as a lower bound.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from adversarial import SHAPES

from action_lsp.document import analyze


class _TimedOut(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _TimedOut


def cpu_time(text: str, runs: int, timeout: float) -> float:
    """Best CPU time of ``runs`` analyses (``inf`` when one ran over ``timeout`` wall seconds)."""
    best = float("inf")
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for _ in range(runs):
            gc.collect()
            signal.setitimer(signal.ITIMER_REAL, timeout)
            c0 = time.process_time()
            try:
                analyze(text)
            except _TimedOut:
                return float("inf")
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            best = min(best, time.process_time() - c0)
    finally:
        signal.signal(signal.SIGALRM, old)
    return best


def sized(name: str, chars: int) -> str:
    """The shape generated at about ``chars`` characters."""
    shape = SHAPES[name]
    per = max(1.0, len(shape(1000)) / 1000)
    return shape(max(1, round(chars / per)))


def run(small: int, factor: int, only: list[str], timeout: float, out: Any = sys.stdout) -> list[dict[str, Any]]:
    rows = []
    limit = 1.5 * factor
    print(f"| shape | chars | CPU s | {factor}x chars | CPU s | ratio |", file=out)
    print("|---|--:|--:|--:|--:|--:|", file=out)
    for name in SHAPES:
        if only and name not in only:
            continue
        a_text, b_text = sized(name, small), sized(name, small * factor)
        a = cpu_time(a_text, 2, timeout)
        b = cpu_time(b_text, 2, timeout)
        ratio = b / max(a, 1e-4)
        flag = " **superlinear**" if ratio > limit else ""
        shown = f"> {timeout:.0f}" if b == float("inf") else f"{b:.3f}"
        print(
            f"| {name} | {len(a_text):,} | {a:.3f} | {len(b_text):,} | {shown} | {ratio:.1f}{flag} |",
            file=out,
            flush=True,
        )
        rows.append({"shape": name, "small": len(a_text), "small_s": a, "big": len(b_text), "big_s": b, "ratio": ratio})
    worst = max(rows, key=lambda r: r["ratio"]) if rows else None
    if worst is not None:
        print(
            f"\nworst ratio: {worst['ratio']:.1f} ({worst['shape']}); linear is {factor}, the bound {limit:.0f}",
            file=out,
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", default="100k", help="size of the small input (k = 10^3, m = 10^6)")
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args(argv)
    s = args.small.lower()
    small = int(float(s.rstrip("km")) * (10**3 if s.endswith("k") else 10**6 if s.endswith("m") else 1))
    rows = run(small, args.factor, args.only, args.timeout)
    return 1 if any(r["ratio"] > 1.5 * args.factor for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
