"""How often ``new-syntax-error`` would fire on real, valid edits: a repository's own commits.

For the last N commits of a git repository (merges left out), every modified file whose language
the registry knows is parsed before and after the commit, as the plan does for a modify: an edit
after which a file that parsed no longer does would be ``new-syntax-error``. Committed code is
(nearly always) valid, so each one is a false alarm of that grammar. Reported per language: the
edits whose *before* parsed (the only ones ``new-syntax-error`` judges), how many of them broke,
the rate, and the verdict the language has (``Lang.judged``). Templates (``Lang.verdict``) are
left out as the checks leave them out.

Run: ``.venv/bin/python bench/syntax_history.py GIT_DIR [GIT_DIR ...] [--commits N] [--list LANG]``
(``GIT_DIR`` is a repository or its ``.git``; only ``git`` is run, nothing is checked out).
"""

from __future__ import annotations

import argparse
import subprocess
from collections import defaultdict
from dataclasses import dataclass, field

from action_lsp.syntax import language_for, syntax_errors

MAX_BYTES = 1_000_000


@dataclass
class Tally:
    judged: str = ""
    edits: int = 0
    broke: int = 0
    examples: list[tuple[str, str, str]] = field(default_factory=list)


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
    ).stdout


class Blobs:
    """Blob texts by id through one ``git cat-file --batch``; None when absent, big or binary."""

    def __init__(self, git_dir: str) -> None:
        self.proc = subprocess.Popen(
            ["git", f"--git-dir={git_dir}", "cat-file", "--batch"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )

    def text(self, sha: str) -> str | None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(sha.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            return None
        data = self.proc.stdout.read(int(header[2]))
        self.proc.stdout.read(1)
        if len(data) > MAX_BYTES or b"\0" in data:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait()


def measure(git_dir: str, commits: int, tallies: dict[str, Tally]) -> None:
    blobs = Blobs(git_dir)
    try:
        for commit in _git(git_dir, "log", "--no-merges", "--format=%H", "-n", str(commits)).split():
            diff = _git(git_dir, "diff-tree", "-r", "--no-commit-id", "--diff-filter=M", commit)
            for line in diff.splitlines():
                meta, path = line.split("\t", 1)
                _, _, old_sha, new_sha, _ = meta.split()
                lang = language_for(path)
                if lang is None:
                    continue
                before, after = blobs.text(old_sha), blobs.text(new_sha)
                if before is None or after is None:
                    continue
                if lang.verdict(before + after) == "off" and lang.judged != "off":
                    continue  # a template: never judged
                if syntax_errors(before, lang, limit=1):
                    continue  # new-syntax-error judges only files that parsed
                tally = tallies[lang.name]
                tally.judged = lang.judged
                tally.edits += 1
                problems = syntax_errors(after, lang, limit=1)
                if problems:
                    tally.broke += 1
                    line_no = after.count("\n", 0, problems[0].start) + 1
                    tally.examples.append((commit[:10], f"{path}:{line_no}", problems[0].message))
    finally:
        blobs.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dirs", nargs="+")
    ap.add_argument("--commits", type=int, default=300, help="commits per repository (300)")
    ap.add_argument("--list", action="append", default=[], metavar="LANG")
    args = ap.parse_args()
    tallies: dict[str, Tally] = defaultdict(Tally)
    for git_dir in args.git_dirs:
        measure(git_dir, args.commits, tallies)
    print(f"{'language':<11} {'judged':<8} {'edits':>6} {'broke':>6} {'rate':>7}")
    for name, t in sorted(tallies.items()):
        rate = 100 * t.broke / t.edits if t.edits else 0.0
        print(f"{name:<11} {t.judged:<8} {t.edits:>6} {t.broke:>6} {rate:>6.1f}%")
    for name in args.list:
        lang = language_for(language=name)
        for commit, where, message in tallies[lang.name if lang else name].examples:
            print(f"{commit} {where}: {message}")


if __name__ == "__main__":
    main()
