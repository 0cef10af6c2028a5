"""A document's analysis, whole or incremental.

:func:`analyze` scans a text once (the command line). :class:`IncrementalDocument` keeps the
units of an open document and, after an edit, re-scans only from the first unit the edit can
affect (its start, or an earlier unit whose scan looked ahead past the edit) until the scan
produces a unit boundary that coincides with an old one after the edit. Units after that are
reused: their contents keep the offsets they were scanned at, and a per-unit shift (kept in a
NumPy array, so an edit shifts thousands of units in one operation) moves them.
"""

from __future__ import annotations

import bisect
import contextlib
import gc
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from .deferred import numpy as np  # (imported after the server's start: deferred.py)

from .dialects import Dialect, DialectSet
from .markdown import line_end
from .model import (
    Action,
    Diagnostic,
    Span,
    copy_action,
    mark_in_progress,
    shift_action,
    shift_diagnostic,
)
from .records import (
    MAX_RUN,
    Failures,
    RecordUnit,
    call_failures,
    records_owner,
    rescan_line,
    sniff_extent,
)
from .rules import RuleContext, run_rules
from .rules.paths import FirstAbsolute
from .scan import Unit, scan
from .session_dirs import Dirs, FirstCwd, cwd_at, find_cwd, first_after_edit
from .shared import share
from .text import EditableLineIndex


@dataclass(slots=True)
class Group:
    """The unit of "Apply all": a block, a plan, or the tag actions of one message."""

    span: Span
    label: str
    actions: list[int] = field(default_factory=list)  # indices into Analysis.actions


class Analysis:
    """Everything the transcript alone tells: actions in document order and diagnostics."""

    __slots__ = ("_text", "actions", "diagnostics", "groups")

    def __init__(
        self,
        text: str | Callable[[], str],
        actions: list[Action],
        diagnostics: list[Diagnostic],
        groups: list[Group],
    ) -> None:
        self._text = text
        self.actions = actions
        self.diagnostics = diagnostics
        self.groups = groups

    @property
    def text(self) -> str:
        """The text analysed (joined on first use for an open document)."""
        if callable(self._text):
            self._text = self._text()
        return self._text


def _check_unit(unit: Unit, ctx: RuleContext) -> Unit:
    for block in unit.blocks:
        unit.diagnostics.extend(_block_findings(block.actions, ctx))
    return unit


def _block_findings(actions: Sequence[Action], ctx: RuleContext) -> list[Diagnostic]:
    """The rules' diagnostics of one block's actions (the rules read them, never change them)."""
    found = run_rules(actions, ctx)
    if actions[-1].in_progress:
        mark_in_progress(found)
    return found


def scan_units(
    text: str, dialects: DialectSet, ctx: RuleContext, start: int = 0, records: Dialect | None = None,
    dirs: Dirs | None = None,
) -> Iterator[Unit]:
    """Scanned and rule-checked units from ``start`` on (``records``, ``dirs``: see :func:`scan`)."""
    for unit in scan(text, dialects, start, records, dirs):
        yield _check_unit(unit, ctx)


@contextlib.contextmanager
def gc_paused(large: int | None = None) -> Iterator[None]:
    """The cyclic garbage collector paused while a scan builds its (acyclic) units.

    A scan allocates objects that all stay alive until it ends; every collection on the way
    walks all of them again, which made a long scan's cost grow faster than its input (a 1 MB
    line of closing tags: 18x the time of 100 KB, 14x with collections paused). Reference
    counting frees everything as usual; cycles made meanwhile wait for the next collection.

    On the way out of a large scan, what it made goes straight to the oldest generation
    (``freeze`` then ``unfreeze`` moves the lists, without walking them): otherwise the first
    young collection after it walks every object of the analysis just built, all alive (15-20 %
    of an action-dense ``analyze``). They are collected with the rest by the next full
    collection. A small scan (a keystroke's) leaves the young generation as it is, so that the
    young garbage of a long editing session keeps being collected young.

    ``large``: the number of objects made that is large (``LARGE_SCAN_OBJECTS`` unless told):
    a slice of a document opened in steps passes 0, since all it makes is kept with the rest of
    the document (a young collection after each slice walked it again: a 4 MB history's 105
    slices, 30 collections).
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_count()[0] > (LARGE_SCAN_OBJECTS if large is None else large):
            gc.freeze()
            gc.unfreeze()
        gc.enable()


LARGE_SCAN_OBJECTS = 20_000  # objects made (net, tracked by the collector) that make a scan large: ~250 KB of dense text


def analyze(
    text: str, dialects: DialectSet | Iterable[str] | None = None, roots: Sequence[str] = ()
) -> Analysis:
    """Parse and check a whole text."""
    ds = dialects if isinstance(dialects, DialectSet) else DialectSet.named(dialects)
    ctx = RuleContext(ds, tuple(roots))
    with gc_paused():
        units = list(scan_units(text, ds, ctx, records=records_owner(text, ds)))
    return _assemble(text, lambda start: text[start : line_end(text, start)], len(text), [(u, 0) for u in units])


_Shifted = dict[int, tuple[Unit, int, list[Action], list[Diagnostic]]]


def _assemble(
    text: str | Callable[[], str],
    line_at: Callable[[int], str],
    length: int,
    units: Iterable[tuple[Unit, int]],
    cache: _Shifted | None = None,
) -> Analysis:
    """Actions and diagnostics of shifted units, with message groups for tag actions.

    ``cache`` keeps each unit's shifted copies by unit and shift: typing at the end of a long
    transcript shifts nothing before it, so those units cost nothing the next time. It is
    replaced in place by the entries of this call's units.
    """
    fresh: _Shifted = {}
    actions: list[Action] = []
    diagnostics: list[Diagnostic] = []
    groups: list[Group] = []
    by_span: dict[Span, Group] = {}
    separators: list[int] = []
    pending: list[int] = []  # indices of tag actions waiting for their message's end
    for unit, delta in units:
        if not unit.actions and not unit.diagnostics and not unit.separators:
            continue  # plain prose: most units of most transcripts
        hit = cache.get(id(unit)) if cache is not None and delta else None
        if not delta:  # (nothing to shift, nothing to keep: a large document's units mostly)
            unit_actions, unit_diagnostics = unit.actions, unit.diagnostics
        elif hit is not None and hit[0] is unit and hit[1] == delta:
            unit_actions, unit_diagnostics = hit[2], hit[3]
        else:
            unit_actions = [shift_action(a, delta) for a in unit.actions]
            unit_diagnostics = [shift_diagnostic(d, delta) for d in unit.diagnostics]
        if cache is not None and delta:
            fresh[id(unit)] = (unit, delta, unit_actions, unit_diagnostics)
        diagnostics.extend(unit_diagnostics)
        for sep, _ in unit.separators:
            if pending:
                _message_group(line_at, actions, groups, pending, separators, sep + delta)
                pending = []
            separators.append(sep + delta)
        for a in unit_actions:
            if a.group is None:
                a = copy_action(a)  # its message group is set below; the unit's copy stays as scanned
            actions.append(a)
            index = len(actions) - 1
            if a.group is None:
                pending.append(index)
            else:
                g = by_span.get(a.group)
                if g is None:
                    g = by_span[a.group] = Group(a.group, a.group_label or a.dialect)
                    groups.append(g)
                g.actions.append(index)
    if pending:
        _message_group(line_at, actions, groups, pending, separators, length)
    if cache is not None:
        cache.clear()
        cache.update(fresh)
    groups.sort(key=lambda g: g.span.start)
    diagnostics.sort(key=lambda d: (d.span.start, d.span.end))
    if any(d.code == "absolute-path" for d in diagnostics):
        keep = FirstAbsolute().keep  # one absolute-path error per place, not one per action
        diagnostics = [d for d in diagnostics if keep(d)]
    return Analysis(text, actions, diagnostics, groups)


def _message_group(
    line_at: Callable[[int], str],
    actions: list[Action],
    groups: list[Group],
    pending: list[int],
    separators: list[int],
    end: int,
) -> None:
    first = actions[pending[0]].span.start
    k = bisect.bisect_right(separators, first) - 1
    start = separators[k] if k >= 0 else 0
    heading = line_at(start).strip(" #*:") if k >= 0 else ""
    label = share(f"message: {heading[:60]}") if heading else "message"
    span = Span(start, end)
    group = Group(span, label, list(pending))
    for i in pending:
        a = actions[i]
        a.group = span
        a.group_label = label
    groups.append(group)


WINDOW = 1 << 14  # characters a re-scan reads at first, past the edit


def _behind(unit: Unit) -> int:
    """The first offset a unit's scan read: its start, or a look-behind before it."""
    return unit.behind if unit.behind >= 0 else unit.start


# What an open document keeps of a unit once its boundaries are in the columns of
# IncrementalDocument (starts, look-aheads, look-behinds, flags): most units of most transcripts
# hold nothing but prose, and 50 MB hold about 300,000 of them. Those become one shared empty
# unit, and every other unit drops its empty lists and the constructs the rules already read.
_NONE: Any = ()  # a shared empty sequence (a tuple: appending to it fails loudly)
PLAIN = Unit(0, 0, 0, actions=_NONE, diagnostics=_NONE, separators=_NONE, watch=_NONE, blocks=_NONE)


def _line_total(units: list[Unit]) -> int:
    """Lines held by the units of a line-structured document (a blank run is one unit)."""
    return sum(getattr(u, "lines", 1) for u in units)


def _lean(unit: Unit, *, checked: bool = True) -> Unit:
    """``unit`` as an open document keeps it (its start, end and look-ahead live on in the
    document's columns; see ``PLAIN``). Nothing changes a unit once it is checked.
    ``checked=False``: its rules have not run yet (see ``IncrementalDocument.scan_some``): its
    blocks and its actions' edits stay as the rules read them until :func:`_check_lean`."""
    if not (unit.actions or unit.diagnostics or unit.separators or unit.watch) and not (
        isinstance(unit, RecordUnit) and (unit.results or unit.calls or unit.lines > 1 or unit.turn is not None)
    ):  # a session line's results and calls link it to other lines, a blank run's line count
        # how far they reach, a Codex turn_context the directory of the lines after it: kept
        return PLAIN  # (a unit with blocks has their actions: never plain)
    for name in ("actions", "diagnostics", "separators", "watch"):
        if not getattr(unit, name):
            setattr(unit, name, _NONE)
    if checked:
        _drop_blocks(unit)
    return unit


def _drop_blocks(unit: Unit) -> None:
    unit.blocks = _NONE
    for a in unit.actions:
        if not a.edits:  # (every action but a modify: one empty list each)
            a.edits = _NONE


def _check_lean(unit: Unit, ctx: RuleContext) -> bool:
    """Run the rules of a unit kept with ``_lean(checked=False)``, as :func:`_check_unit` would
    have (the same diagnostics, in the same order), then lean it; whether it holds diagnostics."""
    found = [d for block in unit.blocks for d in _block_findings(block.actions, ctx)]
    if found:
        unit.diagnostics = [*unit.diagnostics, *found]
    _drop_blocks(unit)
    return bool(unit.diagnostics)


class _Columns:
    """The boundaries of units, collected as a deferred scan yields them (8 bytes each)."""

    __slots__ = ("behinds", "flagged", "looks", "starts", "turning", "watching")

    def __init__(self) -> None:
        self.starts, self.looks, self.behinds = array("q"), array("q"), array("q")
        self.flagged, self.watching, self.turning = bytearray(), bytearray(), bytearray()

    def add(self, unit: Unit, base: int = 0) -> None:
        self.starts.append(unit.start + base)
        self.looks.append(unit.lookahead + base)
        self.behinds.append(_behind(unit) + base)
        self.flagged.append(bool(unit.diagnostics))
        self.watching.append(bool(unit.watch))
        self.turning.append(_turn(unit) is not None)


    def first_reaching(self, offset: int) -> int:
        """The first unit that read ``offset`` or beyond, or watches strings (else all)."""
        looks = np.frombuffer(self.looks, dtype=np.int64)
        watching = np.frombuffer(self.watching, dtype=bool)
        hit = np.flatnonzero((looks >= offset) | watching)
        first = int(hit[0]) if hit.size else len(self.looks)
        del looks, watching, hit  # (views lock the columns' size)
        return first


def _turn(unit: Unit) -> str | None:
    """The turn's directory a session line sets for the lines after it (a Codex
    ``turn_context``), or None."""
    return getattr(unit, "turn", None)


_UNKNOWN: Any = ("unknown",)  # the first cwd not looked for yet


def _i64(column: array[int]) -> np.ndarray[Any, np.dtype[np.int64]]:
    return np.frombuffer(column, dtype=np.int64).copy()


def _flags(column: bytearray) -> np.ndarray[Any, np.dtype[np.bool_]]:
    return np.frombuffer(column, dtype=bool).copy()


class _Turns:
    """During a session's re-scan: the turn's directory in force after the new lines scanned
    so far, and at each old line the scan may resume with (see :mod:`.session_dirs`). The scan
    resumes only where the two agree: a line after an edited ``turn_context`` read its paths
    in the old directory."""

    __slots__ = ("doc", "k", "new", "old")

    def __init__(self, doc: IncrementalDocument, first: int, turn: str | None) -> None:
        self.doc = doc
        self.k = first  # the old unit ``old`` is in force at
        self.old = self.new = turn

    def scanned(self, unit: Unit) -> None:
        turn = _turn(unit)
        if turn is not None:
            self.new = turn

    def agree(self, k: int) -> bool:
        """Is the directory in force at old unit ``k`` (at or after the last one asked about)
        the one the new lines leave in force?"""
        doc = self.doc
        if k > self.k and doc._turns:
            hit = np.flatnonzero(doc._turning[self.k : k])
            if hit.size:
                self.old = _turn(doc._units[self.k + int(hit[-1])])
        self.k = max(self.k, k)
        return self.old == self.new


class IncrementalDocument:
    """An open document: its text, line index and units, kept current edit by edit."""

    def __init__(
        self,
        text: str,
        dialects: DialectSet | None = None,
        roots: Sequence[str] = (),
        *,
        defer: bool = False,
    ) -> None:
        """``defer``: scan nothing yet; :meth:`scan_some` scans on piece by piece (the server
        publishes the top of a large transcript first and stays responsive meanwhile), and
        anything that needs the whole document finishes the scan first."""
        self.dialects = dialects or DialectSet()
        self.ctx = RuleContext(self.dialects, tuple(roots))
        # (NumPy not imported yet, by a server that has just started: the top's lines without it)
        self.lines = EditableLineIndex(text, lazy=defer and "numpy" not in sys.modules)
        self._analysis: Analysis | None = None
        self.rescanned = 0  # characters re-scanned by the last edit (for tests and benchmarks)
        self._shifted: _Shifted = {}  # see _assemble
        self._pending: Iterator[Unit] | None = None  # the scan still running (deferred), unchecked units
        self._unchecked: list[int] = []  # units scanned without their rules (see scan_some), in order
        self._scanned_only: Analysis | None = None  # see actions_analysis
        self._scanned: list[Unit] = []  # its units so far (lean, see _lean)
        self._scanned_cols = _Columns()  # and their boundaries
        self._scanned_end = 0
        self._units: list[Unit] = []
        self._first: FirstCwd = _UNKNOWN  # a session's first cwd (see session_dirs), when looked for
        if defer:
            text = self.text
            self._records = records_owner(text, self.dialects)
            self._sniffed = sniff_extent(text)
            self._pending = scan(text, self.dialects, records=self._records)
            self.rescanned = len(self.lines)
        else:
            self._rescan_all()

    @property
    def text(self) -> str:
        return self.lines.text

    @property
    def complete(self) -> bool:
        """Whether the whole text has been scanned and checked (see ``defer``)."""
        return self._pending is None and not self._unchecked

    @property
    def scanned(self) -> bool:
        """Whether the whole text has been scanned: its actions are known, though rules may
        still have to run (see ``scan_some``)."""
        return self._pending is None

    @property
    def scanned_to(self) -> int:
        """How far the text has been scanned."""
        if self._pending is None:
            return len(self.lines)
        return self._scanned_end

    def scan_some(self, chars: int, *, rules: bool = True) -> bool:
        """Scan on by about ``chars`` characters; True once the whole text is scanned.

        ``rules=False``: the units scanned are not checked yet: their actions (and so the
        outline) are final, the rules' diagnostics come with :meth:`check_some` (or anything
        that needs the whole analysis: it checks them first)."""
        if self._pending is None:
            return True
        stop = self.scanned_to + chars
        scanned, cols, ctx, unchecked = self._scanned, self._scanned_cols, self.ctx, self._unchecked
        with gc_paused(large=0):  # (all of it kept: see gc_paused)
            for unit in self._pending:
                if rules:
                    _check_unit(unit, ctx)
                elif unit.blocks:
                    unchecked.append(len(scanned))
                cols.add(unit)
                self._scanned_end = unit.end
                scanned.append(_lean(unit, checked=rules or not unit.blocks))
                if unit.end >= stop:
                    return False
        self._pending, self._scanned, self._scanned_cols = None, [], _Columns()
        self._install(scanned, cols)
        return True

    def check_some(self, units: int) -> bool:
        """Run the rules of up to ``units`` of the units scanned unchecked; True once none is
        left (see ``scan_some``)."""
        todo = self._unchecked
        if not todo:
            return True
        done, ctx = todo[:units], self.ctx
        flags = self._scanned_cols.flagged if self._pending is not None else self._flagged
        units_ = self._scanned if self._pending is not None else self._units
        with gc_paused(large=0):
            for i in done:
                flags[i] = _check_lean(units_[i], ctx)
        del todo[: len(done)]
        if not todo:
            self._scanned_only = None
        return not todo

    def scanned_units_with_diagnostics(self) -> Iterator[tuple[Unit, int]]:
        """While a deferred scan runs: the units scanned so far that hold diagnostics."""
        if self._pending is None:
            yield from self.units_with_diagnostics()
            return
        self.check_some(len(self._unchecked))  # (what is published is checked)
        for unit in self._scanned:
            if unit.diagnostics:
                yield unit, 0

    def _finish(self) -> None:
        if self._pending is not None:
            self.scan_some(1 << 62)
        self.check_some(len(self._unchecked))

    def _rescan_all(self) -> None:
        self._pending, self._scanned, self._scanned_cols = None, [], _Columns()
        self._unchecked, self._scanned_only = [], None
        text = self.text
        self._records = records_owner(text, self.dialects)
        self._sniffed = sniff_extent(text)
        self._first = _UNKNOWN
        units, cols = [], _Columns()
        with gc_paused():
            for unit in scan_units(text, self.dialects, self.ctx, records=self._records):
                cols.add(unit)
                units.append(_lean(unit))
        self._install(units, cols)
        self.rescanned = len(self.text)

    def _install(self, units: list[Unit], cols: _Columns) -> None:
        """Keep ``units`` (lean) with their boundaries ``cols``."""
        self._units = units
        self._shift = np.zeros(len(units), dtype=np.int64)
        self._starts = _i64(cols.starts)
        self._looks = _i64(cols.looks)
        self._behinds = _i64(cols.behinds)
        self._flagged = _flags(cols.flagged)
        self._watching = _flags(cols.watching)
        self._turning = _flags(cols.turning)
        self._turns = int(self._turning.sum())  # lines that set a turn's directory
        self._analysis = None

    def reconfigure(self, dialects: DialectSet | None = None, roots: Sequence[str] | None = None) -> None:
        """New settings: a full re-scan."""
        if dialects is not None:
            self.dialects = dialects
        self.ctx = RuleContext(self.dialects, tuple(self.ctx.roots if roots is None else roots))
        self._rescan_all()

    def set_text(self, text: str) -> None:
        self.lines = EditableLineIndex(text)
        self._rescan_all()

    def edit(self, start: int, end: int, new_text: str) -> None:
        """Replace ``text[start:end]`` (offsets) with ``new_text`` and update the units.

        The re-scan reads a window of text from the first affected unit on, not the whole
        text: units whose look-ahead stays inside the window are exactly what a scan of the
        whole text would give. When a unit looks to the window's end (an unclosed tag searching
        for its end), the window grows, up to the whole text.
        """
        if self._pending is not None:
            self._edit_deferred(start, end, new_text)
            return
        self.check_some(len(self._unchecked))  # (the units an edit keeps are kept checked)
        watched = self._watchers_before(start, end) if self._units else None
        first_cwd = self._first_cwd() if self._records is not None else None
        self.lines.replace(start, end, new_text)
        self._analysis = None
        if start <= self._sniffed and records_owner(self.text, self.dialects) is not self._records:
            self._rescan_all()  # the first line decides how the document is read, and it changed
            return
        if start <= self._sniffed:
            self._sniffed = sniff_extent(self.text)
        delta = len(new_text) - (end - start)
        if self._records is not None and self._moved_first(first_cwd, start, len(new_text), delta):
            self._rescan_all()  # every line's paths are read under it, and it changed
            return
        if not self._units:
            self._rescan_all()
            return
        starts, looks = self._starts, self._looks
        # First unit the edit can change: the one holding `start`, or an earlier one that
        # looked ahead to `start` (an unclosed tag searching for its end, a JSON bound).
        holding = max(0, int(np.searchsorted(starts, start, side="right")) - 1)
        if self._records is not None:
            first = self._record_line(holding, start)
        else:
            reaching = np.flatnonzero(looks[:holding] >= start)
            first = int(reaching[0]) if reaching.size else holding
        if watched is not None:
            first = self._first_watcher(first, watched, start, len(new_text))
        behinds = self._behinds
        rescan_from = int(starts[first])
        # A construct may read lines before its start (a file-name line before a fence):
        # the re-scan reads that many lines before its first unit as context, so that it sees
        # what a scan of the whole text sees.
        base = rescan_from
        if self.dialects.context_lines and rescan_from > 0:
            line = self.lines.line_of(rescan_from)
            base = self.lines.line_start(max(0, line - self.dialects.context_lines))
        old_after = int(np.searchsorted(starts, end, side="left"))  # old units at/after `end`
        edit_stop = start + len(new_text)
        window = WINDOW + 2 * (edit_stop - rescan_from)
        dirs = self._dirs(first, base) if self._records is not None else None
        while True:
            found = self._rescan(rescan_from, base, window, edit_stop, delta, old_after, end, first, dirs)
            if found is not None:
                break
            window *= 4
        fresh, resume, scanned = found
        self.rescanned = scanned
        n_fresh = len(fresh)
        dropped = self._units[first:resume]
        cols = _Columns()
        for u in fresh:
            cols.add(u, base)
        self._units = self._units[:first] + [_lean(u) for u in fresh] + self._units[resume:]
        self._shift = np.concatenate(
            (self._shift[:first], np.full(n_fresh, base, dtype=np.int64), self._shift[resume:] + delta)
        )
        self._starts = np.concatenate(
            (starts[:first], _i64(cols.starts), starts[resume:] + delta)
        )
        self._looks = np.concatenate((looks[:first], _i64(cols.looks), looks[resume:] + delta))
        self._behinds = np.concatenate(
            (behinds[:first], _i64(cols.behinds), behinds[resume:] + delta)
        )
        self._flagged = np.concatenate(
            (self._flagged[:first], _flags(cols.flagged), self._flagged[resume:])
        )
        self._watching = np.concatenate(
            (self._watching[:first], _flags(cols.watching), self._watching[resume:])
        )
        turning = _flags(cols.turning)
        self._turns += int(turning.sum()) - int(self._turning[first:resume].sum())
        self._turning = np.concatenate((self._turning[:first], turning, self._turning[resume:]))
        if self._records is not None:
            self._recheck_calls(first, dropped, fresh)

    # -- line-structured documents (see action_lsp.records): a unit per line ------------------

    def _first_cwd(self) -> FirstCwd:
        """The session's first ``cwd`` and its offset (see :mod:`.session_dirs`), looked for
        once and then kept current edit by edit."""
        if self._first is _UNKNOWN:
            self._first = self._find_cwd(0, None)
        return self._first

    def _find_cwd(self, a: int, b: int | None) -> FirstCwd:
        """The first ``"cwd"`` member in the text's ``[a, b)`` (``b`` None: to the end)."""
        lines = self.lines
        if b is not None:
            found = find_cwd(lines.slice(a, b))
            return (found[0], found[1] + a) if found is not None else None
        while (at := lines.find('"cwd"', a)) >= 0:
            cwd = cwd_at(lines.slice(at, lines.line_end(lines.line_of(at))), 0)
            if cwd is not None:
                return cwd, at
            a = at + 1
        return None

    def _moved_first(self, old: FirstCwd, start: int, inserted: int, delta: int) -> bool:
        """After an edit at ``start`` that inserted ``inserted`` characters: keep the session's
        first ``cwd`` current; whether it now names another directory (or none, or one where
        there was none)."""
        if old is _UNKNOWN:
            return False  # (never looked for: nothing was read under it yet)
        lines = self.lines
        line_start = lines.line_start(lines.line_of(start))
        touched_end = lines.line_end(lines.line_of(start + inserted))
        new = first_after_edit(old, delta, self._find_cwd, line_start, touched_end)
        self._first = new
        return (old is None) != (new is None) or (old is not None and new is not None and old[0] != new[0])

    def _turn_before(self, k: int) -> str | None:
        """The turn's directory in force at line unit ``k``: the last one a line before it set."""
        if not self._turns:
            return None
        hit = np.flatnonzero(self._turning[:k])
        return _turn(self._units[int(hit[-1])]) if hit.size else None

    def _dirs(self, k: int, base: int) -> Dirs:
        """The working directories in force at line unit ``k``, for a scan of the text from
        ``base`` on (see :mod:`.session_dirs`)."""
        first = self._first_cwd()
        return (first[0], first[1] - base) if first is not None else None, self._turn_before(k)

    def _record_line(self, holding: int, start: int) -> int:
        """The first line an edit at ``start`` can change: its own (a call's line, which read
        ahead for results, is re-checked after the edit instead), or the line before when the
        edit starts right after it and it has no ``\n`` to end it (a lone ``\r`` that an
        inserted ``\n`` joins, or an unfinished last line that text written after it extends)."""
        if holding > 0 and int(self._starts[holding]) == start and self.lines.slice(start - 1, start) != "\n":
            return holding - 1
        return holding

    def _recheck_calls(self, first: int, dropped: list[Unit], fresh: list[Unit]) -> None:
        """After an edit replaced the line units ``dropped`` by ``fresh`` (from unit ``first``
        on): re-scan each earlier line whose calls' results, as the lines after it now give
        them, say something else. With as many lines as before, only a call answered by one of
        those lines, or one that failed (the distance to its answer may have changed), can."""
        units, starts = self._units, self._starts
        changed: set[str] | None = None
        if len(dropped) == len(fresh) and _line_total(dropped) == _line_total(fresh):
            changed = {i for u in (*dropped, *fresh) for i in getattr(u, "results", ())}
        for k in range(max(0, first - MAX_RUN), first):
            unit = units[k]
            if not isinstance(unit, RecordUnit) or not unit.calls:
                continue
            if changed is not None and not unit.failures and changed.isdisjoint(unit.calls):
                continue
            failures = call_failures(units, starts, k)
            if failures != unit.failures:
                self._rescan_line(k, failures)

    def _rescan_line(self, k: int, failures: Failures) -> None:
        """Scan line unit ``k`` again (its text unchanged), with its calls' new failures."""
        assert self._records is not None
        origin = int(self._starts[k])
        end = int(self._starts[k + 1]) if k + 1 < len(self._units) else len(self.lines)
        text = self.lines.slice(origin, end)
        unit = _check_unit(rescan_line(text, self.dialects, self._records, failures, self._dirs(k, origin)), self.ctx)
        self._units[k] = unit
        self._shift[k] = origin
        self._looks[k] = unit.lookahead + origin
        self._behinds[k] = _behind(unit) + origin
        self._flagged[k] = bool(unit.diagnostics)
        self._watching[k] = bool(unit.watch)
        self.rescanned += unit.end

    def _edit_deferred(self, start: int, end: int, new_text: str) -> None:
        """An edit while the text is still being scanned in steps: keep the units scanned so
        far that end, and read nothing, before the edit (nor watch any string: conservative),
        and let the scan go on from there through the new text. Nothing waits for the rest."""
        first_cwd = self._first_cwd() if self._records is not None else None
        self.lines.replace(start, end, new_text)
        self._analysis = None
        text = self.text
        cols, keep = self._scanned_cols, 0
        if start > self._sniffed or records_owner(text, self.dialects) is self._records:
            if start <= self._sniffed:
                self._sniffed = sniff_extent(text)
            keep = cols.first_reaching(start)
            delta = len(new_text) - (end - start)
            if self._records is not None and self._moved_first(first_cwd, start, len(new_text), delta):
                keep = 0  # every line's paths are read under it, and it changed
        else:  # the first line decides how the document is read, and it changed
            self._records = records_owner(text, self.dialects)
            self._sniffed = sniff_extent(text)
        self._scanned_only = None
        self._unchecked = [i for i in self._unchecked if i < keep]
        if keep < len(cols.starts):
            self._scanned_end = cols.starts[keep]
            del self._scanned[keep:]
            for column in (cols.starts, cols.looks, cols.behinds, cols.flagged, cols.watching, cols.turning):
                del column[keep:]
        elif not keep:
            self._scanned_end = 0
        dirs: Dirs | None = None
        if self._records is not None:
            self._first = _UNKNOWN if not keep else self._first
            setter = cols.turning.rfind(1, 0, keep)  # (the turn's directory in force where the scan goes on)
            dirs = self._first_cwd(), _turn(self._scanned[setter]) if setter >= 0 else None
        self._pending = scan(text, self.dialects, self._scanned_end, records=self._records, dirs=dirs)
        self.rescanned = len(text) - self._scanned_end

    def _around(self, start: int, end: int) -> str:
        """The lines an edit of ``[start, end)`` touches, with one line either side: a watched
        string's meaning can hang on the rest of its line (a start tag's closing ``>``)."""
        lines = self.lines
        first = max(0, lines.line_of(start) - 1)
        last = min(lines.line_count() - 1, lines.line_of(end) + 1)
        return lines.slice(lines.line_start(first), lines.line_end(last))

    def _watchers_before(
        self, start: int, end: int
    ) -> tuple[list[int], set[str], set[str]] | None:
        """Before an edit of ``[start, end)``: the units up to it that watch strings (see
        ``Construct.watch``), all those strings, and which of them stand around what the edit
        replaces."""
        holding = int(np.searchsorted(self._starts, start, side="right"))
        watchers = np.flatnonzero(self._watching[:holding]).tolist()
        if not watchers:
            return None
        needles = {w for k in watchers for w in self._units[k].watch}
        around = self._around(start, end)
        return watchers, needles, {w for w in needles if w in around}

    def _first_watcher(
        self, first: int, watched: tuple[list[int], set[str], set[str]], start: int, inserted: int
    ) -> int:
        """After the edit: the first watcher (before ``first``) whose strings stood, or now
        stand, on the lines the edit touched."""
        watchers, needles, hit = watched
        around = self._around(start, start + inserted)
        hit = hit | {w for w in needles if w in around}
        for k in watchers:
            if k >= first:
                break
            if hit.intersection(self._units[k].watch):
                return k
        return first

    def _rescan(
        self, origin: int, base: int, window: int, edit_stop: int, delta: int, old_after: int, old_end: int,
        first: int = 0, dirs: Dirs | None = None,
    ) -> tuple[list[Unit], int, int] | None:
        """Scan ``[origin, origin + window)`` (cut at a line start; the text from ``base`` on is
        context a look-behind may read) until a new unit boundary lands on an old one past the
        edit (whose look-behind does not reach into the edit) -- in a session, one where the
        turn's directory in force is the old one's (``dirs``: those in force at ``origin``, the
        start of old unit ``first``). Units come back in coordinates from ``base``; None means
        the window was too small."""
        n = len(self.lines)
        stop = n if origin + window >= n else self._line_start_after(origin + window)
        text = self.lines.slice(base, stop)
        complete = stop >= n
        fresh: list[Unit] = []
        resume = len(self._units)
        scanned = 0
        turns = _Turns(self, first, dirs[1]) if dirs is not None else None
        for unit in scan_units(text, self.dialects, self.ctx, origin - base, records=self._records, dirs=dirs):
            if not complete and unit.lookahead >= len(text):
                return None
            if not complete and any(
                self.lines.find(w, stop - len(w) + 1) >= 0 for w in unit.watch
            ):
                return None  # what the window lacks, the rest of the text has: read more
            at = unit.start + base
            if at >= edit_stop and fresh:
                k = self._resumes_at(at, delta, old_after, old_end)
                if k >= 0 and (turns is None or turns.agree(k)):
                    resume = k
                    break
            fresh.append(unit)
            if turns is not None:
                turns.scanned(unit)
            scanned = unit.end - (origin - base)
            if self._records is not None and unit.end > unit.start and unit.end + base >= edit_stop:
                # Lines tile the text: resume before the next line is even read.
                k = self._resumes_at(unit.end + base, delta, old_after, old_end)
                if k >= 0 and (turns is None or turns.agree(k)):
                    resume = k
                    break
        return fresh, resume, scanned

    def _resumes_at(self, at: int, delta: int, old_after: int, old_end: int) -> int:
        """The old unit a re-scan that reached the new offset ``at`` resumes with, or -1."""
        starts = self._starts
        k = int(np.searchsorted(starts, at - delta, side="left"))
        if old_after <= k < len(starts) and int(starts[k]) == at - delta and self._behind_clear(k, old_end):
            return k
        return -1

    def _behind_clear(self, k: int, old_end: int) -> bool:
        """May the scan resume at old unit ``k``? Not when it, or one of the units just after
        it (a look-behind spans at most ``context_lines`` lines, so as many units), read
        text before its start that the edit (ending at ``old_end``) changed."""
        stop = min(len(self._starts), k + self.dialects.context_lines + 1)
        starts, behinds = self._starts[k:stop], self._behinds[k:stop]
        return not bool(np.any((behinds != starts) & (behinds <= old_end)))  # (one pass in C)

    def _line_start_after(self, offset: int) -> int:
        line = self.lines.line_of(offset)
        return self.lines.line_start(line + 1) if line + 1 < self.lines.line_count() else len(self.lines)

    def units(self) -> Iterator[tuple[Unit, int]]:
        """Each unit with the shift to apply to its contents."""
        self._finish()
        return zip(self._units, self._shift.tolist(), strict=True)

    def units_with_diagnostics(self) -> Iterator[tuple[Unit, int]]:
        """The units that hold diagnostics, with their shifts: what a keystroke republishes,
        without walking the thousands of units of plain prose."""
        self._finish()
        units = self._units
        shifts = self._shift
        for i in np.flatnonzero(self._flagged).tolist():
            yield units[i], int(shifts[i])

    def analysis(self) -> Analysis:
        self._finish()
        if self._analysis is None:
            self._analysis = self._assembled()
        return self._analysis

    def actions_analysis(self) -> Analysis:
        """The whole text's actions and groups, as :meth:`analysis` gives them, without waiting
        for the rules of units scanned unchecked (``scan_some(rules=False)``): the rules only add
        diagnostics, so these are the same. Its diagnostics lack the rules' until they have run
        (then it is :meth:`analysis`)."""
        if self._pending is not None:
            self.scan_some(1 << 62, rules=False)
        if not self._unchecked:
            return self.analysis()
        if self._scanned_only is None:
            self._scanned_only = self._assembled(keep_shifted=False)
        return self._scanned_only

    def _assembled(self, *, keep_shifted: bool = True) -> Analysis:
        """The analysis of the units as they are (``keep_shifted``: with the cache of shifted
        copies, see ``_assemble``; not for units whose diagnostics are still to come)."""
        lines = self.lines
        # Paused: after an edit near the top, every action after it is copied, shifted,
        # and the collector walked the whole document's heap again and again meanwhile.
        with gc_paused():
            return _assemble(
                lambda: lines.text,
                lambda start: lines.line_text(lines.line_of(start)),
                len(lines),
                zip(self._units, self._shift.tolist(), strict=True),
                self._shifted if keep_shifted else None,
            )
