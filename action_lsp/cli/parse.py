"""``action-lsp parse``: list the actions of a transcript in document order."""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    STDIN,
    CliError,
    add_color_option,
    add_dialect_option,
    add_stdin_filename_option,
    configuration_of,
    declare_dialects,
    display_name,
    find_workspace,
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
        description="List the actions of transcripts in document order (`-` reads standard "
        "input), each named by what it does (create, write, modify, rename, delete, mkdir, read, "
        "command, code, other; failed: a call that failed in its agent session). Numbers are the "
        "ones `action-lsp apply --select` takes.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--root",
        metavar="DIR",
        help="workspace root, whose configuration declares dialects (default: the one found "
        "above each transcript, as `check` and `apply` find it)",
    )
    p.add_argument("--output-format", "--format", dest="format", choices=("text", "json"), default="text")
    add_dialect_option(p)
    add_stdin_filename_option(p)
    add_color_option(p)
    p.set_defaults(run=run)
    return p


@dataclass(slots=True)
class _Parsed:
    name: str
    actions: list[Action]
    lines: TextPositions
    shapes: dict[int, str]  # a chat answer's write: what it is to its file under --root


#: How ``parse`` names a chat answer's shape (see action_lsp.edit.lazymerge).
SHAPE_NAMES = {"whole": "whole file", "lazy": "lazy snippet", "fragment": "fragment"}


def shapes_of(actions: list[Action], root: Path) -> dict[int, str]:
    """For each chat answer's write (``EditRules.snippet``) of a file that exists under
    ``root``: whether its content is the whole file, a lazy snippet or a fragment of it."""
    from ..dialects import file_view
    from ..edit.lazymerge import classify
    from ..edit.workspace import FileText, Target, Workspace

    ws: Workspace | None = None
    out: dict[int, str] = {}
    for index, action in enumerate(actions):
        view = file_view(action) if action.kind.is_file_action else None
        if (view is None or view.op != "write" or not view.rules.snippet
                or view.content is None or not isinstance(view.content.value, str)):
            continue
        ws = ws or Workspace(root)
        target = ws.resolve(str(view.path.value))
        if not isinstance(target, Target) or not target.path.is_file():
            continue
        found = ws.read(target.path)
        if isinstance(found, FileText) and found.text is not None:
            out[index] = classify(found.text, view.content.value, target.rel)
    return out


def run(args: argparse.Namespace) -> int:
    from ..dialects import DialectSet
    from ..document import analyze
    from ..stream import TextPositions
    from .output import Style, clean, dumps, use_color

    if sum(1 for p in args.paths if p == STDIN) > 1:
        raise CliError("`-` (standard input) can be given once")
    dialects: list[str] | None = None
    parsed: list[_Parsed] = []
    status = 0
    named: set[Path] = set()  # configurations already named on stderr (once each)
    for raw in args.paths:
        path = Path(raw)
        try:
            root = find_workspace(path, args.root)
            config = configuration_of(root.path if root is not None else None)
            declare_dialects(config, say=config not in named)
            if config is not None:
                named.add(config)
            text = read_transcript(path)
            dialects = selected_dialects(args.dialect)
        except CliError as exc:
            if len(args.paths) == 1:
                raise
            print(f"action-lsp parse: {clean(str(exc))}", file=sys.stderr)  # and the others
            status = 2
            continue
        analysis = analyze(text, dialects)
        shapes = shapes_of(analysis.actions, Path(args.root)) if args.root else {}
        parsed.append(_Parsed(display_name(path, args.stdin_filename), analysis.actions,
                              TextPositions(text), shapes))  # (no table of every line)
    if args.format == "json":
        if len(args.paths) == 1:
            data: dict[str, Any] = {"actions": [_json(a, f.lines, f.shapes.get(n))
                                                for f in parsed for n, a in enumerate(f.actions)]}
        else:
            data = {"files": [{"path": f.name, "actions": [_json(a, f.lines, f.shapes.get(n))
                                                           for n, a in enumerate(f.actions)]}
                              for f in parsed]}
        sys.stdout.write(dumps(data) + "\n")
        return status
    style = Style(use_color(args.color, sys.stdout))
    rows = [
        (f, n, a, f"{clean(f.name)}:{p.line + 1}:{p.character + 1}",
         _kind(a) + (f" ({SHAPE_NAMES[f.shapes[n - 1]]})" if n - 1 in f.shapes else ""))
        for f in parsed
        for n, a in enumerate(f.actions, 1)
        for p in (f.lines.position(a.span.start, "utf-32"),)
    ]
    if rows:
        width = max(len(str(n)) for _, n, _, _, _ in rows)
        where_w = max(len(w) for _, _, _, w, _ in rows)
        dialect_w = max(len(a.dialect) for _, _, a, _, _ in rows)
        kind_w = max(len(k) for _, _, _, _, k in rows)
    rows_at = iter(rows)  # in file order
    for f in parsed:
        if not f.actions:
            looked = ", ".join(dialects or (d.name for d in DialectSet().dialects))  # those in effect
            print(f"{clean(f.name)}: no actions found (dialects: {looked}).")
            continue
        for _f, n, a, where, kind in itertools.islice(rows_at, len(f.actions)):
            shown = style("red", f"{kind:<{kind_w}}") if a.failure is not None else style("cyan", f"{kind:<{kind_w}}")
            print(
                f"{style('bold', f'{n:>{width}}.')} {where:<{where_w}}  {a.dialect:<{dialect_w}}  "
                f"{shown}  {clean(_describe(a))}"
            )
    total = len(rows)
    if total or len(parsed) > 1:
        noun = "action" if total == 1 else "actions"
        files = f" in {len(parsed)} files" if len(parsed) > 1 else ""
        print(f"{total} {noun}{files}.")
    return status


def _kind(a: Action) -> str:
    """What an action does, in one word: the op of its file view (an empty search on a new
    file creates it, where its agent means that: Aider's, not Codex's), else its kind;
    ``failed`` for a failed call."""
    from ..dialects import file_view
    from ..model import ActionKind

    if a.failure is not None:
        return "failed"
    view = file_view(a)
    if view is not None:
        if view.op == "modify" and view.rules.on_missing == "create" and view.edits and all(
            not e.search.value.strip() and e.line is None for e in view.edits
        ):
            return "create"
        return view.op
    names = {ActionKind.READ_FILE: "read", ActionKind.COMMAND: "command", ActionKind.CODE: "code",
             # an edit shown without what applying it needs (no edit, no file): shown-only
             ActionKind.MODIFY_FILE: "modify", ActionKind.CREATE_FILE: "create", ActionKind.WRITE_FILE: "write"}
    return names.get(a.kind, "other")


def _describe(a: Action) -> str:
    title = a.title
    size = ""
    content = a.text("content")
    if content is not None and a.kind.is_file_action:
        n = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        size = f" ({n} line{'s' if n != 1 else ''})"
    if a.edits:
        size = f" ({len(a.edits)} edit{'s' if len(a.edits) != 1 else ''})"
    if a.failure is not None:
        said = (a.failure.strip().splitlines() or [""])[0][:200]
        size += f" (failed in the session{': ' + said if said else ''})"
    return title + size


def _json(a: Action, lines: TextPositions, shape: str | None = None) -> dict[str, Any]:
    from ..dialects import file_view

    r = lines.range(a.span, "utf-16")
    view = file_view(a)
    file = {**view.to_json(), **({"shape": shape} if shape else {})} if view is not None else None
    return {
        "dialect": a.dialect,
        "type": a.type,
        "kind": a.kind.value,
        "range": {
            "start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character},
        },
        "fields": {name: f.value for name, f in a.fields.items()},
        **({"file": file} if file is not None else {}),
        **({"failed": a.failure} if a.failure is not None else {}),
    }
