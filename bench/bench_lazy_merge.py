"""Chat answers merged into their files: right, asked, wrong; and the time of one merge.

    python bench/bench_lazy_merge.py [--lines 2000] [--repeat 20] [--json]

Runs every case of ``tests/fixtures/lazy_merge/`` (a file, a chat answer's code block naming
it, the file a careful person would write or "must ask") through the edit engine's snippet
merge (``action_lsp.edit.lazymerge.merge_snippet``) and counts:

- *merged right*: certain, and the result is the expected file;
- *asked*: not certain (``lazy-ambiguous``): right when the case says "must ask", a miss when
  the case has an expected file;
- *wrong*: certain but not the expected file, or written where the case says "must ask"
  (must be 0).

Then times one merge into a generated file of ``--lines`` lines (Python, TypeScript and Go:
classes or types with methods, functions, imports) with a lazy snippet that changes one
method, adds one and keeps the rest behind placeholders: the median of ``--repeat`` runs, the
file's parse cache cleared before each, wall and CPU time (the target is under 50 ms for
2,000 lines; on a loaded machine read the CPU column).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from action_lsp.edit.lazymerge import merge_snippet
from action_lsp.syntax import forget

CASES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "lazy_merge"


def _cases() -> list[Any]:
    spec = importlib.util.spec_from_file_location("lazy_cases", CASES / "cases.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["lazy_cases"] = module
    spec.loader.exec_module(module)
    cases: list[Any] = module.all_cases()
    return cases


def run_cases() -> dict[str, object]:
    counts: Counter[str] = Counter()
    by_shape: Counter[tuple[str, str]] = Counter()
    wrong: list[str] = []
    missed: list[str] = []
    languages: set[str] = set()
    for case in _cases():
        languages.add(Path(case.path).suffix or case.path)
        m = merge_snippet(case.before, case.code, case.path)
        if m.certain:
            verdict = "right" if case.expect == "merge" and m.text == case.after else "wrong"
        else:
            verdict = "asked"
            if case.expect == "merge":
                missed.append(case.name)
        if verdict == "wrong":
            wrong.append(case.name)
        counts[verdict] += 1
        by_shape[(case.shape, verdict)] += 1
    return {
        "cases": sum(counts.values()),
        "extensions": len(languages),
        "merged_right": counts["right"],
        "asked": counts["asked"],
        "asked_but_mergeable": missed,
        "wrong": counts["wrong"],
        "wrong_cases": wrong,
        "by_shape": {f"{s}/{v}": n for (s, v), n in sorted(by_shape.items())},
    }


def _python(lines: int) -> tuple[str, str, str]:
    out = ["import os", "import sys", "", ""]
    n = 0
    while len(out) < lines:
        out += [f"class Service{n}:", f'    """Service number {n}."""', "",
                "    def __init__(self, name):", "        self.name = name",
                "        self.count = 0", ""]
        for k in range(6):
            out += [f"    def method_{k}(self, value):", f"        self.count += {k}",
                    f"        return value * {k} + self.count", ""]
        out += ["", f"def helper_{n}(x):", f"    return x + {n}", "", ""]
        n += 1
    mid = n // 2
    snippet = (f"# ... existing code ...\n\nclass Service{mid}:\n    # ... existing code ...\n\n"
               f"    def method_3(self, value):\n        self.count += 30\n        return value\n\n"
               f"    def method_new(self):\n        return self.count\n\n"
               f"    # ... existing code ...\n\n# ... existing code ...\n")
    return "app.py", "\n".join(out) + "\n", snippet


def _typescript(lines: int) -> tuple[str, str, str]:
    out = ['import { a } from "./a";', 'import { b } from "./b";', ""]
    n = 0
    while len(out) < lines:
        out += [f"export class Service{n} {{", "  private count = 0;", ""]
        for k in range(6):
            out += [f"  method{k}(value: number): number {{", f"    this.count += {k};",
                    f"    return value * {k} + this.count;", "  }", ""]
        out += ["}", "", f"export function helper{n}(x: number): number {{",
                f"  return x + {n};", "}", ""]
        n += 1
    mid = n // 2
    snippet = (f"// ... existing code ...\n\nexport class Service{mid} {{\n  // ... existing code ...\n\n"
               f"  method3(value: number): number {{\n    return value;\n  }}\n\n"
               f"  methodNew(): number {{\n    return this.count;\n  }}\n\n"
               f"  // ... existing code ...\n}}\n\n// ... existing code ...\n")
    return "app.ts", "\n".join(out) + "\n", snippet


def _go(lines: int) -> tuple[str, str, str]:
    out = ["package app", "", "import (", '\t"fmt"', '\t"os"', ")", ""]
    n = 0
    while len(out) < lines:
        out += [f"type Service{n} struct {{", "\tcount int", "}", ""]
        for k in range(6):
            out += [f"func (s *Service{n}) Method{k}(v int) int {{", f"\ts.count += {k}",
                    f"\treturn v*{k} + s.count", "}", ""]
        out += [f"func Helper{n}(x int) int {{", f'\tfmt.Fprintln(os.Stderr, "{n}")',
                f"\treturn x + {n}", "}", ""]
        n += 1
    mid = n // 2
    snippet = (f"// ... existing code ...\n\nfunc (s *Service{mid}) Method3(v int) int {{\n"
               f"\treturn v\n}}\n\nfunc (s *Service{mid}) MethodNew() int {{\n\treturn s.count\n}}\n\n"
               f"// ... existing code ...\n")
    return "app.go", "\n".join(out) + "\n", snippet


def time_merges(lines: int, repeat: int) -> dict[str, dict[str, float | int | bool]]:
    out: dict[str, dict[str, float | int | bool]] = {}
    for make in (_python, _typescript, _go):
        path, old, snippet = make(lines)
        times, cpu = [], []
        certain = False
        for _ in range(repeat):
            forget()
            t0, c0 = time.perf_counter(), time.process_time()
            m = merge_snippet(old, snippet, path)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
            certain = m.certain
        out[path] = {"lines": old.count("\n"), "median_ms": round(statistics.median(times) * 1000, 1),
                     "cpu_median_ms": round(statistics.median(cpu) * 1000, 1),
                     "max_ms": round(max(times) * 1000, 1), "certain": certain}
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--lines", type=int, default=2000)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    c: dict[str, Any] = run_cases()
    timing = time_merges(args.lines, args.repeat)
    if args.json:
        print(json.dumps({"cases": c, "timing": timing}, indent=2))
        return 0
    print(f"{c['cases']} cases, {c['extensions']} file types")
    print(f"  merged right: {c['merged_right']}")
    print(f"  asked:        {c['asked']}  (of them mergeable: {len(c['asked_but_mergeable'])} "
          f"{c['asked_but_mergeable']})")
    print(f"  wrong:        {c['wrong']}  {c['wrong_cases'] or ''}")
    print(f"  by shape:     {c['by_shape']}")
    for path, t in timing.items():
        print(f"merge into {path} ({t['lines']} lines): median {t['median_ms']} ms wall, "
              f"{t['cpu_median_ms']} ms CPU, max {t['max_ms']} ms, certain={t['certain']}")
    return 1 if c["wrong"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
