"""Line-structured documents: JSON Lines sessions (Claude Code, Codex CLI, Gemini CLI, chat exports).

A document is read as records when it is JSON by its content: its first non-blank line is a
whole JSON object or array, and the next non-blank line (if any) opens one too. No dialect is
asked about the first line: a Claude Code 2.x session opening with ``permission-mode`` or
``file-history-snapshot`` records reads the same as one opening with a message, and a one-line
JSON document (Cline's ``api_conversation_history.json``, a bare array) is one record. The
file's extension plays no part, and a markdown transcript (whose first line is no JSON) is never
affected.

Each record is then offered to the dialects that read records, in registry order
(:class:`RecordReader`): the first whose :meth:`Dialect.claims_records` accepts *that record*
reads it (``claude-code`` its messages, ``tool-calls`` any tool-call-shaped object anywhere in
it); a record none claims is offered to the dialects that read JSON in prose
(``actions-json``). Each line is one scan unit (:class:`RecordUnit`), so a keystroke re-scans
the line it touched and nothing else, and a 100 MB session is read line by line in linear time.

Lines depend on later lines in one way only: a tool call is shown as failed when one of the
``MAX_RUN`` lines after it holds an error result for it. Each unit keeps what links it to
other lines -- the results its line gives (by call id) and, for a line with calls, their ids
and the failures found for them -- so that after an edit the document re-checks the calls
before the edited lines from these summaries (:func:`call_failures`) and re-scans a call's
line only when what its results say changed (see ``IncrementalDocument``).

Records are decoded with a C decoder (:func:`loads`: msgspec when installed, else
:func:`json.loads`), each line once per scan; only lines that hold what a dialect needs ranges
for (tool calls) or that do not parse are read again by the span-keeping
:func:`~action_lsp.jsonscan.parse_json`. A line that does not parse is one ``bad-json``
diagnostic; an unfinished last line (no newline after it: a session still being written) is
one ``bad-json`` at information severity, not an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .dialects.base import Construct, Dialect, ScanContext
from .model import Diagnostic, Severity, Span
from .scan_state import ScanState, Unit, add_construct
from .session_dirs import FIRST_CWD, TURN_CWD, Dirs, turn_cwd

if TYPE_CHECKING:
    from .dialects import DialectSet

_JSON_LOADS = json.JSONDecoder(strict=False).decode


def _refuse(text: str) -> Any:
    raise ValueError("no C decoder")  # pragma: no cover - msgspec is a dependency


def _c_decoder() -> Callable[[str], Any]:
    """msgspec's decoder, made on the first decode: its import is left out of the server's
    start (a Markdown history's first publish decodes no record)."""
    global _FAST
    try:
        import msgspec
    except ImportError:  # pragma: no cover - a dependency; the standard decoder serves
        _FAST = _refuse
    else:
        _FAST = msgspec.json.Decoder().decode
    return _FAST


_FAST: Callable[[str], Any] | None = None


def loads(text: str) -> Any:
    """Decode one JSON value: msgspec (C, strict JSON) first; what it refuses (raw control
    characters in strings, huge numbers, deep nesting) goes to :func:`json.loads` with
    ``strict=False``, which decides. Raises ValueError or RecursionError."""
    try:
        return (_FAST or _c_decoder())(text)
    except Exception:  # any refusal: the standard decoder decides
        pass
    return _JSON_LOADS(text)


_LOADS = loads
SNIFF_LIMIT = 1 << 22  # characters of a first line read to decide (a longer one is looked past)
SNIFF_LINES = 8  # lines that open an object but cannot be decoded, looked past for the first record
MAX_RUN = 64  # lines after a tool call in which its result is looked for
_NONBLANK = re.compile(r"\S")
_BLANKS = re.compile(r"\s+")  # (one character class: a repeated group keeps a stack per repeat)

Results = dict[str, tuple[str | None, int, int]]
"""The tool results a line gives: call id -> (failure message, None when the call succeeded;
start and end of where it says so, relative to the line's start)."""

Failures = tuple[tuple[str, str, int, int], ...]
"""The failed calls of a line: (call id, message, where relative to the call line's start)."""


@dataclass(slots=True)
class RecordUnit(Unit):
    """One line of a record document, with what links it to the lines around it."""

    results: Results = field(default_factory=dict)  # the results this line gives
    calls: tuple[str, ...] = ()  # ids of the calls on this line that later lines answer
    failures: Failures = ()  # what those answers said: the calls that failed
    lines: int = 1  # lines it holds (a run of blank lines is one unit)
    turn: str | None = None  # the turn's directory this line sets for the lines after it (session_dirs)


def first_line(text: str) -> tuple[int, int] | None:
    """(start, end) of the first non-blank line, without its line break."""
    n = len(text)
    pos = 0
    while pos < n:
        end = line_end(text, pos)
        if text[pos:end].strip():
            return pos, end
        pos = next_line(text, end)
    return None


def _first_record(text: str) -> tuple[Any, int]:
    """The first record (a JSON object or array) of ``text`` when the text is JSON Lines by its
    content, else None; and the end of the last line read.

    A line that opens an object but cannot be decoded here (longer than ``SNIFF_LIMIT``,
    nested deeper than ``json.loads`` recurses, an integer over Python's 4,300 digits, broken
    JSON) is looked past, up to ``SNIFF_LINES`` of them: the record reader reads it like any
    other line (a ``bad-json`` when it cannot be decoded), and the records after it are read.
    A first line that opens no object or array is an ordinary transcript, and so is a decoded
    first record followed by a line that opens neither (a JSON line above prose).
    """
    n = len(text)
    pos = end = 0
    for _ in range(SNIFF_LINES):
        while pos < n:
            end = line_end(text, pos)
            first = _NONBLANK.search(text, pos, end)
            if first is not None:
                break
            pos = next_line(text, end)
        else:
            return None, n
        if text[first.start()] not in "{[":
            return None, end
        if end - pos <= SNIFF_LIMIT:
            try:
                record = _LOADS(text[pos:end])
            except (ValueError, RecursionError):  # json.loads recurses: deep nesting too
                record = None
            if isinstance(record, dict | list):
                return (record, end) if _opens_record(text, next_line(text, end)) else (None, end)
        pos = next_line(text, end)
    return None, end


def _opens_record(text: str, pos: int) -> bool:
    """Does the next non-blank line from ``pos`` open a JSON object or array (or is there
    none)? Only its first character is looked at."""
    first = _NONBLANK.search(text, pos)
    return first is None or text[first.start()] in "{["


def records_owner(text: str, dialects: DialectSet) -> Dialect | None:
    """The reader of ``text`` as records (:class:`RecordReader`), or None (an ordinary
    transcript, or no enabled dialect reads records)."""
    reader = RecordReader.of(dialects)
    if reader is None or _first_record(text)[0] is None:
        return None
    return reader


def sniff_extent(text: str) -> int:
    """How far :func:`records_owner` reads: an edit before this offset may change the answer
    (the line after the first record counts: it must open a record too)."""
    end = _first_record(text)[1]
    if end >= len(text):
        return len(text)
    after = _NONBLANK.search(text, next_line(text, end))
    return after.start() + 1 if after is not None else len(text)


def sniff_decided(head: str) -> bool:
    """Whether :func:`records_owner` gives the same answer for every text that starts with
    ``head`` (the lines it read end inside it, and the next non-blank character is in it)."""
    end = _first_record(head)[1]
    return end < len(head) and _NONBLANK.search(head, next_line(head, end)) is not None


def line_end(text: str, pos: int) -> int:
    """Offset of the line break ending the line at ``pos`` (or the end of the text)."""
    nl = text.find("\n", pos)
    if nl < 0:
        nl = len(text)
    cr = text.find("\r", pos, nl)
    return cr if cr >= 0 else nl


def next_line(text: str, end: int) -> int:
    """The start of the line after the one ending at ``end``."""
    if text.startswith("\r\n", end):
        return end + 2
    return end + 1 if end < len(text) else end


def load(text: str, start: int, end: int, what: str) -> tuple[Any, Diagnostic | None]:
    """Decode the record ``text[start:end]``: (value, None), or (None, one ``bad-json``).

    The last line of the text, unterminated and cut short, is a session still being written:
    its diagnostic is information, not an error.
    """
    try:
        return _LOADS(text[start:end]), None
    except (ValueError, RecursionError):  # the tolerant parser below does not recurse
        pass
    from .jsonscan import parse_json, trailing_data_error

    result = parse_json(text, start, end)
    error = result.errors[0] if result.errors else None
    if error is None and result.ok:
        error = trailing_data_error(text, result.end, end)
    if error is None:  # json.loads is stricter than the tolerant parser: say where it failed
        try:
            json.loads(text[start:end], strict=False)
        except json.JSONDecodeError as exc:
            at = start + exc.pos
            return None, Diagnostic("bad-json", f"bad JSON in {what}: {exc.msg}", Span(at, min(end, at + 1)))
        except RecursionError:
            pass  # nested too deep for json.loads; the tolerant parser read it
        return result.node.value if result.node else None, None
    unfinished = end >= len(text) and error.kind in ("unexpected-end", "unterminated-string", "unclosed")
    if unfinished or (end >= len(text) and error.offset >= end - 1 and not error.repairable):
        return None, Diagnostic(
            "bad-json",
            "the last line is unfinished (the session is still being written, or was cut "
            "off); it is read when complete",
            Span(start, end),
            severity=Severity.INFORMATION,
        )
    span = error.span if error.end > error.offset else Span(error.offset, min(end, error.offset + 1))
    return None, Diagnostic("bad-json", f"bad JSON in {what}: {error.message}", span)


def scan_records(
    text: str, dialects: DialectSet, owner: Dialect, start: int = 0, dirs: Dirs | None = None
) -> Iterator[Any]:
    """The units of a line-structured ``text`` from the line start ``start``, read by ``owner``:
    one :class:`RecordUnit` per line. A line with tool calls reads on (at most ``MAX_RUN``
    lines, each decoded once per scan) for their results; its ``lookahead`` says how far.
    ``dirs``: the working directories in force at ``start`` (see :mod:`.session_dirs`), when
    the text before it is not the whole story (a re-scan of part of a document)."""
    ctx = _state(text, dialects, dirs)
    lines = _Lines(text, owner)
    n = len(text)
    pos = start
    while pos < n:
        blank = _blank_lines(text, pos)
        if blank > pos:  # a run of blank lines: one unit, not one a line
            lines.forget(pos, blank)
            yield RecordUnit(pos, blank, blank, lines=_line_count(text, pos, blank))
            pos = blank
            continue
        unit = _line_unit(ctx, lines, owner, pos)
        yield unit
        pos = unit.end
    if pos == start:  # an empty text is one empty unit, as scan() gives
        yield RecordUnit(start, n, n)


def _blank_lines(text: str, pos: int) -> int:
    """The end of the blank lines from the line start ``pos`` on (with their line breaks; to
    the end of the text when only blanks follow), or ``pos`` when its line is not blank."""
    m = _BLANKS.match(text, pos)
    if m is None:
        return pos
    end = m.end()
    if end == len(text):
        return end
    last = max(text.rfind("\n", pos, end), text.rfind("\r", pos, end))
    return last + 1 if last >= 0 else pos


def _line_count(text: str, start: int, end: int) -> int:
    """How many lines ``text[start:end]`` holds (the last one may lack its line break)."""
    breaks = text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)
    return breaks + (end > start and text[end - 1] not in "\r\n")


def rescan_line(text: str, dialects: DialectSet, owner: Dialect, failures: Failures, dirs: Dirs) -> RecordUnit:
    """The unit of the first line of ``text`` (its unchanged line, at least), its calls'
    failures given (:func:`call_failures`), the working directories in force ``dirs``: the
    lines after it are not read."""
    return _line_unit(_state(text, dialects, dirs), _Lines(text, owner), owner, 0, failures)


def _state(text: str, dialects: DialectSet, dirs: Dirs | None) -> ScanState:
    ctx = ScanState(text, dialects)
    if dirs is not None:
        ctx.cache[FIRST_CWD] = (dirs[0],)
        if dirs[1] is not None:
            ctx.cache[TURN_CWD] = dirs[1]
    return ctx


def _line_unit(ctx: ScanState, lines: _Lines, owner: Dialect, pos: int, failures: Failures | None = None) -> RecordUnit:
    b, nxt, results, decoded = lines.take(pos)
    unit = RecordUnit(pos, nxt, nxt, results=results)
    if decoded is not None:
        construct, calls = owner.parse_record(ctx, pos, b, decoded[0], decoded[1])
        if calls:
            unit.calls = tuple(calls)
            if failures is None:
                failures, reach = first_failures(unit.calls, pos, lines.after(nxt))
                construct.lookahead = max(construct.lookahead, reach)
            unit.failures = failures
            _mark_failed(construct.actions, construct.diagnostics, calls, failures, pos)
        add_construct(unit, construct)
        turn = turn_cwd(decoded[0])
        if turn is not None:  # (a Codex turn_context: the lines after it run there)
            unit.turn = ctx.cache[TURN_CWD] = turn
    return unit


def first_failures(
    calls: Sequence[str], at: int, rows: Iterable[tuple[int, int, Results]]
) -> tuple[Failures, int]:
    """The failures of the calls ``calls`` of the line at ``at``, from the first result for
    each in the lines after it (``rows``: line start, line end, results; at most
    ``MAX_RUN``), and how far that read: the end of the last line looked at."""
    waiting = set(calls)
    found: dict[str, tuple[str | None, int, int]] = {}
    reach = at
    for count, (start, end, results) in enumerate(rows):
        if count >= MAX_RUN:
            break
        reach = end
        if results:  # (the smaller of the two is walked: a line may hold thousands of either)
            if len(results) < len(waiting):
                answered = [k for k in results if k in waiting]
            else:
                answered = [k for k in waiting if k in results]
            for call_id in answered:
                message, s, e = results[call_id]
                found[call_id] = (message, start + s - at, start + e - at)
                waiting.discard(call_id)
        if not waiting:
            break
    failures = tuple(
        (call_id, f[0], f[1], f[2]) for call_id in calls if (f := found.get(call_id)) is not None and f[0] is not None
    )
    return failures, reach


def call_failures(units: Sequence[Any], starts: Any, k: int) -> Failures:
    """:func:`first_failures` of the line unit ``k`` from the results kept by the units after
    it (``starts``: where each unit starts now): what a scan of the text would find."""
    unit = units[k]
    last = min(len(units), k + 1 + MAX_RUN)

    def rows() -> Iterator[tuple[int, int, Results]]:
        for j in range(k + 1, last):
            s = int(starts[j])
            results = getattr(units[j], "results", None) or {}
            for _ in range(min(MAX_RUN, getattr(units[j], "lines", 1))):  # a blank run: each line
                yield s, s, results

    return first_failures(unit.calls, int(starts[k]), rows())[0]


def _mark_failed(
    actions: list[Any], diagnostics: list[Diagnostic], calls: dict[str, list[int]], failures: Failures, at: int
) -> None:
    """Show the calls whose results were errors as failed (with a ``tool-error`` hint)."""
    if not failures:
        return
    from .dialects.tool_use import failed

    for call_id, message, s, e in failures:
        for k in calls.get(call_id, ()):
            actions[k], note = failed(actions[k], message, Span(at + s, at + e))
            diagnostics.append(note)


class _Lines:
    """The lines of a scan's text: bounds, decoded record and results, each worked out once
    (the lines a call reads ahead for its results are scanned next)."""

    def __init__(self, text: str, owner: Dialect) -> None:
        self.text = text
        self.owner = owner
        self.markers = owner.result_markers
        self._ahead: dict[int, tuple[int, int, Results, tuple[Any, Diagnostic | None] | None]] = {}

    def _read(self, a: int) -> tuple[int, int, Results, tuple[Any, Diagnostic | None] | None]:
        text = self.text
        b = line_end(text, a)
        nxt = next_line(text, b)
        if _NONBLANK.search(text, a, b) is None:
            return b, nxt, {}, None
        if not any(text.find(m, a, b) >= 0 for m in self.markers):
            return b, nxt, {}, _UNREAD  # no results: decoded only when the scan reaches it
        decoded = load(text, a, b, "session record")
        results: Results = {}
        if decoded[0] is not None:
            found = self.owner.record_results(decoded[0], text, a, b)
            results = {k: (m, w.start - a, w.end - a) for k, (m, w) in found.items()}
        return b, nxt, results, decoded

    def forget(self, a: int, b: int) -> None:
        """Drop the lines read ahead in ``[a, b)`` (blank lines the scan steps over)."""
        if self._ahead:
            self._ahead = {k: v for k, v in self._ahead.items() if not a <= k < b}

    def take(self, a: int) -> tuple[int, int, Results, tuple[Any, Diagnostic | None] | None]:
        """The line at ``a`` as scanned: its end, the next line's start, its results and its
        decoded record (None for a blank line)."""
        got = self._ahead.pop(a, None)
        if got is None:
            got = self._read(a)
        b, nxt, results, decoded = got
        if decoded is _UNREAD:
            decoded = load(self.text, a, b, "session record")
        return b, nxt, results, decoded

    def after(self, a: int) -> Iterator[tuple[int, int, Results]]:
        """The lines from ``a`` on (start, end, results), read ahead of the scan."""
        n = len(self.text)
        while a < n:
            got = self._ahead.get(a)
            if got is None:
                got = self._ahead[a] = self._read(a)
            yield a, got[0], got[2]
            a = got[1]
        yield n, n, {}  # the end: text written after it may answer


_UNREAD: Any = ("unread",)  # a line whose record is decoded only when the scan reaches it


class RecordReader(Dialect):
    """The enabled dialects that read records, as one reader: each record goes to the first
    that claims *it* (registry order), never to the one that claimed the first line. A record
    none claims whose ``type`` (or ``action``) is an action of a dialect reading JSON in prose
    is offered to those dialects, as the scanner offers a JSON object in prose.

    Not a registered dialect: the actions it gives carry the name of the dialect that read
    them (``claude-code``, ``tool-calls``, ...), which answers for them afterwards.
    """

    name = "records"

    def __init__(self, readers: tuple[Dialect, ...], prose: tuple[Dialect, ...]) -> None:
        self.readers = readers
        self.prose = prose
        # the prose dialects that may claim a record by its shape (the others claim none)
        self._claimers = tuple(d for d in prose if type(d).claims_json is not Dialect.claims_json)
        self.result_markers = tuple(dict.fromkeys(m for d in readers for m in d.result_markers))
        self._known: dict[str, bool] = {}  # record types: an action type of a prose dialect?

    @classmethod
    def of(cls, dialects: DialectSet) -> RecordReader | None:
        """The reader of ``dialects`` (one per set: an open document compares it by identity),
        or None when none of them reads records."""
        cached = dialects.__dict__.get("_record_reader", _UNSET)
        if cached is _UNSET:
            readers = tuple(d for d in dialects.dialects if d.records)
            prose = tuple(d for d in dialects.prose_json if not d.records)
            cached = cls(readers, prose) if readers else None
            dialects.__dict__["_record_reader"] = cached
        return cached

    def _prose_record(self, record: Any) -> bool:
        if not self.prose:
            return False
        if isinstance(record, list):
            return any(d.claims_json(record) for d in self._claimers)
        if not isinstance(record, dict):
            return False
        if "action" in record or "actions" in record:
            return True
        kind = record.get("type")
        if isinstance(kind, str):
            known = self._known.get(kind)
            if known is None:
                known = self._known[kind] = any(d.spec(kind) is not None for d in self.prose)
            if known:
                return True
        return any(d.claims_json(record) for d in self._claimers)

    def claims_records(self, first: Any) -> bool:
        return True

    def parse_record(
        self, ctx: ScanContext, start: int, end: int, record: Any, problem: Diagnostic | None
    ) -> tuple[Construct, dict[str, list[int]]]:
        if problem is None and self._prose_record(record):
            from .jsonscan import parse_json

            result = parse_json(ctx.text, start, end)
            for d in self.prose:
                construct = d.parse_prose_json(ctx, start, result)
                if construct is not None:
                    construct.lookahead = max(construct.lookahead, end)
                    return construct, {}
        if problem is None:
            for d in self.readers:
                if d.claims_records(record):
                    return d.parse_record(ctx, start, end, record, problem)
        diagnostics = [problem] if problem is not None else []
        return Construct(Span(start, end), diagnostics=diagnostics, lookahead=end), {}

    def record_results(self, record: Any, text: str, start: int, end: int) -> dict[str, tuple[str | None, Span]]:
        found: dict[str, tuple[str | None, Span]] = {}
        for d in self.readers:
            for call_id, answer in d.record_results(record, text, start, end).items():
                found.setdefault(call_id, answer)
        return found


_UNSET: Any = object()
