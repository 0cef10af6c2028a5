"""``action-lsp parse``: list the actions of a transcript in document order."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    add_color_option,
    add_dialect_option,
    add_stdin_filename_option,
    declare_dialects,
    display_name,
    read_transcript,
    selected_dialects,
)

if TYPE_CHECKING:
    from ..model import Action
    from ..stream import TextPositions


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "parse",
        help="list the actions found, in document order",
        description="List the actions of a transcript in document order (`-` reads standard "
        "input). Numbers are the ones `action-lsp apply --select` takes.",
    )
    p.add_argument("path", metavar="PATH")
    p.add_argument("--output-format", "--format", dest="format", choices=("text", "json"), default="text")
    add_dialect_option(p)
    add_stdin_filename_option(p)
    add_color_option(p)
    p.set_defaults(run=run)
    return p


def run(args: argparse.Namespace) -> int:
    from ..dialects import NAMES
    from ..document import analyze
    from ..stream import TextPositions
    from .output import Style, clean, dumps, use_color

    path = Path(args.path)
    name = display_name(path, args.stdin_filename)
    declare_dialects(path)
    text = read_transcript(path)
    dialects = selected_dialects(args.dialect)
    analysis = analyze(text, dialects)
    lines = TextPositions(text)  # (no table of every line: a session of blank lines has millions)
    if args.format == "json":
        sys.stdout.write(dumps({"actions": [_json(a, lines) for a in analysis.actions]}) + "\n")
        return 0
    style = Style(use_color(args.color, sys.stdout))
    if not analysis.actions:
        looked = ", ".join(dialects or NAMES)
        print(f"{clean(name)}: no actions found (dialects: {looked}).")
        return 0
    width = len(str(len(analysis.actions)))
    for n, a in enumerate(analysis.actions, 1):
        p = lines.position(a.span.start, "utf-32")
        where = f"{clean(name)}:{p.line + 1}:{p.character + 1}"
        print(
            f"{style('bold', f'{n:>{width}}.')} {where}  {style('cyan', f'{a.dialect:<12}')} "
            f"{clean(_describe(a))}"
        )
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


def _json(a: Action, lines: TextPositions) -> dict[str, Any]:
    from ..dialects import file_view

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
