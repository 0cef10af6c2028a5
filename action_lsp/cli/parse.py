"""``action-lsp parse``: list the actions of a transcript in document order."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..dialects import file_view
from ..document import analyze
from ..model import Action
from ..text import LineIndex
from .common import add_dialect_option, declare_dialects, read_transcript, selected_dialects


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "parse",
        help="list the actions found, in document order",
        description="List the actions of a transcript in document order. Numbers are the ones "
        "`action-lsp apply --select` takes.",
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_dialect_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    declare_dialects(Path(args.path))
    text = read_transcript(Path(args.path))
    analysis = analyze(text, selected_dialects(args.dialect))
    lines = LineIndex(text)
    if args.format == "json":
        json.dump({"actions": [_json(a, lines) for a in analysis.actions]}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0
    width = len(str(len(analysis.actions)))
    for n, a in enumerate(analysis.actions, 1):
        p = lines.position(a.span.start, "utf-32")
        print(f"{n:>{width}}. {args.path}:{p.line + 1}:{p.character + 1}  {a.dialect:<12} {_describe(a)}")
    noun = "action" if len(analysis.actions) == 1 else "actions"
    print(f"{len(analysis.actions)} {noun}.")
    return 0


def _describe(a: Action) -> str:
    title = a.title
    size = ""
    content = a.text("content")
    if content is not None and a.kind.is_file_action:
        n = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        size = f" ({n} line{'s' if n != 1 else ''})"
    if a.edits:
        size = f" ({len(a.edits)} edit{'s' if len(a.edits) != 1 else ''})"
    return title + size


def _json(a: Action, lines: LineIndex) -> dict[str, Any]:
    r = lines.range(a.span, "utf-16")
    return {
        "dialect": a.dialect,
        "type": a.type,
        "kind": a.kind.value,
        "range": {
            "start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character},
        },
        "fields": {name: f.value for name, f in a.fields.items()},
        **({"file": view.to_json()} if (view := file_view(a)) is not None else {}),
    }
