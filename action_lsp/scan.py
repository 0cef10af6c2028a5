"""The top-level scanner: one forward pass that cuts a document into units.

The pass jumps from one *event* to the next with a single compiled regex (a fence opener, a
blank line, a heading or rule that separates messages, a ``<tag``, a ``{`` that may start JSON in
prose) and hands constructs to the dialects that claim them. Ordinary fenced code is skipped
whole: what sits inside it is an example, not an action.

Units are cut at line starts where the scanner is at top level: after a blank line, after a
construct that ends a line, before a fence, and at most every ``MAX_UNIT_LINES`` lines of prose.
The cut points depend only on the text from the previous cut on, so an incremental re-scan that
reaches an old cut point after the edit can stop there (see :mod:`action_lsp.document`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .dialects import Construct, DialectSet, TagOpen
from .markdown import EOL, LINE_START, fence_open_at, find_fence_close, line_end, next_line_start
from .model import Action, Diagnostic, Fix, Span, TextEdit

MAX_UNIT_LINES = 64

_EVENTS = re.compile(
    "|".join(
        (
            LINE_START + r"(?P<fence> {0,3}(?:`{3,}|~{3,}))",
            LINE_START + r"(?P<blank>[ \t]*(?:\r\n|\r|\n))",
            LINE_START + r"(?P<sep>(?:#{1,6}[ \t]|(?:-[ \t]*){3,}(?:\r|\n|\Z)|(?:\*[ \t]*){3,}(?:\r|\n|\Z)|(?:_[ \t]*){3,}(?:\r|\n|\Z)))",
            r"(?P<tag><(?P<slash>/?)(?P<name>[A-Za-z][\w\-]*))",
            LINE_START + r"(?P<linejson>[ \t]*\{)",
            r"(?P<json>\{(?=[ \t]*\"(?:type|action)\"[ \t]*:))",
        )
    )
)
_BLANK_OR_FENCE = re.compile(LINE_START + r"(?:[ \t]*(?:\r\n|\r|\n)| {0,3}(?:`{3,}|~{3,}))")


@dataclass(slots=True)
class Unit:
    """A run of whole lines scanned together; what the incremental re-scan reuses or redoes.

    Spans inside are absolute for the text the unit was scanned in, whose start was ``origin``;
    :meth:`shifted` moves them when text before the unit changes length.
    """

    start: int
    end: int
    lookahead: int
    actions: list[Action] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    separators: list[Span] = field(default_factory=list)  # message separators (headings, rules)
    blocks: list[Construct] = field(default_factory=list)  # constructs that hold actions


class _Context:
    """The :class:`~action_lsp.dialects.ScanContext` handed to dialects."""

    def __init__(self, text: str, dialects: DialectSet) -> None:
        self.text = text
        self.dialects = dialects
        self.cache: dict[str, Any] = {}
        self._failed: dict[str, int] = {}
        self._fence_failed: dict[tuple[str, int], int] = {}
        self._next_tag: tuple[int, int] = (-1, -1)  # (query start, answer)

    def find(self, needle: str, start: int) -> int:
        failed = self._failed.get(needle)
        if failed is not None and start >= failed:
            return -1
        found = self.text.find(needle, start)
        if found < 0:
            self._failed[needle] = start if failed is None else min(start, failed)
        return found

    def find_fence_close(self, body_start: int, char: str, length: int) -> tuple[int, int] | None:
        key = (char, length)
        failed = self._fence_failed.get(key)
        if failed is not None and body_start >= failed:
            return None
        found = find_fence_close(self.text, body_start, char, length)
        if found is None:
            self._fence_failed[key] = body_start
        return found

    def next_tag_start(self, start: int) -> int:
        q, answer = self._next_tag
        if q <= start <= answer:
            return answer
        pos = start
        text = self.text
        # A code fence also ends the recovery: running into it would start the scan inside the
        # fence, and turn its examples into actions and the blocks after it into examples.
        fence = _FENCE_LINE.search(text, start)
        limit = fence.start() if fence else len(text)
        while True:
            i = text.find("<", pos, limit)
            if i < 0:
                answer = limit
                break
            m = _TAG_NAME.match(text, i + 1)
            if m and self.dialects.tag_owner(m.group(0)) is not None:
                answer = i
                break
            pos = i + 1
        self._next_tag = (start, answer)
        return answer


_TAG_NAME = re.compile(r"[A-Za-z][\w\-]*")
_FENCE_LINE = re.compile(LINE_START + r" {0,3}(?:`{3,}|~{3,})")


_BACKTICKS = re.compile(r"`+")


def _inside_code_span(text: str, line_start: int, pos: int) -> bool:
    """Is ``pos`` inside an inline code span on its line?

    As in CommonMark, a span opens with a run of backticks and closes with the next run of the
    same length (```` ``<tag>`` ```` as well as `` `<tag>` ``); a run that is never matched on
    the line is literal text.
    """
    if text.find("`", line_start, pos) < 0:
        return False
    end = line_end(text, pos)
    i = line_start
    while True:
        opener = _BACKTICKS.search(text, i, pos)
        if opener is None:
            return False
        width = len(opener.group())
        closer = _BACKTICKS.search(text, opener.end(), end)
        while closer is not None and len(closer.group()) != width:
            closer = _BACKTICKS.search(text, closer.end(), end)
        if closer is None:
            i = opener.end()  # unmatched: literal backticks
        elif closer.start() >= pos:
            return True
        else:
            i = closer.end()


def _line_start_of(text: str, pos: int) -> int:
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


def scan(text: str, dialects: DialectSet, start: int = 0) -> Iterator[Unit]:
    """Yield the units of ``text`` from ``start`` (a unit boundary) to the end, in order."""
    ctx = _Context(text, dialects)
    n = len(text)
    unit = Unit(start, start, start)
    pos = start
    json_until = -1  # JSON candidates before this offset were already looked at

    def cut(at: int) -> Iterator[Unit]:
        nonlocal unit, json_until
        json_until = -1  # scan state never crosses a unit boundary (incremental re-scans rely on it)
        if at > unit.start:
            unit.end = at
            unit.lookahead = max(unit.lookahead, at)
            yield unit
            unit = Unit(at, at, at)

    while pos < n:
        m = _EVENTS.search(text, pos)
        event_at = m.start() if m else n
        # Prose between here and the event: cut every MAX_UNIT_LINES lines.
        yield from _cut_long_prose(text, unit, pos, event_at, cut)
        if m is None:
            break
        kind = m.lastgroup
        if kind == "blank":
            pos = m.end()
            yield from cut(pos)
        elif kind == "sep":
            unit.separators.append(Span(m.start(), line_end(text, m.start())))
            pos = next_line_start(text, m.start())
        elif kind == "fence":
            yield from cut(m.start())
            construct, pos = _fence(ctx, m.start())
            _add(unit, construct)
            yield from cut(pos)
        elif kind == "tag":
            pos = _tag(ctx, unit, m)
            if pos < n and text[pos - 1] not in "\r\n" and not text[pos:line_end(text, pos)].strip():
                pos = next_line_start(text, pos)
            if pos >= n or text[pos - 1] in "\r\n":
                yield from cut(pos)
        else:  # linejson / json
            at = m.start(kind)  # the brace
            if at < json_until or _inside_code_span(text, _line_start_of(text, at), at):
                pos = at + 1
                continue
            construct, stop = _prose_json(ctx, at)
            if construct is None:
                json_until = stop
                pos = at + 1
                continue
            _add(unit, construct)
            pos = construct.end
            if pos < n and not text[pos:line_end(text, pos)].strip():
                pos = next_line_start(text, pos)
                yield from cut(pos)
    unit.end = n
    unit.lookahead = max(unit.lookahead, n)
    yield unit


def _cut_long_prose(text: str, unit: Unit, pos: int, stop: int, cut) -> Iterator[Unit]:  # type: ignore[no-untyped-def]
    if stop - unit.start < 40 * MAX_UNIT_LINES and stop - pos < 40 * MAX_UNIT_LINES:
        # Short: count exactly only when it could matter.
        if text.count("\n", unit.start, stop) + text.count("\r", unit.start, stop) < MAX_UNIT_LINES:
            return
    lines = 0
    scan_from = unit.start
    for m in EOL.finditer(text, scan_from, stop):
        if m.end() >= stop:
            break
        lines += 1
        if lines >= MAX_UNIT_LINES and m.end() > pos:
            yield from cut(m.end())
            lines = 0


def _add(unit: Unit, construct: Construct | None) -> None:
    if construct is None:
        return
    unit.actions.extend(construct.actions)
    unit.diagnostics.extend(construct.diagnostics)
    unit.lookahead = max(unit.lookahead, construct.lookahead, construct.end)
    if construct.actions:
        unit.blocks.append(construct)


def _fence(ctx: _Context, at: int) -> tuple[Construct | None, int]:
    """Handle a fence line at ``at``; returns the construct (if a dialect took it) and where to go on."""
    text, dialects = ctx.text, ctx.dialects
    fence = fence_open_at(text, at)
    if fence is None:  # a backtick line that is not an opener (backticks in the info)
        return None, next_line_start(text, at)
    owner = dialects.fence_owner(fence.word)
    diagnostics: list[Diagnostic] = []
    if owner is None:
        near = dialects.fence_near_miss(fence.word)
        if near is not None:
            owner = dialects.fence_owner(near)
            diagnostics.append(
                Diagnostic(
                    "wrong-block-name",
                    f"```{fence.word} is not a block the agent reads; did you mean ```{near}?",
                    fence.word_span,
                    fixes=[Fix(f"Rename to ```{near}", [TextEdit(fence.word_span, near)], True)],
                )
            )
    if owner is not None:
        construct = owner.parse_fence(ctx, fence)
        if construct is not None:
            construct.diagnostics[:0] = diagnostics
            return construct, construct.end
    close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
    end = close[1] if close else len(text)
    if diagnostics:
        return Construct(Span(at, end), diagnostics=diagnostics, lookahead=end), end
    return Construct(Span(at, end), lookahead=end), end


def _tag(ctx: _Context, unit: Unit, m: re.Match[str]) -> int:
    text = ctx.text
    name = m.group("name")
    at = m.start()
    owner = ctx.dialects.tag_owner(name)
    if owner is None or _inside_code_span(text, _line_start_of(text, at), at):
        return m.end()
    dialect, canonical = owner
    name_span = Span(m.start("name"), m.end("name"))
    if m.group("slash"):
        unit.diagnostics.append(
            Diagnostic(
                "mismatched-tag",
                f"</{name}> closes no open <{name}>; remove it or add the opening tag",
                Span(at, _gt_after(text, m.end())),
            )
        )
        return m.end()
    construct = dialect.parse_tag(ctx, TagOpen(at, name, name_span, canonical))
    if canonical != name:
        construct.diagnostics.insert(
            0,
            Diagnostic(
                "wrong-block-name",
                f"<{name}> is not a tag the agent reads; did you mean <{canonical}>?",
                name_span,
                fixes=[Fix(f"Rename to <{canonical}>", _rename_tag_edits(text, construct, name, canonical, name_span), True)],
            ),
        )
    _add(unit, construct)
    return max(construct.end, m.end())


def _rename_tag_edits(text: str, construct: Construct, name: str, canonical: str, name_span: Span) -> list[TextEdit]:
    edits = [TextEdit(name_span, canonical)]
    closing = f"</{name}>"
    end = construct.end
    if text.endswith(closing, 0, end) or text[construct.span.start:end].rstrip().endswith(closing):
        at = text.rfind(closing, construct.span.start, end)
        if at > name_span.start:
            edits.append(TextEdit(Span(at + 2, at + 2 + len(name)), canonical))
    return edits


def _gt_after(text: str, pos: int) -> int:
    gt = text.find(">", pos, line_end(text, pos))
    return gt + 1 if gt >= 0 else pos


def _prose_json(ctx: _Context, at: int) -> tuple[Construct | None, int]:
    """Offer a JSON value in prose to the dialects that look at prose JSON."""
    from .jsonscan import parse_json

    text = ctx.text
    bound_m = _BLANK_OR_FENCE.search(text, at + 1)
    bound = bound_m.start() if bound_m else len(text)
    result = parse_json(text, at, bound)
    if result.node is None or result.node.kind != "object":
        return None, max(result.end, at + 1)
    for dialect in ctx.dialects.prose_json:
        construct = dialect.parse_prose_json(ctx, at, result)
        if construct is not None:
            construct.lookahead = max(construct.lookahead, bound)
            return construct, construct.end
    return None, max(result.end, at + 1)
