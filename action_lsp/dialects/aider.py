"""``aider``: Aider's SEARCH/REPLACE edit blocks (Aider-AI/aider, the ``diff`` edit format)::

    path/to/file.py
    ```python
    <<<<<<< SEARCH
    lines to find
    =======
    lines that replace them
    >>>>>>> REPLACE
    ```

What Aider's own extractor (``find_original_update_blocks`` in ``aider/coders/editblock_coder.py``)
takes from a reply, we take: it reads lines, not Markdown, so a block may stand in any fence
(```` ```python ````, ```` ```text ````, four backticks) or in none, a fence may hold several
blocks (for several files), and a marker line may be indented. Markers have 5 to 9 characters
(``<<<<<<< SEARCH``, ``=======``, ``>>>>>>> REPLACE``); a second ``=======`` also ends the
replacement. The file name is looked for on the line before the SEARCH marker, then through the
fence lines before it (the line before the fence, or the fence line itself: ```` ```src/app.py ````),
at most three lines back, and cleaned as Aider cleans it (``**app.py**``, ```` `app.py`: ````,
``# app.py``). A block without one takes the previous file name of its fence. Aider's 2023
versions wrote ``<<<<<<< ORIGINAL`` / ``>>>>>>> UPDATED`` for the markers: read alike (and, in
Aider's own example pages, spaced out by a formatter: ``aider_mangled``). An empty
SEARCH (or one of blank lines only, which Aider strips) means a new file, or an append to an existing one (the file view's ``modify`` with an empty
search: the edit engine appends, creating the file when it is absent).

A quoted example (``> <<<<<<< SEARCH``, how Aider's chat history shows its own output) is no
block, as for Aider. The scanner offers this dialect every fence whose body holds a SEARCH
marker line (``fence_bodies``) and every SEARCH marker line outside fences (``line_markers``);
the file-name line before a fence is a declared look-behind (the construct's span starts there),
so editing it re-scans the block.

Diagnostics where Aider's parse goes wrong: a block that never reaches ``=======`` or its REPLACE
marker, a SEARCH marker read as text because a marker before it is missing, marker typos
(``<<<< SEARCH``, ``>>>>>>>REPLACE``) with a fix, a missing file name (``missing-field`` with a
fix inserting a file-name line); path traversal and absolute paths come from the shared path rules.

What Aider writes after a reply (``aider_reports``): a block after a ``## SearchReplaceNoExactMatch``
heading is Aider's echo of a block that failed, no action; a block that the "N SEARCH/REPLACE
blocks failed to match!" report ending its turn echoes is shown failed (kind ``other``, a
``tool-error`` hint, never applied), like a session's tool call whose result was an error. So
is a block that names no file once Aider's output follows its reply: Aider never applies one.
The shell blocks Aider offers to run are the ``aider-shell`` dialect (off by default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..markdown import (
    EOL,
    PARAGRAPH,
    FenceOpen,
    Forward,
    ForwardSearch,
    blank_line_start,
    line_end,
    line_start,
    next_line_start,
    text_finder,
)
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    Fix,
    Severity,
    SourceMap,
    Span,
    TextEdit,
)
from ..schema import ActionSpec, opt, req, specs, text
from .aider_architect import settle
from .aider_mangled import HEAD as MANGLED
from .aider_mangled import mangled_block
from .aider_reports import (
    MARKERS,
    WATCH,
    echo_heading,
    failure,
    reports,
    tool_message,
)
from .aider_users import user_lines
from .base import Construct, Dialect, ScanContext
from .tool_use import failed

TYPE = "search-replace"
SPECS = specs(
    ActionSpec(
        TYPE,
        ActionKind.MODIFY_FILE,
        (
            req("path", text(), "the file to change, alone on the line before the fence"),
            opt("search", text(), "the lines to find (empty: a new file, or an append)"),
            opt("replace", text(), "the lines that replace them"),
        ),
        "Replace the SEARCH lines of a file with the REPLACE lines (an empty SEARCH creates the "
        "file or appends to it).",
    ),
)

# A marker line, after its leading blanks, as Aider matches the stripped line.
# (Written with a literal prefix -- ``=====`` rather than ``={5,9}`` -- so that `re` skips ahead
# to it: ten times faster on a 4 MB transcript.)
_HEAD = re.compile(r"<<<<<<{0,4} (?:SEARCH>?|ORIGINAL)[ \t]*(?:\r|\n|\Z)")
_DIVIDER = re.compile(r"======{0,4}[ \t]*(?:\r|\n|\Z)")
_UPDATED = re.compile(r">>>>>>{0,4} (?:REPLACE|UPDATED)[ \t]*(?:\r|\n|\Z)")
# What a SEARCH or REPLACE marker with a typo looks like (found, then told apart from the real one).
_LOOSE_HEAD = r"<<<<*[ \t]*(?:SEARCH|ORIGINAL)"
_LOOSE_HEAD_RX = re.compile(_LOOSE_HEAD)
# Lines Aider reads as fence lines when looking back for the file name: backticks, or the HTML-like
# fences it asks some models for (``<source>``, ``<code>``, ...).
_FENCES = ("```", "<source>", "<code>", "<pre>", "<codeblock>", "<sourcecode>")
_TOKENS = "\n> Tokens: "  # Aider's first line after a reply (how much it sent and received)
_LOOSE_END = re.compile(r"(?:>{3,}[ \t]*(?:REPLACE|UPDATED)|={3,}|={10,})[^\r\n]*")


def _finder(text: str, rx: re.Pattern[str]) -> Forward:
    """The line start of the next line (at or after a position) matching a marker regex after
    its blanks (``len(text)``: none), remembered: a block that is never closed searches to the
    end of the text once per scan, not once per block."""

    def search(pos: int) -> int:
        m = rx.search(text, pos)
        while m is not None:
            line = blank_line_start(text, m.start())
            if line >= pos:
                return line
            m = rx.search(text, m.start() + 1)
        return len(text)

    return Forward(len(text), search)


def _line_before(text: str, rx: re.Pattern[str], pos: int, limit: int) -> int:
    """What :func:`_finder` finds from ``pos`` when it is before the line start ``limit``, else
    ``limit``: searched no further than ``limit`` (a marker line before it ends before it)."""
    m = rx.search(text, pos, limit)
    while m is not None:
        line = blank_line_start(text, m.start())
        if line >= pos:
            return line
        m = rx.search(text, m.start() + 1, limit)
    return limit


@dataclass(slots=True)
class _Finders:
    head: Forward  # loose SEARCH markers (typos included)
    divider: Forward
    updated: Forward
    message: Forward  # Aider's `#### ` user-message lines (its extractor reads one message at a time)
    paragraph: ForwardSearch  # a blank line, then text
    tokens: Forward  # Aider's first line after a reply (``_TOKENS``)


def _finders(ctx: ScanContext) -> _Finders:
    found = ctx.cache.get("aider")
    if found is None:
        t = ctx.text
        users = Forward(len(t), user_lines(ctx.cache, t).line)  # (searched once for the reports too)
        found = ctx.cache["aider"] = _Finders(_finder(t, _LOOSE_HEAD_RX), _finder(t, _DIVIDER), _finder(t, _UPDATED), users, ForwardSearch(t, PARAGRAPH), text_finder(t, _TOKENS))
    return found


def _close_before(ctx: ScanContext, start: int, fence: FenceOpen, limit: int) -> tuple[int, int] | None:
    """The fence's closing line at or after the line start ``start`` when it starts before the
    line start ``limit``: ``find_fence_close(text, start, char, length, limit)`` (no glued
    closers, as Aider reads), from the scan's remembered search (each block of a fence asked
    for its own, up to the next SEARCH marker: every fence's body was read three times more)."""
    close = ctx.plain_fence_close(start, fence.char, fence.length)
    return close if close is not None and close[0] < limit else None


def _last_blank_line(text: str, start: int, end: int) -> int:
    """How many characters of ``text[start:end]`` (whole lines) Aider's ``strip_quoted_wrapping``
    drops at its end: its lines joined by line breaks, one added after them, lose the line break
    of a last empty line (and a lone empty line is nothing)."""
    for eol in ("\r\n", "\n", "\r"):
        if text.startswith(eol, end - len(eol)) and end - len(eol) >= start:
            before = end - len(eol)
            return len(eol) if before == start or text[before - 1] in "\r\n" else 0
    return 0


def _content_end(text: str, start: int) -> int:
    """End of the line at ``start``, without its line break."""
    return line_end(text, start)


def strip_filename(text: str, start: int, end: int) -> Span | None:
    """Where the file name on the line ``text[start:end]`` is written, cleaned as Aider cleans
    it (None when the line names no file)."""
    # (Stripped by str methods, the offsets kept from the lengths: a loop a character cost a
    # fifth of the look-back of every block of a long history.)
    seg = text[start:end]
    t = seg.lstrip()
    a = start + len(seg) - len(t)
    t = t.rstrip()
    b = a + len(t)
    if t == "...":
        return None
    fence = next((f for f in _FENCES if t.startswith(f)), None) if t.startswith(_FENCES) else None
    if fence is not None:
        rest = t[len(fence) :]
        if fence == "```":
            rest = rest.lstrip("`")
        return Span(b - len(rest), b) if rest and ("." in rest or "/" in rest) else None
    t = t.rstrip(":")
    b = a + len(t)
    for strip in ("#", None):
        t = t.lstrip(strip)
        a = b - len(t)
    t = t.rstrip()
    b = a + len(t)
    for ch in "`*":
        t = t.lstrip(ch)
        a = b - len(t)
        t = t.rstrip(ch)
        b = a + len(t)
    return Span(a, b) if b > a else None


def _in_tag(text: str, head: int) -> int:
    """The start of the line before the SEARCH marker when a tag stands on it (``<diff>``,
    ``<dyad-search-replace path=...>``, Kilo's ``<content><![CDATA[``), else -1. Then the block is another agent's format shown
    in a fence, not Aider's (Aider would take the tag for a file name)."""
    if head == 0:
        return -1
    brk = head - 2 if text.startswith("\r\n", head - 2) else head - 1
    prev = line_start(text, brk)
    line = text[prev:brk].strip()
    # Kilo's multi-file apply_diff opens its SEARCH text with `<content><![CDATA[`: no path either.
    tagged = line.endswith(">") or line.endswith("<![CDATA[")
    return prev if line.startswith("<") and tagged and not line.startswith(_FENCES) else -1


def _is_marker(text: str, span: Span) -> bool:
    if text[span.start : span.start + 1] not in ("<", "=", ">"):
        return False  # (each of these patterns and prefixes starts with one: most names, told at once)
    return any(rx.match(text, span.start, span.end + 1) for rx in (_HEAD, _DIVIDER, _UPDATED)) or (
        text.startswith(("<<<<<", "=====", ">>>>>"), span.start, span.end)
    )


def find_filename(text: str, head: int, read: list[int] | None = None) -> Span | None:
    """The file name for the SEARCH marker line at ``head``: Aider's look back over at most
    three lines, past fence lines only, preferring a name with a dot. The start of the
    furthest line read is appended to ``read``."""
    names: list[Span] = []
    pos = head
    floor = 0
    for _ in range(3):
        if pos <= floor:
            break
        brk = pos - 2 if text.startswith("\r\n", pos - 2) else pos - 1  # the line break before
        prev = line_start(text, brk)
        if read is not None:
            read.append(prev)
        stop = _content_end(text, prev)
        if text.startswith("####", prev, stop):
            break  # the user's message before this reply
        name = strip_filename(text, prev, stop)
        if name is not None and _is_marker(text, name):
            name = None  # the previous block's marker (Aider would take it for a file name)
        if name is not None:
            names.append(name)
        if not text.startswith(_FENCES, prev, stop):
            break
        pos = prev
    for name in names:
        if "." in text[name.start : name.end]:
            return name
    return names[0] if names else None


class Aider(Dialect):
    name = "aider"
    description = "Aider's SEARCH/REPLACE blocks (file name on the line before the fence; any fence or none)"
    order = 60
    specs = SPECS
    # Aider's rule (editblock_coder.do_replace): an empty SEARCH creates a missing file and
    # appends the REPLACE text to an existing one, empty or not. Each block is its own action,
    # applied in sequence on the file the blocks before it left.
    rules = EditRules("Aider", on_missing="create", on_empty="append", on_text="append", rewrites=True)
    fence_bodies = True
    # a SEARCH marker, or a typo of one (parse_line tells); the lines after which Aider writes a
    # multi-line tool message (the output of ``/run``, a report of failed blocks): no actions
    line_markers = ("<<<", *MARKERS, MANGLED)
    lookbehind_lines = 3

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        text = ctx.text
        if (mangled := mangled_block(ctx, fence, self.name, TYPE)) is not None:
            return settle(ctx, mangled)  # an old block a formatter spaced out (Aider's examples)
        found = _finders(ctx)
        head = found.head.next(fence.body_start)
        close = _close_before(ctx, fence.body_start, fence, head)
        if head >= len(text) or close is not None:
            return None  # no SEARCH marker before the fence ends: an ordinary example
        if (tag := _in_tag(text, head)) >= 0:  # an example fence, which read the line before
            close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
            end = close[1] if close else len(text)
            return Construct(Span(fence.start, end), lookahead=end, behind=tag)
        return self._blocks(ctx, found, fence.start, head, fence)

    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        if ctx.text.startswith(MARKERS, start):
            end, read = tool_message(reports(ctx.cache, ctx.text, ctx.cr), start)
            return Construct(Span(start, end), lookahead=max(end, read))
        at = start
        while at < len(ctx.text) and ctx.text[at] in " \t":
            at += 1
        if _LOOSE_HEAD_RX.match(ctx.text, at) is None:
            return None  # a line starting `<<<` that is no SEARCH marker
        if (tag := _in_tag(ctx.text, start)) >= 0:
            return Construct(Span(start, next_line_start(ctx.text, start)), behind=tag)
        return self._blocks(ctx, _finders(ctx), start, start, None)

    def _blocks(
        self, ctx: ScanContext, found: _Finders, start: int, head: int, fence: FenceOpen | None
    ) -> Construct:
        """The blocks from the SEARCH marker line at ``head`` on: to the fence's close when in a
        fence, else the one block."""
        text = ctx.text
        n = len(text)
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        watch: set[str] = set()
        read: list[int] = []
        reach: list[int] = []  # how far a failed block read (to the next SEARCH marker)
        begin = start
        end = start
        previous: Span | None = None
        while True:
            echo = echo_heading(text, head)
            if echo is not None:
                read.append(echo.start)
            kept = len(diagnostics)
            block = self._block(ctx, found, head, previous, diagnostics, watch, read, reach, fence)
            if block is None:
                end = max(end, next_line_start(text, head))
            else:
                action, end = block
                path = action.fields.get("path")
                if echo is not None:
                    # Aider's echo of a block that failed: no action of the model's.
                    del diagnostics[kept:]
                    begin = min(begin, echo.start)
                else:
                    if path is not None:
                        previous = path.span
                        begin = min(begin, line_start(text, path.span.start))
                    actions.append(action)
            if fence is None:
                break
            nxt = found.head.next(end)
            close = _close_before(ctx, end, fence, nxt)
            if close is not None:
                end = close[1]
                break
            tool = reports(ctx.cache, text, ctx.cr).next_tool_line(end)
            if tool < nxt:
                end = tool  # the fence is never closed in the reply: Aider's output follows it
                break
            if nxt >= n:
                end = n  # the fence is never closed
                break
            head = nxt
        group = Span(begin, end)
        for a in actions:
            a.group = group
            a.group_label = "aider edit"
        if actions:
            self._reported(ctx, actions, end, diagnostics, reach, watch)
        behind = min(read, default=start)
        # A diagnostic past the blocks (a mistyped REPLACE the replacement ran past) is read
        # ahead to: an edit before it re-scans the construct that reported it.
        reach.extend(d.span.end for d in diagnostics)
        return settle(ctx, Construct(
            group, actions, diagnostics, lookahead=max(end, *reach) if reach else end,
            watch=tuple(sorted(watch)), behind=min(behind, begin),
        ))

    def _block(
        self,
        ctx: ScanContext,
        found: _Finders,
        head: int,
        previous: Span | None,
        diagnostics: list[Diagnostic],
        watch: set[str],
        read: list[int],
        reach: list[int],
        fence: FenceOpen | None,
    ) -> tuple[Action, int] | None:
        """One block from its SEARCH marker line at ``head``: the action and where the next line
        starts, or None (with a diagnostic) when Aider would see no block or reject it. What a
        failed block read is recorded for the incremental re-scan: up to the next SEARCH marker
        (``reach``), or, when there is none, the strings whose insertion could change the
        verdict (``watch``): a block never searches to the end of the text twice."""
        text = ctx.text
        n = len(text)
        indent = head
        while indent < n and text[indent] in " \t":
            indent += 1
        head_end = _content_end(text, head)
        head_span = Span(indent, head_end)
        if _HEAD.match(text, indent) is None:
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    f"`{text[indent:head_end].strip()}` is not a marker Aider reads (5 to 9 `<`, one "
                    "space, `SEARCH`); Aider sees no block here",
                    head_span,
                    fixes=[Fix("Write `<<<<<<< SEARCH`", [TextEdit(head_span, "<<<<<<< SEARCH")], True)],
                )
            )
            return None
        search_start = next_line_start(text, head)
        bound = found.message.next(search_start)
        divider = found.divider.next(search_start)
        if bound < divider < n and divider < found.head.next(search_start):
            # A whole block (SEARCH, =======, >>>>>>> REPLACE, no other SEARCH) across a `#### `
            # line: a Markdown heading in the text of a single reply, not a new user message.
            after = next_line_start(text, divider)
            closing = found.updated.next(after)
            if closing < n and closing < found.head.next(after):
                bound = n
        far = found.head.next(search_start)
        if divider >= bound:
            self._read_to(text, found, search_start, bound, far, fence, reach, watch)
            diagnostics.append(
                Diagnostic("unclosed-block", "this SEARCH block never reaches `=======`; Aider rejects the reply", head_span)
            )
            return None
        replace_start = next_line_start(text, divider)
        # (A second `=======` counts before the REPLACE marker only: searched up to it, not on
        # to the next block's, which made that search a pass through the whole history.)
        updated = found.updated.next(replace_start)
        closing = min(_line_before(text, _DIVIDER, replace_start, updated), updated)
        if closing >= bound:
            limit = min(bound, found.head.next(replace_start))
            self._read_to(text, found, search_start, bound, far, fence, reach, watch)
            self._typos(text, replace_start, limit, diagnostics)
            fixes = []
            close = _close_before(ctx, replace_start, fence, limit) if fence else None
            if close is not None:  # the fence closes the block: the marker goes before it
                eol = EOL.search(text, divider)
                marker = ">>>>>>> REPLACE" + (eol.group(0) if eol else "\n")
                fixes.append(Fix("Insert `>>>>>>> REPLACE`", [TextEdit(Span(close[0], close[0]), marker)], True))
            diagnostics.append(
                Diagnostic(
                    "unclosed-block",
                    "this SEARCH block never ends with `>>>>>>> REPLACE`; Aider rejects the reply",
                    head_span,
                    fixes=fixes,
                )
            )
            return None
        closing_end = _content_end(text, closing)
        closing_span = Span(closing + len(text[closing:closing_end]) - len(text[closing:closing_end].lstrip(" \t")), closing_end)
        inner = found.head.next(search_start)
        if inner < divider:
            # With a REPLACE marker read as text too, the block's own `=======` is surely
            # missing; alone, the marker may be content (a docstring of Aider's own parser).
            missing = found.updated.next(search_start) < divider
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    "Aider reads this SEARCH marker as text to find: the block before it has no "
                    "`=======` (or no `>>>>>>> REPLACE`)",
                    Span(inner, _content_end(text, inner)),
                    severity=None if missing else Severity.WARNING,
                    related=[(head_span, "the block it is read into")],
                )
            )
        elif inner < closing:
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    "Aider reads this SEARCH marker as replacement text: the block before it has "
                    "no `>>>>>>> REPLACE`",
                    Span(inner, _content_end(text, inner)),
                    severity=Severity.WARNING,
                    related=[(head_span, "the block it is read into")],
                )
            )
        elif found.updated.next(closing) != closing:
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    "a second `=======` ends this replacement (Aider accepts it); the closing "
                    "marker is `>>>>>>> REPLACE`",
                    closing_span,
                    severity=Severity.WARNING,
                    fixes=[Fix("Write `>>>>>>> REPLACE`", [TextEdit(closing_span, ">>>>>>> REPLACE")], True)],
                )
            )
        self._typos(text, replace_start, closing, diagnostics)
        search_end = divider - _last_blank_line(text, search_start, divider)
        search = Field("search", text[search_start:search_end], Span(search_start, search_end), None, SourceMap.verbatim(search_start, search_end))
        if not search.value.strip():  # blank lines only: empty for Aider (do_replace strips it)
            search = Field("search", "", Span(search_start, search_start), None, SourceMap.verbatim(search_start, search_start))
        replace_end = closing - _last_blank_line(text, replace_start, closing)
        replace = Field("replace", text[replace_start:replace_end], Span(replace_start, replace_end), None, SourceMap.verbatim(replace_start, replace_end))
        fields = {"search": search, "replace": replace}
        name = find_filename(text, head, read)
        if name is None:
            name = previous
        if name is not None:
            fields = {"path": Field("path", text[name.start : name.end], name), **fields}
            start = min(head, line_start(text, name.start))
        else:
            start = head
        action = Action(self.name, TYPE, ActionKind.MODIFY_FILE, Span(start, closing_end), head_span, fields)
        action.edits = [Edit(search, replace)]
        return action, next_line_start(text, closing) if closing_end < n else n

    @staticmethod
    def _reported(
        ctx: ScanContext, actions: list[Action], end: int, diagnostics: list[Diagnostic], reach: list[int], watch: set[str]
    ) -> None:
        """Mark failed the blocks that the report ending their turn names (see
        ``aider_reports``); record how far that was read."""
        found = reports(ctx.cache, ctx.text, ctx.cr)
        for i, a in enumerate(actions):
            path = a.text("path")
            if path is not None and a.failure is None:
                skip, why, _ = found.skipped(end, path)
                if skip is not None:
                    actions[i], hint = failed(a, why, skip)
                    diagnostics.append(hint)
                    reach.append(skip.end)
        turn = found.after(end)
        if turn.reach < 0:
            watch.update(WATCH)
            return
        reach.append(turn.reach)
        # (``find(_TOKENS, end - 1, turn.reach) >= 0``: the first one from ``end - 1`` ends by then)
        if (turn.report is None or not turn.report.rejected) and _finders(ctx).tokens.next(end - 1) + len(_TOKENS) <= turn.reach:
            # Aider's output follows the reply: a block naming no file was never applied (Aider
            # rejects such a reply in its diff formats, and its other formats do not read it).
            for i, a in enumerate(actions):
                if a.fields.get("path") is None:
                    actions[i], hint = failed(a, "it names no file: Aider never applies such a block", None)
                    diagnostics.append(hint)
        if turn.report is None:
            return
        if turn.report.rejected:
            for i, a in enumerate(actions):
                message = f"Aider rejected the reply holding this block: {turn.report.rejected}"
                actions[i], hint = failed(a, message, turn.report.at)
                diagnostics.append(hint)
            return
        for i, a in enumerate(actions):
            path, search = a.text("path"), a.text("search")
            echo = failure(turn.report, path, search) if path is not None and search is not None else None
            if echo is not None:
                message = f"Aider reported that this SEARCH block failed to exactly match lines in {echo.path}"
                actions[i], hint = failed(a, message, echo.heading)
                diagnostics.append(hint)

    @staticmethod
    def _read_to(
        text: str,
        found: _Finders,
        start: int,
        bound: int,
        far: int,
        fence: FenceOpen | None,
        reach: list[int],
        watch: set[str],
    ) -> None:
        """Record what a failed block's verdict read: the text up to the next user message
        (``bound``; Aider reads across SEARCH markers), and up to the next SEARCH marker past it
        (``far``, where a block across a `#### ` line would have ended). What reaches the end
        of the text is watched instead (the strings whose insertion could change the verdict);
        a block with no paragraph after it reads to the end: it may still be streaming in."""
        n = len(text)
        ends = [bound] + ([far] if far > bound else [])
        for end in ends:
            if end < n:
                reach.append(_content_end(text, end))
            else:
                watch.update(("=====", "REPLACE", "SEARCH", "UPDATED", "ORIGINAL", fence.char * 3 if fence else "```"))
                if not found.paragraph.found(start):
                    reach.append(n)  # the last thing in the text: a reply still streaming in?

    def _typos(self, text: str, start: int, end: int, diagnostics: list[Diagnostic]) -> None:
        """A REPLACE marker with a typo inside the replacement: Aider read past it."""
        at = text.find("REPLACE", start, end)
        while at >= 0:
            line = line_start(text, at)
            stop = _content_end(text, at)
            m = _LOOSE_END.match(text, line + len(text[line:stop]) - len(text[line:stop].lstrip(" \t")), stop)
            if m is not None and line >= start and text[m.start()] == ">":
                span = Span(m.start(), m.end())
                diagnostics.append(
                    Diagnostic(
                        "bad-marker",
                        f"`{text[span.start:span.end].strip()}` is not a marker Aider reads (5 to 9 "
                        "`>`, one space, `REPLACE`); the replacement runs on past it",
                        span,
                        fixes=[Fix("Write `>>>>>>> REPLACE`", [TextEdit(span, ">>>>>>> REPLACE")], True)],
                    )
                )
            at = text.find("REPLACE", stop, end)

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        if field != "path":
            return None
        at = action.span.start
        eol = EOL.search(text, at)
        newline = eol.group(0) if eol else "\n"
        return Fix("Insert a file-name line", [TextEdit(Span(at, at), "path/to/file" + newline)], True)

    def field_syntax(self, type_name: str, field: str) -> str:
        return ""


DIALECT = Aider()
