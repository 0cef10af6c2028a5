"""``action-lsp check``: lint transcripts, like a compiler or ruff would."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

from ..batch import check_files
from ..batch import check_text as batch_check_text
from ..model import Diagnostic, Severity
from ..text import LineIndex
from .common import (
    CliError,
    add_dialect_option,
    declare_dialects,
    effective_severity,
    expand,
    parse_severity_overrides,
    read_transcript,
    selected_dialects,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="lint transcripts",
        description="Lint transcripts: every action is parsed and checked. A directory is walked "
        "for transcript files. Text output is PATH:LINE:COL: SEVERITY: MESSAGE [CODE] with "
        "1-based lines and columns (columns count characters).",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--root", metavar="DIR", help="workspace root: also check targets, search text, overwrites and symlinks")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_dialect_option(p)
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, off); repeatable",
    )
    p.add_argument(
        "--force", action="store_true",
        help="with --root: check as `apply --force` would apply (creates may overwrite, "
        "transcript errors and new syntax errors do not block)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="check files in N processes (default: every CPU); output order stays the same",
    )
    p.set_defaults(run=run)


def check_text(
    text: str,
    dialects: list[str] | None,
    root: Path | None,
    allow_overwrite: bool = False,
) -> list[Diagnostic]:
    """All diagnostics for one transcript (see :func:`action_lsp.batch.check_text`)."""
    return batch_check_text(text, dialects, root, allow_overwrite)


def _read(declare: bool, path: Path) -> str:
    if declare:
        declare_dialects(Path(path))
    return read_transcript(path)


def run(args: argparse.Namespace) -> int:
    overrides = parse_severity_overrides(args.severity)
    root = Path(args.root) if args.root else None
    if root is not None and not root.is_dir():
        raise CliError(f"--root {args.root}: not a directory")
    declare_dialects(Path(args.paths[0]), root)
    dialects = selected_dialects(args.dialect)
    files = list(expand(args.paths))
    counts = {s: 0 for s in Severity}
    report: list[dict[str, Any]] = []
    unreadable: list[str] = []
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs: must be at least 1")
    # Each transcript's own project declares its dialects (in the worker that checks it).
    read = functools.partial(_read, root is None and len(files) > 1)
    for checked in check_files(files, read, jobs=args.jobs, dialects=dialects, root=root, allow_overwrite=args.force):
        path, text = checked.path, checked.text
        if text is None:
            unreadable.append(str(checked.error))
            print(f"action-lsp check: {checked.error}", file=sys.stderr)
            continue
        lines = LineIndex(text)
        entries = []
        for d in checked.diagnostics:
            severity = effective_severity(d, overrides)
            if severity is None:
                continue
            counts[severity] += 1
            entries.append((d, severity))
        if args.format == "text":
            for d, severity in entries:
                p = lines.position(d.span.start, "utf-32")
                print(f"{path}:{p.line + 1}:{p.character + 1}: {severity.label}: {d.message} [{d.code}]")
        else:
            report.append(
                {
                    "path": str(path),
                    "diagnostics": [_json_diagnostic(d, severity, lines) for d, severity in entries],
                }
            )
    if args.format == "json":
        json.dump({"files": report}, sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
    elif len(files) > len(unreadable):
        print(_summary(counts, len(files) - len(unreadable)))
    if unreadable:
        return 2
    return 1 if counts[Severity.ERROR] else 0


def _json_diagnostic(d: Diagnostic, severity: Severity, lines: LineIndex) -> dict[str, Any]:
    r = lines.range(d.span, "utf-16")
    out: dict[str, Any] = {
        "code": d.code,
        "severity": severity.label,
        "message": d.message,
        "range": {
            "start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character},
        },
    }
    if d.fixes:
        out["fixes"] = [
            {
                "title": f.title,
                "preferred": f.preferred,
                "edits": [
                    {"range": _range(lines, e.span), "newText": e.new_text} for e in f.edits
                ],
            }
            for f in d.fixes
        ]
    return out


def _range(lines: LineIndex, span: Any) -> dict[str, Any]:
    r = lines.range(span, "utf-16")
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _summary(counts: dict[Severity, int], files: int) -> str:
    total = sum(counts.values())
    noun = "file" if files == 1 else "files"
    if not total:
        return f"No problems in {files} {noun}."
    parts = [f"{counts[s]} {s.label}{'' if counts[s] == 1 else 's'}" for s in Severity if counts[s]]
    parts = [p.replace("informations", "information").replace("errors", "errors") for p in parts]
    return f"Found {', '.join(parts)} in {files} {noun}."
