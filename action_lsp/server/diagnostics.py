"""Diagnostics: pushed (``publishDiagnostics``) or pulled (``textDocument/diagnostic``), never both.

Clients that can pull (``textDocument.diagnostic`` in their capabilities) and be asked to pull
again (``workspace.diagnostics.refreshSupport``) get the pull provider and nothing is pushed to
them; the others get pushes.

Two kinds of findings are merged:

* the transcript's own, from :class:`~action_lsp.document.IncrementalDocument`. They are
  converted per unit and cached on the unit object (units are reused between edits); a reused
  unit whose start moved by some lines gets its cached diagnostics moved by that many lines.
  A keystroke therefore converts only the units it re-scanned, and a publish writes as JSON
  only what it converted (the JSON of the others is kept with them).
* the workspace checks (:func:`action_lsp.edit.workspace_diagnostics`: targets exist, search
  text found once, overwrites, symlinks, already applied). They read files, so they run
  debounced, off the event loop, and again whenever a watched file, another open document or
  the settings change. Between two checks they follow the edits (see ``documents.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..findings import workspace_only
from ..model import IN_PROGRESS, UNCLOSED_CODES
from ..scan import Unit
from . import wire
from .convert import diagnostic, shift_lines
from .documents import OpenDocument, PlanSummary
from .lifecycle import release_memory, trim_memory

if TYPE_CHECKING:
    from ..edit import Plan
    from .server import ActionLanguageServer

DEBOUNCE = 0.25  # seconds of quiet before the workspace checks run
FIRST_SLICE = 1 << 18  # characters of a large transcript scanned and published at once
SLICE = 1 << 15  # characters scanned at a time after that, between other requests (~10 ms)
CHECK_UNITS = 64  # units whose rules run at a time once the text is scanned (~3 ms of dense blocks)
# Turns of the event loop the rules wait, once the text is scanned, for the requests that waited
# for the scan (the outline) to be answered: their wait ends through three or four turns.
ANSWER_TURNS = 32
# Heap pages freed by the scan's passing allocations go back to the OS every this many slices
# (4 MB: a 16 MB transcript peaks 12 % lower, for about 1 % more time).
TRIM_SLICES = 128


@dataclass(slots=True)
class _UnitCache:
    """Converted diagnostics per unit object: ``id(unit) -> (unit, start line, diagnostics)``;
    the JSON of each converted list (``json``: by unit, kept while the list is the same object);
    and the JSON of each workspace finding (``workspace``: ``id -> (finding, JSON)``, empty
    when its code is turned off). See :meth:`Diagnostics._encoded`."""

    entries: dict[int, tuple[Unit, int, list[types.Diagnostic]]] = field(default_factory=dict)
    json: dict[int, tuple[list[types.Diagnostic], bytes]] = field(default_factory=dict)
    workspace: dict[int, tuple[Any, bytes]] = field(default_factory=dict)


def has_file_actions(od: OpenDocument) -> bool:
    return any(a.kind.is_file_action for a in od.analysis().actions)


class Diagnostics:
    def __init__(self, ls: ActionLanguageServer) -> None:
        self.ls = ls
        self._caches: dict[str, _UnitCache] = {}
        self._pending: set[str] = set()
        self._timer: asyncio.TimerHandle | None = None
        self._running: asyncio.Task[None] | None = None
        self._published: dict[str, tuple[int, int]] = {}
        self._streaming_timers: dict[str, asyncio.TimerHandle] = {}
        self._scans: dict[str, asyncio.Task[None]] = {}  # documents being opened in steps
        self._scanned: dict[str, asyncio.Future[None]] = {}  # ... and when each one's scan ended
        self._checking: dict[str, asyncio.Future[None]] = {}  # done when a check of a document ends
        self._readers: dict[str, int] = {}  # requests waiting for a document's scan (see awaiting_scan)
        ls.on("initialize", self.on_initialize)
        ls.on("opened", self.on_changed)
        ls.on("changed", self.on_changed)
        ls.on("closed", self.on_closed)
        ls.on("files_changed", self.on_files_changed)
        ls.on("reconfigured", self.on_reconfigured)
        ls.on("saved", self.on_saved)

    # -- capability ----------------------------------------------------------------------
    def on_initialize(self, params: types.InitializeParams) -> None:
        ls = self.ls
        # Pulled only by a client that can be asked to pull again: the workspace findings come
        # after the transcript's own, and a client that cannot be told (Neovim 0.11) would
        # see nothing until both were done. It is pushed to.
        ls.pull_diagnostics = ls.client_has("text_document.diagnostic") and ls.client_has(
            "workspace.diagnostics.refresh_support"
        )
        if ls.pull_diagnostics:
            ls.handle(
                types.TEXT_DOCUMENT_DIAGNOSTIC,
                types.DiagnosticOptions(
                    identifier="action-lsp",
                    inter_file_dependencies=True,
                    workspace_diagnostics=False,
                ),
            )(self.pull)

    # -- conversion ----------------------------------------------------------------------
    def transcript(self, od: OpenDocument, partial: bool = False) -> list[types.Diagnostic]:
        """The transcript's own diagnostics, converted, reusing each unit's conversion
        (``partial``: of the part scanned so far, while a large document is being opened)."""
        out: list[types.Diagnostic] = []
        for _, converted in self._transcript_units(od, partial):
            out.extend(converted)
        return out

    def _transcript_units(self, od: OpenDocument, partial: bool = False) -> list[tuple[int, list[types.Diagnostic]]]:
        """:meth:`transcript`'s diagnostics, by unit: ``(key, converted)``."""
        ls = self.ls
        cache = self._caches.setdefault(od.uri, _UnitCache())
        old = cache.entries
        fresh: dict[int, tuple[Unit, int, list[types.Diagnostic]]] = {}
        out: list[tuple[int, list[types.Diagnostic]]] = []
        lines = od.doc.lines
        enc = ls.encoding
        settings = ls.settings
        units = od.doc.scanned_units_with_diagnostics() if partial else od.doc.units_with_diagnostics()
        places: set[str] = set()  # the places whose first absolute path is reported
        for unit, shift in units:
            line = lines.line_of(unit.start + shift)
            key = id(unit)
            hit = old.get(key)
            if hit is not None and hit[0] is unit:
                converted = hit[2]
                if hit[1] != line:
                    converted = [shift_lines(d, line - hit[1]) for d in converted]
            else:
                converted = []
                for d in unit.diagnostics:
                    moved = d if not shift else _shifted(d, shift)
                    c = diagnostic(moved, lines, enc, settings, od.uri)
                    if c is not None:
                        converted.append(c)
            fresh[key] = (unit, line, converted)
            if converted:
                out.append((key, _first_absolute(converted, places)))
        cache.entries = fresh
        return out

    def workspace(self, od: OpenDocument) -> list[types.Diagnostic]:
        ls = self.ls
        out = []
        for d in od.workspace.diagnostics:
            c = diagnostic(d, od.doc.lines, ls.encoding, ls.settings, od.uri)
            if c is not None:
                out.append(c)
        return out

    def _encoded(self, od: OpenDocument) -> list[wire.Encoded]:
        """Every diagnostic of ``od`` as JSON, in :meth:`all`'s order (not streaming), each
        unit's and each workspace finding's JSON made once and kept while they stay put: a
        keystroke in a 4 MB transcript wrote 1,300 diagnostics again, converting its workspace
        findings anew. A finding keeps its offsets, hence its position, until an edit before it
        replaces it with a shifted copy (``documents._follow_edit``). Only the JSON of a
        finding is kept, not its LSP object (a session applied already has one per action)."""
        ls = self.ls
        cache = self._caches.setdefault(od.uri, _UnitCache())
        dumps = wire.item_encoder(ls)
        parts: list[wire.Encoded] = []
        known = cache.json
        fresh: dict[int, tuple[list[types.Diagnostic], bytes]] = {}
        for key, converted in self._transcript_units(od):
            hit = known.get(key)
            if hit is None or hit[0] is not converted:
                hit = (converted, b",".join(dumps(c) for c in converted))
            fresh[key] = hit
            parts.append(wire.Encoded(hit[1]))
        cache.json = fresh
        old = cache.workspace
        kept: dict[int, tuple[Any, bytes]] = {}
        for d in od.workspace.diagnostics:
            found = old.get(id(d))
            if found is None or found[0] is not d:
                c = diagnostic(d, od.doc.lines, ls.encoding, ls.settings, od.uri)
                found = (d, dumps(c) if c is not None else b"")
            kept[id(d)] = found
            if found[1]:
                parts.append(wire.Encoded(found[1]))
        cache.workspace = kept
        return parts

    def all(self, od: OpenDocument) -> list[types.Diagnostic]:
        transcript, workspace = self.transcript(od), self.workspace(od)
        if self.streaming(od):
            return self._in_progress(od, transcript, workspace)
        return transcript + workspace

    def result_id(self, od: OpenDocument) -> str:
        streaming = ".s" if self.streaming(od) else ""
        return f"{od.revision}.{od.workspace.generation}.{id(self.ls.settings)}{streaming}"

    # -- chat buffers still being written --------------------------------------------------
    def streaming(self, od: OpenDocument) -> bool:
        """Is the text still growing at its end (within the grace period, not saved since)?"""
        if od.grew_at is None:
            return False
        return time.monotonic() - od.grew_at < self.ls.settings.streaming_grace

    def in_progress_from(self, od: OpenDocument) -> int | None:
        """Where the action still streaming in at the end of the text starts (None: none is)."""
        actions = od.analysis().actions
        start: int | None = None
        for a in reversed(actions):
            if not a.in_progress:
                break
            start = a.span.start
        return start

    def _in_progress(
        self, od: OpenDocument, transcript: list[types.Diagnostic], workspace: list[types.Diagnostic]
    ) -> list[types.Diagnostic]:
        """While the end grows: an unclosed construct there is information, and what it causes
        waits (a timer re-publishes, without re-analysis, once the grace period is over)."""
        out: list[types.Diagnostic] = []
        marked = False
        for d in transcript:
            if not (isinstance(d.data, dict) and d.data.get(IN_PROGRESS)):
                out.append(d)
                continue
            marked = True
            if d.code in UNCLOSED_CODES:
                out.append(
                    types.Diagnostic(
                        range=d.range,
                        message=f"in progress: {d.message} (still being written: an error once "
                        "the text stops growing or is saved)",
                        severity=types.DiagnosticSeverity.Information,
                        code=d.code,
                        code_description=d.code_description,
                        source=d.source,
                        data={k: v for k, v in d.data.items() if k != "fixes"},
                    )
                )
        if not marked:
            return transcript + workspace
        start = self.in_progress_from(od)
        if start is not None and workspace:
            line = od.doc.lines.line_of(start)  # the workspace findings on it wait too
            workspace = [d for d in workspace if d.range.start.line < line]
        self._arm(od)
        return out + workspace

    def _arm(self, od: OpenDocument) -> None:
        """Re-publish ``od`` when its grace period ends."""
        if od.grew_at is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        old = self._streaming_timers.pop(od.uri, None)
        if old is not None:
            old.cancel()
        delay = max(0.0, od.grew_at + self.ls.settings.streaming_grace - time.monotonic()) + 0.01
        self._streaming_timers[od.uri] = loop.call_later(delay, self._settled, od.uri)

    def _settled(self, uri: str) -> None:
        self._streaming_timers.pop(uri, None)
        od = self.ls.documents.get(uri)
        if od is None:
            return
        if self.streaming(od):
            self._arm(od)
            return
        self.publish(od)
        self.refresh()
        self.ls.emit("workspace_checked")  # code lenses come back for the finished action

    def on_saved(self, od: OpenDocument) -> None:
        if od.grew_at is None:
            return
        od.grew_at = None  # a saved text is final
        timer = self._streaming_timers.pop(od.uri, None)
        if timer is not None:
            timer.cancel()
        self.publish(od)
        self.refresh()
        self.ls.emit("workspace_checked")

    # -- push ----------------------------------------------------------------------------
    def publish(self, od: OpenDocument) -> None:
        if self.ls.pull_diagnostics:
            return
        # (while the end grows some are held back or reworded: see _in_progress)
        found: list[Any] = self.all(od) if self.streaming(od) else self._encoded(od)
        self.ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=od.uri, version=od.version, diagnostics=found)
        )
        self._published[od.uri] = (od.revision, od.workspace.generation)

    # -- a large document opened in steps ------------------------------------------------
    def open_in_steps(self, od: OpenDocument) -> None:
        """Publish the top of a large transcript at once, then scan the rest a slice at a time
        between other requests, and publish everything when done. The rest is scanned first and
        its rules run after (``IncrementalDocument.scan_some(rules=False)``): the outline, made
        of actions only, is answered once the text is scanned (see ``scanning``)."""
        od.doc.scan_some(FIRST_SLICE)
        if not self.ls.pull_diagnostics:
            self.ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=od.uri, version=od.version, diagnostics=self.transcript(od, partial=True)
                )
            )
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            od.doc.scan_some(1 << 62)
            self.on_changed(od)
            return
        scanned: asyncio.Future[None] = loop.create_future()
        self._scans[od.uri] = loop.create_task(self._scan_rest(od, scanned))
        self._scanned[od.uri] = scanned

    async def _scan_rest(self, od: OpenDocument, scanned: asyncio.Future[None]) -> None:
        steps = 0
        try:
            while await self.scan_step(od):
                steps += 1
                if steps % TRIM_SLICES == 0:
                    trim_memory()
                if od.doc.scanned and not scanned.done():
                    scanned.set_result(None)
                    await self._answers_first(od.uri)
        finally:
            if not scanned.done():
                scanned.set_result(None)
        trim_memory()
        if self._scans.get(od.uri) is asyncio.current_task():
            del self._scans[od.uri]
            self._scanned.pop(od.uri, None)
        if self.ls.documents.get(od.uri) is od:
            self.on_changed(od)

    async def scan_step(self, od: OpenDocument) -> bool:
        """Let other work run, then scan one more slice; False when there is nothing left (or
        the document was closed or replaced)."""
        await asyncio.sleep(0)
        if od.doc.complete or self.ls.documents.get(od.uri) is not od:
            return False
        if od.doc.scanned:
            od.doc.check_some(CHECK_UNITS)
        else:
            od.doc.scan_some(SLICE, rules=False)
        return not od.doc.complete

    @contextlib.contextmanager
    def awaiting_scan(self, uri: str) -> Iterator[None]:
        """Held by a request from the moment it waits for the scan of ``uri`` to end
        (``scanning(..., scanned_only=True)``) until it is answered: the rules of the last
        slices run after it (up to ``ANSWER_TURNS`` turns of the event loop)."""
        self._readers[uri] = self._readers.get(uri, 0) + 1
        try:
            yield
        finally:
            left = self._readers.pop(uri, 1) - 1
            if left > 0:
                self._readers[uri] = left

    async def _answers_first(self, uri: str) -> None:
        """Let the requests that waited for the scan of ``uri`` (the outline asked at the open)
        be answered before the rules of the last slices run: the end of their wait reaches them
        through a few turns of the event loop, and an answer of a few hundred items may take a
        turn or two more (``wire.in_steps``), each of which would otherwise run ``CHECK_UNITS``
        units' rules (40-50 ms in all for a 4 MB history, before an outline that needs none of
        them). A long answer (100,000 symbols) shares the loop with the rules after
        ``ANSWER_TURNS`` turns, as before."""
        for _ in range(ANSWER_TURNS):
            if not self._readers.get(uri):
                return
            await asyncio.sleep(0)

    def scanning(self, uri: str, *, scanned_only: bool = False) -> asyncio.Future[None] | None:
        """The task scanning ``uri`` in steps, while it runs (``scanned_only``: what ends when
        the whole text is scanned, before the rules of its last slices have run)."""
        task = self._scans.get(uri)
        if task is None or task.done():
            return None
        if scanned_only:
            scanned = self._scanned.get(uri)
            return scanned if scanned is not None and not scanned.done() else None
        return task

    # -- pull ----------------------------------------------------------------------------
    async def pull(
        self, params: types.DocumentDiagnosticParams
    ) -> types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport:
        od = self.ls.document(params.text_document.uri)
        while not od.doc.complete and await self.scan_step(od):
            pass  # other requests are answered between slices
        rid = self.result_id(od)
        if params.previous_result_id == rid:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return types.RelatedFullDocumentDiagnosticReport(items=self.all(od), result_id=rid)

    # -- events --------------------------------------------------------------------------
    def on_changed(self, od: OpenDocument) -> None:
        if not od.doc.complete:
            if self.scanning(od.uri) is None:
                self.open_in_steps(od)
            elif not self.ls.pull_diagnostics:  # typing while the scan goes on: what it has so far
                self.ls.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(
                        uri=od.uri, version=od.version, diagnostics=self.transcript(od, partial=True)
                    )
                )
            return
        self.publish(od)
        self.schedule([od.uri])

    def on_closed(self, od: OpenDocument) -> None:
        timer = self._streaming_timers.pop(od.uri, None)
        if timer is not None:
            timer.cancel()
        self._caches.pop(od.uri, None)
        self._pending.discard(od.uri)
        self._published.pop(od.uri, None)
        if not self.ls.pull_diagnostics:
            self.ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=od.uri, diagnostics=[])
            )

    def on_files_changed(self, paths: list[Path]) -> None:
        """Files on disk or other open documents changed: re-check every other transcript
        that has file actions."""
        changed = set(paths)
        uris = []
        for od in self.ls.documents:
            if od.path is not None and od.path in changed and len(changed) == 1:
                continue  # its own edits are scheduled by on_changed
            od.workspace.mark_stale()
            uris.append(od.uri)
        self.schedule(uris)

    def on_reconfigured(self) -> None:
        self._caches.clear()
        for od in self.ls.documents:
            od.workspace.mark_stale()
            od.workspace.generation += 1
            self.publish(od)
        self.schedule([od.uri for od in self.ls.documents])
        self.refresh()

    def refresh(self) -> None:
        if self.ls.pull_diagnostics and self.ls.client_has(
            "workspace.diagnostics.refresh_support"
        ):
            self.ls.workspace_diagnostic_refresh(None)

    # -- workspace checks ----------------------------------------------------------------
    def schedule(self, uris: list[str], delay: float = DEBOUNCE) -> None:
        if not uris:
            return
        self._pending.update(uris)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_later(delay, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if self._running is not None and not self._running.done():
            self._timer = asyncio.get_running_loop().call_later(DEBOUNCE, self._fire)
            return
        uris, self._pending = self._pending, set()
        self._running = asyncio.ensure_future(self._run(uris))

    async def _run(self, uris: set[str]) -> None:
        changed = closed = False
        for uri in uris:
            od = self.ls.documents.get(uri)
            if od is None or not od.workspace.stale or not od.doc.complete:
                continue  # (a document still being scanned is checked when the scan ends)
            try:
                if await self.check(od):
                    changed = True
                    self.publish(od)
            except Exception as exc:
                self.ls.report_crash(f"workspace checks of {uri}", exc)
            closed = closed or self.ls.documents.get(uri) is not od
        if closed:  # a document closed during its check is free only now
            od = None
            release_memory()
        if changed:
            self.refresh()
            self.ls.emit("workspace_checked")

    async def check(self, od: OpenDocument) -> bool:
        """Run the workspace checks of ``od`` (in a worker thread); True when they changed."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._checking[od.uri] = done
        try:
            if len(od.doc.lines) <= wire.LARGE_CHARS:
                return await self._check(od)
            # A large document's plan takes its turn with its long answers (see wire.in_steps):
            # side by side, their memory adds up.
            async with wire.one_at_a_time(self.ls):
                return await self._check(od)
        finally:
            done.set_result(None)
            if self._checking.get(od.uri) is done:
                del self._checking[od.uri]

    async def _check(self, od: OpenDocument) -> bool:
        if self.ls.documents.get(od.uri) is not od:
            return False  # closed (or opened again) while the check waited for its turn
        revision = od.revision
        analysis = od.analysis()
        actions = list(analysis.actions)
        state = od.workspace
        inputs = state.inputs
        if not any(a.kind.is_file_action for a in actions):
            from ..edit import Plan

            plan = Plan([], [])
            found: list[Any] = []
        else:
            from .commands import blockers_for

            ws = self.ls.workspace_for(od, snapshot=True)
            blockers = blockers_for(self.ls, od)  # their actions are left out, as Apply does
            plan = await asyncio.to_thread(_check_plan, actions, ws, blockers)
            # A path problem the transcript rules already report is shown once.
            found = workspace_only(analysis.diagnostics, plan.diagnostics)
        if self.ls.documents.get(od.uri) is not od:
            return False  # closed meanwhile (see _run)
        if od.revision != revision or state.inputs != inputs:
            return False  # the text or the files changed meanwhile; a newer check is scheduled
        summary = PlanSummary.of(plan)
        before = ([(d.code, d.message, d.span) for d in state.diagnostics], state.plan and state.plan.key)
        state.stale = False
        state.plan = summary
        state.checked_revision = revision
        state.diagnostics = sorted(found, key=lambda d: (d.span.start, d.span.end))
        after = ([(d.code, d.message, d.span) for d in state.diagnostics], summary.key)
        if before != after:
            state.generation += 1
            return True
        return False

    async def checked(self, od: OpenDocument) -> None:
        """Bring the workspace checks of ``od`` up to date (in a worker thread, as the debounced
        ones: planning 100,000 actions must not stop the event loop), publishing what changed."""
        while (running := self._checking.get(od.uri)) is not None and not running.done():
            await running  # one plan at a time: a large one is a minute's work
        if self.plan_fresh(od):
            return
        if od.doc.complete and await self.check(od):
            self.publish(od)
            self.refresh()
            self.ls.emit("workspace_checked")

    def plan_fresh(self, od: OpenDocument) -> bool:
        """Is the last workspace check's plan that of the current text and files?"""
        state = od.workspace
        return state.plan is not None and state.checked_revision == od.revision and not state.stale

    def plan_now(self, od: OpenDocument) -> PlanSummary:
        """What the plan for the current text finds, planned now if the last check is out of date."""
        state = od.workspace
        if self.plan_fresh(od) and state.plan is not None:
            return state.plan
        actions = od.analysis().actions
        from .commands import blockers_for

        plan = _check_plan(actions, self.ls.workspace_for(od), blockers_for(self.ls, od))
        return PlanSummary.of(plan)


def _shifted(d: Any, shift: int) -> Any:
    from ..model import shift_diagnostic

    return shift_diagnostic(d, shift)


def register(ls: ActionLanguageServer) -> Diagnostics:
    return Diagnostics(ls)


def _first_absolute(converted: list[types.Diagnostic], places: set[str]) -> list[types.Diagnostic]:
    """A unit's diagnostics without the ``absolute-path`` errors under a place an earlier one
    already names (one per place, as :class:`~action_lsp.rules.paths.FirstAbsolute` keeps them
    in ``analyze``); the list itself when nothing is left out (its encoding stays cached)."""
    kept: list[types.Diagnostic] | None = None
    for i, c in enumerate(converted):
        place = c.data.get("absolutePlace") if c.code == "absolute-path" and isinstance(c.data, dict) else None
        if not isinstance(place, str):
            if kept is not None:
                kept.append(c)
            continue
        if place in places:
            if kept is None:
                kept = converted[:i]
            continue
        places.add(place)
        if kept is not None:
            kept.append(c)
    return converted if kept is None else kept


def _check_plan(actions: list[Any], ws: Any, blockers: list[Any]) -> Plan:
    """The workspace checks' plan. The edit engine is imported here, in the worker that runs the
    first check, not with the server: a transcript's own findings are published without it."""
    from ..edit import plan_changes

    return plan_changes(actions, ws, blockers=blockers, check_only=True)
