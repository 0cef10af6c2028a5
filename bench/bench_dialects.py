"""Benchmark: parse throughput per dialect, on a generated 4 MB transcript of each.

For every registered tag dialect with a generator below (dyad, bolt, cline, and the seed tag
dialects for comparison), builds a deterministic transcript of about ``--size`` characters:
that dialect's actions (writes, SEARCH/REPLACE edits, renames, commands ...) between
paragraphs of prose, with a few deliberate breakages (an unclosed tag, a traversal path, a
malformed marker). Times ``analyze(text, [dialect])`` (best of ``--runs``) and prints MB/s,
actions and diagnostics found. ``--all-dialects`` parses with every dialect enabled instead.

Run: ``.venv/bin/python bench/bench_dialects.py [--size 4m] [--runs 3] [--json]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable

from action_lsp.document import analyze

PROSE = (
    "Here is what changes and why: the handler now validates its input before it touches the "
    "database, and the tests cover the empty case.\n\n"
)


def _code(rng: random.Random, lines: int) -> str:
    return "".join(f"export const v{rng.randint(0, 999)} = {rng.randint(0, 99)};\n" for _ in range(lines))


def dyad(rng: random.Random, i: int) -> str:
    r = rng.random()
    if r < 0.5:
        return f'<dyad-write path="src/f{i}.ts" description="file {i}">\n{_code(rng, rng.randint(3, 30))}</dyad-write>\n\n'
    if r < 0.75:
        return (f'<dyad-search-replace path="src/f{i}.ts">\n<<<<<<< SEARCH\n{_code(rng, 3)}=======\n'
                f'{_code(rng, 4)}>>>>>>> REPLACE\n</dyad-search-replace>\n\n')
    if r < 0.85:
        return f'<dyad-rename from="src/a{i}.ts" to="src/b{i}.ts"></dyad-rename>\n'
    if r < 0.93:
        return '<dyad-add-dependency packages="lodash zod"></dyad-add-dependency>\n'
    if r < 0.97:
        return f'<dyad-delete path="../outside{i}.ts"></dyad-delete>\n'
    return f'<dyad-write path="src/u{i}.ts">\n{_code(rng, 2)}'  # unclosed


def bolt(rng: random.Random, i: int) -> str:
    actions = "".join(
        f'  <boltAction type="file" filePath="src/f{i}_{k}.js">\n{_code(rng, rng.randint(3, 30))}  </boltAction>\n'
        if rng.random() < 0.7 else '  <boltAction type="shell">\n    npm install\n  </boltAction>\n'
        for k in range(rng.randint(1, 5))
    )
    return f'<boltArtifact id="a{i}" title="Artifact {i}">\n{actions}</boltArtifact>\n\n'


def cline(rng: random.Random, i: int) -> str:
    r = rng.random()
    if r < 0.4:
        return f"<write_to_file>\n<path>src/f{i}.ts</path>\n<content>\n{_code(rng, rng.randint(3, 30))}</content>\n</write_to_file>\n\n"
    if r < 0.7:
        return (f"<replace_in_file>\n<path>src/f{i}.ts</path>\n<diff>\n------- SEARCH\n{_code(rng, 3)}=======\n"
                f"{_code(rng, 4)}+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n")
    if r < 0.85:
        return (f"<apply_diff>\n<path>src/g{i}.ts</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:{i}\n-------\n"
                f"{_code(rng, 3)}=======\n{_code(rng, 3)}>>>>>>> REPLACE\n</diff>\n</apply_diff>\n\n")
    if r < 0.95:
        return "<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n\n"
    return f"<replace_in_file>\n<path>src/h{i}.ts</path>\n<diff>\n------- SEARCH\nx\ny\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n"


def xml_tags(rng: random.Random, i: int) -> str:
    return f"<create_file>\n<path>src/f{i}.ts</path>\n<content>\n{_code(rng, rng.randint(3, 30))}</content>\n</create_file>\n\n"


def aether(rng: random.Random, i: int) -> str:
    return f'<aether-write path="src/f{i}.ts" language="typescript">\n{_code(rng, rng.randint(3, 30))}</aether-write>\n\n'


GENERATORS: dict[str, Callable[[random.Random, int], str]] = {
    "dyad": dyad, "bolt": bolt, "cline": cline, "xml-tags": xml_tags, "aether": aether,
}


def transcript(name: str, size: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    parts: list[str] = []
    total = i = 0
    while total < size:
        piece = PROSE + GENERATORS[name](rng, i)
        parts.append(piece)
        total += len(piece)
        i += 1
    return "".join(parts)


def _size(text: str) -> int:
    text = text.lower()
    mult = {"k": 10**3, "m": 10**6}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * mult)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--size", default="4m")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--dialects", default=",".join(GENERATORS))
    p.add_argument("--all-dialects", action="store_true", help="parse with every dialect enabled")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    size = _size(args.size)
    results = []
    for name in args.dialects.split(","):
        text = transcript(name, size)
        enabled = None if args.all_dialects else [name]
        best = float("inf")
        cpu = float("inf")
        analysis = None
        for _ in range(args.runs):
            t0, c0 = time.perf_counter(), time.process_time()
            analysis = analyze(text, enabled)
            best = min(best, time.perf_counter() - t0)
            cpu = min(cpu, time.process_time() - c0)
        assert analysis is not None
        mb = len(text.encode("utf-8")) / 1e6
        row = {
            "dialect": name, "mb": round(mb, 2), "seconds": round(best, 3), "cpu_seconds": round(cpu, 3),
            "mb_per_s": round(mb / cpu, 2), "actions": len(analysis.actions),
            "diagnostics": dict(Counter(d.code for d in analysis.diagnostics)),
        }
        results.append(row)
        if not args.json:
            print(f"{name:<9} {mb:5.2f} MB  {best:6.3f} s wall  {cpu:6.3f} s cpu  {row['mb_per_s']:6.2f} MB/s  "
                  f"{row['actions']:6d} actions  {row['diagnostics']}", flush=True)
    if args.json:
        json.dump(results, sys.stdout, indent=2)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
