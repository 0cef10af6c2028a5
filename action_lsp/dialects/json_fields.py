"""Shared by the JSON dialects: JSON nodes to action fields, and JSON errors to diagnostics."""

from __future__ import annotations

from ..jsonscan import (
    FenceWalks,
    JError,
    JMember,
    JNode,
    JResult,
    find_json_fence,
    repair_json,
    trailing_data_error,
)
from ..markdown import FenceOpen, next_line_start
from ..model import Action, Diagnostic, Field, Fix, Severity, Span, TextEdit
from .base import Dialect, ScanContext

MAX_REPAIR_CHARS = 200_000  # the largest JSON body a fatal error's repair is offered for


def key_span(member: JMember) -> Span:
    """The key without its quotes (when it has them)."""
    s = member.key_span
    if s.end - s.start >= 2 and s.end - s.start == len(member.key) + 2:
        return Span(s.start + 1, s.end - 1)
    return s


def to_field(member: JMember) -> Field:
    node = member.value
    return Field(
        member.key,
        node.value,
        node.inner_span,
        key_span(member),
        node.source_map if node.kind == "string" else None,
    )


def fields_of(node: JNode, skip: tuple[str, ...] = ()) -> dict[str, Field]:
    """The members of an object as fields (the last of duplicate keys wins, as in json.loads)."""
    return {m.key: to_field(m) for m in node.members or () if m.key not in skip}


def mark_partial(actions: list[Action], result: JResult) -> None:
    """Mark the actions a fatal JSON error cut short: their missing fields may just be unparsed."""
    fatal = result.fatal
    if fatal is None:
        return
    for action in actions:
        if action.span.end >= fatal.offset:
            action.partial = True


def json_diagnostics(text: str, result: JResult, body: Span, what: str) -> list[Diagnostic]:
    """``bad-json`` for each error of ``result`` (the parse of ``body``), with a repair fix.

    Raw control characters inside strings are accepted by the agents' parsers
    (``json.loads(strict=False)``) and are not reported; a backslash before a character that is
    no JSON escape is, as a warning, because strict parsers reject it.
    """
    found: list[Diagnostic] = []
    fixes = _repair_fixes(text, result, body)
    for error in result.errors:
        found.append(_bad_json(error, what, fixes))
    for note in result.notes:
        if note.kind == "invalid-escape":
            found.append(_bad_json(note, what, fixes, Severity.WARNING))
    return found


def _bad_json(error: JError, what: str, fixes: list[Fix], severity: Severity | None = None) -> Diagnostic:
    span = error.span if error.end > error.offset else Span(error.offset, error.offset + 1)
    return Diagnostic(
        "bad-json",
        f"{what}: {error.message}",
        span,
        severity=severity,
        fixes=fixes,
        data={"kind": error.kind},
    )


def _repair_fixes(text: str, result: JResult, body: Span) -> list[Fix]:
    if not result.errors and not any(n.kind == "invalid-escape" for n in result.notes):
        return []
    if result.fatal is None:
        edits = [e.fix for e in (*result.errors, *result.notes) if e.fix is not None]
        if edits:
            edits.sort(key=lambda e: e.span.start)
            return [Fix("Repair the JSON", edits, True)]
    if len(body) > MAX_REPAIR_CHARS:
        return []  # json_repair is quadratic on some strings: past this size, no repair is offered
    compute = _Repair(text[body.start : body.end], body.start)
    # Worked out only when the editor asks for the code actions of this range (or ``check
    # --format json`` prints fixes): never during analysis.
    return [Fix("Repair the JSON", None, True, compute=compute)]


class _Repair:
    """The edits of a JSON repair, computed when asked (a callable that pickles, so diagnostics
    can be sent between processes)."""

    __slots__ = ("raw", "start")

    def __init__(self, raw: str, start: int) -> None:
        self.raw = raw
        self.start = start

    def __call__(self) -> list[TextEdit] | None:
        raw, start = self.raw, self.start
        repaired = repair_json(raw)
        if repaired is None or repaired == raw:
            return None
        # Replace only the JSON, not the whitespace around it: the body's last line break is
        # what keeps the closing fence on a line of its own.
        lead = len(raw) - len(raw.lstrip())
        trail = len(raw) - len(raw.rstrip())
        inner = Span(start + lead, max(start + lead, start + len(raw) - trail))
        return [TextEdit(inner, repaired.strip())]


def insert_key_fix(text: str, action: Action, name: str) -> Fix | None:
    """Insert ``"name": ""`` into the JSON object of ``action`` (after its last member)."""
    if not text.startswith("{", action.span.start):
        return None
    ends = [f.span.end for f in action.fields.values() if f.span.end <= action.span.end]
    ends.append(action.name_span.end)  # the type key's value is a member too
    at = max(ends)
    if at <= action.span.start + 1:
        at = action.span.start + 1
        return Fix(f'Insert "{name}"', [TextEdit(Span(at, at), f'"{name}": "", ')])
    if text.startswith('"', at):
        at += 1
    return Fix(f'Insert "{name}"', [TextEdit(Span(at, at), f', "{name}": ""')])


class JsonDialect(Dialect):
    """A dialect whose actions are JSON objects: fields are keys, and a missing one is inserted
    as ``"name": ""``."""

    def field_syntax(self, type_name: str, field: str) -> str:
        return "key"

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return insert_key_fix(text, action, field)


def json_fence_close(ctx: ScanContext, fence: FenceOpen) -> tuple[tuple[int, int] | None, int]:
    """The closing fence of a fenced JSON block (None if unclosed) and how far the search read.

    A block with no closing-fence line at all after it is unclosed: the scanner is asked first,
    and remembers that fact for later blocks (a run of unclosed blocks costs one search). Only
    then are the JSON strings walked to skip fence lines inside them, sharing the walks of
    earlier blocks (:class:`FenceWalks`).
    """
    if ctx.find_fence_close(fence.body_start, fence.char, fence.length) is None:
        return None, len(ctx.text)
    walks = ctx.cache.setdefault(f"json-fence:{fence.char}{fence.length}", FenceWalks())
    return find_json_fence(ctx.text, fence.body_start, fence.char, fence.length, walks)


def json_fence_end(
    text: str,
    fence: FenceOpen,
    result: JResult,
    close: tuple[int, int] | None,
    body_end: int,
    what: str,
    diagnostics: list[Diagnostic],
) -> int:
    """Where a fenced JSON block ends, adding its closing diagnostics: an unclosed block (with
    the fix that inserts the fence after its JSON, where it then ends), or data after the JSON
    value inside a closed one."""
    if close is not None:
        if result.ok:
            extra = trailing_data_error(text, result.end, body_end)
            if extra is not None:
                diagnostics.append(Diagnostic("bad-json", f"bad JSON in {what}: {extra.message}", extra.span))
        return close[1]
    at = result.end if result.ok else len(text)
    insert = "\n" if at > 0 and text[at - 1] not in "\r\n" else ""
    closing = fence.char * fence.length
    diagnostics.append(
        Diagnostic(
            "unclosed-block",
            f"{what} is never closed; add a line with {closing} after its JSON",
            fence.opener_span,
            fixes=[Fix("Insert the closing fence", [TextEdit(Span(at, at), f"{insert}{closing}\n")], True)],
        )
    )
    return next_line_start(text, result.end) if result.ok else len(text)
