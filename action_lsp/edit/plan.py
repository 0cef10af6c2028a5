"""Turn the file actions of a transcript into file changes, without touching the disk.

Actions are processed in document order over an in-memory overlay of the workspace, so that a
modify of a file the same transcript created (or modified) before sees that content. An action
is all-or-nothing: if one of its search/replace pairs fails, none of them is kept. Diagnostics
point into the transcript (the path, search or replace field of the action).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..model import Action, ActionKind, Diagnostic, Severity, Span
from .locate import Located, Refused, locate
from .workspace import FileText, PathProblem, ReadProblem, Target, Workspace

ChangeKind = Literal["create", "modify", "mkdir", "delete"]
TextEditTuple = tuple[int, int, str]


@dataclass(slots=True)
class FileChange:
    """The net change of one file (or directory) after all the actions that touch it.

    ``edits`` are ``(start, end, new_text)`` in the *old* decoded text (code points), sorted and
    non-overlapping; for a created file the one edit inserts all of it.
    """

    path: Path  # real path (symlinks resolved)
    rel: str  # as shown: relative to its root, '/'-separated
    kind: ChangeKind
    old_bytes: bytes | None
    new_bytes: bytes
    old_text: str | None = None
    new_text: str = ""
    edits: list[TextEditTuple] = field(default_factory=list)
    strategies: list[str] = field(default_factory=list)  # per applied search block
    actions: list[int] = field(default_factory=list)
    mode: int | None = None  # permission bits to keep (None: a new file, default mode)
    bom: bool = False


@dataclass(slots=True)
class ActionOutcome:
    action_index: int
    ok: bool
    diagnostics: list[Diagnostic] = field(default_factory=list)
    change: FileChange | None = None
    skipped: bool = False  # not a file action (or not selected): nothing to apply
    applied: bool = False  # its result is already in the workspace
    reason: str = ""  # why it failed or was skipped, one line
    strategies: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Plan:
    changes: list[FileChange]
    outcomes: list[ActionOutcome]

    @property
    def ok(self) -> bool:
        return all(o.ok for o in self.outcomes)

    @property
    def failed(self) -> list[ActionOutcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def skipped(self) -> list[ActionOutcome]:
        return [o for o in self.outcomes if o.skipped]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.diagnostics]

    def outcome(self, action_index: int) -> ActionOutcome | None:
        for o in self.outcomes:
            if o.action_index == action_index:
                return o
        return None


class ActionFailed(Exception):
    def __init__(self, diagnostic: Diagnostic | None, reason: str) -> None:
        super().__init__(reason)
        self.diagnostic = diagnostic
        self.reason = reason


class _Edits:
    """Edits in original coordinates, composed from edits given in current coordinates."""

    def __init__(self) -> None:
        self.items: list[TextEditTuple] = []

    def add(self, s: int, e: int, t: str, current: str) -> None:
        """Record replacing ``current[s:e]`` by ``t`` (``current``: the text before it)."""
        before: list[TextEditTuple] = []
        group: list[tuple[int, int, TextEditTuple]] = []  # (current start, current end, item)
        after: list[TextEditTuple] = []
        delta = 0  # growth of the text by the items seen so far
        delta_before = 0
        for item in self.items:
            o_s, o_e, text = item
            c_s = o_s + delta
            c_e = c_s + len(text)
            if c_e < s:
                before.append(item)
                delta_before = delta + len(text) - (o_e - o_s)
            elif c_s > e:
                after.append(item)
            else:
                group.append((c_s, c_e, item))
            delta += len(text) - (o_e - o_s)
        if not group:
            merged = (s - delta_before, e - delta_before, t)
        else:
            first_cs, _, first = group[0]
            _, last_ce, last = group[-1]
            us, ue = min(s, first_cs), max(e, last_ce)
            o_start = first[0] if us == first_cs else s - delta_before
            if ue == last_ce:
                o_end = last[1]
            else:
                grown = sum(len(it[2]) - (it[1] - it[0]) for _, _, it in group)
                o_end = e - delta_before - grown
            merged = (o_start, o_end, current[us:s] + t + current[e:ue])
        self.items = [*before, merged, *after]


@dataclass(slots=True)
class _State:
    target: Target
    original: FileText | None  # on disk (or in the editor) before the transcript
    text: str | None  # current content; None: does not exist
    is_dir: bool = False
    created_dir: bool = False
    edits: _Edits = field(default_factory=_Edits)
    strategies: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    changed: bool = False


def _field_span(action: Action, *names: str) -> Span:
    for name in names:
        f = action.fields.get(name)
        if f is not None:
            return f.span
    return action.name_span


def _diag(code: str, message: str, span: Span, **data: object) -> Diagnostic:
    return Diagnostic(code, message, span, data=dict(data) if data else None)


def _pairs(action: Action) -> list[tuple[str, str, Span, Span]]:
    if action.edits:
        out = []
        for e in action.edits:
            s, r = e.search.value, e.replace.value
            out.append(
                (s if isinstance(s, str) else "", r if isinstance(r, str) else "",
                 e.search.span, e.replace.span)
            )
        return out
    s = action.text("search") or ""
    r = action.text("replace") or ""
    return [(s, r, _field_span(action, "search"), _field_span(action, "replace", "search"))]


def _norm(text: str) -> str:
    return text.replace("\r\n", "\n")


def _newline_of(state: _State) -> str:
    if state.original is not None and state.original.newline == "\r\n":
        return "\r\n"
    return "\n"


class _Planner:
    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.states: dict[Path, _State] = {}
        self.order: list[Path] = []

    # -- state --------------------------------------------------------------------------
    def state(self, action: Action) -> _State:
        rel = action.path
        span = _field_span(action, "path")
        if rel is None:
            raise ActionFailed(None, "the action has no path")
        target = self.ws.resolve(rel)
        if isinstance(target, PathProblem):
            raise ActionFailed(_diag(target.code, target.message, span), target.message)
        found = self.states.get(target.path)
        if found is not None:
            return found
        if target.path.is_dir():
            state = _State(target, None, None, is_dir=True)
        elif self.ws.exists(target.path) or self.ws.read_override is not None:
            read = self.ws.read(target.path)
            if isinstance(read, ReadProblem):
                if not self.ws.exists(target.path):
                    state = _State(target, None, None)
                else:
                    raise ActionFailed(_diag(read.code, f"{rel}: {read.message}", span), read.message)
            else:
                state = _State(target, read, read.text)
        else:
            state = _State(target, None, None)
        self.states[target.path] = state
        self.order.append(target.path)
        return state

    # -- actions ------------------------------------------------------------------------
    def create(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        rel = state.target.rel
        span = _field_span(action, "path")
        content = action.text("content")
        if content is None:
            content = ""
        if state.is_dir:
            msg = f"{rel} is a directory; a file cannot be created there"
            raise ActionFailed(_diag("file-exists", msg, span), msg)
        if state.text is not None:
            if _norm(state.text).rstrip("\n") == _norm(content).rstrip("\n"):
                outcome.applied = True
                outcome.diagnostics.append(
                    _diag("applied", f"{rel} already has this content", span)
                )
                return
            from_transcript = state.original is None or state.changed
            if not (self.ws.allow_overwrite or from_transcript):
                msg = (f"{rel} already exists; creating it would overwrite it "
                       "(allow overwrites, or apply with --force)")
                raise ActionFailed(_diag("file-exists", msg, span), msg)
        new = content
        if _newline_of(state) == "\r\n":
            new = _norm(content).replace("\n", "\r\n")
        current = state.text or ""
        state.edits.add(0, len(current), new, current)
        state.text = new
        state.changed = True
        state.actions.append(index)

    def mkdir(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        span = _field_span(action, "path")
        if state.is_dir:
            outcome.applied = True
            outcome.diagnostics.append(
                _diag("applied", f"{state.target.rel} already exists", span)
            )
            return
        if state.text is not None:
            msg = f"{state.target.rel} exists and is a file"
            raise ActionFailed(_diag("file-exists", msg, span), msg)
        state.is_dir = True
        state.created_dir = True
        state.changed = True
        state.actions.append(index)

    def delete(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        span = _field_span(action, "path")
        if state.text is None or state.is_dir:
            msg = f"{state.target.rel} does not exist" if state.text is None else (
                f"{state.target.rel} is a directory")
            raise ActionFailed(_diag("file-not-found", msg, span), msg)
        state.edits.add(0, len(state.text), "", state.text)
        state.text = None
        state.changed = True
        state.actions.append(index)

    def modify(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        rel = state.target.rel
        path_span = _field_span(action, "path")
        if state.is_dir:
            msg = f"{rel} is a directory"
            raise ActionFailed(_diag("file-not-found", msg, path_span), msg)
        text = state.text
        edits: list[tuple[int, int, str]] = []
        strategies: list[str] = []
        already = 0
        pairs = _pairs(action)
        for search, replace, s_span, r_span in pairs:
            if text is None:
                if not search.strip():  # empty search on a missing file: create it
                    text = ""
                    edits.append((0, 0, replace))
                    text = replace
                    strategies.append("create")
                    continue
                msg = f"{rel} does not exist"
                raise ActionFailed(_diag("file-not-found", msg, path_span), msg)
            if search and _norm(search) == _norm(replace):
                outcome.diagnostics.append(_diag(
                    "noop-edit", "the replacement equals the search text; nothing changes", r_span
                ))
                already += 1
                continue
            found = locate(text, search, path=rel)
            if isinstance(found, Refused):
                if found.code == "search-not-found" and _present(text, replace, rel):
                    outcome.diagnostics.append(_diag(
                        "applied", f"the replacement is already in {rel}", s_span
                    ))
                    already += 1
                    continue
                msg = f"{rel}: {found.message}"
                raise ActionFailed(
                    _diag(found.code, msg, s_span, lines=found.lines), found.message
                )
            if _contains(replace, search) and _present(text, replace, rel, within=found):
                outcome.diagnostics.append(_diag(
                    "applied", f"the replacement is already in {rel}", s_span
                ))
                already += 1
                continue
            new_piece = found.replacement(replace)
            if text[found.start : found.end] == new_piece:
                outcome.diagnostics.append(_diag(
                    "noop-edit", f"the replacement is already in {rel}; nothing changes", r_span
                ))
                already += 1
                continue
            if not found.exact:
                outcome.diagnostics.append(_diag(
                    "search-fuzzy",
                    f"{rel}: search text found at line {found.line} only by the "
                    f"{found.describe()} strategy; review the diff before applying",
                    s_span, strategy=found.strategy, line=found.line, score=found.score,
                ))
            edits.append((found.start, found.end, new_piece))
            strategies.append(found.describe())
            text = text[: found.start] + new_piece + text[found.end :]
        if already == len(pairs) and any(d.code == "applied" for d in outcome.diagnostics):
            outcome.applied = True
        if not edits:
            return
        before = state.text
        current = before or ""
        for s, e, t in edits:
            state.edits.add(s, e, t, current)
            current = current[:s] + t + current[e:]
        state.text = current
        state.strategies.extend(strategies)
        outcome.strategies = strategies
        state.changed = True
        state.actions.append(index)
        if before is not None:
            warning = _new_syntax_error(rel, before, current, pairs[-1][3])
            if warning is not None:
                outcome.diagnostics.append(warning)

    # -- result -------------------------------------------------------------------------
    def changes(self) -> dict[Path, FileChange]:
        out: dict[Path, FileChange] = {}
        for path in self.order:
            st = self.states[path]
            if not st.changed:
                continue
            orig = st.original
            old_text = orig.text if orig is not None else None
            if st.created_dir:
                change = FileChange(path, st.target.rel, "mkdir", None, b"", actions=st.actions)
            elif st.text is None:
                if orig is None:
                    continue  # created then deleted within the transcript
                change = FileChange(
                    path, st.target.rel, "delete", orig.raw, b"", old_text, "",
                    st.edits.items, actions=st.actions, mode=orig.mode, bom=orig.bom,
                )
            else:
                bom = orig.bom if orig is not None else False
                new_bytes = (b"\xef\xbb\xbf" if bom else b"") + st.text.encode("utf-8")
                kind: ChangeKind = "create" if orig is None else "modify"
                change = FileChange(
                    path, st.target.rel, kind, orig.raw if orig is not None else None,
                    new_bytes, old_text, st.text, st.edits.items, list(st.strategies),
                    st.actions, orig.mode if orig is not None else None, bom,
                )
                if orig is not None and old_text == st.text:
                    continue
            out[path] = change
        return out


def _contains(replace: str, search: str) -> bool:
    return bool(search.strip()) and _norm(search).strip() in _norm(replace)


def _present(text: str, replace: str, rel: str, within: Located | None = None) -> bool:
    """Whether ``replace`` is found (exactly or up to whitespace) in ``text`` once, and covers
    ``within`` when given."""
    if not replace.strip():
        return False
    got = locate(text, replace, path=None)
    if not isinstance(got, Located) or got.strategy not in ("exact", "whitespace", "blank-lines"):
        return False
    if within is None:
        return True
    return got.start <= within.start and within.end <= got.end


def _new_syntax_error(rel: str, before: str, after: str, span: Span) -> Diagnostic | None:
    try:
        from ..syntax import language_for
        from ..syntax.errors import syntax_errors
    except ImportError:
        return None
    lang = language_for(path=rel)
    if lang is None:
        return None
    try:
        if syntax_errors(before, lang, limit=1):
            return None
        problems = syntax_errors(after, lang, limit=1)
    except Exception:
        return None
    if not problems:
        return None
    p = problems[0]
    line = after.count("\n", 0, p.start) + 1
    return Diagnostic(
        "new-syntax-error",
        f"{rel} parsed before this edit but not after it: line {line}: {p.message}",
        span,
        severity=Severity.WARNING,
        data={"line": line},
    )


def plan_changes(
    actions: Sequence[Action],
    ws: Workspace,
    *,
    only: Collection[int] | None = None,
) -> Plan:
    """Plan the file actions of ``actions`` (indices into it; ``only`` restricts which run)."""
    planner = _Planner(ws)
    outcomes: list[ActionOutcome] = []
    touched: dict[int, Path] = {}
    for index, action in enumerate(actions):
        outcome = ActionOutcome(index, True)
        outcomes.append(outcome)
        if only is not None and index not in only:
            outcome.skipped = True
            outcome.reason = "not selected"
            continue
        kind = action.kind
        if not kind.is_file_action:
            outcome.skipped = True
            outcome.reason = f"not a file action ({kind.value}); never executed"
            continue
        handler = {
            ActionKind.CREATE_FILE: planner.create,
            ActionKind.MODIFY_FILE: planner.modify,
            ActionKind.CREATE_DIRECTORY: planner.mkdir,
            ActionKind.DELETE_FILE: planner.delete,
        }.get(kind)
        if handler is None:
            outcome.ok = False
            outcome.reason = f"{action.type}: {kind.value} actions are not applied by this version"
            continue
        try:
            handler(index, action, outcome)
        except ActionFailed as exc:
            outcome.ok = False
            outcome.reason = exc.reason
            if exc.diagnostic is not None:
                outcome.diagnostics.append(exc.diagnostic)
            continue
        rel = action.path
        if rel is not None:
            target = ws.resolve(rel)
            if isinstance(target, Target):
                touched[index] = target.path
    changes = planner.changes()
    for index, path in touched.items():
        outcomes[index].change = changes.get(path)
    return Plan(list(changes.values()), outcomes)
