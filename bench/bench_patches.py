"""Benchmark: parse + rules (``analyze``) on transcripts of unified diffs and Codex patches.

With paths as arguments, each file is measured; without, a transcript of the size asked
(``--size``, default 4 MB, and a tenth of it for the linearity ratio) is generated in memory,
deterministically: prose paragraphs, ```` ```diff ```` fences of ``git diff`` output (several
files, several hunks, new and deleted files, renames, ``\\ No newline at end of file``), bare
``diff --git`` sections in prose, Codex ``*** Begin Patch`` envelopes in prose and in fences, a
few miscounted hunk headers, and ```` ```diff ```` illustrations that are no action.

Prints per input: size, best-of-N wall and CPU time (the machine may be shared), MB/s (10**6 bytes of UTF-8), actions, diagnostics, peak
traced memory (one extra untimed run; ``--no-tracemalloc`` skips it), and, beside it, the time
``unidiff.PatchSet`` alone takes to parse the same diffs (the fence bodies joined), for scale.

``--stress`` measures the worst cases instead: a run of unterminated Codex patches (each read
only to the first line that cannot belong to it) and of unclosed ```` ```diff ```` fences.

Run: ``.venv/bin/python bench/bench_patches.py [PATH ...] [--size 4m] [--runs 3] [--stress] [--json]``
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import random
import re
import sys
import time
import tracemalloc
from pathlib import Path

from action_lsp.document import analyze

SEED = 20251123
WORDS = ("the", "patch", "file", "change", "fix", "test", "value", "return", "caché", "naïve",
         "we", "update", "function", "line", "module", "ok")


def _code_line(rng: random.Random) -> str:
    """A line that is valid Python and TypeScript at the top level (an assignment)."""
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 7)))
    return f"{rng.choice(WORDS[:8])}_{rng.randint(0, 999)} = '{words}'"


def _hunk(rng: random.Random, start: int, miscount: bool) -> tuple[str, int]:
    ctx_before = [_code_line(rng) for _ in range(3)]
    removed = [_code_line(rng) for _ in range(rng.randint(0, 3))]
    added = [_code_line(rng) for _ in range(rng.randint(1, 4))]
    ctx_after = [_code_line(rng) for _ in range(3)]
    old = len(ctx_before) + len(removed) + len(ctx_after)
    new = len(ctx_before) + len(added) + len(ctx_after)
    said_old = old + (1 if miscount else 0)
    body = [f"@@ -{start},{said_old} +{start},{new} @@ def f{start}():"]
    body += [" " + x for x in ctx_before] + ["-" + x for x in removed]
    body += ["+" + x for x in added] + [" " + x for x in ctx_after]
    return "\n".join(body) + "\n", new - old


def _file_diff(rng: random.Random, k: int) -> str:
    path = f"src/pkg{k % 37}/mod_{k}.py"
    kind = rng.random()
    if kind < 0.08:
        lines = [_code_line(rng) for _ in range(rng.randint(1, 12))]
        return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
                f"@@ -0,0 +1,{len(lines)} @@\n" + "".join("+" + x + "\n" for x in lines))
    if kind < 0.12:
        return (f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
                "@@ -1 +0,0 @@\n-gone\n")
    head = f"diff --git a/{path} b/{path}\nindex 1234567..89abcde 100644\n--- a/{path}\n+++ b/{path}\n"
    if kind < 0.15:
        head = (f"diff --git a/{path} b/{path}.new\nsimilarity index 90%\nrename from {path}\n"
                f"rename to {path}.new\n--- a/{path}\n+++ b/{path}.new\n")
    out = [head]
    line = rng.randint(1, 40)
    for _ in range(rng.randint(1, 4)):
        hunk, _ = _hunk(rng, line, rng.random() < 0.03)
        out.append(hunk)
        line += rng.randint(20, 80)
    if rng.random() < 0.05:
        out.append("\\ No newline at end of file\n")
    return "".join(out)


def _codex(rng: random.Random, k: int) -> str:
    out = ["*** Begin Patch\n"]
    for j in range(rng.randint(1, 3)):
        path = f"app/part{k}_{j}.ts"
        r = rng.random()
        if r < 0.2:
            out.append(f"*** Add File: {path}\n" + "".join("+" + _code_line(rng) + "\n" for _ in range(5)))
        elif r < 0.3:
            out.append(f"*** Delete File: {path}\n")
        else:
            out.append(f"*** Update File: {path}\n")
            for _ in range(rng.randint(1, 3)):
                out.append(f"@@ function f{j}()\n")
                out += [" " + _code_line(rng) + "\n" for _ in range(2)]
                out.append("-" + _code_line(rng) + "\n")
                out.append("+" + _code_line(rng) + "\n")
                out.append(" " + _code_line(rng) + "\n")
    out.append("*** End Patch\n")
    return "".join(out)


def generate(size: int, seed: int = SEED) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    total = 0
    k = 0
    while total < size:
        k += 1
        r = rng.random()
        prose = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 60))) + ".\n\n"
        if r < 0.45:
            block = "```diff\n" + "".join(_file_diff(rng, k * 10 + i) for i in range(rng.randint(1, 3))) + "```\n\n"
        elif r < 0.6:
            block = _file_diff(rng, k) + "\nThat was the diff.\n\n"
        elif r < 0.8:
            block = _codex(rng, k) + "\n" if rng.random() < 0.5 else "```\n" + _codex(rng, k) + "```\n\n"
        elif r < 0.85:
            block = "```diff\n- old way\n+ new way\n```\n\n"
        else:
            block = ""
        piece = prose + block
        parts.append(piece)
        total += len(piece.encode("utf-8"))
    return "".join(parts)


_FENCE = re.compile(r"^```diff\n(.*?)^```$", re.S | re.M)


def unidiff_baseline(text: str) -> float:
    """Seconds ``unidiff.PatchSet`` takes on the fenced diffs of ``text`` (miscounted hunks
    make it raise: those bodies are skipped, as the baseline only gives the scale)."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    bodies = [m.group(1) for m in _FENCE.finditer(text) if "@@" in m.group(1)]
    t0 = time.perf_counter()
    for body in bodies:
        with contextlib.suppress(UnidiffParseError):
            PatchSet(body)
    return time.perf_counter() - t0


def measure(name: str, text: str, runs: int, traced: bool) -> dict[str, object]:
    size = len(text.encode("utf-8"))
    best = cpu = float("inf")
    result = None
    for _ in range(runs):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        result = analyze(text)
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    assert result is not None
    peak = None
    if traced:
        tracemalloc.start()
        analyze(text)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    dialects: dict[str, int] = {}
    for a in result.actions:
        dialects[a.dialect] = dialects.get(a.dialect, 0) + 1
    base = unidiff_baseline(text)
    return {
        "input": name, "bytes": size, "seconds": round(best, 3), "cpu_seconds": round(cpu, 3),
        "mb_per_s": round(size / 1e6 / best, 2), "cpu_mb_per_s": round(size / 1e6 / cpu, 2), "actions": len(result.actions),
        "by_dialect": dialects, "diagnostics": len(result.diagnostics),
        "peak_traced_mb": round(peak / 1e6, 1) if peak is not None else None,
        "unidiff_alone_seconds": round(base, 3),
    }


def _size(s: str) -> int:
    s = s.lower()
    mult = {"k": 1000, "m": 1000 * 1000}.get(s[-1], 1)
    return int(float(s.rstrip("km")) * mult)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("paths", nargs="*", type=Path)
    p.add_argument("--size", default="4m")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--no-tracemalloc", action="store_true")
    p.add_argument("--json", action="store_true")
    p.add_argument("--stress", action="store_true",
                   help="worst cases instead: runs of unterminated Codex patches and unclosed ```diff fences")
    args = p.parse_args(argv)
    rows = []
    if args.stress:
        size = _size(args.size)
        for name, unit in (
            ("unterminated patches", "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n\nprose\n\n"),
            ("unclosed diff fences", "```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n\nprose\n\n"),
        ):
            small = unit * (size // 10 // len(unit))
            big = unit * (size // len(unit))
            r1 = measure(f"{name}, {len(small) // 1000} KB", small, args.runs, False)
            r2 = measure(f"{name}, {len(big) // 1000} KB", big, args.runs, False)
            ratio = (r2["cpu_seconds"] / r1["cpu_seconds"]) / (r2["bytes"] / r1["bytes"])  # type: ignore[operator]
            rows += [r1, r2, {"input": f"{name}: linearity (1.0 = linear)", "ratio": round(ratio, 2)}]
    elif args.paths:
        for path in args.paths:
            rows.append(measure(str(path), path.read_text(encoding="utf-8"), args.runs, not args.no_tracemalloc))
    else:
        size = _size(args.size)
        small = generate(size // 10)
        big = generate(size)
        rows.append(measure(f"generated {size // 10 // 1000} KB", small, args.runs, False))
        rows.append(measure(f"generated {size // 1000} KB", big, args.runs, not args.no_tracemalloc))
        ratio = (rows[1]["cpu_seconds"] / rows[0]["cpu_seconds"]) / (rows[1]["bytes"] / rows[0]["bytes"])  # type: ignore[operator]
        rows.append({"input": "linearity (time ratio / size ratio, 1.0 = linear)", "ratio": round(ratio, 2)})
    if args.json:
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        for r in rows:
            print("  ".join(f"{k}={v}" for k, v in r.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
