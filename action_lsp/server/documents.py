"""Our own store of open documents: one :class:`IncrementalDocument` per URI.

Changes are applied by LSP's rules: each content change's range is turned into offsets with the
document's own line index (``\\n``, ``\\r\\n`` and ``\\r`` end lines; nothing else) in the
negotiated position encoding, and handed to :meth:`IncrementalDocument.edit`, which re-scans
only the region the edit touched. pygls's own ``TextDocument`` copy is not kept (see
:mod:`action_lsp.server.server`).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.uris import to_fs_path

from ..document import Analysis, IncrementalDocument
from ..model import Diagnostic, Span, shift_diagnostic
from ..text import EditableLineIndex, Encoding
from .config import Settings
from .convert import span_of

if TYPE_CHECKING:
    from ..edit import Plan

DEFER_CHARS = 1 << 19  # a document larger than this opens in steps


def uri_path(uri: str) -> Path | None:
    """The real file-system path of a ``file:`` URI, or None for other schemes."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    if not fs:
        return None
    try:
        return Path(fs).resolve()
    except (OSError, RuntimeError):
        return Path(fs)


@dataclass(frozen=True, slots=True)
class PlanSummary:
    """What the server keeps of a workspace check's plan: which actions it found already
    applied (their lenses say so), and a key that changes when any outcome does. Not the plan:
    a large transcript's plan holds every file it writes (as text and as bytes), and nothing
    writes from this one -- the commands plan again."""

    key: array[int]  # per outcome: index << 2 | ok << 1 | history (applied or superseded)
    applied: frozenset[int]
    #: History rewritten since (see edit/timeline.py): action index -> the later action's
    #: index (-1: the file was changed since).
    superseded: dict[int, int] = field(default_factory=dict)

    @classmethod
    def of(cls, plan: Plan) -> PlanSummary:
        key = array("q", [o.action_index << 2 | o.ok << 1 | o.history for o in plan.outcomes])
        return cls(
            key, frozenset(o.action_index for o in plan.outcomes if o.applied),
            {o.action_index: o.superseded_by for o in plan.outcomes if o.superseded_by is not None},
        )


@dataclass(slots=True)
class WorkspaceState:
    """The findings that depend on the workspace files, for one transcript.

    ``diagnostics`` are kept in offsets of the current text: an edit shifts those after it and
    drops those it overlaps, until the next (debounced) check replaces them.
    """

    diagnostics: list[Diagnostic] = field(default_factory=list)
    plan: PlanSummary | None = None  # what the last check's plan found (never a plan to write)
    checked_revision: int = -1  # document revision the plan was computed for
    generation: int = 0  # bumps whenever the results change
    stale: bool = True  # files (or the text) changed since the last check
    # Bumps with every change of what a check reads (the files, the text, the settings): a check
    # that ran across one made its plan of inputs that are gone, and leaves ``stale`` set.
    inputs: int = 0

    def mark_stale(self) -> None:
        self.stale = True
        self.inputs += 1


@dataclass(slots=True)
class OpenDocument:
    uri: str
    version: int | None
    language_id: str
    doc: IncrementalDocument
    path: Path | None
    revision: int = 0  # bumps on every change of the text or of the analysis settings
    workspace: WorkspaceState = field(default_factory=WorkspaceState)
    grew_at: float | None = None  # monotonic time the text last grew at its end (None: saved)

    @property
    def text(self) -> str:
        return self.doc.text

    def analysis(self) -> Analysis:
        return self.doc.analysis()


class DocumentStore:
    def __init__(self) -> None:
        self._docs: dict[str, OpenDocument] = {}
        self._by_path: dict[Path, OpenDocument] = {}

    def __iter__(self) -> Iterator[OpenDocument]:
        return iter(list(self._docs.values()))

    def __len__(self) -> int:
        return len(self._docs)

    def get(self, uri: str) -> OpenDocument | None:
        return self._docs.get(uri)

    def by_path(self, path: Path) -> OpenDocument | None:
        return self._by_path.get(path)

    def open(
        self, item: types.TextDocumentItem, settings: Settings, roots: Sequence[str]
    ) -> OpenDocument:
        # A large transcript is scanned in steps (see Diagnostics.open_in_steps).
        defer = len(item.text) > DEFER_CHARS
        doc = IncrementalDocument(item.text, settings.dialect_set(), roots, defer=defer)
        od = OpenDocument(item.uri, item.version, item.language_id, doc, uri_path(item.uri))
        old = self._docs.get(item.uri)
        if old is not None:
            od.revision = old.revision + 1
        self._docs[item.uri] = od
        if od.path is not None:
            self._by_path[od.path] = od
        return od

    def close(self, uri: str) -> OpenDocument | None:
        od = self._docs.pop(uri, None)
        if od is not None and od.path is not None and self._by_path.get(od.path) is od:
            del self._by_path[od.path]
        return od

    def change(
        self,
        uri: str,
        version: int | None,
        changes: Sequence[types.TextDocumentContentChangeEvent],
        enc: Encoding,
    ) -> OpenDocument | None:
        od = self._docs.get(uri)
        if od is None:
            return None
        grew = False
        for change in changes:
            length = len(od.doc.lines)
            if isinstance(change, types.TextDocumentContentChangePartial):
                span = span_of(od.doc.lines, change.range, enc)
                if span.end < span.start:
                    span = Span(span.end, span.start)
                # Streaming: text added at the end (or the last line replaced by a longer one).
                grew = grew or (_at_end(od.doc.lines, span.end, length) and len(change.text) > len(span))
                od.doc.edit(span.start, span.end, change.text)
                _follow_edit(od.workspace, span, len(change.text))
            else:
                grew = grew or (len(change.text) > length and change.text.startswith(od.doc.text))
                od.doc.set_text(change.text)
                od.workspace.diagnostics = []
        if grew:
            od.grew_at = time.monotonic()
        od.version = version
        od.revision += 1
        od.workspace.mark_stale()
        return od


def _at_end(lines: EditableLineIndex, offset: int, length: int) -> bool:
    """Is ``offset`` the end of the text (``length`` long), but for the last line's line break?
    Neovim sends an append to a buffer as an insertion before that line break, which the old
    and the new text share ('eol'). Reads the few characters after ``offset`` only: a change
    must not join the whole text."""
    if offset == length:
        return True
    return length - offset <= 2 and lines.slice(offset, length) in ("\n", "\r", "\r\n")


def _follow_edit(ws: WorkspaceState, span: Span, inserted: int) -> None:
    """Keep the workspace findings in place across an edit (drop those it touches)."""
    if not ws.diagnostics:
        return
    delta = inserted - len(span)
    kept: list[Diagnostic] = []
    for d in ws.diagnostics:
        if d.span.end < span.start:
            kept.append(d)
        elif d.span.start > span.end:
            # Always a new object, also when the length is unchanged: an edit before a finding
            # may move it to other lines or columns, and the server keeps each finding's JSON
            # as long as the finding is the same object (Diagnostics._encoded).
            kept.append(shift_diagnostic(d, delta) if delta else replace(d))
    ws.diagnostics = kept


def action_at(od: OpenDocument, offset: int) -> int | None:
    """Index of the action whose span holds ``offset`` (the innermost when they nest)."""
    import bisect

    actions = od.analysis().actions
    starts = [a.span.start for a in actions]
    k = bisect.bisect_right(starts, offset) - 1
    best: int | None = None
    while k >= 0:
        a = actions[k]
        if a.span.start <= offset <= a.span.end:
            if best is None or len(a.span) < len(actions[best].span):
                best = k
        elif a.span.end < offset and best is not None:
            break
        if offset - a.span.start > 1_000_000:
            break
        k -= 1
    return best
