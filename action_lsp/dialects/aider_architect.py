"""Aider's architect mode in a chat history: the architect's answer is a proposal, never applied.

In architect mode (``aider --architect``, ``/chat-mode architect``, or one ``/architect ...``
message) Aider asks the main model for a plan (``ArchitectCoder``, an ``AskCoder``: it parses no
edits), then hands that answer, unchanged, to an editor model as its prompt
(``ArchitectCoder.reply_completed``: ``editor_coder.run(with_message=content)``); only the
editor's answer is applied, in the editor's edit format (``editor-whole``, ``editor-diff``, ...).
The history shows it so::

    #### /architect make the bubble smaller        (or a plain message in architect mode)

    <the architect's answer: prose, ```diff blocks, lazy snippets -- instructions>

    > Tokens: ...
    > Edit the files? (Y)es/(N)o [Yes]: y          (absent when the edit is auto-accepted)

    #### <the architect's answer, quoted line by line as the editor's prompt>

    <the editor's answer: its blocks are the edits>

    > Applied edit to src/bubble.js

So an answer is the architect's when Aider's ``Edit the files?`` question follows it in its turn,
or when the next user message (Aider's ``#### `` lines, each ending with two spaces) quotes the
turn's text up to its end; an answer Aider applied (``> Applied edit to``, before the next user
message) is not, and is decided there without reading the next message. Both are read *forward* from a block, so a block decides by what
follows it in its turn (the incremental re-scan re-reads it when that changes). A block of such
an answer is no action (:func:`settle`): what the architect proposed is applied, if ever, by the
editor's blocks after the quote. A turn where the architect's answer made Aider add files first
(``Add file to the chat? y``, then a second answer) is the architect's as a whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..markdown import Forward, line_end, next_line_start
from .aider_users import UserLines, user_lines
from .base import Construct, ScanContext

# An Aider user line (the prompt, or the editor's prompt quoting the architect) is `#### ` and
# Aider's two-space line break at its end (``UserLines.prompt``). Aider's question (``> Edit the
# files? ``) and its line after an answer it applied (``> Applied edit to ``: an architect's
# answer never has one, the editor's output follows the quote, in the next turn) are searched
# together, the first one of them deciding. Searched from the line break before the line (a
# pattern starting with a character class lets `re` skip ahead); the text's first line on its own.
_QUESTION = "> Edit the files? "
_SAID = re.compile(r"[\r\n]> (?:Edit the files\? |Applied edit to )")
# The same for a text without \r (most histories): a literal first character lets `re` search
# for the whole literal prefix at once (a 4 MB history: 4 ms a search through it, not 23).
_LF_SAID = re.compile(r"\n> (?:Edit the files\? |Applied edit to )")
# The strings whose insertion after a block can make its turn the architect's.
WATCH = ("#### ", "Edit the files?")
_MIN_QUOTED = 2  # lines of the turn's end the quote must repeat (one line may be chance)


@dataclass(slots=True)
class Verdict:
    proposal: bool  # the block stands in the architect's answer: no action
    lookahead: int  # how far the verdict read (-1: to the end, see ``watch``)
    watch: tuple[str, ...]


def _first_line(text: str, rx: re.Pattern[str], pos: int, bound: int) -> int:
    """The start of the first line at or after ``pos`` and before the line start ``bound`` that
    ``rx`` matches from the line break before it (``bound``: none)."""
    if pos == 0 and rx.match("\n" + text[: line_end(text, 0)]) is not None:
        return 0 if bound > 0 else bound
    m = rx.search(text, max(0, pos - 1), bound)  # (a line's match ends on it)
    return m.start() + 1 if m is not None else bound


class _LinesBefore:
    """:func:`_first_line` before a bound, remembered for the queries up to its answer with
    the same bound."""

    __slots__ = ("memo", "rx", "text")

    def __init__(self, text: str, rx: re.Pattern[str]) -> None:
        self.text = text
        self.rx = rx
        self.memo = (-1, -1, -1)  # (searched from, bound, what was found)

    def next(self, pos: int, bound: int) -> int:
        q, b, found = self.memo
        if b == bound and q <= pos <= found:
            return found
        found = _first_line(self.text, self.rx, pos, bound)
        self.memo = (pos, bound, found)
        return found


class Turns:
    """The architect verdicts of one text (per scan)."""

    def __init__(self, text: str, cr: bool | None = None, users: UserLines | None = None) -> None:
        self.text = text
        lf = not ("\r" in text if cr is None else cr)  # (the scan's answer: a pass through the text)
        # An editor's prompt (``_USER``), among the user lines the scan finds once for Aider's reader.
        self.users = Forward(len(text), (users or UserLines(text)).prompt)
        # Aider's question and its "Applied" line count only before the next user line: looked
        # for up to it (not through the whole text, for a history that has none), in one search.
        self.said = _LinesBefore(text, _LF_SAID if lf else _SAID)
        self.runs: dict[int, tuple[list[str], int]] = {}

    def verdict(self, pos: int) -> Verdict:
        """Does the block at ``pos`` stand in an architect's answer?"""
        text = self.text
        n = len(text)
        user = self.users.next(pos)
        # (Either at ``user`` when there is none before it: the verdict is the same as with
        # the next one after it.)
        said = self.said.next(pos, user)
        if said < user:  # the question (an architect's answer), or the "Applied" line: not one
            return Verdict(text.startswith(_QUESTION, said), line_end(text, said), ())  # (read no further)
        if user >= n:
            return Verdict(False, -1, WATCH)
        run = self.runs.get(user)
        if run is None:
            run = self.runs[user] = self._run(user)
        quote, run_end = run
        proposal = self._quotes(pos, user, quote)
        return Verdict(proposal, run_end, ())

    def _run(self, user: int) -> tuple[list[str], int]:
        """The lines of the run of ``####`` lines at ``user`` (without ``#### ``, stripped,
        blank ones left out), and where the run ends."""
        text = self.text
        n = len(text)
        lines: list[str] = []
        pos = user
        end = user
        while pos < n and text.startswith("####", pos):
            end = line_end(text, pos)
            line = text[pos + 4 : end].strip()
            if line:
                lines.append(line)
            pos = next_line_start(text, end)
        return lines, end

    def _quotes(self, pos: int, user: int, quote: list[str]) -> bool:
        """Does ``quote`` repeat the text of the turn from ``pos`` to ``user`` at its end?
        Compared line by line backwards, blank lines and Aider's own tool lines left out, up to
        ``pos`` or to the quote's first line, whichever comes first."""
        if not quote:
            return False
        text = self.text
        start = text.rfind("\n", 0, pos) + 1
        k = len(quote)
        matched = 0
        stop = user
        while stop > start and k > 0:
            brk = stop - 1
            if text[brk] == "\n" and brk > 0 and text[brk - 1] == "\r":
                brk -= 1
            nl = text.rfind("\n", 0, brk)
            line_start = max(nl, text.rfind("\r", nl + 1, brk)) + 1  # (a \r before nl: not this line's)
            raw = text[line_start:brk]
            stop = line_start
            line = raw.strip()
            if not line or (raw.startswith("> ") and raw.endswith("  ")):
                continue  # a blank line, or Aider's own line (``> Tokens: ...``)
            k -= 1
            if quote[k] != line:
                return False
            matched += 1
        return matched >= min(_MIN_QUOTED, len(quote))


def turns(ctx: ScanContext) -> Turns:
    found = ctx.cache.get("aider-architect")
    if not isinstance(found, Turns):
        found = ctx.cache["aider-architect"] = Turns(ctx.text, ctx.cr, user_lines(ctx.cache, ctx.text))
    return found


def settle(ctx: ScanContext, construct: Construct) -> Construct:
    """``construct`` as Aider's architect mode leaves it: with no action and no diagnostic when
    it stands in the architect's answer; as it is otherwise, having read what decided that."""
    if not construct.actions:
        return construct
    verdict = turns(ctx).verdict(construct.span.start)
    lookahead = max(construct.lookahead, verdict.lookahead)
    watch = tuple(sorted(set(construct.watch) | set(verdict.watch))) if verdict.watch else construct.watch
    if verdict.proposal:
        return Construct(construct.span, [], [], lookahead=lookahead, watch=watch, behind=construct.behind)
    construct.lookahead = lookahead
    construct.watch = watch
    return construct
