"""What a dialect provides to the scanner.

The scanner (:mod:`action_lsp.scan`) finds candidate constructs — fences by info string, tags by
name, JSON objects in prose — and hands each to the dialect that claims it. The dialect parses
the construct and returns a :class:`Construct`: where it ends, what it looked at, and the actions
and diagnostics it found. Dialects never scan the whole document themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..markdown import FenceOpen
from ..model import Action, Diagnostic, Span

if TYPE_CHECKING:
    from ..jsonscan import JResult
    from ..schema import ActionSpec


@dataclass(slots=True)
class Construct:
    """The result of parsing one construct.

    ``end`` is where scanning resumes. ``lookahead`` is the furthest offset the dialect read to
    decide; an edit at or before it invalidates the construct. A search that failed (an unclosed
    tag's closing tag, looked for to the end of the text) is declared in ``watch`` instead: the
    construct is then invalidated only by an edit that inserts or removes one of those strings.
    """

    span: Span
    actions: list[Action] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    lookahead: int = -1
    watch: tuple[str, ...] = ()  # strings whose occurrences after the construct it relies on

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

    def find(self, needle: str, start: int) -> int:
        """``text.find(needle, start)``, remembering failures so a search never repeats."""
        ...

    def find_fence_close(self, body_start: int, char: str, length: int) -> tuple[int, int] | None:
        ...

    def in_code_span(self, pos: int) -> bool:
        """Is ``pos`` inside an inline code span (CommonMark backtick pairing)?"""
        ...

    def next_tag_start(self, start: int) -> int:
        """Offset of the next opening tag claimed by any enabled dialect (len(text) if none);
        where an unclosed tag's recovery stops."""
        ...


class Dialect:
    """Base class: a dialect overrides the hooks for the constructs it claims."""

    name: str = ""
    fence_infos: frozenset[str] = frozenset()  # fence info words claimed (lower case)
    tag_names: frozenset[str] = frozenset()  # tag names claimed exactly
    tag_prefixes: tuple[str, ...] = ()  # tag name prefixes claimed (``aether-``)
    prose_json: bool = False  # offered JSON objects found in prose
    specs: Mapping[str, ActionSpec] = {}  # action types, for the schema rules and completion

    def claims_tag(self, name: str) -> bool:
        return name in self.tag_names or name.startswith(self.tag_prefixes or ("\0",))

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """Parse a claimed fence; None means "not mine after all" (an ordinary example)."""
        return None

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        raise NotImplementedError

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        """A JSON value found in prose at ``start``; None if it is not this dialect's shape."""
        return None

    def spec(self, type_name: str) -> ActionSpec | None:
        return self.specs.get(type_name)
