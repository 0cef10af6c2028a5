"""``action-lsp rules``: every diagnostic code with its default severity and a one-line doc."""

from __future__ import annotations

import argparse
import sys


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("rules", help="every diagnostic code with a one-line explanation")
    p.add_argument("code", nargs="?", help="explain one code in full")
    p.add_argument(
        "--output-format", "--format", dest="format", choices=("text", "json", "markdown"), default="text"
    )
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..codes import CODES, render_markdown
    from .common import CliError

    if args.code:
        c = CODES.get(args.code)
        if c is None:
            raise CliError(f"unknown code {args.code!r}; `action-lsp rules` lists them")
        print(f"{c.code} ({c.severity.label})\n\n{c.summary}")
        if c.explanation:
            print(f"\n{c.explanation}")
        if c.fix:
            print(f"\nQuick fix: {c.fix}")
        return 0
    if args.format == "markdown":
        sys.stdout.write(render_markdown())
    elif args.format == "json":
        import json

        json.dump(
            [{"code": c.code, "severity": c.severity.label, "summary": c.summary, "needsWorkspace": c.needs_workspace} for c in CODES.values()],
            sys.stdout,
        )
        sys.stdout.write("\n")
    else:
        width = max(len(c) for c in CODES)
        for c in CODES.values():
            print(f"{c.code:<{width}}  {c.severity.label:<11}  {c.summary}")
    return 0
