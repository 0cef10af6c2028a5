"""A real history checked in its own repository: the findings and the time of `check --root`.

    python bench/bench_timeline.py TRANSCRIPT ROOT [--sample 20] [--source DIR] [--seed 0]

Runs `action-lsp check` on TRANSCRIPT twice, without and with `--root ROOT` (the repository at
the commit the history reaches), and prints the time of each (wall and the child's CPU), the count of findings per
code and severity, and a random sample of the workspace checks' errors (line in the transcript,
message) to read by hand. ``--source DIR`` runs another checkout of action-lsp (e.g. the code before a
change, from ``git archive``) in the same interpreter. TRANSCRIPT is any transcript `check`
reads (its dialect detected). Measured on Aider's own ``tests/fixtures/chat-history.md``
against Aider's repository, and on a Claude Code session (``.jsonl``, absolute paths under its
``cwd``, read relative to ROOT) against its project: ``git archive`` of the commit the history
reaches -- see docs/edit-engine.md, "A transcript is a timeline".
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import subprocess
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check(
    transcript: Path, root: Path | None, source: Path | None
) -> tuple[float, float, list[dict[str, Any]]]:
    """Wall time, CPU time (of the child) and findings of one `check`."""
    env = dict(os.environ)
    python = [sys.executable]
    if source is not None:
        # -S: no .pth files, so an editable install of this checkout does not win over DIR.
        purelib = sysconfig.get_paths()["purelib"]
        env["PYTHONPATH"] = os.pathsep.join([str(source.resolve()), purelib])
        python.append("-S")
    cmd = [*python, "-m", "action_lsp", "check", "--output-format", "json"]
    if root is not None:
        cmd += ["--root", str(root.resolve())]
    t0, cpu0 = time.perf_counter(), _children_cpu()
    # (from the transcript's directory: `-m` puts the current directory first on the path)
    out = subprocess.run([*cmd, str(transcript.resolve())], capture_output=True, text=True,
                         env=env, check=False, cwd=transcript.resolve().parent)
    elapsed, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if out.returncode not in (0, 1) or not out.stdout.strip():
        raise SystemExit(f"check failed ({out.returncode}): {out.stderr.strip()}")
    files = json.loads(out.stdout)["files"]
    return elapsed, cpu, [d for f in files for d in f["diagnostics"]]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("transcript", type=Path)
    p.add_argument("root", type=Path)
    p.add_argument("--sample", type=int, default=20, help="error findings to print (default 20)")
    p.add_argument("--source", type=Path, help="run the action-lsp found in this directory")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()

    alone, alone_cpu, own = check(args.transcript, None, args.source)
    with_root, root_cpu, found = check(args.transcript, args.root, args.source)
    # (CPU time: on a shared machine the wall time mostly measures the other jobs)
    print(f"check:        {alone:6.2f} s, CPU {alone_cpu:6.2f} s")
    print(f"check --root: {with_root:6.2f} s ({with_root / alone:.2f}x), "
          f"CPU {root_cpu:6.2f} s ({root_cpu / alone_cpu:.2f}x)")
    by_sev = collections.Counter(d["severity"] for d in found)
    print("findings by severity:", dict(sorted(by_sev.items())))
    by_code = collections.Counter((d["severity"], d["code"]) for d in found)
    for (sev, code), n in sorted(by_code.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"  {sev:12} {code:24} {n}")
    # The sample: errors of the workspace checks (those `check` finds alone are left out).
    seen = {(d["code"], json.dumps(d["range"])) for d in own}
    errors = [d for d in found if d["severity"] == "error"
              and (d["code"], json.dumps(d["range"])) not in seen]
    print(f"errors of the workspace checks: {len(errors)}")
    rng = random.Random(args.seed)
    sample = sorted(rng.sample(errors, min(args.sample, len(errors))),
                    key=lambda d: d["range"]["start"]["line"])
    if sample:
        print(f"\na sample of {len(sample)} of them:")
    for d in sample:
        line = d["range"]["start"]["line"] + 1
        print(f"- line {line}: [{d['code']}] {d['message'][:400]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
