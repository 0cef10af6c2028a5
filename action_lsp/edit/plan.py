"""Turn the file actions of a transcript into file changes, without touching the disk.

Actions are processed in document order over an in-memory overlay of the workspace, so that a
modify of a file the same transcript created (or modified) before sees that content. An action
is all-or-nothing: if one of its search/replace pairs fails, none of them is kept. Diagnostics
point into the transcript (the path, search or replace field of the action).
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from ..model import (
    NO_EMPTY_SEARCH,
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    Severity,
    Span,
)
from ..paths import PathCode, absolute_place
from ..rules.encoding import first_surrogate
from .compose import ComposedEdits
from .locate import (
    Located,
    Refused,
    exact_places,
    find_anchor,
    has_line_numbers,
    locate,
    locate_by_layout,
    strip_line_numbers,
)
from .many import MANY_EDITS, ManyEdits
from .onecall import rewritten, search_in_replacement
from .timeline import Judgement, Step, judge, layout_only
from .workspace import FileText, PathProblem, ReadProblem, Target, Workspace

#: Transcript diagnostics that block their action even below error severity: the agent's own
#: parser would not have run an action under a misspelled tag.
ALWAYS_BLOCKING = frozenset({"wrong-block-name"})

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
    renamed_from: Path | None = None  # a created file that a rename moved here (its source)
    #: How a chat answer's snippet was merged into it: "lazy snippet" or "fragment" ("" none).
    merged: str = ""


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
    #: The transcript's own diagnostic that kept this action from being applied (not forced).
    blocked_by: Diagnostic | None = None
    #: History rewritten since: the index of the later action of the transcript that rewrote
    #: this one's result (see :mod:`.timeline`); -1 when nothing in the transcript explains it.
    superseded_by: int | None = None
    #: A chat answer's write of an existing file (``EditRules.snippet``): what its content is
    #: to the file -- ``whole``, ``lazy`` (a lazy snippet) or ``fragment`` (see .lazymerge).
    shape: str = ""

    @property
    def history(self) -> bool:
        """Whether the workspace is past this action (applied, or superseded since)."""
        return self.applied or self.superseded_by is not None


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


class _Edits(ComposedEdits):
    """Edits in original coordinates, composed from edits given in current coordinates."""

    def add(self, s: int, e: int, t: str, current: str | None = None) -> None:
        """Record replacing ``[s, e)`` of the current text by ``t``."""
        if self is _UNKEPT:
            return
        super().add(s, e, t, current)


_UNKEPT = _Edits()  # the edits of a check-only plan: never composed (see plan_changes)


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
    renamed_from: _State | None = None
    merged: str = ""  # a snippet merged into it (FileChange.merged)
    #: The parse of ``text`` kept across this plan's edits (see _new_syntax_error).
    syntax: Any = None


def _field_span(action: Action, *names: str) -> Span:
    for name in names:
        f = action.fields.get(name)
        if f is not None:
            return f.span
    return action.name_span


def _diag(code: str, message: str, span: Span, **data: object) -> Diagnostic:
    return Diagnostic(code, message, span, data=dict(data) if data else None)


def _pairs(action: Action) -> list[tuple[str, str, Span, Span]]:
    """The action's (search, replace) texts and their spans. A search or replacement that is
    missing or not a string is a ``bad-argument`` failure: never read as empty (an append, a
    deletion)."""
    if action.edits:
        return [(_text(e.search, action), _text(e.replace, action), e.search.span, e.replace.span)
                for e in action.edits]
    s, r = action.fields.get("search"), action.fields.get("replace")
    if s is None:
        msg = f"this {action.type} has no search text; it is never applied"
        raise ActionFailed(_diag("bad-argument", msg, action.name_span), msg)
    replace = "" if r is None else _text(r, action)  # no replacement: a deletion, as written
    return [(_text(s, action), replace, s.span, r.span if r is not None else s.span)]


def _text(f: Field, action: Action) -> str:
    """A field's value that must be text (``bad-argument`` when it is not)."""
    if isinstance(f.value, str):
        return f.value
    shown = "null" if f.value is None else type(f.value).__name__
    msg = f"`{f.name}` of this {action.type} is {shown}, not text; it is never applied"
    raise ActionFailed(_diag("bad-argument", msg, f.span), msg)


def _norm(text: str) -> str:
    return text.replace("\r\n", "\n")


def _whole_lines(found: Refused, text: str) -> Located | Refused:
    """Of the exact places of an ambiguous Codex chunk, the one holding its lines whole when only
    one does: Codex's ``apply_patch`` compares whole lines, so the text found inside a longer line
    (``}`` in ``\t}``) is no place of its, and it takes the one exact place left."""
    whole = [c for c in found.candidates
             if c.strategy == "exact" and (c.start == 0 or text[c.start - 1] in "\r\n")]
    if len(whole) != 1 or len(whole) == len(found.candidates):
        return found
    c = whole[0]
    lines = ", ".join(str(x.line) for x in found.candidates)
    return Located(c.start, c.end, c.strategy, c.replacement_transform, c.line, c.score,
                   f"of the places at lines {lines}, the only one holding its lines whole, as Codex reads them")


def _last_line_empty(text: str) -> bool:
    """Whether the last of the lines Codex's ``apply_patch`` reads the text as is empty: split
    at line feeds, the empty piece after the final line feed dropped."""
    return text == "\n" or text.endswith("\n\n")


def _newline_of(state: _State) -> str:
    if state.original is not None and state.original.newline == "\r\n":
        return "\r\n"
    return "\n"


class _Planner:
    def __init__(
        self,
        ws: Workspace,
        *,
        accept_fuzzy: bool | Collection[int] = False,
        choices: Mapping[tuple[int, int], int] | None = None,
        force: bool | Collection[int] = False,
        allow_code_paths: bool | Collection[int] = False,
        check_only: bool = False,
        accept_merge: bool | Collection[int] = False,
    ) -> None:
        self.ws = ws
        self.accept_merge = accept_merge
        self.code_paths_allowed = allow_code_paths
        self.allow_code = False  # whether the action being planned may write a runs-code path
        self.check_only = check_only
        self.accept_fuzzy = accept_fuzzy
        self.choices = dict(choices or {})
        self.forced = force
        self.force = False  # whether the action being planned is forced (see forces())
        self.final_newline = False  # the action's tool ends a changed file with a line break
        self.rules = NO_EMPTY_SEARCH  # what the action's agent means (empty search, several edits)
        self.states: dict[Path, _State] = {}
        self.order: list[Path] = []
        # Directories the plan needs (ancestors of files and directories it creates), with the
        # action that needs each first: a file may not be planned there.
        self.dirs_needed: dict[Path, int] = {}
        # (action index, outcome, diagnostic, state) of edits after which a file stopped parsing.
        self.breaks: list[tuple[int, ActionOutcome, Diagnostic, _State]] = []

    def _edits(self) -> _Edits:
        return _UNKEPT if self.check_only else _Edits()

    def forces(self, index: int) -> bool:
        if isinstance(self.forced, bool):
            return self.forced
        return index in self.forced

    def allows_code(self, index: int) -> bool:
        if isinstance(self.code_paths_allowed, bool):
            return self.code_paths_allowed
        return index in self.code_paths_allowed

    def accepts_merge(self, index: int) -> bool:
        if isinstance(self.accept_merge, bool):
            return self.accept_merge
        return index in self.accept_merge

    def accepts_fuzzy(self, index: int) -> bool:
        if isinstance(self.accept_fuzzy, bool):
            return self.accept_fuzzy
        return index in self.accept_fuzzy

    # -- state --------------------------------------------------------------------------
    def state(self, action: Action) -> _State:
        rel = action.path
        span = _field_span(action, "path")
        if rel is None:
            raise ActionFailed(None, "the action has no path")
        target = self.ws.resolve(rel)
        if isinstance(target, PathProblem):
            # (an absolute path is reported once per place: see action_lsp/rules/paths.py)
            place = {"absolutePlace": absolute_place(rel)} if target.code == "absolute-path" else {}
            raise ActionFailed(_diag(target.code, target.message, span, **place), target.message)
        if not self.allow_code:
            why = self.ws.runs_code(target)
            if why is not None:
                msg = (f"{target.rel}: {why}; action-lsp writes it only when you confirm "
                       "(apply --allow-code-paths, or \"Apply anyway\" in the editor)")
                raise ActionFailed(_diag("runs-code", msg, span), msg)
        found = self.states.get(target.path)
        if found is not None:
            return found
        try:
            st = os.stat(target.path)
        except (FileNotFoundError, NotADirectoryError):  # a parent that is a file: check_place
            st = None
        except OSError as exc:
            raise _os_failure(rel, exc, span) from None
        if st is not None and stat.S_ISDIR(st.st_mode):
            state = _State(target, None, None, is_dir=True, edits=self._edits())
        elif st is not None and not stat.S_ISREG(st.st_mode):
            msg = f"{rel} is not a regular file (a FIFO, socket or device); action-lsp never writes it"
            raise ActionFailed(_diag("file-unreadable", msg, span), msg)
        elif st is not None or self.ws.read_override is not None:
            read = self.ws.read(target.path)
            if isinstance(read, ReadProblem):
                if st is None:
                    state = _State(target, None, None, edits=self._edits())
                else:
                    raise ActionFailed(_diag(read.code, f"{rel}: {read.message}", span), read.message)
            else:
                state = _State(target, read, read.text, edits=self._edits())
        else:
            state = _State(target, None, None, edits=self._edits())
        self.states[target.path] = state
        self.order.append(target.path)
        return state

    def check_place(self, index: int, state: _State, span: Span, *, as_dir: bool) -> None:
        """Refuse a file or directory to be made where the plan or the disk needs something
        else: a parent that is (or becomes) a file, or a file where a directory is needed."""
        path, rel = state.target.path, state.target.rel
        if not as_dir and path in self.dirs_needed:
            msg = (f"{rel} cannot be a file: action {self.dirs_needed[path] + 1} puts "
                   "something inside it, so it must be a directory")
            raise ActionFailed(_conflict(msg, span), msg)
        root = state.target.root
        parents = []
        for parent in path.parents:
            if parent == root or not parent.is_relative_to(root):
                break
            parents.append(parent)
        for parent in reversed(parents):
            shown = parent.relative_to(root).as_posix()
            planned = self.states.get(parent)
            if planned is not None and not planned.is_dir:
                if planned.text is not None or planned.original is not None:
                    how = "is a file" if planned.original is not None else (
                        f"is created as a file by action {planned.actions[0] + 1}"
                        if planned.actions else "is a file")
                    msg = f"{rel} needs {shown} to be a directory, but {shown} {how}"
                    raise ActionFailed(_conflict(msg, span), msg)
                continue
            if planned is None:
                try:
                    st = os.stat(parent)
                except (FileNotFoundError, NotADirectoryError):
                    continue
                except OSError as exc:
                    raise _os_failure(rel, exc, span) from None
                if not stat.S_ISDIR(st.st_mode):
                    msg = f"{rel} needs {shown} to be a directory, but {shown} is a file"
                    raise ActionFailed(_conflict(msg, span), msg)
        for parent in parents:
            self.dirs_needed.setdefault(parent, index)
        if as_dir:
            self.dirs_needed.setdefault(path, index)

    def writable(self, state: _State, span: Span) -> None:
        """Refuse to change a file on disk without write permission (unless forced)."""
        orig = state.original
        if orig is None or not orig.readonly or self.force or self.ws.allow_readonly:
            return
        mode = f" (mode {orig.mode:04o})" if orig.mode is not None else ""
        msg = (f"{state.target.rel} is read-only{mode}; action-lsp does not change it "
               "(make it writable, or apply with --force)")
        raise ActionFailed(_diag("file-readonly", msg, span), msg)

    # -- actions ------------------------------------------------------------------------
    def create(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        rel = state.target.rel
        span = _field_span(action, "path")
        f = action.fields.get("content")
        if f is None:
            msg = f"this {action.type} has no content to write; it is never applied (never an empty file)"
            raise ActionFailed(_diag("bad-argument", msg, action.name_span), msg)
        content = _final_eol(self.rules.final_eol, _text(f, action), state.text)
        if state.is_dir:
            msg = f"{rel} is a directory; a file cannot be created there"
            raise ActionFailed(_diag("file-exists", msg, span), msg)
        merged = ""
        if (self.rules.snippet and action.kind is ActionKind.WRITE_FILE
                and state.text is not None):
            content, merged = self.snippet(index, action, state, content, outcome)
        if state.text is not None:
            if _norm(state.text).rstrip("\n") == _norm(content).rstrip("\n"):
                outcome.applied = True
                outcome.diagnostics.append(
                    _diag("applied", f"{rel} already has this content", span)
                )
                return
            # Only a file this transcript created may be re-created freely; one it merely
            # modified holds the user's content, which the create would lose.
            created_here = state.original is None
            writes = action.kind is ActionKind.WRITE_FILE  # create or replace, by definition
            if not (self.ws.allow_overwrite or self.force or created_here or writes):
                how = " (modified earlier in this transcript)" if state.changed else ""
                msg = (f"{rel} already exists{how}; creating it would overwrite it "
                       "(allow overwrites, or apply with --force)")
                raise ActionFailed(_diag("file-exists", msg, span, overwrite=True), msg)
            self.writable(state, span)
        else:
            self.check_place(index, state, span, as_dir=False)
            if self.rules.snippet:
                self.check_new_file_syntax(action, state, content)
        if not merged:  # a merge keeps every definition of the file by construction
            self.check_truncation(action, state, content)
        else:
            state.merged = merged
        new = content
        if _newline_of(state) == "\r\n":
            new = _norm(content).replace("\n", "\r\n")
        current = state.text or ""
        state.edits.add(0, len(current), new, current)
        state.text = new
        state.changed = True
        state.actions.append(index)

    def snippet(self, index: int, action: Action, state: _State, content: str,
                outcome: ActionOutcome) -> tuple[str, str]:
        """A chat answer's content for an existing file: the whole file (written as is), or a
        lazy snippet or fragment merged into the file by syntax (``.lazymerge``), written
        only when the merge is certain or the user accepted the proposal (``accept_merge``).
        Returns the content to write and how it was merged ("" for a whole file)."""
        from .lazymerge import merge_snippet

        assert state.text is not None
        rel = state.target.rel
        m = merge_snippet(state.text, content, rel)
        outcome.shape = m.shape
        if m.shape == "whole":
            return content, ""
        what = "lazy snippet" if m.shape == "lazy" else "fragment"
        span = _field_span(action, "content", "path")
        if m.certain:
            return m.text or "", what
        proposal = m.proposal
        if proposal is not None and self.accepts_merge(index):
            return proposal, what
        said = "; ".join(m.fatal or m.problems)
        if proposal is None:
            tail = ("nothing is proposed: write the whole file" if m.text is None else
                    "the proposed merge is never written: write the whole file, or a "
                    "search/replace edit")
        else:
            tail = (f"see the proposed merge (`apply --accept-merge {index + 1}` writes it, "
                    "or the quick fix \"Apply the proposed merge\")")
        msg = f"{rel}: this {what} cannot be merged with certainty: {said}; {tail}"
        raise ActionFailed(_diag(
            "lazy-ambiguous", msg, span, shape=m.shape, problems=list(m.fatal or m.problems),
            proposal=proposal is not None, action=index), msg)

    def check_new_file_syntax(self, action: Action, state: _State, content: str) -> None:
        """A chat answer's own syntax errors only warn in the transcript (it may be a piece of
        its file, merged and checked then); a file it creates gets the answer as it is, so
        broken code there blocks the write as a create's does (unless forced)."""
        from ..rules.code import judged_syntax_errors
        from ..syntax import language_for

        lang = language_for(path=state.target.rel, language=action.text("language"))
        if self.force or lang is None:
            return
        for _problem, said, warns in judged_syntax_errors(content, lang, state.target.rel):
            if warns:
                return
            msg = f"{said}; the new file would not parse (apply with --force to write it anyway)"
            raise ActionFailed(_diag("syntax-error", msg, _field_span(action, "content", "path")),
                               msg)

    def check_truncation(self, action: Action, state: _State, content: str) -> None:
        """A whole-file write that elides code (a placeholder comment, or most of the old
        file's definitions gone) is refused unless forced: it would lose that code."""
        from ..rules.truncation import dropped_definitions, lines_added_since, truncation

        f = action.fields.get("content")
        if self.rules.snippet and state.text is not None and f is not None and isinstance(f.value, str):
            # A chat answer's lazy snippet: written as the whole file, each placeholder would
            # replace the code it stands for. Only a merge may apply it; never forced.
            from ..placeholders import placeholder_lines

            for start, end in placeholder_lines(f.value):
                said = f.value[start:end]
                line = f.value.count("\n", 0, start) + 1
                msg = (f"this block is a lazy snippet of {state.target.rel}: `{said}` (its line {line}) "
                       "stands for code it leaves out, so written as the whole file it would lose that "
                       "code; it is not applied, not even forced")
                raise ActionFailed(_diag("truncated-content", msg, f.value_span(start, end)), msg)
        if self.force or self.ws.allow_overwrite:
            return
        found = truncation(f, state.target.rel) if f is not None else None
        if found is not None:
            raise ActionFailed(found, found.message)
        if state.text is not None and state.original is not None:
            dropped = dropped_definitions(state.text, content, state.target.rel)
            if dropped is not None:
                kept, before = dropped
                msg = (f"writing {state.target.rel} keeps {kept} of its {before} definitions; "
                       "the model probably left code out (apply with --force to write it anyway)")
                raise ActionFailed(
                    _diag("truncated-content", msg, _field_span(action, "content", "path")), msg
                )
        if state.text is not None and state.original is not None and not state.changed:
            more = lines_added_since(state.text, content)
            if more is not None:
                msg = (f"{state.target.rel} holds every line this write writes and {more} more "
                       "(added since?); writing it would drop them (apply with --force to write "
                       "it anyway)")
                raise ActionFailed(
                    _diag("truncated-content", msg, _field_span(action, "content", "path")), msg
                )

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
        self.check_place(index, state, span, as_dir=True)
        state.is_dir = True
        state.created_dir = True
        state.changed = True
        state.actions.append(index)

    def delete(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        state = self.state(action)
        span = _field_span(action, "path")
        if state.text is None or state.is_dir:
            msg = f"{state.target.rel} is a directory; only files are deleted" if state.is_dir else (
                f"{state.target.rel} does not exist")
            raise ActionFailed(_diag("file-not-found", msg, span), msg)
        self.writable(state, span)
        state.edits.add(0, len(state.text), "", state.text)
        state.text = None
        state.changed = True
        state.actions.append(index)

    def rename(self, index: int, action: Action, outcome: ActionOutcome) -> None:
        """Move a file: its source is deleted and its target created with the same content
        (a ``RenameFile`` in a WorkspaceEdit; all or none with the rest when written)."""
        src = self.state(action)
        to = action.fields.get("to")
        span = _field_span(action, "path")
        if to is None or not isinstance(to.value, str):
            raise ActionFailed(None, "the rename has no target")
        if src.text is None or src.is_dir:
            msg = f"{src.target.rel} is a directory; only files are renamed" if src.is_dir else (
                f"{src.target.rel} does not exist")
            raise ActionFailed(_diag("file-not-found", msg, span), msg)
        dst = self.state(Action(action.dialect, action.type, action.kind, action.span,
                                action.name_span, {"path": to}))
        if dst is src:
            outcome.applied = True
            outcome.diagnostics.append(_diag("applied", f"{src.target.rel} is already there", to.span))
            return
        if dst.is_dir or dst.text is not None:
            msg = f"{dst.target.rel} already exists; renaming onto it would overwrite it"
            raise ActionFailed(_diag("file-exists", msg, to.span), msg)
        self.check_place(index, dst, to.span, as_dir=False)
        content = src.text
        src.edits.add(0, len(content), "", content)
        src.text = None
        dst.edits.add(0, 0, content, "")
        dst.text = content
        dst.renamed_from = src if dst.original is None else None
        for st in (src, dst):
            st.changed = True
            st.actions.append(index)

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
        floor = 0  # where the last edit's place ends (Codex's chunks are searched in order)
        # Every edit located in the text before the action (its agent's rule), or each in the
        # text the ones before it left.
        in_original = self.rules.in_original and len(pairs) > 1
        owners: list[int] = []  # the edit (index into pairs) each of `edits` belongs to
        # Many edits of one file: its text kept in a ManyEdits (`text` then stands for it only
        # after `as_str()`), so that an edit found verbatim once costs its own size, not the file's.
        many = ManyEdits(text) if text is not None and len(pairs) >= MANY_EDITS else None

        def as_str() -> str | None:
            nonlocal text
            if many is not None:
                text = many.text
            return text

        def put(k: int, s: int, e: int, t: str) -> None:
            nonlocal text
            edits.append((s, e, t))
            owners.append(k)
            if in_original:
                return
            if many is not None:
                many.replace(s, e, t)
            else:
                text = t if text is None else text[:s] + t + text[e:]

        for k, (search, replace, s_span, r_span) in enumerate(pairs):
            edit = action.edits[k] if k < len(action.edits) else None
            line = edit.line if edit is not None else None
            start = 0
            chosen = self.choices.get((index, k))
            plain = (many is not None and bool(search) and chosen is None
                     and not (edit is not None and (edit.anchors or edit.at_end or edit.replace_all
                                                    or (edit.count or 0) > 1)))
            if not plain:
                as_str()
            if edit is not None and text is not None:
                if edit.after_previous:
                    start = floor
                for anchor in edit.anchors:
                    start = _after_anchor(text, anchor, start, rel)
                if edit.at_end and search:
                    start = max(start, _last_lines(text, search))
            every = edit is not None and (edit.replace_all or (edit.count or 0) > 1)
            if every and edit is not None and edit.count is not None and text is not None and search:
                self.count(edit.count, text[start:], search, rel, s_span)
            if (every and text is not None and search
                    and _norm(search) != _norm(replace)):
                done = self.replace_all(index, k, text, search, replace, rel, s_span, start, outcome)
                if done is None:
                    already += 1
                    continue
                for place in done:
                    put(k, *place)
                strategies.append(f"exact (replace_all: {len(done)} "
                                  f"place{'s' if len(done) > 1 else ''})")
                floor = done[0][1] + sum(len(t) - (b - a) for a, b, t in done)
                continue
            if text is not None and not search and line is not None:
                # An insertion (Roo's insert_content): before line `line`, 0 appends.
                at = _line_start(text, line)
                piece = replace
                if at == len(text) and text and not text.endswith(("\n", "\r")):
                    piece = _newline_of(state) + piece
                put(k, at, at, piece)
                strategies.append("insert")
                continue
            if not search:  # an empty search text: what its agent means by it
                whole = self.empty_search(index, state, text, replace, s_span, path_span)
                if whole is not None:
                    put(k, 0, len(text or ""), whole[0])
                    strategies.append(whole[1])
                    continue
            if text is None:
                msg = f"{rel} does not exist"
                raise ActionFailed(_diag("file-not-found", msg, path_span), msg)
            hint = line  # the agent's own line hint (Roo's :start_line:), if it gave one
            numbered = strip_line_numbers(search)  # O(search): asked first, the file only if it has prefixes
            if numbered is not None and (many.chunked.find(search) >= 0 if plain and many is not None
                                         else search in text):
                numbered = None
            bare = strip_line_numbers(replace, counting=False) if numbered is not None else None
            # Stripped when the replacement has the prefixes on every line or on none; one
            # with some would write prefixes into the file, so it is left to not be found.
            stripped = False  # line-number prefixes removed from the search text
            if numbered is not None and (bare is not None or not has_line_numbers(replace)):
                search, hint = numbered
                stripped = True
                if bare is not None:
                    replace = bare[0]
            if search and _norm(search) == _norm(replace):
                outcome.diagnostics.append(_diag(
                    "noop-edit", "the replacement equals the search text; nothing changes", r_span
                ))
                already += 1
                continue
            found: Located | Refused | None = (
                many.exact(search, start) if plain and many is not None and search else None)
            if found is None:
                plain = False
                if many is not None:
                    text = many.text
                found = locate(text, search, path=rel, line_hint=hint, start=start)
                if (not search and self.final_newline and isinstance(found, Located)
                        and found.strategy == "append" and _last_line_empty(text)):
                    # Codex inserts a chunk with no old line before the file's last empty line.
                    found = Located(found.start - 1, found.start - 1, "append",
                                    found.replacement_transform, found.line - 1)
                if (isinstance(found, Refused) and found.code == "search-ambiguous" and edit is not None
                        and edit.after_previous and search.endswith("\n")):
                    found = _whole_lines(found, text)
            if chosen is not None:
                found = _choose(found, chosen, rel, text, s_span)
            where = {"action": index, "edit": k}
            if isinstance(found, Refused):
                if found.code == "search-not-found" and _present(text, replace, rel):
                    outcome.diagnostics.append(_diag(
                        "applied", f"the replacement is already in {rel}", s_span
                    ))
                    already += 1
                    continue
                d = _refusal(found, rel, text, s_span, where)
                if start and edit is not None and (edit.anchors or edit.after_previous or edit.at_end):
                    first = text.count("\n", 0, start) + 1
                    if edit.at_end and start == _last_lines(text, search):
                        d.message += f" (searched at the end of the file, `*** End of File`: from line {first})"
                    else:
                        after = (("the context lines before it" if edit.anchors[-1].value.endswith("\n")
                                  else "its `@@` context line") if edit.anchors else "the chunk before it")
                        d.message += f" (searched after {after}, from line {first})"
                raise ActionFailed(d, found.message)
            accepted = chosen is not None or found.certain or self.accepts_fuzzy(index)
            if not accepted:
                if _present(text, replace, rel):
                    outcome.diagnostics.append(_diag(
                        "applied", f"the replacement is already in {rel}", s_span
                    ))
                    already += 1
                    continue
                d = _question(found, rel, text, s_span, where)
                raise ActionFailed(d, d.message)
            if (_contains(replace, search)
                    and not (plain and many is not None and many.absent(replace))
                    and _present(as_str() or "", replace, rel, within=found)):
                outcome.diagnostics.append(_diag(
                    "applied", f"the replacement is already in {rel}", s_span
                ))
                already += 1
                continue
            new_piece = found.replacement(replace)
            if (many.slice(found.start, found.end) if plain and many is not None
                    else text[found.start : found.end]) == new_piece:
                outcome.diagnostics.append(_diag(
                    "noop-edit", f"the replacement is already in {rel}; nothing changes", r_span
                ))
                already += 1
                continue
            if not found.exact or stripped or found.note:
                how = f"only by the {found.describe()} strategy" if not found.exact else (
                    f"by the {found.strategy} strategy")
                if stripped:
                    how += " after removing its line-number prefixes"
                if found.note:
                    how += f" ({found.note})"
                if not found.certain:
                    how += ", its content differing; applied because you chose it"
                outcome.diagnostics.append(_diag(
                    "search-fuzzy",
                    f"{rel}: search text found at line {found.line} {how}; review the diff "
                    "before applying",
                    s_span, strategy=found.strategy, line=found.line, score=found.score, **where,
                ))
            put(k, found.start, found.end, new_piece)
            strategies.append(found.describe())
            if search:  # an append (no old lines) does not move on (as in Codex)
                floor = found.start + len(new_piece)
        as_str()
        if already == len(pairs) and any(d.code == "applied" for d in outcome.diagnostics):
            outcome.applied = True
        if not edits:
            return
        if len(pairs) > 1:
            edits = self.one_call(edits, owners, pairs, rel, in_original)
            if in_original:  # the edits, last first, disjoint: the text built once
                old, pieces, pos = state.text or "", [], 0
                for s, e, t in reversed(edits):
                    pieces.append(old[pos:s])
                    pieces.append(t)
                    pos = e
                pieces.append(old[pos:])
                text = "".join(pieces)
        if self.final_newline and text and not text.endswith(("\n", "\r")):
            # The agent's tool ends every file it changes with a line break (Codex's does).
            edits.append((len(text), len(text), _newline_of(state)))
            text += _newline_of(state)
        elif self.final_newline and text and _last_line_empty(text):
            # ... and joins its lines with line feeds, one more only after a last line that is
            # not empty: a last empty line is that final line feed, not a blank line.
            edits.append((len(text) - 1, len(text), ""))
            text = text[:-1]
        self.writable(state, path_span)
        before = state.text
        current = text or ""  # the edits applied in order to `before` (as `put` or the loop above did)
        for s, e, t in edits:
            state.edits.add(s, e, t)
        state.text = current
        state.strategies.extend(strategies)
        outcome.strategies = strategies
        state.changed = True
        state.actions.append(index)
        if before is not None:
            broken = _new_syntax_error(rel, before, current, pairs[-1][3], state, edits)
            if broken is not None:
                self.breaks.append((index, outcome, broken, state))

    def count(self, want: int, text: str, search: str, rel: str, span: Span) -> None:
        """Gemini CLI's ``expected_replacements``: the search text must occur exactly ``want``
        times (every one is then replaced); any other count is refused."""
        found = len(exact_places(text, search))
        if found != want:
            msg = (f"{rel}: expected_replacements is {want}, but the search text occurs {found} "
                   f"time{'' if found == 1 else 's'}; {self.rules.agent} refuses the edit")
            raise ActionFailed(_diag("search-not-found" if not found else "search-ambiguous", msg, span), msg)

    def one_call(self, edits: list[TextEditTuple], owners: list[int],
                 pairs: Sequence[tuple[str, str, Span, Span]], rel: str, in_original: bool) -> list[TextEditTuple]:
        """The edits of one action, checked by its agent's rule: located in the original text,
        no two may overlap (returned last first, each valid in the text the ones before it
        leave); applied in sequence, none may change text an earlier edit of the action wrote,
        unless its agent documents that (``EditRules.rewrites``). A ``conflicting-edits``
        failure otherwise: none of the action's edits is written."""
        agent = self.rules.agent
        if in_original:
            order = sorted(range(len(edits)), key=lambda i: (edits[i][0], edits[i][1]))
            for a, b in itertools.pairwise(order):
                (s1, e1, _), (s2, e2, _) = edits[a], edits[b]
                if owners[a] != owners[b] and (s2 < e1 or (s1, e1) == (s2, e2)):
                    first, second = sorted((owners[a], owners[b]))
                    msg = (f"{rel}: edits {first + 1} and {second + 1} of this action overlap in the "
                           f"original text ({agent} locates every edit in the original file); none is "
                           "written")
                    raise ActionFailed(_diag("conflicting-edits", msg, pairs[second][2],
                                             edits=[first, second]), msg)
            return [edits[i] for i in reversed(order)]
        if not self.rules.search_in_replacement:
            hit = search_in_replacement([p[0] for p in pairs], [p[1] for p in pairs])
            if hit is not None:
                j, k = hit
                msg = (f"{rel}: the search text of edit {k + 1} of this action is part of the "
                       f"replacement of its edit {j + 1}; {agent} refuses such an edit; none is written")
                raise ActionFailed(_diag("conflicting-edits", msg, pairs[k][2], edits=[j, k]), msg)
        if self.rules.rewrites:
            return edits
        hit = rewritten(edits, owners)
        if hit is not None:
            j, k = hit
            msg = (f"{rel}: edit {k + 1} of this action changes text that its edit {j + 1} "
                   f"wrote; {agent} applies them in sequence, and an edit rewriting another's "
                   "replacement is not what either meant; none is written")
            raise ActionFailed(_diag("conflicting-edits", msg, pairs[k][2], edits=[j, k]), msg)
        return edits

    def empty_search(self, index: int, state: _State, text: str | None, replace: str,
                     s_span: Span, path_span: Span) -> tuple[str, str] | None:
        """An empty search text, as the action's agent reads it (:class:`EditRules`): the
        whole new text and how it was made (``create``, ``write``), None to append (the
        locator's ``append`` place), or ``empty-search`` where the agent refuses."""
        rules, rel = self.rules, state.target.rel
        if text is None:
            if rules.on_missing == "create":
                self.check_place(index, state, path_span, as_dir=False)
                return replace, "create"
            where = f"{rel}, which does not exist"
        else:
            mode = rules.on_text if text.strip() else rules.on_empty
            if mode == "write":
                return replace, "write"
            if mode == "append":
                return None
            where = f"{rel}, which has content" if text.strip() else f"{rel}, which is empty"
        msg = f"{rules.agent} gives an empty search text no meaning on {where}; nothing is written"
        if rules.empty_hint:
            msg += f" ({rules.empty_hint})"
        raise ActionFailed(_diag("empty-search", msg, s_span), msg)

    def replace_all(self, index: int, k: int, text: str, search: str, replace: str, rel: str,
                    s_span: Span, start: int, outcome: ActionOutcome) -> list[TextEditTuple] | None:
        """The edits of a ``replace_all`` edit: every exact occurrence of ``search`` after
        ``start``, last first (each in the coordinates of the text the ones before it left).
        None when the replacement is already there and the search text is not. A place found
        only up to layout is never written: it is ``search-not-found`` naming the places,
        and a place the user chose is replaced alone."""
        places = exact_places(text[start:], search)
        where = {"action": index, "edit": k}
        chosen = self.choices.get((index, k))
        if not places or chosen is not None:
            found = locate(text, search, path=rel, start=start)
            if chosen is not None:
                at = _choose(found, chosen, rel, text, s_span)
                return [(at.start, at.end, at.replacement(replace))]
            if _present(text[start:], replace, rel):
                outcome.diagnostics.append(_diag("applied", f"the replacement is already in {rel}", s_span))
                return None
            near = [found] if isinstance(found, Located) else found.candidates
            msg = f"{rel}: replace_all found no exact occurrence of the search text"
            if near:
                many = len(near) > 1
                msg += (f"; {'places' if many else 'a place'} at line{'s' if many else ''} "
                        f"{', '.join(str(c.line) for c in near[:20])} match{'' if many else 'es'} it "
                        "only up to layout or content: not written unless you choose one")
                data = [_candidate(c, text) for c in near]
                raise ActionFailed(_diag("search-not-found", msg, s_span, candidate=data[0],
                                         candidates=data, **where), msg)
            raise ActionFailed(_diag("search-not-found", msg, s_span, **where), msg)
        if _covered(text, start, places, search, replace):
            outcome.diagnostics.append(_diag(
                "applied", f"the replacement is already in {rel} at every occurrence", s_span))
            return None
        return [(p.start + start, p.end + start, p.replacement(replace)) for p in reversed(places)]

    def settle_syntax(self) -> None:
        """A file that parsed before the transcript and does not after it: the actions whose
        edit broke it fail (unless forced). A break a later action repairs is not reported."""
        final_ok: dict[int, bool] = {}
        for index, outcome, d, state in self.breaks:
            key = id(state)
            if key not in final_ok:
                final_ok[key] = state.text is None or _parses(state.target.rel, state.text)
            if final_ok[key]:
                continue
            outcome.diagnostics.append(d)
            if d.severity is Severity.WARNING:
                continue  # the grammar is not sure enough to block (see _new_syntax_error)
            if self.forces(index):
                d.severity = Severity.WARNING
                d.message += " (applied anyway: forced)"
            else:
                outcome.ok = False
                outcome.reason = d.message

    # -- the timeline (see .timeline) --------------------------------------------------
    def found_as_written(self, action: Action) -> bool:
        """Whether every search text of a modify is in its file as the plan has it, as written
        (line endings aside)."""
        try:
            text = self.state(action).text
        except (ActionFailed, OSError):
            return True  # the handler says why
        if text is None:
            return False
        body = _norm(text)
        return all(not s.strip() or _norm(s) in body for s, _, _, _ in _pairs(action))

    def history(self, views: Sequence[Action | None],
                snippets: Collection[int] = ()) -> dict[int, Judgement]:
        """The history actions of every file's chain (``views``: the file actions the plan
        may apply, normalized; None for the others), each file read once, as the plan reads
        it. A file a rename touches is left out: all its actions are pending, as before."""
        chains: dict[Path, list[Step]] = {}
        renamed: set[Path] = set()
        for index, action in enumerate(views):
            if action is None:
                continue
            try:
                state = self.state(action)
                if action.kind is ActionKind.RENAME_FILE:
                    renamed.add(state.target.path)
                    to = action.fields.get("to")
                    if to is not None and isinstance(to.value, str):
                        renamed.add(self.state(Action(
                            action.dialect, action.type, action.kind, action.span,
                            action.name_span, {"path": to})).target.path)
                    continue
            except (ActionFailed, OSError):
                continue  # the plan says why, when it reaches the action
            orig = state.original
            try:
                step = _step(index, action, orig.text if orig is not None else None,
                             snippet=index in snippets)
            except ActionFailed:
                continue  # a bad argument: never on the chain; the plan says why

            if step is not None and not state.is_dir:
                chains.setdefault(state.target.path, []).append(step)
        out: dict[int, Judgement] = {}
        for path, steps in chains.items():
            if path in renamed:
                continue
            orig = self.states[path].original
            out.update(judge(steps, orig.text if orig is not None else None))
        return out

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
                moved = st.renamed_from
                source = moved.original if moved is not None and moved.text is None else None
                change = FileChange(
                    path, st.target.rel, kind, orig.raw if orig is not None else None,
                    new_bytes, old_text, st.text, st.edits.items, list(st.strategies),
                    st.actions,
                    orig.mode if orig is not None else (source.mode if source is not None else None),
                    bom,
                    moved.target.path if moved is not None and source is not None else None,
                    st.merged,
                )
                if orig is not None and old_text == st.text:
                    continue
            out[path] = change
        return out


def _conflict(message: str, span: Span) -> Diagnostic:
    """A file and a directory wanted at the same path: the write could not do both."""
    return Diagnostic("file-exists", message, span, severity=Severity.ERROR)


def _os_failure(rel: str, exc: OSError, span: Span) -> ActionFailed:
    """A path the file system rejects (a name over its limit, ...): a diagnostic, never a
    traceback."""
    if exc.errno == errno.ENAMETOOLONG:
        msg = f"{rel}: a name in this path is too long for the file system"
        return ActionFailed(_diag("invalid-path", msg, span), msg)
    msg = f"{rel}: cannot be used: {exc.strerror or exc}"
    return ActionFailed(_diag("file-unreadable", msg, span), msg)


def _candidate(c: Located, text: str, *, score: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"line": c.line, "endLine": c.end_line(text), "strategy": c.strategy}
    if score or c.score is not None:
        out["score"] = round(c.score if c.score is not None else 100.0, 1)
    return out


def _question(found: Located, rel: str, text: str, span: Span, where: dict[str, int]) -> Diagnostic:
    """``search-not-found`` for a place whose content differs from the search text."""
    end = found.end_line(text)
    lines = f"line {found.line}" if end == found.line else f"lines {found.line}-{end}"
    score = f"score {found.score:.0f}, " if found.score is not None else ""
    note = f": {found.note}" if found.note else ""
    msg = (f"{rel}: search text not found as written; the closest match, {lines} ({score}"
           f"{found.strategy} strategy{note}), differs in content and is not applied unless you "
           "choose it (quick fix \"Apply to the closest match\", or apply --accept-fuzzy)")
    return _diag("search-not-found", msg, span, candidate=_candidate(found, text), **where)


def _refusal(found: Refused, rel: str, text: str, span: Span, where: dict[str, int]) -> Diagnostic:
    msg = f"{rel}: {found.message}"
    if found.code == "search-ambiguous":
        return _diag(
            found.code, msg, span, lines=found.lines,
            candidates=[_candidate(c, text, score=False) for c in found.candidates], **where,
        )
    if found.candidates:
        listed = [_candidate(c, text) for c in found.candidates]
        return _diag(found.code, msg, span, candidate=listed[0], candidates=listed, **where)
    return _diag(found.code, msg, span, **where)


def _covered(text: str, start: int, places: Sequence[Located], search: str, replace: str) -> bool:
    """Whether every occurrence of ``search`` stands inside the replacement that holds it
    (``foo`` -> ``foo_bar`` already done): replacing them again would write ``foo_bar_bar``."""
    s, r = _norm(search), _norm(replace)
    j = r.find(s)
    if j < 0:
        return False
    body = _norm(text[start:]) if "\r\n" in text else text[start:]
    hits = _occurrences(body, s)
    return bool(hits) and len(hits) == len(places) and all(
        h >= j and body.startswith(r, h - j) for h in hits)


def _occurrences(text: str, needle: str) -> list[int]:
    out = []
    pos = text.find(needle)
    while pos >= 0:
        out.append(pos)
        pos = text.find(needle, pos + len(needle))
    return out


def _last_lines(text: str, search: str) -> int:
    """Where the file's last lines start, as many as ``search`` has (Codex seeks a chunk marked
    ``*** End of File`` there only). A final line break ends the last line; it is no line."""
    want = search.count("\n") + (0 if search.endswith("\n") else 1)
    end = len(text)
    if text.endswith("\n"):
        end -= 1
    pos = end
    for _ in range(want):
        nl = text.rfind("\n", 0, pos)
        if nl < 0:
            return 0
        pos = nl
    return pos + 1


def _after_anchor(text: str, anchor: Field, start: int, rel: str) -> int:
    """Where the search of a chunk with the context line ``anchor`` (``@@ class Foo``) starts:
    after the first line at or after ``start`` that is that line (as Codex seeks it); or, for
    a run of lines (the chunk of context lines only before it), after the first place where
    those lines stand one after the other."""
    value = anchor.value if isinstance(anchor.value, str) else ""
    found = find_anchor(text, value, start)
    if found is None:
        first = text.count("\n", 0, start) + 1
        where = f" at or after line {first}" if start else ""
        if value.endswith("\n"):
            lines = value[:-1].split("\n")
            shown = f"`{lines[0].strip()}`" + (f" and the {len(lines) - 1} after it" if len(lines) > 1 else "")
            msg = (f"{rel}: the context lines of a chunk that changes nothing ({shown}) are not in the "
                   f"file{where}; Codex rejects this patch")
        else:
            msg = f"{rel}: the context line `@@ {value.strip()}` is not in the file{where}; Codex rejects this chunk"
        raise ActionFailed(_diag("search-not-found", msg, anchor.span), msg)
    return found[1]


def _choose(found: Located | Refused, line: int, rel: str, text: str, span: Span) -> Located:
    """The place at ``line`` the user chose among the candidates."""
    places = [found] if isinstance(found, Located) else found.candidates
    for c in places:
        if c.line == line:
            return c
    where = ", ".join(str(c.line) for c in places)
    msg = (f"{rel}: no candidate place at line {line}"
           + (f" (the candidates are at lines {where})" if where else
              "; the search text matches nowhere now"))
    raise ActionFailed(_diag("search-not-found", msg, span), msg)


def _parses(rel: str, text: str) -> bool:
    try:
        from ..syntax import language_for
        from ..syntax.errors import syntax_errors
    except ImportError:
        return True
    lang = language_for(path=rel)
    if lang is None or lang.verdict(text) == "off":
        return True
    try:
        return not syntax_errors(text, lang, limit=1)
    except Exception:
        return True


def _contains(replace: str, search: str) -> bool:
    return bool(search.strip()) and _norm(search).strip() in _norm(replace)


def _despaced(text: str) -> str:
    """``text`` without its whitespace (``re.sub(r"\\s+", "", text)``: ``str.split`` splits at
    the same characters, about ten times faster on a long file)."""
    return "".join(text.split())


def _present(text: str, replace: str, rel: str, within: Located | None = None) -> bool:
    """Whether ``replace`` is found (exactly or up to whitespace) in ``text`` once, and covers
    ``within`` when given."""
    if not replace.strip():
        return False
    if _despaced(replace) not in _despaced(text):
        return False  # the layout-only strategies cannot find it: no need to try the others
    # (only they decide: a place the syntax or fuzzy strategy finds is not "found")
    got = locate_by_layout(text, replace)
    if not isinstance(got, Located) or got.strategy not in ("exact", "whitespace", "blank-lines"):
        return False
    if within is None:
        return True
    return got.start <= within.start and within.end <= got.end


def _new_syntax_error(
    rel: str, before: str, after: str, span: Span,
    state: _State | None = None, edits: Sequence[TextEditTuple] = (),
) -> Diagnostic | None:
    """A ``new-syntax-error`` when ``before`` parses and ``after`` (``before`` with ``edits``
    applied in order) does not. With ``state``, the file's parse is kept on it and updated edit
    by edit (tree-sitter's incremental parsing: :mod:`action_lsp.syntax.reparse`); only a text
    with an error is parsed in full, for its message."""
    try:
        from ..syntax import language_for
        from ..syntax.errors import syntax_errors
        from ..syntax.reparse import Reparse
    except ImportError:
        return None
    lang = language_for(path=rel)
    if lang is None:
        return None
    verdict = lang.verdict(after)
    if verdict == "off" or lang.verdict(before) == "off":
        return None
    try:
        kept = None
        if state is not None and edits and Reparse.usable(lang):
            kept = state.syntax if isinstance(state.syntax, Reparse) and state.syntax.lang is lang else None
            if kept is None:
                kept = state.syntax = Reparse(lang)
        if kept is not None:
            if kept.has_error(before) and syntax_errors(before, lang, limit=1):
                return None
            if not kept.after(before, edits, after):
                return None
        elif syntax_errors(before, lang, limit=1):
            return None
        problems = syntax_errors(after, lang, limit=1)
    except Exception:
        if state is not None:
            state.syntax = None
        return None
    if not problems:
        return None
    p = problems[0]
    line = after.count("\n", 0, p.start) + 1
    # A grammar that rejects some valid code (docs/languages.md) warns and never blocks.
    unsure = verdict == "warning"
    return Diagnostic(
        "new-syntax-error",
        f"{rel} parsed before this edit but not after it: line {line}: {p.message}"
        + (f" (a warning: the {lang.name} grammar rejects some valid code)" if unsure else ""),
        span,
        severity=Severity.WARNING if unsure else None,
        data={"line": line},
    )


def blocking_diagnostics(
    diagnostics: Sequence[Diagnostic],
    severity_of: Callable[[Diagnostic], Severity | None] | None = None,
) -> list[Diagnostic]:
    """The transcript diagnostics that keep their action from being applied unless forced:
    those at error severity (``severity_of`` gives the severity in force, None when turned
    off; default: the diagnostic's own or the registry's), and :data:`ALWAYS_BLOCKING`."""
    from ..codes import SHOWN_ONLY, default_severity

    out = []
    for d in diagnostics:
        if severity_of is not None:
            sev = severity_of(d)
        else:
            sev = d.severity if d.severity is not None else default_severity(d.code)
        if sev is None and d.code != SHOWN_ONLY:
            continue
        if sev is Severity.ERROR or d.code in ALWAYS_BLOCKING or d.code == SHOWN_ONLY:
            out.append(d)
    return out


def _blocker(action: Action, blockers: Sequence[Diagnostic]) -> Diagnostic | None:
    a = action.span
    for d in blockers:
        if a.start <= d.span.start < a.end or (d.span.start <= a.start < d.span.end):
            return d
    return None


class _Blockers:
    """:func:`_blocker` for every action of a plan without reading every blocker per action
    (a 50 MB transcript: 100,000 actions and thousands of blockers). The blockers are sorted
    by start once; an action reads those that start between its start less the longest
    blocker's length and its end, and gets the first in the given order, as ``_blocker``."""

    def __init__(self, blockers: Sequence[Diagnostic]) -> None:
        self.blockers = blockers
        self.order = sorted(range(len(blockers)), key=lambda i: blockers[i].span.start)
        self.starts = [blockers[i].span.start for i in self.order]
        self.longest = max((len(d.span) for d in blockers), default=0)

    def of(self, action: Action) -> Diagnostic | None:
        import bisect

        a = action.span
        lo = bisect.bisect_left(self.starts, a.start - self.longest)
        hi = bisect.bisect_left(self.starts, max(a.end, a.start + 1))
        best = -1
        for k in range(lo, hi):
            i = self.order[k]
            d = self.blockers[i]
            if (a.start <= d.span.start < a.end or d.span.start <= a.start < d.span.end) and (best < 0 or i < best):
                best = i
        return self.blockers[best] if best >= 0 else None


#: The rules of an action no dialect's file view reads (built by hand, or a dialect that gives
#: no view): an empty search text creates a missing file and is refused on an existing one.
HAND_BUILT = EditRules("this action", on_missing="create", on_empty="write")

_KIND_OF_OP = {
    "create": ActionKind.CREATE_FILE,
    "write": ActionKind.WRITE_FILE,
    "modify": ActionKind.MODIFY_FILE,
    "delete": ActionKind.DELETE_FILE,
    "rename": ActionKind.RENAME_FILE,
    "mkdir": ActionKind.CREATE_DIRECTORY,
}


def _from_view(action: Action) -> tuple[Action, bool, EditRules]:
    """The action as its dialect's normalized file view says (``path``, ``to``, ``content``,
    edits with their flags), whether its tool ends a changed file with a line break, and its
    agent's rules: the planner reads every dialect the same way. Actions of no registered
    dialect (built by hand) are taken as they are, with :data:`HAND_BUILT` rules."""
    from ..dialects import file_view

    view = file_view(action)
    if view is None:
        return action, False, HAND_BUILT
    fields = {"path": view.path}
    if view.to is not None:
        fields["to"] = view.to
    if view.content is not None:
        fields["content"] = view.content
    edits = [Edit(e.search, e.replace, e.line, e.replace_all, e.anchors, e.after_previous, e.at_end, e.count)
             for e in view.edits]
    return Action(
        action.dialect, action.type, _KIND_OF_OP[view.op], action.span, action.name_span,
        fields, action.group, action.group_label, edits, action.partial,
    ), view.final_newline, view.rules


def _final_eol(how: str, content: str, before: str | None) -> str:
    """The content as the agent's tool ends the file it writes (``EditRules.final_eol``):
    one line break added always, or only when the file it replaces (``before``) ended with one."""
    if not content or content.endswith("\n"):
        return content
    if how == "always" or (how == "as-file" and before is not None and before.endswith("\n")):
        return content + "\n"
    return content


def _line_start(text: str, line: int) -> int:
    """Offset of the start of 1-based ``line`` (the end of the text for 0 or past the end)."""
    if line <= 0:
        return len(text)
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return pos


def _step(index: int, action: Action, text: str | None, *, snippet: bool = False) -> Step | None:
    """The action as a step of its file's chain (None: not on it). Its search/replace pairs as
    the planner reads them against ``text`` (the file before the transcript): line-number
    prefixes stripped, no-op and layout-only pairs left out (the planner judges those)."""
    kind = action.kind
    if kind in (ActionKind.CREATE_FILE, ActionKind.WRITE_FILE):
        content = action.fields.get("content")
        if content is not None and not isinstance(content.value, str):
            return None  # a bad argument: the planner refuses it
        if snippet and kind is ActionKind.WRITE_FILE:  # a chat answer: merged by syntax
            return Step(index, "merge", content=action.text("content") or "",
                        path=action.path or "")
        return Step(index, "create" if kind is ActionKind.CREATE_FILE else "write",
                    content=action.text("content") or "")
    if kind is ActionKind.DELETE_FILE:
        return Step(index, "delete")
    if kind is ActionKind.MODIFY_FILE:
        pairs = []
        for search, replace, _, _ in _pairs(action):
            numbered = strip_line_numbers(search) if text is not None else None
            if numbered is not None and text is not None and search in text:
                numbered = None
            if numbered is not None:
                bare = strip_line_numbers(replace, counting=False)
                if bare is not None or not has_line_numbers(replace):
                    search = numbered[0]
                    replace = bare[0] if bare is not None else replace
            if not layout_only(search, replace):
                pairs.append((search, replace))
        return Step(index, "modify", pairs=pairs) if pairs else None
    return None


def _judged(judgement: Judgement, action: Action, outcome: ActionOutcome) -> None:
    """The outcome of a history action: applied, or superseded (never written either way)."""
    rel = action.path or ""
    if judgement.kind == "applied":
        outcome.applied = True
        span = _field_span(action, "search") if action.kind is ActionKind.MODIFY_FILE else (
            _field_span(action, "path"))
        if action.edits:
            span = action.edits[0].search.span
        said = (f"{rel} is already deleted" if action.kind is ActionKind.DELETE_FILE
                else f"{rel} already holds this action's result")
        outcome.diagnostics.append(_diag("applied", said, span))
        return
    by = judgement.by
    outcome.skipped = True
    outcome.superseded_by = -1 if by is None else by
    if by is None:
        msg = (f"{rel}: this action's result is no longer in the file, and no later action of "
               "the transcript rewrote it: the file was changed since; not applied again")
        outcome.reason = "superseded: the file was changed since; not applied again"
    else:
        msg = (f"{rel}: superseded by action {by + 1}, which rewrote this text later in the "
               "transcript; nothing to apply")
        outcome.reason = f"superseded by action {by + 1}; nothing to apply"
    outcome.diagnostics.append(Diagnostic(
        "superseded", msg, _field_span(action, "path"),
        data={"supersededBy": by} if by is not None else None))


#: The findings of a pending action that only say the file is not where the transcript left it.
DIVERGED = frozenset({"search-not-found", "search-ambiguous", "file-not-found", "file-exists"})


def plan_changes(
    actions: Sequence[Action],
    ws: Workspace,
    *,
    only: Collection[int] | None = None,
    accept_fuzzy: bool | Collection[int] = False,
    choices: Mapping[tuple[int, int], int] | None = None,
    force: bool | Collection[int] = False,
    blockers: Sequence[Diagnostic] = (),
    check_only: bool = False,
    allow_code_paths: bool | Collection[int] = False,
    accept_merge: bool | Collection[int] = False,
) -> Plan:
    """Plan the file actions of ``actions`` (indices into it; ``only`` restricts which run).

    A place whose content differs from the search text (``definition``, ``fuzzy``) is applied
    only for the actions in ``accept_fuzzy`` (True: all); ``choices`` maps ``(action index,
    edit index)`` to the 1-based line of the candidate place the user chose (one of several
    matches, or a close match). ``blockers`` (see :func:`blocking_diagnostics`) keep the
    actions they fall in from being applied, and an edit that breaks a file's syntax fails,
    unless ``force`` (True: every action; or the indices of the forced ones), which also lets
    creates overwrite files and change read-only files. Force never accepts a place whose
    content differs, nor a path outside the workspace or inside a protected directory
    (``protected-path``). A file that makes a tool run code by itself (``runs-code``, see
    :func:`action_lsp.paths.runs_code`) is written only by the actions in ``allow_code_paths``
    (True: all): the user's explicit confirmation, which ``force`` is not. A chat answer's
    lazy snippet or fragment whose merge is not certain (``lazy-ambiguous``) is written as
    proposed only for the actions in ``accept_merge`` (True: all) -- never one that would drop
    or double a definition.

    ``check_only``: the outcomes and their diagnostics alone, without the changes (no edits
    composed, no bytes: ``Plan.changes`` is empty and no outcome has a ``change``) -- what the
    language server's workspace checks report; never a plan to write.
    """
    planner = _Planner(ws, accept_fuzzy=accept_fuzzy, choices=choices, force=force,
                       allow_code_paths=allow_code_paths, check_only=check_only,
                       accept_merge=accept_merge)
    blocking = _Blockers(blockers)
    views: list[tuple[Action, bool, EditRules] | None] = [None] * len(actions)
    for index, action in enumerate(actions):
        if (action.failure is None and action.kind.is_file_action
                and (planner.forces(index) or blocking.of(action) is None)):
            views[index] = _from_view(action)
    history = planner.history([v[0] if v is not None else None for v in views],
                              {i for i, v in enumerate(views) if v is not None and v[2].snippet})
    outcomes: list[ActionOutcome] = []
    touched: dict[int, Path] = {}
    # Per file, the first pending action that found the file elsewhere than the transcript
    # left it, and the later ones that failed the same way (said once, on the first).
    diverged: dict[str, tuple[Diagnostic, list[int]]] = {}
    for index, action in enumerate(actions):
        outcome = ActionOutcome(index, True)
        outcomes.append(outcome)
        if only is not None and index not in only:
            outcome.skipped = True
            outcome.reason = "not selected"
            continue
        kind = action.kind
        if action.failure is not None:  # a call that failed in its agent session
            outcome.skipped = True
            said = (action.failure.strip().splitlines() or [""])[0][:200]
            outcome.reason = f"failed in the session{f' ({said})' if said else ''}; not applied"
            continue
        if not kind.is_file_action:
            outcome.skipped = True
            outcome.reason = f"not a file action ({kind.value}); never executed"
            continue
        planner.force = planner.forces(index)
        planner.allow_code = planner.allows_code(index)
        # Text no UTF-8 file can hold is never written, forced or not (nor is its rule's
        # severity turned off for the edit engine).
        blocker = first_surrogate(action) or (None if planner.force else blocking.of(action))
        if blocker is not None:
            outcome.ok = False
            outcome.blocked_by = blocker
            # Nothing is ever written outside the workspace, forced or not: no --force hint.
            if blocker.code in get_args(PathCode):
                hint = "nothing is ever written outside the workspace"
            elif (blocker.data or {}).get("surrogate"):
                hint = "correct the transcript (no file can hold this text, forced or not)"
            else:
                hint = "correct the transcript, or apply with --force to apply it as it is"
            outcome.reason = (f"not applied because of the transcript's {blocker.code}: "
                              f"{blocker.message}; {hint}")
            continue
        view = views[index]
        action, planner.final_newline, planner.rules = view if view is not None else _from_view(action)
        kind = action.kind
        judgement = history.get(index)
        if judgement is not None:
            _judged(judgement, action, outcome)
            continue
        if (kind is ActionKind.MODIFY_FILE and action.path in diverged
                and not planner.accepts_fuzzy(index)
                and not any(i == index for i, _ in planner.choices)
                and not planner.found_as_written(action)):
            # The file left the transcript's timeline before: only a search text found as
            # written is looked for (no tolerant strategies: fast, and said once).
            folded = diverged[action.path][1]
            folded.append(index)
            outcome.ok = False
            outcome.reason = (f"not applied: {action.path} is not as this transcript left it "
                              f"since action {folded[0] + 1}, and this search text is not in it "
                              "as written")
            continue
        handler = {
            ActionKind.CREATE_FILE: planner.create,
            ActionKind.WRITE_FILE: planner.create,
            ActionKind.MODIFY_FILE: planner.modify,
            ActionKind.CREATE_DIRECTORY: planner.mkdir,
            ActionKind.DELETE_FILE: planner.delete,
            ActionKind.RENAME_FILE: planner.rename,
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
            d = exc.diagnostic
            if d is not None and d.code in DIVERGED and action.path is not None:
                first = diverged.get(action.path)
                if first is not None:  # the file left the transcript's timeline before
                    first[1].append(index)
                    outcome.reason = (f"not applied: {action.path} is not as this transcript "
                                      f"left it since action {first[1][0] + 1} ({exc.reason})")
                    continue
                diverged[action.path] = (d, [index])
            if d is not None:
                outcome.diagnostics.append(d)
            continue
        except OSError as exc:  # the file system refused a probe: a finding, not a crash
            failed = _os_failure(action.path or "", exc, _field_span(action, "path"))
            outcome.ok = False
            outcome.reason = failed.reason
            if failed.diagnostic is not None:
                outcome.diagnostics.append(failed.diagnostic)
            continue
        rel = action.text("to") if kind is ActionKind.RENAME_FILE else action.path
        if rel is not None:  # a rename's change is its target's (created, renamed_from set)
            target = ws.resolve(rel)
            if isinstance(target, Target):
                touched[index] = target.path
    for rel, (d, later) in diverged.items():
        if len(later) > 1:
            d.message += (f"; {len(later) - 1} later action(s) on {rel} cannot be applied "
                          "either: the file matches no point of this transcript's edits to it "
                          "(changed by hand since?)")
            d.data = {**(d.data or {}), "laterFailed": later[1:]}
    planner.settle_syntax()
    if check_only:
        return Plan([], outcomes)
    changes = planner.changes()
    for index, path in touched.items():
        outcomes[index].change = changes.get(path)
    return Plan(list(changes.values()), outcomes)
