"""The data that flows through action-lsp: spans, fields, actions, diagnostics, fixes.

Every offset here is an index into the document's Python ``str`` (code points). Conversion to
LSP positions (utf-8 / utf-16 / utf-32 columns) happens only in :mod:`action_lsp.text`.
"""

from __future__ import annotations

import bisect
import enum
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, overload

# Spans and source maps are made by the million and never changed once made; they are not
# ``frozen`` dataclasses only because a frozen dataclass's ``__init__`` (``object.__setattr__``
# per field) costs 3.5x a plain one. Treat them as immutable: they are hashed and shared.


@dataclass(slots=True, unsafe_hash=True)
class Span:
    """A half-open range ``[start, end)`` of document offsets (immutable by convention)."""

    start: int
    end: int

    def shift(self, delta: int) -> Span:
        return Span(self.start + delta, self.end + delta) if delta else self

    def contains(self, offset: int) -> bool:
        return self.start <= offset <= self.end

    def __len__(self) -> int:
        return self.end - self.start


class Breaks(Sequence[tuple[int, int]]):
    """A :class:`SourceMap`'s breaks, kept as two arrays of 64-bit integers: 16 bytes a break
    instead of a tuple of two ints (about 120), for strings with thousands of escapes (a written
    file's ``\\n``) held by every action of a 100 MB session."""

    __slots__ = ("_composed", "_idx", "_make", "_src", "_via")

    def __init__(self, pairs: Iterable[tuple[int, int]]) -> None:
        pairs = pairs if isinstance(pairs, (list, tuple)) else list(pairs)
        self._idx = array("q", [i for i, _ in pairs])
        self._src = array("q", [s for _, s in pairs])
        self._make: Callable[[], tuple[array[int], array[int]]] | None = None
        self._via: Callable[[int], int] | None = None
        self._composed = False

    @classmethod
    def from_arrays(cls, idx: array[int], src: array[int]) -> Breaks:
        """Breaks from their two columns, already made (no pairs to split)."""
        out = cls.__new__(cls)
        out._idx = idx
        out._src = src
        out._make = None
        out._via = None
        out._composed = False
        return out

    @classmethod
    def lazy(
        cls, make: Callable[[], tuple[array[int], array[int]]], via: Callable[[int], int] | None = None,
        composed: bool = False,
    ) -> Breaks:
        """Breaks worked out by ``make`` (their two columns) the first time they are read: most
        strings of a session are never mapped past their ends (a written file's content is
        mapped only when a diagnostic falls inside it), so their breaks are never made.
        ``via``, when given, maps one index inside the value (unshifted) without them, or
        says -1 when that would cost more than making them: a composed map answers through the
        two maps it composes, a string near either end by counting its escapes. ``composed``:
        ``make`` composes two maps (it holds maps, not a decoded value)."""
        out = cls.__new__(cls)
        out._make = make
        out._via = via
        out._composed = composed
        return out

    @property
    def idx(self) -> array[int]:
        if self._make is not None:
            self._force()
        return self._idx

    @property
    def src(self) -> array[int]:
        if self._make is not None:
            self._force()
        return self._src

    def _force(self) -> None:
        make = self._make
        assert make is not None
        self._idx, self._src = make()
        self._make = self._via = None  # (what they held is let go)

    def __len__(self) -> int:
        return len(self.idx)

    @overload
    def __getitem__(self, k: int) -> tuple[int, int]: ...
    @overload
    def __getitem__(self, k: slice) -> Sequence[tuple[int, int]]: ...
    def __getitem__(self, k: int | slice) -> Any:
        if isinstance(k, slice):
            return list(zip(self.idx[k], self.src[k], strict=True))
        return (self.idx[k], self.src[k])

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return zip(self.idx, self.src, strict=True)

    def __eq__(self, other: object) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, (Breaks, tuple, list)) else NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


@dataclass(slots=True)
class SourceMap:
    """Maps an index inside a decoded value to an offset in the document.

    A value taken verbatim from the document (tag content) maps as ``base + i``. A JSON string
    with escapes does not: ``"a\\nb"`` decodes to 3 characters written in 4. ``breaks`` lists
    ``(value_index, source_offset)`` pairs, sorted by value index, where the linear mapping
    restarts (one after every escape); an index maps linearly from the last break at or before
    it. ``length`` is the decoded length and ``source_end`` the offset just past the value as
    written, so that the end of a slice reaching the end of the value maps exactly.
    """

    base: int
    length: int
    source_end: int
    breaks: Sequence[tuple[int, int]] = ()
    offset: int = 0  # added to every break's source offset: a shift costs O(1), not O(breaks)

    def __post_init__(self) -> None:
        breaks = self.breaks
        if breaks.__class__ is tuple:  # (the common case, asked first: Breaks is an ABC, slow to test)
            if breaks:
                self.breaks = Breaks(breaks)
        elif not isinstance(breaks, Breaks) and breaks:  # (lazy breaks stay unmade)
            self.breaks = Breaks(breaks)

    def _key(self) -> tuple[int, int, int, tuple[tuple[int, int], ...]]:
        off = self.offset
        return (self.base, self.length, self.source_end, tuple((i, s + off) for i, s in self.breaks))

    def __eq__(self, other: object) -> bool:  # the same mapping, however it was shifted
        return isinstance(other, SourceMap) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @classmethod
    def verbatim(cls, start: int, end: int) -> SourceMap:
        return cls(start, end - start, end)

    def to_source(self, index: int) -> int:
        if index >= self.length:
            return self.source_end
        if index <= 0:  # (a break at index 0 is always at base: lazy ones stay unmade)
            return self.base + index
        breaks = self.breaks
        if breaks.__class__ is Breaks:  # (asked first: an ABC's isinstance is slow)
            if breaks._make is not None:
                if breaks._via is not None:
                    found = breaks._via(index)
                    if found >= 0:  # (-1: it cannot say cheaply; the breaks are made)
                        return found + self.offset
                breaks._force()
            idx = breaks._idx
            pos = bisect.bisect_right(idx, index) - 1
            if pos < 0:
                return self.base + index
            return breaks._src[pos] + self.offset + (index - idx[pos])
        if not breaks:
            return self.base + index
        pos = bisect.bisect_right(breaks, (index, 1 << 62)) - 1
        if pos < 0:
            return self.base + index
        value_index, source = breaks[pos]
        return source + self.offset + (index - value_index)

    def span(self, start: int, end: int) -> Span:
        """The document span of the decoded slice ``value[start:end]``."""
        begin = self.to_source(start)
        return Span(begin, max(begin, self.to_source(end)))

    def slice(self, start: int) -> SourceMap:
        """The map of ``value[start:]`` (a path with its workspace prefix cut off)."""
        if start <= 0:
            return self
        start = min(start, self.length)
        return SourceMap(
            self.to_source(start),
            self.length - start,
            self.source_end,
            tuple((i - start, s + self.offset) for i, s in self.breaks if i > start),
        )

    def compose(self, inner: SourceMap) -> SourceMap:
        """The map of a value decoded from *this map's value* (``inner`` maps indices of the
        twice-decoded value to indices of this value) straight to document offsets: a string
        inside the JSON of a tool call's ``arguments``, which is itself a JSON string.

        Both maps are linear between their breaks, so the composition is linear between the
        union of ``inner``'s breaks and this map's breaks pulled back through ``inner``.
        Its ends are worked out now, its breaks when first read (:meth:`Breaks.lazy`): most
        composed maps (the content of a written file) are never read inside.
        """
        n = inner.length
        # (the class asked, not isinstance: Breaks is an ABC, slow to test)
        outer: Breaks | None = self.breaks if self.breaks.__class__ is Breaks else None
        if not LAZY or (outer is None and inner.breaks.__class__ is not Breaks):
            breaks = self._composed_breaks(inner)
        else:
            if outer is not None and outer._make is not None and not outer._composed:
                outer._force()  # (the outer value, a whole arguments string, is not kept for it)
            # (an outer composition stays unmade: made, if ever, when this one is)
            breaks = Breaks.lazy(lambda: _arrays(self._composed_breaks(inner)),
                                 lambda i: self.to_source(inner.to_source(i)), composed=True)
        return SourceMap(
            self.to_source(inner.base),  # (inner.to_source(0), whatever its length)
            n,
            self.to_source(inner.source_end),
            breaks,
        )

    def _composed_breaks(self, inner: SourceMap) -> Sequence[tuple[int, int]]:
        """The breaks of :meth:`compose`: worked out on arrays (a file written through two
        levels of escapes has a break a line in each), or in plain Python for few."""
        if len(self.breaks) + len(inner.breaks) < _SMALL_COMPOSE:
            return self._compose_small(inner)
        import numpy as np

        n = inner.length
        iidx, isrc = _columns(inner)
        cuts = [np.zeros(1, dtype=np.int64), iidx[iidx < n]]
        if self.breaks:
            # Pieces of `inner`: first value index, first source index, in order.
            p_j = np.concatenate((np.zeros(1, dtype=np.int64), iidx))
            p_s = np.concatenate((np.array([inner.base], dtype=np.int64), isrc))
            v = _columns(self)[0]
            v = v[(v > inner.base) & (v < inner.source_end)]
            if len(v):
                k = np.searchsorted(p_s, v, side="right") - 1
                ends = np.append(p_j[1:], n)[k]
                j = p_j[k] + (v - p_s[k])
                cuts.append(j[j < ends])
        ordered = np.unique(np.concatenate(cuts))
        ordered = ordered[ordered > 0]
        if not len(ordered):
            return ()
        src = self._to_source_many(inner._to_source_many(ordered))
        return Breaks.from_arrays(array("q", ordered.tolist()), array("q", src.tolist()))

    def _compose_small(self, inner: SourceMap) -> Sequence[tuple[int, int]]:
        """:meth:`_composed_breaks` for maps with few breaks, in plain Python (no array set-up)."""
        cuts: set[int] = {0}
        cuts.update(i for i, _ in inner.breaks if i < inner.length)
        if self.breaks:
            pieces = [(0, inner.base), *((i, s + inner.offset) for i, s in inner.breaks)]
            k = 0
            lo, hi = inner.base, inner.source_end
            for v, _ in self.breaks:
                if not lo < v < hi:
                    continue
                while k + 1 < len(pieces) and pieces[k + 1][1] <= v:
                    k += 1
                j0, s0 = pieces[k]
                end = pieces[k + 1][0] if k + 1 < len(pieces) else inner.length
                j = j0 + (v - s0)
                if j < end:
                    cuts.add(j)
        return tuple((j, self.to_source(inner.to_source(j))) for j in sorted(cuts) if j > 0)

    def _to_source_many(self, index: Any) -> Any:
        """:meth:`to_source` of each of the (numpy int64) ``index``."""
        import numpy as np

        out = self.base + index
        if self.breaks:
            idx, src = _columns(self)
            pos = np.searchsorted(idx, index, side="right") - 1
            at = np.maximum(pos, 0)
            out = np.where(pos >= 0, src[at] + (index - idx[at]), out)
        return np.where(index >= self.length, self.source_end, out)

    def shift(self, delta: int) -> SourceMap:
        if not delta:
            return self
        return SourceMap(self.base + delta, self.length, self.source_end + delta, self.breaks, self.offset + delta)


_SMALL_COMPOSE = 48  # breaks under which a composition is worked out in plain Python
LAZY = True  # maps' breaks worked out when first read (False: at once; the tests compare both)


def _arrays(breaks: Sequence[tuple[int, int]]) -> tuple[array[int], array[int]]:
    """The two columns of ``breaks``."""
    if isinstance(breaks, Breaks):
        return breaks.idx, breaks.src
    return array("q", [i for i, _ in breaks]), array("q", [s for _, s in breaks])


def _columns(m: SourceMap) -> tuple[Any, Any]:
    """The breaks of ``m`` as two numpy int64 arrays: value indices, source offsets (shifted)."""
    import numpy as np

    b = m.breaks
    if not b:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    if not isinstance(b, Breaks):
        b = Breaks(b)
    return np.frombuffer(b.idx, dtype=np.int64), np.frombuffer(b.src, dtype=np.int64) + m.offset


@dataclass(slots=True)
class Field:
    """One field of an action as written: its decoded value and where it stands.

    ``span`` covers the value as written (for a JSON string: inside the quotes; for a tag child:
    the element's content; for an attribute: inside its quotes). ``key_span`` covers the name
    as written, without quotes: the JSON key's text, the attribute name or the child tag name.
    ``source_map`` is present for string values and maps value indices to document offsets.
    """

    name: str
    value: Any
    span: Span
    key_span: Span | None = None
    source_map: SourceMap | None = None

    def value_span(self, start: int, end: int) -> Span:
        """Document span of ``value[start:end]`` for a string value."""
        if self.source_map is None:
            return self.span
        return self.source_map.span(start, end)


class ActionKind(enum.Enum):
    """What an action means, independent of its dialect's spelling."""

    CREATE_FILE = "create_file"  # write a whole file (create, or replace when allowed)
    WRITE_FILE = "write_file"  # write a whole file, creating or replacing it (dyad-write, ...)
    MODIFY_FILE = "modify_file"  # search / replace inside an existing file
    CREATE_DIRECTORY = "create_directory"
    DELETE_FILE = "delete_file"
    RENAME_FILE = "rename_file"
    READ_FILE = "read_file"
    COMMAND = "command"  # a shell command (never run)
    CODE = "code"  # code to execute (never run; checked)
    OTHER = "other"  # tasks, memories, plans, research, ...

    @property
    def is_file_action(self) -> bool:
        return self in _FILE_KINDS


_FILE_KINDS = frozenset(
    {
        ActionKind.CREATE_FILE,
        ActionKind.WRITE_FILE,
        ActionKind.MODIFY_FILE,
        ActionKind.CREATE_DIRECTORY,
        ActionKind.DELETE_FILE,
        ActionKind.RENAME_FILE,
    }
)


@dataclass(slots=True)
class Edit:
    """One search/replace pair of a modify action (a dialect may allow several per action);
    ``line`` is the agent's 1-based hint of where the search text starts, if any; the other
    flags are those of :class:`FileEdit`."""

    search: Field
    replace: Field
    line: int | None = None
    replace_all: bool = False
    anchors: tuple[Field, ...] = ()
    after_previous: bool = False
    at_end: bool = False
    count: int | None = None


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One edit of a ``modify`` file view: replace ``search`` by ``replace``.

    ``line``: the agent's 1-based hint of where the search text starts, if it gave one.
    ``replace_all``: replace every exact occurrence (Claude Code's ``replace_all``), never a
    place found only up to layout. ``anchors``: lines that must be found, in order, before the
    search text, which is then searched after the last of them (Codex's ``@@ class Foo``).
    ``after_previous``: the search starts after the place of the action's edit before it
    (Codex's chunks are in file order). ``at_end``: the search text ends the file (Codex's
    ``*** End of File``). ``count``: the search text must occur exactly this many times, and
    every occurrence is replaced (Gemini CLI's ``expected_replacements``).
    """

    search: Field
    replace: Field
    line: int | None = None
    replace_all: bool = False
    anchors: tuple[Field, ...] = ()
    after_previous: bool = False
    at_end: bool = False
    count: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"search": self.search.value, "replace": self.replace.value}
        if self.line is not None:
            out["line"] = self.line
        if self.replace_all:
            out["replace_all"] = True
        if self.anchors:
            out["anchors"] = [a.value for a in self.anchors]
        if self.after_previous:
            out["after_previous"] = True
        if self.at_end:
            out["at_end"] = True
        if self.count is not None:
            out["count"] = self.count
        return out

    @classmethod
    def of(cls, e: Edit) -> FileEdit:
        return cls(e.search, e.replace, e.line, e.replace_all, e.anchors, e.after_previous, e.at_end, e.count)


FILE_OPS = ("create", "write", "modify", "delete", "rename", "mkdir")


@dataclass(frozen=True, slots=True)
class EditRules:
    """What one agent's modify means where agents differ; each dialect (and, for tool calls,
    each tool) states its own (the table in docs/edit-engine.md, "Each agent's meaning").

    An *empty* search text (not one of only whitespace: that is an ordinary search text) on a
    missing file: ``create`` it with the replacement, or ``refuse``; on an empty (or blank)
    file: ``write`` the replacement (or ``append`` it), or ``refuse``; on a file with content: ``append`` the
    replacement, or ``refuse``. ``in_original``: the edits of one action are all located in
    the text before the action (matches that overlap are a ``conflicting-edits`` error);
    otherwise they apply in sequence, each on the text the previous left, and one may not
    match text an earlier edit of the action wrote unless ``rewrites`` (its agent documents
    that). ``search_in_replacement`` False: an edit whose search text is part of an earlier
    edit's replacement is refused (Claude Code's MultiEdit: "old_string is a substring of a
    new_string from a previous edit"). ``agent`` names whose rules these are, in messages (``Claude Code's Edit``);
    ``empty_hint`` says what to use instead of an empty search text. ``snippet``: the content of
    a ``write`` of an existing file may be a *lazy snippet* (unchanged code elided by placeholder
    comments) or a *fragment* (some of the file's definitions), as chat answers are: it is
    classified against the file and merged by syntax, and written only when the merge is certain
    (docs/edit-engine.md); False: the content is the whole file, as the agent's tool writes it.
    ``final_eol``: how the agent's tool ends a file it writes whole: ``as-is`` (the content as
    given), ``always`` (one line break added when the content has none: Cline's diff editor),
    ``as-file`` (one added only when the file it replaces ended with one, so a new file ends
    without: Roo Code's and Kilo Code's ``DiffViewProvider``)."""

    agent: str = "this format"
    on_missing: Literal["create", "refuse"] = "refuse"
    on_empty: Literal["write", "append", "refuse"] = "refuse"
    on_text: Literal["append", "refuse"] = "refuse"
    in_original: bool = False
    rewrites: bool = False
    empty_hint: str = ""
    search_in_replacement: bool = True
    snippet: bool = False
    final_eol: Literal["as-is", "always", "as-file"] = "as-is"


#: The rules of a format that gives an empty search text no meaning (the seed formats).
NO_EMPTY_SEARCH = EditRules()


@dataclass(frozen=True, slots=True)
class FileView:
    """The normalized view of a file action, the same for every dialect: what the edit engine
    applies. ``op`` is one of :data:`FILE_OPS`; ``write`` creates *or replaces* a whole file
    (``create`` refuses to replace one); ``to`` is a rename's target, ``content`` a create's or
    write's text, ``edits`` a modify's search/replace pairs. ``final_newline``: the agent's
    tool ends the file it modifies with a line break (Codex's ``apply_patch`` does). ``rules``:
    what the agent means by an empty search text and by several edits (:class:`EditRules`)."""

    op: str
    path: Field
    to: Field | None = None
    content: Field | None = None
    edits: tuple[FileEdit, ...] = ()
    final_newline: bool = False
    rules: EditRules = NO_EMPTY_SEARCH

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "path": self.path.value}
        if self.to is not None:
            out["to"] = self.to.value
        if self.content is not None:
            out["content"] = self.content.value
        if self.op == "modify":
            out["edits"] = [e.to_json() for e in self.edits]
        if self.final_newline:
            out["final_newline"] = True
        return out


@dataclass(slots=True)
class Action:
    """An action found in a transcript.

    ``type`` is the action's own name in its dialect (``create_task``, ``aether-write``,
    ``THINK``). Canonical field names are used where a meaning is shared across dialects:
    ``path``, ``content``, ``search``, ``replace``, ``command``, ``code``, ``language``.
    ``group`` is the span of the enclosing block or message (the ``Apply all`` unit);
    ``group_label`` names it for outlines.
    """

    dialect: str
    type: str
    kind: ActionKind
    span: Span
    name_span: Span
    fields: dict[str, Field] = field(default_factory=dict)
    group: Span | None = None
    group_label: str = ""
    edits: list[Edit] = field(default_factory=list)
    partial: bool = False  # cut short by a syntax error: absent fields may just be unparsed
    in_progress: bool = False  # unclosed at the very end of the text: may still be streaming in
    # a call an agent session ran whose result was an error: that result (never applied)
    failure: str | None = None

    def get(self, name: str) -> Any:
        f = self.fields.get(name)
        return None if f is None else f.value

    def text(self, name: str) -> str | None:
        """The field's value when it is a string, else None."""
        value = self.get(name)
        return value if isinstance(value, str) else None

    @property
    def path(self) -> str | None:
        return self.text("path")

    @property
    def title(self) -> str:
        """Type and target, as shown in outlines: ``create_file src/app.py``."""
        target = self.path or self.text("from") or self.text("command") or self.text("query") or self.text("tool")
        if target:
            first_line = target.strip().splitlines()[0] if target.strip() else target
            if len(first_line) > 60:
                first_line = first_line[:57] + "..."
            return f"{self.type} {first_line}"
        return self.type


class Severity(enum.IntEnum):
    """Ordered like LSP's DiagnosticSeverity (1 = error)."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity | None:
        """``error``/``warning``/``information``/``info``/``hint``; ``off`` gives None."""
        key = text.strip().lower()
        if key in ("off", "none", "ignore"):
            return None
        if key in ("info", "information"):
            return cls.INFORMATION
        if key in ("warn", "warning"):
            return cls.WARNING
        try:
            return cls[key.upper()]
        except KeyError as exc:
            raise ValueError(f"unknown severity {text!r}") from exc


@dataclass(frozen=True, slots=True)
class TextEdit:
    """Replace ``span`` of the transcript with ``new_text``."""

    span: Span
    new_text: str


class Fix:
    """A quick fix: edits to the transcript itself.

    A fix that is expensive to work out (a JSON repair) is *lazy*: it is made with ``compute``,
    a function returning the edits (or None when there is nothing to offer), called the first
    time ``edits`` is read -- by the editor's code-action request for that range or by
    ``check --format json``, never by the analysis itself. ``shift`` moves a lazy fix without
    computing it.
    """

    __slots__ = ("_compute", "_delta", "_edits", "preferred", "title")

    def __init__(
        self,
        title: str,
        edits: list[TextEdit] | None = None,
        preferred: bool = False,
        *,
        compute: Callable[[], list[TextEdit] | None] | None = None,
        delta: int = 0,
    ) -> None:
        if edits is None and compute is None:
            edits = []
        self.title = title
        self.preferred = preferred
        self._edits = edits
        self._compute = compute
        self._delta = delta

    @property
    def lazy(self) -> bool:
        """Whether the edits are still to be computed."""
        return self._edits is None

    @property
    def edits(self) -> list[TextEdit]:
        if self._edits is None:
            compute, self._compute = self._compute, None
            found = compute() if compute is not None else None
            d = self._delta
            self._edits = [TextEdit(e.span.shift(d), e.new_text) for e in found or ()]
        return self._edits

    @edits.setter
    def edits(self, value: list[TextEdit]) -> None:
        self._edits = value
        self._compute = None

    def shift(self, delta: int) -> Fix:
        """This fix for the text moved by ``delta`` (a lazy one stays lazy)."""
        if not delta:
            return self
        if self._edits is None and self._compute is not None:
            return Fix(self.title, None, self.preferred, compute=self._compute, delta=self._delta + delta)
        return Fix(self.title, [TextEdit(e.span.shift(delta), e.new_text) for e in self.edits], self.preferred)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Fix):
            return NotImplemented
        return (self.title, self.edits, self.preferred) == (other.title, other.edits, other.preferred)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        edits = "<lazy>" if self.lazy else repr(self._edits)
        return f"Fix({self.title!r}, {edits}, {self.preferred!r})"


@dataclass(slots=True)
class Diagnostic:
    """A finding. ``severity`` None means the registry's default for ``code``."""

    code: str
    message: str
    span: Span
    severity: Severity | None = None
    fixes: list[Fix] = field(default_factory=list)
    related: list[tuple[Span, str]] = field(default_factory=list)
    data: dict[str, Any] | None = None


UNCLOSED_CODES = frozenset({"unclosed-tag", "unclosed-block"})
IN_PROGRESS = "in_progress"  # key in Diagnostic.data: found in a construct still streaming in


def mark_in_progress(diagnostics: Iterable[Diagnostic]) -> None:
    """Mark findings of a construct that is unclosed at the end of the text: while the text
    still grows there, the server shows the unclosed one as information and holds the others
    back (they are most likely the cut itself); the command line ignores the mark."""
    for d in diagnostics:
        d.data = {**d.data, IN_PROGRESS: True} if d.data else {IN_PROGRESS: True}


def is_in_progress(d: Diagnostic) -> bool:
    return bool(d.data) and bool(d.data.get(IN_PROGRESS))  # type: ignore[union-attr]


def shift_field(f: Field, delta: int) -> Field:
    return Field(
        f.name,
        f.value,
        f.span.shift(delta),
        f.key_span.shift(delta) if f.key_span else None,
        f.source_map.shift(delta) if f.source_map else None,
    )


def shift_action(a: Action, delta: int) -> Action:
    """A copy of ``a`` with every span moved by ``delta`` (text before it changed length)."""
    if not delta:
        return a
    return Action(
        a.dialect,
        a.type,
        a.kind,
        a.span.shift(delta),
        a.name_span.shift(delta),
        {k: shift_field(f, delta) for k, f in a.fields.items()},
        a.group.shift(delta) if a.group else None,
        a.group_label,
        [Edit(shift_field(e.search, delta), shift_field(e.replace, delta), e.line, e.replace_all,
              tuple(shift_field(f, delta) for f in e.anchors), e.after_previous, e.at_end, e.count)
         for e in a.edits],
        a.partial,
        a.in_progress,
        a.failure,
    )


def copy_action(a: Action) -> Action:
    """A shallow copy of ``a`` (what ``copy.copy`` makes, at a tenth of its cost)."""
    return Action(
        a.dialect,
        a.type,
        a.kind,
        a.span,
        a.name_span,
        a.fields,
        a.group,
        a.group_label,
        a.edits,
        a.partial,
        a.in_progress,
        a.failure,
    )


def shift_diagnostic(d: Diagnostic, delta: int) -> Diagnostic:
    if not delta:
        return d
    return Diagnostic(
        d.code,
        d.message,
        d.span.shift(delta),
        d.severity,
        [f.shift(delta) for f in d.fixes],
        [(s.shift(delta), m) for s, m in d.related],
        d.data,
    )
