"""Line-structured documents: JSON Lines sessions (Claude Code, Codex CLI, chat exports).

A document is read as records when its first non-blank line is a JSON object that an enabled
dialect claims (:meth:`Dialect.claims_records`); the file's extension plays no part, so a
session opens the same as ``.jsonl``, ``.json`` or ``.log``, and a markdown transcript (whose
first line is no JSON object) is never affected. The claiming dialect then reads the whole
document, a run of whole lines at a time: each run is one scan unit (one line, or a tool call
with the lines up to its result), so a keystroke re-scans that run and nothing else, and a
100 MB session is read line by line in linear time.

Records are decoded with :func:`json.loads` (C speed); only lines that hold what a dialect
needs ranges for (tool calls) or that do not parse are read again by the span-keeping
:func:`~action_lsp.jsonscan.parse_json`. A line that does not parse is one ``bad-json``
diagnostic; an unfinished last line (no newline after it: a session still being written) is
one ``bad-json`` at information severity, not an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .model import Diagnostic, Severity, Span

if TYPE_CHECKING:
    from .dialects import Dialect, DialectSet

_LOADS = json.JSONDecoder(strict=False).decode
SNIFF_LIMIT = 1 << 22  # characters of a first line read to decide (a longer one is no header)


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


def records_owner(text: str, dialects: DialectSet) -> Dialect | None:
    """The dialect that reads ``text`` as records, or None (an ordinary transcript)."""
    candidates = [d for d in dialects.dialects if d.records]
    if not candidates:
        return None
    line = first_line(text)
    if line is None:
        return None
    a, b = line
    if b - a > SNIFF_LIMIT or text[a:b].lstrip()[:1] != "{":
        return None
    try:
        first = _LOADS(text[a:b])
    except (ValueError, RecursionError):  # json.loads recurses: deep nesting is no record either
        return None
    if not isinstance(first, dict):
        return None
    return next((d for d in candidates if d.claims_records(first)), None)


def sniff_extent(text: str) -> int:
    """How far :func:`records_owner` reads: an edit before this offset may change the answer."""
    line = first_line(text)
    return len(text) if line is None else line[1] + 1


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


def scan_records(text: str, dialects: DialectSet, owner: Dialect, start: int = 0) -> Iterator[Any]:
    """The units of a line-structured ``text`` from the line start ``start``, read by ``owner``."""
    from .scan import Unit, _add, _Context

    ctx = _Context(text, dialects)
    n = len(text)
    pos = start
    while pos < n:
        construct = owner.parse_records(ctx, pos)
        end = max(construct.end, next_line(text, line_end(text, pos)))
        unit = Unit(pos, end, max(end, construct.lookahead))
        _add(unit, construct)
        yield unit
        pos = end
    if pos == start:  # an empty text is one empty unit, as scan() gives
        yield Unit(start, n, n)
