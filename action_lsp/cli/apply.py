"""``action-lsp apply``: apply the file actions of a transcript to a directory tree.

``--dry-run`` (the default) prints one unified diff and changes nothing; ``--write`` writes all
the changes or none. Problems go to stderr as ``TRANSCRIPT:LINE:COL: SEVERITY: MESSAGE [CODE]``;
actions that are not file actions are listed as skipped (nothing is ever executed). Exit codes:
0 applied (or would apply), 1 a selected file action cannot be applied, 2 usage or read error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    CliError,
    add_color_option,
    add_stdin_filename_option,
    configuration_of,
    declare_dialects,
    display_name,
    read_transcript,
)

if TYPE_CHECKING:
    from ..edit.plan import ActionOutcome, Plan
    from ..model import Action, Diagnostic
    from .output import Style


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "apply",
        help="apply the file actions of a transcript (dry run by default)",
        description="Apply the file actions of a transcript (create, write, modify, rename or "
        "delete a file, create a directory) to the tree under --root; `-` reads the transcript "
        "from standard input. Without --write, print the unified diff only. Other actions (tasks, commands, "
        "code) are listed as skipped: nothing is ever run.",
    )
    p.add_argument("transcript", metavar="TRANSCRIPT")
    p.add_argument(
        "--root",
        metavar="DIR",
        help="workspace root (default: the nearest directory above the transcript holding "
        "`.action-lsp`, `.action-lsp.toml`, a pyproject.toml with [tool.action-lsp], `.git`, "
        "`.hg` or `.jj`, else the current directory); its configuration declares dialects",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="print the diff only (default)")
    mode.add_argument("--write", action="store_true", help="write the changes, all or none")
    p.add_argument(
        "--select", metavar="N[,N...]", action="append",
        help="only these actions (1-based numbers, as `action-lsp parse` prints them)",
    )
    p.add_argument(
        "--force", action="store_true",
        help="apply despite the transcript's own errors and new syntax errors, let create "
        "actions overwrite existing files, and write read-only files",
    )
    p.add_argument(
        "--allow-code-paths", action="store_true",
        help="also write files that make a tool run code by itself (.vscode/, .envrc, "
        ".husky/, .github/workflows/, shell start-up files, ...: the runs-code finding); "
        "--force does not. Nothing ever writes inside .git, .hg, .svn, .jj or the journal",
    )
    p.add_argument(
        "--accept-fuzzy", action="store_true",
        help="also apply search blocks found only at a place whose content differs (a "
        "same-named definition, a fuzzy match); with --select, only those actions",
    )
    p.add_argument(
        "--accept-candidate", metavar="N[.E]=LINE", action="append", default=[],
        help="apply search block E (default 1) of action N at the candidate place starting at "
        "LINE (one of the places a search-ambiguous or search-not-found message lists)",
    )
    p.add_argument(
        "--accept-merge", metavar="N[,N...]", action="append",
        help="write the proposed merge of these chat answers (lazy snippets or fragments "
        "whose merge is not certain: the lazy-ambiguous finding) as the dry run shows it; "
        "a merge that would drop or double a definition is never written",
    )
    add_stdin_filename_option(p)
    add_color_option(p)
    p.set_defaults(run=run)
    return p


def parse_select(values: Sequence[str] | None, count: int) -> set[int] | None:
    """0-based indices of the selected actions (``values`` hold 1-based numbers)."""
    if not values:
        return None
    chosen: set[int] = set()
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            lo, dash, hi = part.partition("-")
            try:
                first, last = (int(lo), int(hi)) if dash else (int(part), int(part))
            except ValueError:
                raise CliError(f"--select {part!r}: expected action numbers like 1,3 or 2-4") from None
            for n in range(first, last + 1):
                if not 1 <= n <= count:
                    raise CliError(
                        f"--select {n}: the transcript has {_actions(count)}, numbered 1 to "
                        f"{count} (see `action-lsp parse`)"
                    )
                chosen.add(n - 1)
    return chosen


def _actions(n: int) -> str:
    return f"{n} action" if n == 1 else f"{n} actions"


def _the_others(plan: Plan, replan: Callable[[set[int]], Plan], actions: Sequence[Action]) -> str:
    """How to write the actions that can be applied, when others cannot (a write is all or
    none): "; a write is all or none, so `--select 1,2` writes the 2 others". Planned again with only those: an action
    planned after a failed one may have counted on it (the text a refused edit would have
    written), and the selection given must be one that applies. An action on a file after one
    that found the file elsewhere than the transcript left it (changed by hand since) is never
    suggested: its search text may be there only because the hand edit removed what an
    earlier action wrote, and applying it would put that back (docs/edit-engine.md)."""
    from ..edit.plan import DIVERGED

    left: dict[str, int] = {}  # the first action per file that found it elsewhere
    for o in plan.outcomes:
        path = actions[o.action_index].path
        if (not o.ok and path is not None and path not in left
                and any(d.code in DIVERGED for d in o.diagnostics)):
            left[path] = o.action_index

    def after_left(i: int) -> bool:
        first = left.get(actions[i].path or "")
        return first is not None and i > first

    ok = {o.action_index for o in plan.outcomes
          if o.ok and not o.skipped and not o.applied and not after_left(o.action_index)}
    while ok:
        failed = {o.action_index for o in replan(ok).outcomes if not o.ok and not o.skipped}
        if not failed:
            break
        ok -= failed
    if not ok:
        return ""
    runs: list[str] = []
    for n in sorted(k + 1 for k in ok):
        if runs and n == int(runs[-1].rpartition("-")[2]) + 1:
            runs[-1] = f"{runs[-1].partition('-')[0]}-{n}"
        else:
            runs.append(str(n))
    others = "the other one" if len(ok) == 1 else f"the {len(ok)} others"
    return f"; a write is all or none, so `--select {','.join(runs)}` writes {others}"


def parse_candidates(values: Sequence[str], count: int) -> dict[tuple[int, int], int]:
    """``--accept-candidate N[.E]=LINE`` values as {(action index, edit index): line}."""
    chosen: dict[tuple[int, int], int] = {}
    for value in values:
        who, eq, line = value.partition("=")
        number, _, edit = who.partition(".")
        try:
            n, e, at = int(number), int(edit or "1"), int(line)
        except ValueError:
            raise CliError(
                f"--accept-candidate {value!r}: expected ACTION=LINE or ACTION.EDIT=LINE, "
                "e.g. 3=42 or 3.2=42"
            ) from None
        if not eq or not 1 <= n <= count or e < 1 or at < 1:
            raise CliError(
                f"--accept-candidate {value!r}: actions are numbered 1 to {count}, search "
                "blocks and lines from 1"
            )
        chosen[(n - 1, e - 1)] = at
    return chosen


def parse_transcript(text: str) -> tuple[list[Action], list[Diagnostic]]:
    """The actions of a transcript and its own diagnostics (a seam for tests)."""
    from ..document import analyze

    analysis = analyze(text)
    return list(analysis.actions), list(analysis.diagnostics)


def _default_root(transcript: Path) -> Path:
    """The workspace root the transcript sits in (said on stderr), else the current directory."""
    from .common import find_workspace
    from .output import clean

    found = find_workspace(transcript)
    if found is None:
        here = Path.cwd().resolve()
        if str(transcript) != "-" and transcript.resolve().parent != here:
            # (the transcript is elsewhere: its paths are not looked up beside it)
            print(
                f"workspace root: {clean(str(here))} (the current directory: no workspace root "
                "above the transcript; --root sets another)",
                file=sys.stderr,
            )
        return Path(".")
    if found.path != Path.cwd().resolve():
        print(f"workspace root: {clean(found.describe())}", file=sys.stderr)
    return found.path


def run(args: argparse.Namespace) -> int:
    from ..codes import default_severity
    from ..edit import Workspace, WriteError, plan_changes, unified_diff, write_plan
    from ..edit.journal import recover_messages
    from ..edit.plan import blocking_diagnostics
    from ..rules.paths import FirstAbsolute
    from ..stream import TextPositions
    from .output import Style, clean, use_color

    source = Path(args.transcript)
    path = clean(display_name(source, args.stdin_filename))
    text = read_transcript(source)
    root = Path(args.root) if args.root else _default_root(source)
    if not root.is_dir():
        raise CliError(f"--root {args.root}: not a directory")
    err = sys.stderr

    def waiting(why: str) -> None:
        print(f"{why}; Ctrl-C to stop", file=err, flush=True)

    # An apply interrupted earlier (killed, power loss) is finished or undone first.
    for message in recover_messages([root], on_wait=waiting):
        print(message, file=err)
    declare_dialects(configuration_of(root))
    actions, found = parse_transcript(text)
    if not actions:
        if _show_errors(path, text, found, ()):
            print(f"{path}: no actions found; nothing to apply: the transcript has the errors above.",
                  file=sys.stderr)
            return 1
        print(f"{path}: no actions found; nothing to apply.", file=sys.stderr)
        return 0
    only = parse_select(args.select, len(actions))
    choices = parse_candidates(args.accept_candidate, len(actions))
    merges = parse_select(args.accept_merge, len(actions)) or set()
    ws = Workspace(root, allow_overwrite=args.force,
                   transcript=None if str(source) == "-" else source)
    def planned(only: set[int] | None) -> Plan:
        return plan_changes(
            actions, ws, only=only, accept_fuzzy=args.accept_fuzzy, choices=choices,
            force=args.force, blockers=blocking_diagnostics(found),
            allow_code_paths=args.allow_code_paths, accept_merge=merges,
        )

    plan = planned(only)
    if only is not None:
        for outcome in plan.outcomes:
            _refuse_unselected_successor(outcome, only)
    lines = TextPositions(text)  # (no table of every line: a session of blank lines has millions)

    keep = FirstAbsolute().keep  # an absolute path once per place, as `check` reports them
    hidden = 0
    for outcome in plan.outcomes:
        action = actions[outcome.action_index]
        number = outcome.action_index + 1
        if outcome.skipped:
            if outcome.reason != "not selected":
                print(f"skipped action {number} ({clean(action.type)}): {clean(outcome.reason)}", file=err)
            continue
        for d in outcome.diagnostics:
            if not keep(d):
                hidden += 1
                continue
            pos = lines.position(d.span.start, "utf-32")
            severity = (d.severity or default_severity(d.code)).label
            print(
                f"{path}:{pos.line + 1}:{pos.character + 1}: {severity}: "
                f"action {number}: {clean(d.message)} [{d.code}]",
                file=err,
            )
        if outcome.blocked_by is not None:
            keep(outcome.blocked_by)  # (printed: the places it names are named above)
            pos = lines.position(outcome.blocked_by.span.start, "utf-32")
            print(
                f"{path}:{pos.line + 1}:{pos.character + 1}: error: action {number}: "
                f"{clean(outcome.reason)} [{outcome.blocked_by.code}]",
                file=err,
            )
        elif not outcome.ok and not outcome.diagnostics:
            print(f"{path}: action {number} ({clean(action.type)}): {clean(outcome.reason)}", file=err)
    if hidden:
        print(f"{path}: {_actions(hidden)} more with an absolute path under a place named above: "
              "not applied, not listed", file=err)

    if plan.changes:
        _show_loose_errors(path, text, found, actions)
    failed = plan.failed
    if not args.write:
        _print_diff(unified_diff(plan), Style(use_color(args.color, sys.stdout)))
        for change in plan.changes:
            if change.kind == "mkdir":
                print(f"would create directory {clean(change.rel)}/", file=err)
        if not plan.changes and not failed:
            if not _already_done(plan) and _show_errors(path, text, found, plan.outcomes):
                print(f"{path}: nothing to apply: the transcript has the errors above.", file=err)
                return 1
            print(f"{path}: no changes: no file actions to apply, or all already applied.", file=err)
        if failed:
            print(f"{_actions(len(failed))} cannot be applied{_the_others(plan, planned, actions)}.", file=err)
            return 1
        return 0

    if failed:
        print(f"nothing written: {_actions(len(failed))} cannot be applied{_the_others(plan, planned, actions)}.", file=err)
        return 1
    if not plan.changes and not _already_done(plan) and _show_errors(path, text, found, plan.outcomes):
        print(f"{path}: nothing to apply: the transcript has the errors above.", file=err)
        return 1
    try:
        warnings = write_plan(plan, root=ws.root, label=f"apply --write {path}",
                              on_wait=waiting)
    except WriteError as exc:
        said = "nothing written" if exc.settled else "write failed half-way"
        print(f"{said}: {clean(str(exc))}", file=err)
        return 1
    except OSError as exc:  # pragma: no cover - write_plan wraps these
        print(f"nothing written: {exc}", file=err)
        return 1
    for change in plan.changes:
        verb = {"create": "created", "modify": "modified", "mkdir": "created directory",
                "delete": "deleted"}[change.kind]
        print(f"{verb} {clean(change.rel)}", file=err)
    for warning in warnings:
        print(f"warning: {clean(warning)}", file=err)
    if not plan.changes:
        print("nothing to write.", file=err)
    return 0


def _show_loose_errors(path: str, text: str, found: Sequence[Diagnostic], actions: Sequence[Action]) -> None:
    """Name the transcript's error-severity findings that lie in no action (a patch too broken
    to be one) when the others are applied: the user learns that part of the transcript is
    not, instead of a silent success."""
    import bisect

    spans = sorted((a.span.start, max(a.span.end, a.span.start + 1)) for a in actions)
    starts = [a for a, _ in spans]
    reach: list[int] = []  # the furthest end of the actions starting up to each one
    for _, end in spans:
        reach.append(max(end, reach[-1]) if reach else end)

    def loose(d: Diagnostic) -> bool:
        k = bisect.bisect_right(starts, d.span.start) - 1
        return k < 0 or reach[k] <= d.span.start

    count = _print_errors(path, text, [d for d in found if loose(d)])
    if not count:
        return
    said = ("the transcript's error above made no action: nothing of it is applied" if count == 1
            else f"the transcript's {count} errors above made no action: nothing of them is applied")
    print(f"{path}: {said}.", file=sys.stderr)


def _refuse_unselected_successor(outcome: ActionOutcome, only: set[int]) -> None:
    """An action the user selected (``--select``) that is superseded by an action not selected
    (or by a change made since, outside the transcript) is refused, never a silent success: the file
    holds the later text, and writing the selected action over it would undo that. Selecting
    the later action too brings the file to it (docs/edit-engine.md, "A transcript is a
    timeline"). Said here, not in the plan: the server plans one action with the earlier ones
    to show its history, where "superseded" is the answer."""
    from ..model import Severity

    by = outcome.superseded_by
    if by is None or by in only:
        return
    note = outcome.diagnostics[-1]
    if by >= 0:
        why = (f"the file holds what action {by + 1} (not selected) wrote over this action's "
               f"result later in the transcript; select action {by + 1} to bring the file there")
    else:
        why = "the file was changed since, outside the transcript; this action's text is gone"
    outcome.ok, outcome.skipped = False, False
    outcome.reason = f"not applied: {why}; writing this action now would undo that"
    note.severity = Severity.ERROR  # (the plan's `superseded` hint, said as the refusal it is)
    note.message = f"{note.message.split(':', 1)[0]}: {outcome.reason}"


def _already_done(plan: Plan) -> bool:
    """Whether a file action the run considered is history (applied, or superseded since):
    nothing to write because it was written before (a second ``apply --write``), which is
    no failure, whatever errors the transcript has where no considered action is."""
    return any(o.history for o in plan.outcomes if not o.skipped)


def _show_errors(path: str, text: str, found: Sequence[Diagnostic], outcomes: Sequence[ActionOutcome]) -> bool:
    """Print the transcript's error-severity diagnostics that no action's outcome has shown
    (a broken patch that yields no action); whether there were any. A transcript with errors
    and nothing to apply is a failure, never "nothing to apply"."""
    shown = {id(o.blocked_by) for o in outcomes if o.blocked_by is not None}
    return _print_errors(path, text, [d for d in found if id(d) not in shown]) > 0


def _print_errors(path: str, text: str, found: Sequence[Diagnostic]) -> int:
    """Print the error-severity diagnostics of ``found`` (``path:line:column: error: ...``, to
    stderr); how many there were."""
    from ..codes import default_severity
    from ..model import Severity
    from ..text import LineIndex
    from .output import clean

    errors = [d for d in found if (d.severity or default_severity(d.code)) is Severity.ERROR]
    if errors:
        lines = LineIndex(text)
        for d in errors:
            pos = lines.position(d.span.start, "utf-32")
            print(f"{path}:{pos.line + 1}:{pos.character + 1}: error: {clean(d.message)} [{d.code}]",
                  file=sys.stderr)
    return len(errors)


def _print_diff(diff: str, style: Style) -> None:
    """The unified diff on stdout. Piped, it is written as is (a patch others can apply); on a
    terminal, coloured like ``git diff``, with characters the terminal would act on escaped
    (a file's own tabs stay)."""
    from .output import clean

    if not sys.stdout.isatty() and not style.enabled:
        sys.stdout.write(diff)
        return
    lines = diff.split("\n")
    for n, line in enumerate(lines):
        body = clean(line, keep="\t")
        if line.startswith(("+++", "---")):
            body = style("bold", body)
        elif line.startswith("@@"):
            body = style("cyan", body)
        elif line.startswith("+"):
            body = style("green", body)
        elif line.startswith("-"):
            body = style("red", body)
        sys.stdout.write(body + ("\n" if n < len(lines) - 1 else ""))
