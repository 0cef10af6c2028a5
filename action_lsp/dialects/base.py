"""What a dialect provides to the scanner.

The scanner (:mod:`action_lsp.scan`) finds candidate constructs — fences by info string, tags by
name, JSON objects in prose — and hands each to the dialect that claims it. The dialect parses
the construct and returns a :class:`Construct`: where it ends, what it looked at, and the actions
and diagnostics it found. Dialects never scan the whole document themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..markdown import FenceOpen
from ..model import (
    NO_EMPTY_SEARCH,
    Action,
    ActionKind,
    Diagnostic,
    EditRules,
    Field,
    FileEdit,
    FileView,
    Fix,
    Severity,
    Span,
)

if TYPE_CHECKING:
    from ..jsonscan import JResult
    from ..schema import ActionSpec


@dataclass(slots=True)
class Construct:
    """The result of parsing one construct.

    ``end`` is where scanning resumes. ``span.start`` may lie before the position the construct
    was offered at: that is a declared *look-behind* (a file-name line before a fence);
    ``behind`` is how far back the dialect read to decide (the lines it looked at, whether or
    not they held what it looked for). The incremental document re-scans the construct when an
    edit touches what it read.
    ``lookahead`` is the furthest offset the dialect read to
    decide; an edit at or before it invalidates the construct. A search that failed (an unclosed
    tag's closing tag, looked for to the end of the text) is declared in ``watch`` instead: the
    construct is then invalidated only by an edit that inserts or removes one of those strings.
    """

    span: Span
    actions: list[Action] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lookahead: int = -1
    watch: tuple[str, ...] = ()  # strings whose occurrences after the construct it relies on
    behind: int = -1  # the first offset read before ``span.start`` (a look-behind); -1: none

    @property
    def end(self) -> int:
        return self.span.end


@dataclass(frozen=True, slots=True)
class TagOpen:
    """An opening tag ``<name attr=...>`` at ``start``.

    ``name`` is the name as written; ``canonical`` is the dialect's name it stands for (equal to
    ``name`` unless the scanner matched a near miss such as ``create-file``).
    """

    start: int
    name: str
    name_span: Span
    canonical: str


class ScanContext(Protocol):
    """What a dialect may ask of the scanner while parsing a construct."""

    text: str
    cache: dict[str, Any]  # per-scan memos a dialect may keep (keyed by the dialect's name)
    # Whether the text holds a ``\r`` (a line ending other than ``\n``: the searches written
    # for ``\n`` alone do not serve), found once per scan (a pass through the whole text).
    cr: bool

    def find(self, needle: str, start: int) -> int:
        """``text.find(needle, start)``, remembering failures so a search never repeats."""
        ...

    def find_fence_close(self, body_start: int, char: str, length: int) -> tuple[int, int] | None:
        ...

    def plain_fence_close(self, start: int, char: str, length: int) -> tuple[int, int] | None:
        """``find_fence_close`` without the closers glued to a tag (Kilo Code's)."""
        ...

    def in_code_span(self, pos: int) -> bool:
        """Is ``pos`` inside an inline code span (CommonMark backtick pairing)?"""
        ...

    def next_tag_start(self, start: int) -> int:
        """Offset of the next opening tag claimed by any enabled dialect (len(text) if none);
        where an unclosed tag's recovery stops."""
        ...

    def next_bound(self, at: int) -> int:
        """Just past the next blank line or fence line after ``at`` (or the text's end): how far
        a JSON value in prose may run."""
        ...


class Dialect:
    """Base class: a dialect overrides the hooks for the constructs it claims.

    Everything the rest of action-lsp needs to know about a dialect is asked here: the
    scanner's claims, the action types (``specs``), how a field is written (for quick fixes
    and completion), how an unknown name is reported, and how the dialect is described in
    settings and docs. Nothing outside a dialect module names a dialect.
    """

    name: str = ""
    description: str = ""  # one line, for editor settings and the README's dialect table
    order: int = 100  # registry order: who is offered a construct first (built-ins < 100)
    fence_infos: frozenset[str] = frozenset()  # fence info words claimed (lower case)
    tag_names: frozenset[str] = frozenset()  # tag names claimed exactly
    tag_prefixes: tuple[str, ...] = ()  # tag name prefixes claimed (``aether-``)
    # Claimed tags whose closing tag alone is no mistake (``</source>`` after an Aider block
    # another dialect read from inside ``<source>`` lines): no ``mismatched-tag`` for them.
    quiet_closers: frozenset[str] = frozenset()
    prose_json: bool = False  # offered JSON objects found in prose
    # Line starts outside fences that open this dialect's construct (``diff --git ``): the
    # scanner offers the line to ``parse_line``.
    line_markers: tuple[str, ...] = ()
    # A fence whose first body line starts with one of these (after blanks) is offered to this
    # dialect's ``parse_fence`` whatever its info word (a ```` ``` ```` holding a Codex patch).
    fence_body_markers: tuple[str, ...] = ()
    # Offered every fence no info word claims (parse_fence decides by its body). Such a dialect
    # claims only a fence whose body holds a line starting with one of its ``line_markers``
    # (after blanks), or that is never closed: the scanner skips the call for the others.
    fence_bodies: bool = False
    # A fence body (closed or not) holding no match of this is not this dialect's: the scanner
    # skips ``parse_fence`` for it (an example ```` ```json ```` needs no parse). None: no filter.
    fence_body_needs: re.Pattern[str] | None = None
    lookbehind_lines: int = 0  # lines before a construct its parse may read (a file-name line)
    # Lines before a construct its parse may read *without reporting anything there* (the chat
    # turn a chat answer stands in): context for the incremental re-scan, not for the order of
    # diagnostics (``lookbehind_lines`` bounds that).
    context_lines: int = 0
    # Offered a fence no other dialect took when ``claims_fence_head`` says its head may name a
    # file (its info string, its first body line, or the line before it): the scanner asks
    # before skipping any fence as an example. Its decision may rest on the line before the
    # fence, so the scanner never cuts a unit between that line and the fence.
    fence_heads: bool = False
    # Tags whose opening, right after the fence characters of a line (```` ```<update_todo_list> ````),
    # closes the fence there: the agent writes its next call glued to a fence it closed.
    fence_glued_tags: frozenset[str] = frozenset()
    default_enabled: bool = True  # in the default set (False: only when named in the settings)
    specs: Mapping[str, ActionSpec] = {}  # action types, for the schema rules and completion
    type_key: str = ""  # the JSON key naming an action's type (``type``, ``action``), if JSON
    sequential: bool = False  # its actions form one plan run in order (the repetition rule)
    any_type: bool = False  # every action type is valid (a session's tool names): no unknown-action

    # Reads line-structured documents (JSON Lines sessions): each record of a document that is
    # JSON Lines by its content is offered to ``claims_records``; the first such dialect that
    # claims it reads that line with ``parse_record`` (see :mod:`action_lsp.records`).
    records: bool = False
    # Strings every line that gives tool results holds (``"tool_result"``): the lines after a
    # call without one are not decoded to look for its result.
    result_markers: tuple[str, ...] = ()

    def claims_records(self, first: Any) -> bool:
        """Is ``first`` (one decoded record of a JSON Lines document: an object or an array)
        this dialect's to read?"""
        return False

    def parse_record(
        self, ctx: ScanContext, start: int, end: int, record: Any, problem: Diagnostic | None
    ) -> tuple[Construct, dict[str, list[int]]]:
        """Parse the line ``text[start:end]`` (without its line break), decoded as ``record``
        (None, with ``problem``, when it does not decode): its construct, and its tool calls
        that later lines answer (call id -> indices into the construct's actions). A call
        whose answer (:meth:`record_results`) says it failed is then marked failed."""
        raise NotImplementedError

    def record_results(self, record: Any, text: str, start: int, end: int) -> dict[str, tuple[str | None, Span]]:
        """The tool results the line ``text[start:end]`` (decoded: ``record``) gives for calls
        on earlier lines: call id -> (failure message, None when the call succeeded; where)."""
        return {}

    def claims_json(self, value: Any) -> bool:
        """Is the decoded JSON ``value`` (a record of a JSON Lines document that no records
        dialect reads) this prose-JSON dialect's? Beyond the action types of ``specs``,
        which are always offered."""
        return False

    def claims_tag(self, name: str) -> bool:
        return name in self.tag_names or name.startswith(self.tag_prefixes or ("\0",))

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """Parse a claimed fence; None means "not mine after all" (an ordinary example)."""
        return None

    def claims_fence_head(self, text: str, start: int, info: str, body_start: int) -> bool:
        """(``fence_heads`` dialects) May the fence whose line starts at ``start``, with the
        info string ``info`` and its body at ``body_start``, be this dialect's? A cheap look
        at its head; ``parse_fence`` decides."""
        return False

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        raise NotImplementedError

    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        """A line at ``start`` (outside fences) beginning with one of ``line_markers``; None
        means it is no construct after all."""
        return None

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        """A JSON value found in prose at ``start``; None if it is not this dialect's shape."""
        return None

    def spec(self, type_name: str) -> ActionSpec | None:
        return self.specs.get(type_name)

    def unknown_action_severity(self, type_name: str) -> Severity | None:
        """The severity of ``unknown-action`` for ``type_name`` (None: the registry default).

        A name under a claimed prefix (``aether-foo``) is a hint: the agent has more tags than
        the dialect describes, and an unknown one is no error storm.
        """
        if self.tag_prefixes and type_name.startswith(self.tag_prefixes):
            return Severity.HINT
        return None

    def field_syntax(self, type_name: str, field: str) -> str:
        """How ``field`` of ``type_name`` is written: ``attribute``, ``child`` (element),
        ``body`` (the element's content), ``key`` (JSON) or ``""`` when the dialect has no
        way to write it by hand."""
        return ""

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        """A fix inserting an empty ``field`` into ``action``, written the dialect's way."""
        return None

    path_fields: tuple[str, ...] = ("path", "from", "to")  # fields holding workspace paths
    #: What its modify actions mean where agents differ (:class:`~action_lsp.model.EditRules`):
    #: by default an empty search text has no meaning and is refused (the seed formats).
    rules: EditRules = NO_EMPTY_SEARCH

    def edit_rules(self, action: Action) -> EditRules:
        """The rules of ``action``'s agent (a tool-call dialect answers per tool)."""
        return self.rules

    def hover_note(self, action: Action) -> str:
        """A line hover adds under the action's head: how the action was recognised, when its
        dialect has several ways (empty: nothing to add)."""
        return ""

    def command_field(self, type_name: str) -> str:
        """The field holding a command action's command line."""
        return "command"

    def file_view(self, action: Action) -> FileView | None:
        """The action as a file operation (None when it is none, or lacks its path).

        The default reads the canonical field names (``path``, or ``from`` and ``to`` for a
        rename; ``content``; ``search``/``replace`` pairs in ``Action.edits``); a dialect
        whose fields are named otherwise overrides this.
        """
        fields = action.fields

        def get(role: str) -> Field | None:
            if role == "path" and action.kind is ActionKind.RENAME_FILE:
                return fields.get("from") or fields.get("path")
            return fields.get(role)

        return role_view(action, get, self.edit_rules(action))


def role_view(action: Action, get: Callable[[str], Field | None], rules: EditRules = NO_EMPTY_SEARCH) -> FileView | None:
    """The file operation of ``action`` (None when it is none, or lacks a field it needs),
    ``get`` giving the field of each role: ``path``, ``to``, ``content``, ``search``,
    ``replace`` (a declared dialect names them itself). ``rules`` go with a modify, and with a
    whole-file write (how its tool ends the file: ``EditRules.final_eol``)."""
    op = _OPS.get(action.kind)
    if op is None:
        return None
    path = get("path")
    if path is None or not isinstance(path.value, str):
        return None
    if op == "rename":
        to = get("to")
        return FileView(op, path, to=to) if to is not None and isinstance(to.value, str) else None
    if op in ("create", "write"):
        content = get("content")
        if content is None or not isinstance(content.value, str):
            return None
        return FileView(op, path, content=content, rules=rules)
    if op == "modify":
        edits = tuple(FileEdit.of(e) for e in action.edits)
        if not edits:
            search, replace = get("search"), get("replace")
            if search is None or replace is None:
                return None
            edits = (FileEdit(search, replace),)
        return FileView(op, path, edits=edits, rules=rules)
    return FileView(op, path)


_OPS = {
    ActionKind.CREATE_FILE: "create",
    ActionKind.WRITE_FILE: "write",
    ActionKind.MODIFY_FILE: "modify",
    ActionKind.DELETE_FILE: "delete",
    ActionKind.RENAME_FILE: "rename",
    ActionKind.CREATE_DIRECTORY: "mkdir",
}
