"""What Aider itself writes into its chat history after a reply's edit blocks, read so that it
is never taken for the model's own blocks, and so that the blocks Aider reported as failed are
shown failed.

Aider writes each tool message into ``.aider.chat.history.md`` as a quote: the first line after
``> ``, the other lines of a multi-line message as they are (older versions quoted every line).
When blocks of a reply do not match (``EditBlockCoder.apply_edits`` in Aider's
``aider/coders/editblock_coder.py``), the message is::

    > # 2 SEARCH/REPLACE blocks failed to match!

    ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/x.py
    <<<<<<< SEARCH
    ...
    =======
    ...
    >>>>>>> REPLACE

    Did you mean to match some of these actual lines from src/x.py?   (optional, with a fence)

    The SEARCH section must exactly match an existing block of lines including all white space, ...

    # The other 3 SEARCH/REPLACE blocks were applied successfully.       (when some were)

The echoed block (after its ``## SearchReplaceNoExactMatch`` heading) is no action: the ``aider``
dialect reads it as an echo (:func:`echo_heading`). A block of a reply is *failed* when the first
report after it, before the reply's turn ends (a ``#### `` user message, or Aider's ``Applied
edit to`` line), echoes a block with its file (the same path, or the same name in another
folder: Aider may have resolved it) and its SEARCH text (compared line by line without
surrounding blanks, as quoting changes them). The blocks a report does not name were applied (or
are not Aider's concern) and stay as they are. A reply Aider could not parse is echoed up to the
line it stopped at, followed by ``^^^ Expected ...``: every block of that reply is failed (Aider
applied none of them).

Before it applies a reply, Aider asks to create a missing file or to edit one not in the chat;
on a no (or for a file ``.gitignore`` matches) it writes ``Skipping edits to PATH`` and applies
none of the reply's edits to that file (``Coder.allowed_to_edit``): such a line in the turn of a
block of that file makes the block failed (:meth:`Reports.skipped`). So does Ctrl-C at one of those
prompts: Aider writes ``^C again to exit`` / ``^C KeyboardInterrupt`` and applies nothing, and a turn
whose blocks were applied ends at its ``Applied edit to`` line, before any later interrupt.

A multi-line tool message after one of ``MARKERS`` (``#### /run ...``, ``#### /test ...``,
``#### /git ...``, ``#### !...``, and the edit-errors link printed before a report or a rejected
reply's echo) is claimed by the ``aider`` dialect as a construct with no action
(:func:`tool_message`): the output of ``/run git diff`` holds ``diff --git`` sections, and an echoed
reply holds blocks, that are no actions. A fence of a reply that is never closed stops at Aider's
first tool message after a blank line (:meth:`Reports.next_tool_line`), not at the next block.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..markdown import Forward, line_end, line_start, next_line_start
from ..model import Span
from .aider_users import UserLines, user_lines

# Lines after which Aider writes a multi-line tool message (see :func:`tool_message`): the user's
# commands whose output it shows, and the link it prints before a report of failed blocks.
COMMANDS = ("#### /run ", "#### /test ", "#### /git ", "#### !")
EDIT_ERRORS = "> https://aider.chat/docs/troubleshooting/edit-errors.html"
MARKERS = (*COMMANDS, EDIT_ERRORS)
# The last line of a tool message: it ends with the two spaces of Aider's line break, and the
# next line is another tool message, a user message, a blank line (a reply follows) or nothing.
_MESSAGE_END = re.compile(r"  (?:\r\n|\n|\r)(?=>|####[ \t]|[ \t]*(?:\r|\n)|\Z)|  \Z")
_TOOL_AFTER_BLANK = re.compile(r"(?:\r\n|\n|\r)[ \t]*(?:\r\n|\n|\r)(?=> [^\r\n]*  (?:\r|\n|\Z))")
ECHO = "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in "
_ECHO = re.compile(r"(?:> ?)?" + re.escape(ECHO))
# What ends a reply's turn in the history (searched by its literal part, the line checked after).
_TURN = re.compile(r"(?:Applied|Did not apply) edit to |SEARCH/REPLACE blocks? failed to match!|####[ \t]|\^\^\^ ")
_REPORT_PREFIX = re.compile(r"(?:> ?)?# \d+ ")
# A line that ends a turn but a user message's (the words of _TURN, each where its line prefix
# fits it), matched at a line's start; searched from the line break before it (a literal first
# character: ``re`` skips ahead to each line feed, then tries the line's first characters).
_TURN_LINE_BODY = r"(?:> ?)?(?:Applied edit to |Did not apply edit to |\^\^\^ |# \d+ SEARCH/REPLACE blocks? failed to match!)"
_TURN_LINE = re.compile(_TURN_LINE_BODY)
_LF_TURN_LINE = re.compile(r"\n" + _TURN_LINE_BODY)
_CR_TURN_LINE = re.compile(r"[\r\n]" + _TURN_LINE_BODY)
_QUOTE = re.compile(r"> ?")
_HEAD = re.compile(r"<{5,9} SEARCH>?\s*$")
_DIVIDER = re.compile(r"={5,9}\s*$")
_UPDATED = re.compile(r">{5,9} REPLACE\s*$")
_END = "The SEARCH section must exactly match"
# Aider's line for a file whose edits it did not apply: the user refused to create it or to edit
# it outside the chat, or it matches .gitignore (``Coder.allowed_to_edit``).
SKIPPING = "Skipping edits to "
_GITIGNORED = " that matches gitignore spec."
# Aider's lines for Ctrl-C (``Coder.keyboard_interrupt``): typed at a prompt before the reply was
# applied, it applied none of it.
INTERRUPT = "^C "
_INTERRUPTS = ("^C again to exit", "^C KeyboardInterrupt")
_SESSION = "# aider chat started at"
# The strings whose insertion after a block can make a report about it appear.
WATCH = ("failed to match", "SearchReplaceNoExactMatch", "^^^ ", SKIPPING, INTERRUPT)


def echo_heading(text: str, head: int) -> Span | None:
    """The ``## SearchReplaceNoExactMatch`` heading on the line before the SEARCH marker line at
    ``head`` (its whole line), or None: then the block is Aider's echo of a failed block."""
    if head == 0:
        return None
    brk = head - 2 if text.startswith("\r\n", head - 2) else head - 1
    prev = line_start(text, brk)
    if _ECHO.match(text, prev, brk) is None:
        return None
    return Span(prev, brk)


def _content_end(text: str, pos: int) -> int:
    return line_end(text, pos)


def tool_message(found: Reports, at: int) -> tuple[int, int]:
    """Where the multi-line tool message Aider wrote after the line at ``at`` (one of
    ``MARKERS``) ends, and how far that was read: ``(end, read)``; ``end`` is ``at``'s next
    line start when no such message follows (the next line is not a quote, or a one-line one).

    Aider quotes only the first line of a tool message (``> ``) and writes the others as they
    are (the output of ``/run git diff``, a reply it echoes); the message ends at the first line
    ending with Aider's two-space line break that a quote, a user message, a blank line or the
    end of the text follows, before the next user message."""
    text = found.text
    n = len(text)
    first = next_line_start(text, at)
    if not text.startswith("> ", first):
        return first, first
    stop = _content_end(text, first)
    if text.startswith("  ", stop - 2) and stop - 2 > first:
        return first, stop  # a one-line message: a quote
    bound = found.users.next(stop)
    last = found.message_ends.next(stop)
    if last >= bound:
        return first, line_end(text, bound) if bound < n else n
    end = next_line_start(text, last)
    return end, end


def lines_key(value: str) -> tuple[str, ...]:
    """A block's text as a report's echo is compared with it: its non-blank lines, stripped."""
    return tuple(s for s in (line.strip() for line in value.splitlines()) if s)


def same_file(a: str, b: str) -> bool:
    a, b = a.strip().replace("\\", "/"), b.strip().replace("\\", "/")
    return a == b or a.endswith("/" + b) or b.endswith("/" + a)


@dataclass(slots=True)
class Echo:
    path: str
    search: tuple[str, ...]
    heading: Span


@dataclass(slots=True)
class Report:
    """A "failed to match" report: the blocks it echoes, and where it ends (what was read)."""

    echoes: list[Echo] = field(default_factory=list)
    end: int = 0
    rejected: str = ""  # Aider rejected the whole reply (``^^^ Expected ...``): why
    at: Span | None = None  # the report's line


@dataclass(slots=True)
class Turn:
    """What follows a reply's blocks: the report about them (None when the turn ended without
    one), and how far that was read (-1: to the end of the text, nothing found)."""

    report: Report | None
    reach: int


class Reports:
    """The reports of one text, found from the blocks before them (memoized per scan: each
    search forward is answered for every position up to its answer)."""

    def __init__(self, text: str, users: UserLines | None = None, cr: bool = True) -> None:
        self.text = text
        self._turn_line = _CR_TURN_LINE if cr else _LF_TURN_LINE  # (cr: the text may hold a \r)
        n = len(text)
        # A user message's line: ``####`` and a blank at a line's start (the scan's search, shared).
        self._users = users or UserLines(text)
        self.turns = Forward(n, self._turn_end)
        self.bounds = Forward(n, self._turn_end)  # where a report's parse stops (its own queries)
        self.tools = Forward(n, self._tool_line)
        self.users = Forward(n, self._users.unindented)
        self.message_ends = Forward(n, self._message_end)
        self.skips = Forward(n, self._skip_line)
        self.interrupts = Forward(n, self._interrupt_line)
        self.sessions = Forward(n, lambda pos: _found(text.find(_SESSION, pos), n))
        self.parsed: dict[int, Report] = {}

    def _skip_line(self, pos: int) -> int:
        """Line start of the first ``Skipping edits to`` line (quoted or not) at or after ``pos``."""
        return self._aider_line(pos, SKIPPING, (SKIPPING,))

    def _interrupt_line(self, pos: int) -> int:
        """Line start of the first of Aider's Ctrl-C lines (quoted or not) at or after ``pos``."""
        return self._aider_line(pos, INTERRUPT, _INTERRUPTS)

    def _aider_line(self, pos: int, needle: str, opening: tuple[str, ...]) -> int:
        """Line start of the first line at or after ``pos`` that, past Aider's quote (``>`` or
        ``> `` or none), opens with one of ``opening`` (each starts with ``needle``); len(text):
        none."""
        text = self.text
        at = text.find(needle, pos)
        while at >= 0:
            start = line_start(text, at)
            if start >= pos and text[start:at] in ("", ">", "> ") and text.startswith(opening, at):
                return start
            at = text.find(needle, at + 1)
        return len(text)

    def skipped(self, end: int, path: str) -> tuple[Span | None, str, int]:
        """Why Aider applied nothing of the block of ``path`` that ends at ``end``: the line in its
        turn that says so (None: none) -- ``Skipping edits to PATH`` naming it, or a Ctrl-C before
        the turn ended -- the message for it, and how far that was read: the line that ends the
        turn (-1: none does, the text was read to its end)."""
        text = self.text
        stop = self.turns.next(end)
        read = line_end(text, stop) if stop < len(text) else -1
        at = self.skips.next(end)
        while at < stop:
            eol = line_end(text, at)
            named = text[text.index(SKIPPING, at) + len(SKIPPING) : eol].rstrip()
            if named.endswith(_GITIGNORED):
                named = named[: -len(_GITIGNORED)]
            if same_file(named, path):
                return Span(at, eol), skip_message(path), read
            at = self.skips.next(eol)
        at = self.interrupts.next(end)
        if at < stop and self.sessions.next(end) > at:
            eol = line_end(text, at)
            return Span(at, eol), interrupt_message(text[at:eol].lstrip("> ").rstrip()), read
        return None, "", read

    def next_tool_line(self, pos: int) -> int:
        """Line start of the first tool message after a blank line at or after ``pos`` (how
        Aider's output follows a reply: ``> Tokens: ...``), or len(text): a reply's fence
        whose blocks run on does not read past it."""
        return self.tools.next(pos)

    def _tool_line(self, pos: int) -> int:
        m = _TOOL_AFTER_BLANK.search(self.text, max(0, pos - 1))
        return m.end() if m is not None else len(self.text)

    def _message_end(self, pos: int) -> int:
        m = _MESSAGE_END.search(self.text, pos)
        return m.start() if m is not None else len(self.text)

    def _turn_end(self, pos: int) -> int:
        """Line start of the first line at or after ``pos`` that ends a turn (len(text): none)."""
        # A user message's line (``####``), the most frequent, is found first (remembered); a
        # line of the other words is looked for before it only, one line break at a time (four
        # ``str.find`` of the words through the turn cost three times more).
        text = self.text
        user = self.users.next(pos)
        if (pos == 0 or text[pos - 1] in "\r\n") and _TURN_LINE.match(text, pos, user) is not None:
            return pos
        m = self._turn_line.search(text, pos, user)
        return m.start() + 1 if m is not None else user

    def after(self, pos: int) -> Turn:
        """The report that ends the turn of a block ending at ``pos``, if one does."""
        at = self.turns.next(pos)
        if at >= len(self.text):
            return Turn(None, -1)
        stop = line_end(self.text, at)
        line = self.text[at:stop]
        q = _QUOTE.match(line)
        if line[q.end() if q else 0 :].startswith("^^^ "):
            said = line[(q.end() if q else 0) + 4 :].strip()
            return Turn(Report(end=stop, rejected=said, at=Span(at, stop)), stop)
        if "failed to match" not in line:
            return Turn(None, stop)
        report = self.parsed.get(at)
        if report is None:
            report = self.parsed[at] = self._parse(at)
        return Turn(report, report.end)

    def _parse(self, at: int) -> Report:
        text = self.text
        n = len(text)
        report = Report()
        pos = next_line_start(text, at)
        # A report ends by its closing sentence, at the latest where the next turn ends (another
        # report, a user message, ...): each stretch of text is parsed once.
        bound = self.bounds.next(pos)
        heading: Span | None = None  # an echo's heading whose block is still to come
        path = ""
        search: list[str] | None = None
        while pos < n:
            if pos >= bound:
                report.end = line_end(text, bound)  # (the line read to know it ends the report)
                return report
            stop = line_end(text, pos)
            raw = text[pos:stop]
            q = _QUOTE.match(raw)
            line = raw[q.end() :] if q else raw
            if raw.startswith("####"):
                report.end = stop  # (the line read to know it ends the report)
                return report
            if search is not None:
                if _DIVIDER.match(line.strip()):
                    assert heading is not None
                    report.echoes.append(Echo(path, lines_key("\n".join(search)), heading))
                    search, heading = None, None
                else:
                    search.append(line)
            elif line.startswith(ECHO):
                heading = Span(pos, stop)
                path = line[len(ECHO) :].strip()
            elif heading is not None and _HEAD.match(line.strip()):
                search = []
            elif line.startswith(_END):
                report.end = stop
                return report
            pos = next_line_start(text, stop)
        report.end = n
        return report


def reports(cache: dict[str, object], text: str, cr: bool = True) -> Reports:
    """The scan's :class:`Reports` (kept in its ``cache``; ``cr``: the text may hold a ``\r``)."""
    found = cache.get("aider-reports")
    if not isinstance(found, Reports):
        found = cache["aider-reports"] = Reports(text, user_lines(cache, text), cr)
    return found


def skip_message(path: str) -> str:
    """Why a block of a file Aider skipped is shown failed."""
    return f"Aider wrote `{SKIPPING}{path}` after the reply: it applied none of its edits to that file"


def _found(at: int, n: int) -> int:
    """``str.find``'s answer as :class:`Forward` wants it (``n``: none)."""
    return at if at >= 0 else n


def interrupt_message(line: str) -> str:
    """Why a block of a reply interrupted before Aider applied it is shown failed."""
    return f"Aider wrote `{line}` after the reply, before applying it: it applied none of its edits"


def failure(report: Report, path: str, search: str) -> Echo | None:
    """The echo of ``report`` naming the block of ``path`` with SEARCH text ``search``."""
    key = lines_key(search)
    if not key:
        return None  # a new file or an append: Aider never reports those as not matching
    for echo in report.echoes:
        if echo.search == key and same_file(echo.path, path):
            return echo
    return None
