"""Kill the real ``action-lsp apply --write`` at random moments (a script, not a test):
``python bench/crash_apply.py [--modified 300] [--created 100] [--kills 20] [--dir DIR] [--seed 1]``

Each round makes a fresh workspace and a transcript of ``--modified`` modify and ``--created``
create actions (new files in new directories), starts ``python -m action_lsp apply --write`` in
a subprocess, SIGKILLs it after a random delay within one uninterrupted run's duration (real
fsyncs, nothing patched), looks at where the write stood (no journal, journal not committed,
committed), then runs ``action-lsp apply`` (a dry run: it recovers first) and checks that the
tree is exactly the old one or exactly the new one, with nothing else in it.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def populate(root: Path, modified: int) -> None:
    for i in range(modified):
        d = root / f"src/pkg{i % 20}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod{i}.py").write_text(f"# module {i}\nvalue_{i} = 1\n")


def transcript(modified: int, created: int) -> str:
    parts = []
    for i in range(modified):
        parts.append(
            f"<modify_file>\n<path>src/pkg{i % 20}/mod{i}.py</path>\n<search>\nvalue_{i} = 1\n"
            f"</search>\n<replace>\nvalue_{i} = 2\n</replace>\n</modify_file>\n"
        )
    for i in range(created):
        parts.append(
            f"<create_file>\n<path>new/d{i % 10}/sub{i % 3}/f{i}.txt</path>\n<content>\n"
            f"created {i}\n</content>\n</create_file>\n"
        )
    return "\n".join(parts)


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        p.relative_to(root).as_posix(): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


def stage(root: Path) -> str:
    jdir = root / ".action-lsp-journal"
    if not (jdir / "journal.json").exists():
        if (jdir / "committed").exists():
            return "cleanup"  # the journal of a finished write being removed
        if jdir.exists() and any(jdir.iterdir()):
            return "writing the journal"
        return "no journal (before or after)"
    if not (jdir / "committed").exists():
        return "temporaries"
    return "renames" if any(root.rglob(".action-lsp.*.tmp")) else "cleanup"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modified", type=int, default=300)
    ap.add_argument("--created", type=int, default=100)
    ap.add_argument("--kills", type=int, default=20)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="crash-apply-", dir=args.dir))
    tx = base / "t.md"
    tx.write_text(transcript(args.modified, args.created))
    root = base / "ws"
    cmd = [sys.executable, "-m", "action_lsp", "apply", "--write", "--root", str(root), str(tx)]
    env = dict(os.environ)

    def fresh() -> None:
        shutil.rmtree(root, ignore_errors=True)
        root.mkdir()
        populate(root, args.modified)

    fresh()
    before = snapshot(root)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    duration = time.perf_counter() - t0
    after = snapshot(root)
    print(f"one uninterrupted apply --write: {duration:.2f} s "
          f"({args.modified} modified, {args.created} created)")
    rng = random.Random(args.seed)
    stages: Counter[str] = Counter()
    results: Counter[str] = Counter()
    kills = 0
    while kills < args.kills:
        fresh()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(rng.uniform(0.3 * duration, duration))
        proc.kill()
        proc.wait()
        if proc.returncode != -9:
            results["finished before the kill"] += 1
            continue
        kills += 1
        where = stage(root)
        stages[where] += 1
        out = subprocess.run(
            [sys.executable, "-m", "action_lsp", "apply", "--root", str(root), str(tx)],
            capture_output=True, text=True, env=env,
        )
        now = snapshot(root)
        result = "all old" if now == before else "all new" if now == after else "MIXED/LITTER"
        results[result] += 1
        said = [ln for ln in out.stderr.splitlines() if "interrupted apply" in ln]
        print(f"kill {kills}: {where}: {result}; {said[0][:110] if said else 'no report'}")
    print(f"stages: {dict(stages)}")
    print(f"results: {dict(results)}")
    shutil.rmtree(base)
    if results["MIXED/LITTER"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
