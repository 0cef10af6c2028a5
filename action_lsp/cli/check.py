"""``action-lsp check``: lint transcripts, like a compiler or ruff would."""

from __future__ import annotations

import argparse
import io
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    STDIN,
    CliError,
    Exclude,
    add_color_option,
    add_dialect_option,
    add_stdin_filename_option,
    configuration_of,
    display_name,
    effective_severity,
    expand,
    find_workspace,
    parse_severity_overrides,
    patterns,
    read_transcript,
    selected_dialects,
    transcript_pieces,
)

if TYPE_CHECKING:
    from ..model import Diagnostic, Severity
    from ..project_config import ProjectConfig
    from ..project_root import Root
    from ..stream import TextPositions
    from ..text import LineIndex
    from .output import Style

    Lines = LineIndex | TextPositions

FORMATS = ("text", "full", "concise", "json", "github", "sarif")


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "check",
        help="lint transcripts",
        description="Lint transcripts: every action is parsed and checked. A directory is walked "
        "for transcript files; `-` reads standard input. Text output is "
        "PATH:LINE:COL: SEVERITY: MESSAGE [CODE] with 1-based lines and columns (columns count "
        "characters); on a terminal each diagnostic also shows its source line.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--root",
        metavar="DIR",
        help="workspace root of every transcript (default: each one's own, found as `apply` finds "
        "it); the workspace checks (targets, search text, overwrites, symlinks) run against it",
    )
    p.add_argument(
        "--no-workspace",
        action="store_true",
        help="check the transcripts only: no workspace checks, whatever root is found",
    )
    p.add_argument(
        "--output-format",
        "--format",
        dest="format",
        choices=FORMATS,
        default="text",
        help="text (the default: full on a terminal, concise otherwise), full (with source "
        "excerpts), concise (one line per diagnostic), json, github (workflow annotations), "
        "sarif (SARIF 2.1.0)",
    )
    p.add_argument(
        "--statistics",
        action="store_true",
        help="print the number of diagnostics per code instead of the diagnostics",
    )
    add_dialect_option(p)
    p.add_argument(
        "--exclude",
        action="append",
        metavar="GLOB",
        help="skip these files and directories in a directory walk instead of the default ones "
        "(.git, node_modules, virtualenvs, ...); repeat or comma-separate; the configuration's "
        "`exclude` is the same",
    )
    p.add_argument(
        "--extend-exclude",
        action="append",
        metavar="GLOB",
        help="skip these too (e.g. docs,site/_posts); a GLOB without / matches a name anywhere, "
        "one with / a path from the current directory",
    )
    p.add_argument(
        "--severity",
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="override a code's severity (error, warning, information, hint, off); repeatable",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="with the workspace checks: check as `apply --force` would apply (creates may overwrite, "
        "transcript errors and new syntax errors do not block)",
    )
    add_stdin_filename_option(p)
    add_color_option(p)
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="check files in N processes (default: every CPU); output order stays the same",
    )
    p.set_defaults(run=run)
    return p


def check_text(
    text: str,
    dialects: list[str] | None,
    root: Path | None,
    allow_overwrite: bool = False,
    path: Path | None = None,
) -> list[Diagnostic]:
    """All diagnostics for one transcript (see :func:`action_lsp.batch.check_text`)."""
    from ..batch import check_text as batch_check_text

    return batch_check_text(text, dialects, root, allow_overwrite, path=path)


# A file larger than this is read in pieces: a JSON Lines session is then checked a window at
# a time (see action_lsp.stream), without its bytes and text in memory at once.
STREAM_FROM = 1 << 22


@dataclass(slots=True)
class _Options:
    """What checking and reporting one file needs (sent to worker processes)."""

    fmt: str  # full, concise, github, json, sarif; or "statistics" (counts only)
    overrides: dict[str, Severity | None]
    color: bool
    stdin_filename: str | None
    dialects: list[str] | None
    force: bool


@dataclass(frozen=True, slots=True)
class _Job:
    """One transcript, the root its workspace checks run against (None: none) and the
    configuration file its root declares dialects in (None: none)."""

    path: Path
    root: Path | None
    config: Path | None


@dataclass(slots=True)
class _Tally:
    counts: Counter[Severity] = field(default_factory=Counter)
    per_code: Counter[tuple[str, Severity]] = field(default_factory=Counter)  # as reported


_UNSET = Path("\0unset")  # no configuration installed by this check yet
_installed: list[Path | None] = [_UNSET]  # the configuration in use in this process
_loaded: dict[Path, ProjectConfig] = {}  # each configuration this check has read, by its file


def _load(config: Path) -> ProjectConfig:
    """``config`` as this check read it: read once for the walk's globs, the files' dialects and
    the dialects installed (a wrong one stops the check, exit 2)."""
    from ..project_config import ConfigError, load

    found = _loaded.get(config)
    if found is None:
        try:
            found = _loaded[config] = load(config)
        except ConfigError as exc:
            raise CliError(str(exc)) from None
    return found


def _placed(job: _Job, opts: _Options) -> Iterator[tuple[Diagnostic, Lines]]:
    """The diagnostics of one file in order, each with positions to place it. Reading happens
    here (raising :class:`CliError` for a file that cannot be checked); the check itself as the
    result is iterated, without keeping the transcript's actions unless a root plans them."""
    from ..project_config import ProjectConfig, install
    from ..stream import TextPositions, placed_pieces, placed_text

    path = job.path
    if job.config != _installed[0]:
        install(_load(job.config) if job.config is not None else ProjectConfig(None))
        _installed[0] = job.config
    if job.root is not None:  # the workspace checks plan every action: the whole analysis
        text = read_transcript(path)
        found = check_text(text, opts.dialects, job.root, opts.force,
                           None if str(path) == STDIN else path)
        positions = TextPositions(text)
        return ((d, positions) for d in found)
    if str(path) != STDIN and _size(path) > STREAM_FROM:
        return placed_pieces(transcript_pieces(path), opts.dialects, whole=lambda: read_transcript(path))
    return placed_text(read_transcript(path), opts.dialects)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0  # read_transcript says why


def _items(placed: Iterable[tuple[Diagnostic, Lines]], name: str, opts: _Options, tally: _Tally) -> Iterator[Any]:
    """One file's report, a diagnostic at a time: text to write (full, concise, github) or the
    JSON object of each diagnostic (json, sarif); counted in ``tally``."""
    from .output import Style

    style = Style(opts.color)
    fmt = opts.fmt
    for d, lines in placed:
        severity = effective_severity(d, opts.overrides)
        if severity is None:
            continue
        tally.counts[severity] += 1
        tally.per_code[d.code, severity] += 1
        if fmt in ("full", "concise", "github"):
            buf = io.StringIO()
            if fmt == "github":
                _print_github(buf, name, lines, d, severity)
            else:
                _print_text(buf, name, lines, d, severity, style, excerpt=fmt == "full")
            yield buf.getvalue()
        elif fmt in ("json", "sarif"):
            yield _json_diagnostic(d, severity, lines)


def _check_file(work: tuple[_Job, _Options]) -> tuple[str | None, list[Any], _Tally]:
    """In a worker process: one file's report, whole."""
    job, opts = work
    tally = _Tally()
    try:
        placed = _placed(job, opts)
    except Exception as exc:  # the reader's own message (missing, binary, not UTF-8, ...)
        return str(exc), [], tally
    return None, list(_items(placed, display_name(job.path, opts.stdin_filename), opts, tally)), tally


def _reports(files: list[_Job], opts: _Options, jobs: int | None) -> Iterator[tuple[Path, str | None, Iterable[Any], _Tally]]:
    """Each file's report in the order of ``files``: checked here as a stream (each item made
    when the caller takes it), or in worker processes (``jobs``), several files per task."""
    from ..batch import default_jobs

    workers = min(jobs or default_jobs(), len(files))
    if workers <= 1:
        for job in files:
            tally = _Tally()
            try:
                placed = _placed(job, opts)
            except Exception as exc:
                yield job.path, str(exc), (), tally
                continue
            yield job.path, None, _items(placed, display_name(job.path, opts.stdin_filename), opts, tally), tally
        return
    from concurrent.futures import ProcessPoolExecutor

    chunk = max(1, min(16, len(files) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for job, (error, items, tally) in zip(
            files, pool.map(_check_file, [(j, opts) for j in files], chunksize=chunk), strict=True
        ):
            yield job.path, error, items, tally


def run(args: argparse.Namespace) -> int:
    from ..model import Severity
    from .output import Style, dumps, use_color

    overrides = parse_severity_overrides(args.severity)
    if sum(1 for p in args.paths if p == "-") > 1:
        raise CliError("`-` (standard input) can be given once")
    _loaded.clear()  # (an earlier call in this process may have read the files before a change)
    given = find_workspace(Path(args.paths[0]), args.root) if args.root else None
    workspace = not args.no_workspace
    found = list(expand(args.paths, _exclude(args, _first_config(args.paths[0], given))))
    files, declared, said = _jobs([f for f in found if isinstance(f, Path)], given, workspace)
    dialects = selected_dialects(args.dialect, declared)
    out = sys.stdout
    style = Style(use_color(args.color, out))
    fmt = args.format
    if fmt == "text":
        fmt = "full" if out.isatty() else "concise"
    if args.jobs is not None and args.jobs < 1:
        raise CliError("--jobs: must be at least 1")
    opts = _Options(
        "statistics" if args.statistics else fmt, overrides, style.enabled, args.stdin_filename,
        dialects, args.force,
    )
    counts = {s: 0 for s in Severity}
    per_code: Counter[tuple[str, Severity]] = Counter()
    report: list[dict[str, Any]] = []  # sarif: every file's diagnostics, for the rules list
    rootless: list[str] = []  # checked without a workspace root: said once, at the end
    _installed[0] = _UNSET  # (an earlier call in this process may have installed another)
    for line in said:
        print(_clean(line), file=sys.stderr)
    unreadable = [str(f) for f in found if isinstance(f, CliError)]
    for problem in unreadable:  # a missing path: one line, and the others are still checked
        print(f"action-lsp check: {_clean(problem)}", file=sys.stderr)
    # Standard input can only be read here.
    jobs = 1 if any(str(j.path) == "-" for j in files) else args.jobs
    streaming_json = fmt == "json" and not args.statistics
    if streaming_json:  # {"files": [...]} written file by file, as dumps would write it whole
        out.write('{"files": [')
    first = True
    for job, (path, error, items, tally) in zip(files, _reports(files, opts, jobs), strict=True):
        name = display_name(path, args.stdin_filename)
        if error is not None:
            unreadable.append(error)
            print(f"action-lsp check: {_clean(error)}", file=sys.stderr)
            continue
        if workspace and job.root is None:
            rootless.append(name)
        if args.statistics:
            for _ in items:
                pass
        elif streaming_json:
            out.write(("" if first else ", ") + '{"path": ' + dumps(name) + ', "diagnostics": [')
            sep = ""
            for item in items:
                out.write(sep + dumps(item))
                sep = ", "
            out.write("]}")
            first = False
        elif fmt == "sarif":
            report.append({"path": name, "diagnostics": list(items)})
        else:
            for item in items:
                out.write(item)
        for s, n in tally.counts.items():
            counts[s] += n
        per_code.update(tally.per_code)
    n_checked = len(found) - len(unreadable)
    if args.statistics:
        _print_statistics(out, per_code, style, json_out=fmt in ("json", "sarif"))
    elif fmt == "json":
        out.write("]}\n")
    elif fmt == "sarif":
        from .. import __version__
        from .output import sarif_log

        out.write(dumps(sarif_log(report, __version__)) + "\n")
    elif fmt == "full" and n_checked:
        if per_code:
            _print_per_code(out, per_code, style)
        print(_summary(counts, n_checked, style), file=out)
    elif fmt == "concise" and n_checked:
        print(_summary(counts, n_checked, Style(False)), file=out)
    if rootless:
        print(_clean(_skipped(rootless)), file=sys.stderr)
    if unreadable:
        return 2
    return 1 if counts[Severity.ERROR] else 0


def _jobs(files: list[Path], given: Root | None, workspace: bool) -> tuple[list[_Job], list[str], list[str]]:
    """Each file with its root and configuration; the names of every dialect they declare; and
    the lines that name each root and each configuration once (in the order files use them).
    A wrong configuration stops the check (exit 2)."""
    from ..project_root import RootFinder

    finder = RootFinder()
    jobs: list[_Job] = []
    configs: dict[Path, Path | None] = {}
    loaded: set[Path] = set()
    declared: list[str] = []
    lines: list[str] = []
    for path in files:
        root = given or (finder.find(Path.cwd()) if str(path) == STDIN else finder.find_for_file(path))
        if root is None:
            jobs.append(_Job(path, None, None))
            continue
        if root.path not in configs:
            config = configs[root.path] = configuration_of(root.path)
            if workspace and root.marker != "--root":
                lines.append(f"workspace root: {root.describe()}")
            if config is not None and config not in loaded:
                loaded.add(config)
                declared += [d.name for d in _load(config).dialects]
                lines.append(f"configuration: {config}")
        jobs.append(_Job(path, root.path if workspace else None, configs[root.path]))
    return jobs, declared, lines


def _skipped(rootless: list[str]) -> str:
    """The line saying that transcripts with no root got no workspace checks."""
    from ..project_root import MARKERS

    markers = f"no {', '.join(MARKERS[:-1])} or {MARKERS[-1]}"
    if len(rootless) == 1:
        return f"workspace checks skipped: no workspace root above {rootless[0]} ({markers}); --root DIR sets one"
    return (
        f"workspace checks skipped for {len(rootless)} files: no workspace root above them "
        f"({markers}); --root DIR sets one"
    )


def _exclude(args: argparse.Namespace, config: ProjectConfig) -> Exclude:
    """The command line's globs (relative to the current directory) over the configuration's
    (relative to its file's directory), as ruff combines them."""
    base = str(config.path.parent) if config.path is not None else ""
    exclude = patterns(args.exclude)
    if exclude is None and config.exclude is not None:
        exclude = patterns(config.exclude, base)
    extend = (*(patterns(config.extend_exclude, base) or ()), *(patterns(args.extend_exclude) or ()))
    return Exclude.of(exclude, extend)


def _first_config(first: str, given: Root | None) -> ProjectConfig:
    """The configuration whose ``exclude`` globs the walk uses: that of the first path's root."""
    from ..project_config import ProjectConfig

    root = given or find_workspace(Path(first))
    config = configuration_of(root.path if root is not None else None)
    return _load(config) if config is not None else ProjectConfig(None)


def _clean(text: str) -> str:
    from .output import clean

    return clean(text)


def _print_text(
    out: Any, name: str, lines: Lines, d: Diagnostic, severity: Severity, style: Style, excerpt: bool
) -> None:
    from .output import clean
    from .output import excerpt as source_excerpt

    start = lines.position(d.span.start, "utf-32")
    label = severity.label
    head = (
        f"{style('bold', clean(name))}:{start.line + 1}:{start.character + 1}: "
        f"{style.severity(label)}: {clean(d.message)} {style('dim', f'[{d.code}]')}"
    )
    print(head, file=out)
    if not excerpt:
        return
    end = lines.position(d.span.end, "utf-32")
    line = lines.line_text(start.line)
    stop = end.character if end.line == start.line else len(line)
    for row in source_excerpt(start.line + 1, line, start.character, stop, style, label):
        print(row, file=out)
    if end.line > start.line:
        print(f"{' ' * len(str(start.line + 1))} {style('blue', '=')} to line {end.line + 1}", file=out)
    print(file=out)


def _print_github(out: Any, name: str, lines: Lines, d: Diagnostic, severity: Severity) -> None:
    from .output import github_annotation

    start = lines.position(d.span.start, "utf-32")
    end = lines.position(d.span.end, "utf-32")
    print(
        github_annotation(
            severity.label,
            name,
            (start.line + 1, start.character + 1),
            (end.line + 1, end.character + 1),
            d.code,
            f"{d.message} [{d.code}]",
        ),
        file=out,
    )


def _rows(per_code: Counter[tuple[str, Severity]]) -> list[tuple[str, str, int]]:
    """(code, severity label, count) per code and severity reported, the most frequent first:
    a code reported at two severities (a default and a dialect's own) has a row for each."""
    ordered = sorted(per_code.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1]))
    return [(code, severity.label, n) for (code, severity), n in ordered]


def _print_per_code(out: Any, per_code: Counter[tuple[str, Severity]], style: Style) -> None:
    rows = _rows(per_code)
    width = len(str(max(n for _, _, n in rows)))
    code_width = max(len(c) for c, _, _ in rows)
    for code, label, n in rows:
        print(f"{n:>{width}} × {style('bold', f'{code:<{code_width}}')}  {style.severity(label)}", file=out)


def _print_statistics(out: Any, per_code: Counter[tuple[str, Severity]], style: Style, json_out: bool) -> None:
    """Like ``ruff --statistics``: one line per code (and severity) with a diagnostic, counted
    at the severity each was reported with (after ``--severity``)."""
    from ..codes import CODES

    rows = _rows(per_code)
    if json_out:
        from .output import dumps

        data = [
            {"code": code, "count": n, "severity": label, "summary": CODES[code].summary if code in CODES else ""}
            for code, label, n in rows
        ]
        out.write(dumps(data) + "\n")
        return
    if not rows:
        return
    width = len(str(max(n for _, _, n in rows)))
    code_width = max(len(c) for c, _, _ in rows)
    sev_width = max(len(label) for _, label, _ in rows)
    for code, label, n in rows:
        summary = CODES[code].summary if code in CODES else ""
        print(
            f"{n:>{width}}  {style('bold', f'{code:<{code_width}}')}  "
            f"{style.severity(label, f'{label:<{sev_width}}')}  {summary}",
            file=out,
        )


def _json_diagnostic(d: Diagnostic, severity: Severity, lines: Lines) -> dict[str, Any]:
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


def _range(lines: Lines, span: Any) -> dict[str, Any]:
    r = lines.range(span, "utf-16")
    return {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }


def _summary(counts: dict[Severity, int], files: int, style: Style) -> str:
    from ..model import Severity

    total = sum(counts.values())
    noun = "file" if files == 1 else "files"
    if not total:
        return style("green", f"No problems in {files} {noun}.")
    parts = [
        style.severity(s.label, f"{counts[s]} {s.label}{'' if counts[s] == 1 or s is Severity.INFORMATION else 's'}")
        for s in Severity
        if counts[s]
    ]
    return f"Found {', '.join(parts)} in {files} {noun}."
