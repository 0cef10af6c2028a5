"""Rebuild the real-world corpus from `bench/realworld-sources.md` and clones of its repositories.

The corpus files are other people's transcripts, most of them without a licence that lets us copy
them, so the project keeps only where they come from (repository, path, commit). This script puts
them back: for each row of the table whose repository is found under MIRRORS (a directory holding
`owner+name/repo` bare clones, or `owner/name` clones) it writes `git show COMMIT:PATH` to
OUT/<corpus file>. Rows whose repository is missing are listed, not fatal.

    python bench/rebuild_corpus.py MIRRORS OUT [--only claude-code-blocks/ ...]
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

SOURCES = Path(__file__).with_name("realworld-sources.md")
_ROW = re.compile(r"^\| `([^`]+)` \| ([^|]+?) \| `([^`]+)` \| `([0-9a-f]+)` \|")


def rows(sources: Path = SOURCES) -> list[tuple[str, str, str, str]]:
    """(corpus file, owner/name, path, commit) for every row of the sources table."""
    found = []
    for line in sources.read_text(encoding="utf-8").splitlines():
        m = _ROW.match(line)
        if m:
            found.append((m[1], m[2].strip(), m[3], m[4]))
    return found


def git_dir(mirrors: Path, repo: str) -> Path | None:
    owner, name = repo.split("/", 1)
    for candidate in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}", mirrors / owner / name):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    return None


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mirrors", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--only", action="append", default=[], help="corpus files starting with this")
    args = p.parse_args()
    written = missing = failed = 0
    for corpus_file, repo, path, commit in rows():
        if args.only and not any(corpus_file.startswith(o) for o in args.only):
            continue
        gd = git_dir(args.mirrors, repo)
        if gd is None:
            print(f"no clone of {repo}: {corpus_file} skipped", file=sys.stderr)
            missing += 1
            continue
        r = subprocess.run(["git", f"--git-dir={gd}", "show", f"{commit}:{path}"], capture_output=True)
        if r.returncode != 0:
            print(f"{repo} {commit}:{path}: {r.stderr.decode(errors='replace').strip()}", file=sys.stderr)
            failed += 1
            continue
        target = args.out / corpus_file
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(r.stdout)
        written += 1
    print(f"{written} written, {missing} without a clone, {failed} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
