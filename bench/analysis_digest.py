"""Differential check: a digest of everything ``analyze(text)`` reports, per input.

Run it with two checkouts (each on its own ``PYTHONPATH``) and compare: a speed change must not
change what the analysis finds. Inputs: the bench generators (dense and prose, several seeds and
sizes), every adversarial shape of ``adversarial.py`` at a small size, every file under
``tests/fixtures`` and ``examples/``, and any paths given.

    PYTHONPATH=/path/to/main python bench/analysis_digest.py --out /tmp/main.json
    PYTHONPATH=$PWD python bench/analysis_digest.py --out /tmp/new.json --compare /tmp/main.json

``--dump DIR`` writes each input's full serialisation, to diff the two when digests differ.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from adversarial import SHAPES
from bench_parse import generate, generate_prose

from action_lsp.document import Analysis, analyze
from action_lsp.model import Breaks, Fix

ROOT = Path(__file__).resolve().parent.parent


def plain(obj: Any) -> Any:
    """A JSON-able form of an analysis object, with every field (lazy fixes computed)."""
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, enum.Enum):
        return obj.value
    if isinstance(obj, Fix):
        return ["Fix", obj.title, plain(obj.edits), obj.preferred]
    if isinstance(obj, Breaks):
        return [list(p) for p in obj]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [type(obj).__name__, *(plain(getattr(obj, f.name)) for f in dataclasses.fields(obj))]
    if isinstance(obj, dict):
        return {str(k): plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [plain(x) for x in obj]
    return repr(obj)


def serialise(a: Analysis) -> str:
    return json.dumps(
        {"actions": plain(a.actions), "diagnostics": plain(a.diagnostics), "groups": plain(a.groups)},
        sort_keys=True,
    )


def inputs(paths: list[str]) -> Iterator[tuple[str, str]]:
    for seed in (1, 2, 3):
        for size in (20_000, 300_000):
            yield f"dense-{seed}-{size}", generate(size, seed)[0]
            yield f"prose-{seed}-{size}", generate_prose(size, seed)
    yield "prose-default-4m", generate_prose(4_000_000)
    for name, shape in sorted(SHAPES.items()):
        yield f"shape-{name}", shape(300)
    for base in ("tests/fixtures", "examples"):
        for p in sorted((ROOT / base).rglob("*")):
            if p.is_file():
                yield str(p.relative_to(ROOT)), p.read_text(encoding="utf-8", errors="surrogateescape")
    for p in paths:
        yield p, Path(p).read_text(encoding="utf-8", errors="surrogateescape")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", help="more transcripts to check")
    ap.add_argument("--out", help="write {input: digest} here (JSON)")
    ap.add_argument("--compare", help="a previous --out to compare against")
    ap.add_argument("--dump", help="directory for each input's full serialisation")
    args = ap.parse_args()
    digests: dict[str, str] = {}
    for name, text in inputs(args.paths):
        s = serialise(analyze(text))
        digests[name] = hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()
        if args.dump:
            out = Path(args.dump) / (name.replace("/", "__") + ".json")
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(s, encoding="utf-8", errors="surrogatepass")
    if args.out:
        Path(args.out).write_text(json.dumps(digests, indent=1), encoding="utf-8")
    if args.compare:
        old = json.loads(Path(args.compare).read_text(encoding="utf-8"))
        differ = sorted(k for k in digests.keys() & old.keys() if digests[k] != old[k])
        missing = sorted(old.keys() ^ digests.keys())
        for k in differ:
            print(f"DIFFERS: {k}")
        for k in missing:
            print(f"only in one run: {k}")
        print(f"{len(digests)} inputs, {len(differ)} differ")
        return 1 if differ else 0
    print(f"{len(digests)} inputs digested")
    return 0


if __name__ == "__main__":
    sys.exit(main())
