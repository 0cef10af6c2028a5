"""The false-positive rate of each grammar: how many files of valid, real code it flags.

Walks a directory of source files that are known to be valid (a checkout of a well-known project),
picks each file's grammar the way the checks do (``language_for(path)``: name, then extension) and
parses it. A file with any syntax error counts as *flagged*: for valid code that is a false
positive, and a language whose grammar flags valid files more than rarely must not be judged
(``Lang.judged``). The numbers and the decision per language are in ``docs/languages.md``.
A template of a language (a Helm chart's ``{{``, ERB's ``<%`` in YAML) is counted apart
(*templ.*): the checks never judge it. The rate counts every grammar, judged or not.

Also reports the grammar load time per language (first use in this process) and the parse time.

Run: ``.venv/bin/python bench/syntax_corpus.py DIR [DIR ...] [--exclude GLOB ...] [--list LANG]
[--grammar LANG] [--json]``. ``--exclude`` skips paths matching a glob (test fixtures that are
invalid on purpose: ``--exclude '*/invalid/*'``); ``--list LANG`` prints each flagged file of
LANG with its first error; ``--grammar LANG`` parses every file the registry maps to any C-family
language with LANG instead (to compare grammars on ``.h`` files, say).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from action_lsp.syntax import language_for, syntax_errors
from action_lsp.syntax.languages import Lang

MAX_BYTES = 1_000_000


@dataclass
class Tally:
    judged: str = ""
    files: int = 0
    templates: int = 0
    flagged: int = 0
    bytes: int = 0
    parse_s: float = 0.0
    load_s: float = 0.0
    examples: list[tuple[str, int, str]] = field(default_factory=list)


def walk(roots: list[str], exclude: list[str]) -> list[str]:
    out: list[str] = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in (".git", "node_modules"))
            for name in sorted(files):
                path = os.path.join(folder, name)
                if not any(fnmatch.fnmatch(path, g) for g in exclude):
                    out.append(path)
    return out


def measure(paths: list[str], grammar: Lang | None) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    loaded: set[str] = set()
    for path in paths:
        lang = language_for(path)
        if lang is None:
            continue
        if grammar is not None:
            lang = grammar
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_BYTES or b"\0" in data:
            continue
        try:
            code = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        tally = tallies[lang.name]
        tally.judged = lang.judged
        if lang.judged != "off" and lang.verdict(code) == "off":
            tally.templates += 1  # a template of the language (Helm, ERB): never judged
            continue
        if lang.name not in loaded:
            start = time.perf_counter()
            _ = lang.language
            tally.load_s = time.perf_counter() - start
            loaded.add(lang.name)
        start = time.perf_counter()
        problems = syntax_errors(code, lang, limit=1)
        tally.parse_s += time.perf_counter() - start
        tally.files += 1
        tally.bytes += len(data)
        if problems:
            tally.flagged += 1
            p = problems[0]
            tally.examples.append((path, code.count("\n", 0, p.start) + 1, p.message))
    return tallies


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="+", help="directories of valid source files")
    ap.add_argument("--exclude", action="append", default=[], help="skip paths matching GLOB")
    ap.add_argument("--list", action="append", default=[], metavar="LANG",
                    help="print the flagged files of LANG")
    ap.add_argument("--grammar", metavar="LANG", help="parse every mapped file with LANG")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    grammar = language_for(language=args.grammar) if args.grammar else None
    if args.grammar and grammar is None:
        sys.exit(f"unknown language {args.grammar}")
    tallies = measure(walk(args.dirs, args.exclude), grammar)
    if args.json:
        print(json.dumps({
            name: {"judged": t.judged, "files": t.files, "templates": t.templates,
                   "flagged": t.flagged, "bytes": t.bytes,
                   "parse_s": round(t.parse_s, 3), "load_ms": round(t.load_s * 1000, 2)}
            for name, t in sorted(tallies.items())
        }, indent=2))
        return
    print(f"{'language':<11} {'judged':<8} {'files':>6} {'flagged':>8} {'rate':>7} "
          f"{'templ.':>6} {'MB':>7} {'MB/s':>6} {'load ms':>8}")
    for name, t in sorted(tallies.items()):
        rate = 100 * t.flagged / t.files if t.files else 0.0
        speed = t.bytes / 1e6 / t.parse_s if t.parse_s else 0.0
        print(f"{name:<11} {t.judged:<8} {t.files:>6} {t.flagged:>8} {rate:>6.1f}% "
              f"{t.templates:>6} {t.bytes / 1e6:>7.2f} {speed:>6.1f} {t.load_s * 1000:>8.2f}")
    for name in args.list:
        lang = language_for(language=name)
        key = lang.name if lang is not None else name
        for path, line, message in tallies[key].examples:
            print(f"{path}:{line}: {message}")


if __name__ == "__main__":
    main()
