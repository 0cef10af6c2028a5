"""Throughput of two checkouts in one process: another checkout's ``action_lsp`` (``--base``,
e.g. a ``git worktree`` of main) and this one's, imported side by side under different names
and timed alternately, so that both see the same load (a script, not a test).

    python bench/bench_ab.py --base /tmp/base-main prose4 dense4 prose40

Inputs are ``KINDmb`` (``prose4``: ``generate_prose(4_000_000)``; ``dense40``:
``generate(40_000_000)``) or paths. Prints ``bench_all.py``'s throughput columns for both.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_parse import generate, generate_prose, naive_all

ROOT = Path(__file__).resolve().parent.parent


def load(name: str, root: Path) -> ModuleType:
    """``root``'s ``action_lsp.document``, imported as package ``name``."""
    spec = importlib.util.spec_from_file_location(
        name, root / "action_lsp" / "__init__.py", submodule_search_locations=[str(root / "action_lsp")]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return importlib.import_module(name + ".document")


def text_of(spec: str) -> str:
    for kind, make in (("prose", generate_prose), ("dense", lambda n: generate(n)[0])):
        if spec.startswith(kind) and spec[len(kind) :].isdigit():
            return make(int(spec[len(kind) :]) * 1_000_000)  # type: ignore[no-untyped-call]
    return Path(spec).read_text(encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="the other checkout (its root directory)")
    ap.add_argument("inputs", nargs="*", default=["prose4", "dense4"])
    args = ap.parse_args()
    trees = [("base", load("action_lsp_base", args.base)), ("this", load("action_lsp_this", ROOT))]
    print("| input | tree | MB | analyze CPU s | MB/s (CPU) | MB/s (wall) | naive CPU s | naive MB/s | analyze / naive |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|")
    for spec in args.inputs:
        text = text_of(spec)
        mb = len(text.encode("utf-8", "surrogatepass")) / 1e6
        best: dict[str, tuple[float, float]] = {}
        for _ in range(3 if mb <= 5 else 1):
            for name, doc in trees:
                gc.collect()
                c0, w0 = time.process_time(), time.perf_counter()
                doc.analyze(text)
                c, w = time.process_time() - c0, time.perf_counter() - w0
                old = best.get(name, (float("inf"), float("inf")))
                best[name] = (min(old[0], c), min(old[1], w))
        ncpu = float("inf")
        for _ in range(3):
            c0 = time.process_time()
            naive_all(text)
            ncpu = min(ncpu, time.process_time() - c0)
        for name, _ in trees:
            cpu, wall = best[name]
            print(
                f"| {spec} | {name} | {mb:.1f} | {cpu:.2f} | {mb / cpu:.1f} | {mb / wall:.1f} | {ncpu:.3f} "
                f"| {mb / ncpu:.0f} | {cpu / ncpu:.1f}x |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
