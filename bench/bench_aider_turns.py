"""An Aider chat history replayed turn by turn on its own repository's Aider commits.

    python bench/bench_aider_turns.py HISTORY REPO [--keep DIR]

HISTORY is an ``.aider.chat.history.md``; REPO a clone (or bare mirror) of the repository it was
written in, holding the commits Aider made (``> Commit 1b2614a ...`` lines). Each edit the history
shows applied (an ``> Applied edit to ...`` line follows it) belongs to the first Aider commit
after that line. For each such commit C found in REPO, the files of ``C~1`` (the user's own
changes included: Aider commits them first, "Committing ... before applying edits") are
written to a scratch directory, the history *as it stood at C* (cut after C's line) is applied
with ``action-lsp apply --write``, and the scratch directory is compared with C's files:

- ``equal``: every file is as Aider left it;
- ``differ``: ``apply`` wrote, and some file differs (listed, to read: a hand edit inside the
  turn, a command the session ran, or a wrong edit);
- ``refused``: ``apply`` wrote nothing (its messages printed: a refusal, never a wrong edit).

Files named ``.aider*`` are left out of the comparison. Nothing is run but ``git`` and
``action-lsp``. Used for the trust trial of docs/edit-engine.md ("Aider histories replayed on
their repositories").
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_COMMIT = re.compile(r"> Commit ([0-9a-f]{7,40}) ")
_ACTION = re.compile(r"\s*(\d+)\. \S+?:(\d+):\d+\s+\S+\s+(\S+)")


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)


def _extract(repo: Path, commit: str, into: Path) -> None:
    """The files of ``commit`` under ``into`` (one by one: a mirror may lack a large blob)."""
    names = _git(repo, "ls-tree", "-r", "-z", "--name-only", commit).stdout.split("\0")
    for name in filter(None, names):
        blob = subprocess.run(["git", "-C", str(repo), "cat-file", "-p", f"{commit}:{name}"],
                              capture_output=True, check=False)
        if blob.returncode == 0:
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            (into / name).write_bytes(blob.stdout)


def _differing(a: Path, b: Path) -> list[str]:
    out = subprocess.run(["diff", "-rq", "-x", ".aider*", str(a), str(b)], capture_output=True,
                         text=True, check=False).stdout
    return out.splitlines()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", type=Path)
    p.add_argument("repo", type=Path)
    p.add_argument("--keep", type=Path, help="keep the scratch directories here")
    args = p.parse_args()
    text = args.history.read_bytes().decode("utf-8")
    lines = text.split("\n")
    parsed = subprocess.run([sys.executable, "-m", "action_lsp", "parse", str(args.history)],
                            capture_output=True, text=True, check=False).stdout
    applied = [i + 1 for i, line in enumerate(lines) if line.startswith("> Applied edit")]
    commits = [(i + 1, m.group(1)) for i, line in enumerate(lines) if (m := _COMMIT.match(line))]
    turns: dict[str, list[int]] = {}
    for row in parsed.splitlines():
        m = _ACTION.match(row)
        if m is None or m.group(3) == "failed":
            continue
        at = int(m.group(2))
        shown = next((a for a in applied if a > at), None)
        commit = next((h for c, h in commits if shown is not None and c > shown), None)
        if commit is not None:
            turns.setdefault(commit, []).append(int(m.group(1)))
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="aider-turns-"))
    totals = {"equal": 0, "differ": 0, "refused": 0, "not in the repository": 0}
    for commit, numbers in turns.items():
        if _git(args.repo, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            totals["not in the repository"] += 1
            print(f"{commit}: not in the repository (actions {numbers})")
            continue
        base = _git(args.repo, "rev-parse", "--short", f"{commit}~1").stdout.strip()
        work, want = scratch / f"{commit}-applied", scratch / f"{commit}-committed"
        for d in (work, want):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
        if base:
            _extract(args.repo, base, work)
        _extract(args.repo, commit, want)
        line = next(c for c, h in commits if h == commit)
        cut = scratch / f"{commit}.md"
        cut.write_text("\n".join(lines[:line]) + "\n", encoding="utf-8", newline="")
        run = subprocess.run([sys.executable, "-m", "action_lsp", "apply", "--root", str(work), "--write",
                              str(cut)], capture_output=True, text=True, check=False)
        differing = _differing(want, work)
        status = "refused" if run.returncode else ("differ" if differing else "equal")
        totals[status] += 1
        print(f"{commit} (from {base or 'nothing'}), actions {numbers}: {status}")
        if run.returncode:
            said = [x for x in run.stderr.splitlines() if "error" in x or "cannot be applied" in x]
            print("    " + "\n    ".join(said[:6]))
        for d in differing:
            print("    " + d)
    print("turns: " + ", ".join(f"{n} {k}" for k, n in totals.items()))
    if args.keep is None:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
