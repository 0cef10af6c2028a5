"""Cursor's own "Export chat" markdown: ``edit_file`` calls rendered as plain code fences.

Read by the ``chat-answer`` dialect. Cursor's export (``_Exported on ... from Cursor
(1.7.38)_``, ``**User**`` / ``**Cursor**`` turns between ``---`` rules) writes each
``edit_file`` call of its agent as a fence of the code the call sent -- *without its file*, in a
fence that looks like any code block of an answer. Six shapes tell such a call from a block the
answer merely shows (an Ask-mode proposal, an example, the export's copy of the answer's
blocks after it):

- *the tool call's gap* (Cursor 1.7 and some 1.1/1.2 calls): the fence stands after two or more
  blank lines -- each tool call of the turn (a read, a lint, a run, the edit itself) leaves an
  empty line where it was, and a code block of the answer follows its prose after one::

      Now let me create the Task Manager App:


      ```python
      #!/usr/bin/env python3
      ...

- *the step's announcement* (Cursor 1.1/1.2, one blank line): the sentence right before the
  fence says, in the first person, that the agent is about to change something -- ``Let me fix
  this:``, ``Now I'll create a script to ...``, ``I need to update our ... script`` (``let me``,
  ``let's``, ``I'll``, ``I will``, ``I'm going to``, ``I need to`` followed by a verb of editing:
  update, fix, create, add, remove, ...). A question, a sentence that speaks to the user (``you
  can``, ``here's how``, ``for example``) or a verb that edits nothing (check, run, show) is no
  announcement. Such a fence of three lines or fewer with another fence right after it only
  quotes the line the step changes (a log line, an element): the next fence is the step.
- *the turn's last block* (Cursor 1.1, :func:`trailing`): the fence ends the turn (only a ``---``
  rule after it), right after prose, and the turn reports an edit made ("I've modified the
  `friendly_message` method to:").
- *the turn's opening* (Cursor 1.2, a turn that starts with its calls): the fence right after
  the ``**Cursor**`` line, one blank line between.
- *the next call* (Cursor 1.7.46/1.7.54, runs of calls in 1.1/1.2): one blank line after the
  closing line of a fence read as a call by a shape above (never after a ``search_replace``
  fence, :mod:`cursor_export`).
- *the report right after it* (Cursor 1.2, partial code only, :func:`report_after`): one blank
  line before the fence (after prose, or after a fence quoting the code to change) and the
  first sentence one blank line after it says the edit was made ("I've corrected the server
  routing.") or did not apply ("It seems the previous edit didn't apply correctly."). A whole
  file followed by such a sentence is not read: an Ask-mode proposal may end so.

In each case the fence must stand in a ``**Cursor**`` turn (the nearest of Cursor's role lines
before it, read back to the turn's start), carry a language and no path (```` ```ruby:path ````
is the chat-answer dialect's own reading), and not be a command or output block (``bash``,
``shellscript``, ``console``, ...), a diagram (``mermaid``) or Cursor 0.x's
``assistant_snippet_*`` text. A ``markdown`` file holding fences of its own runs to its real end
(:func:`nested_end`): the export does not lengthen its fence for them.

The edit is a ``write`` of the whole file (type ``cursor-edit-file``, kind ``write_file``)
unless its code is partial: a placeholder line (``// ... existing code ...``, the marker of
Cursor's edit_file), a fragment (its first line indented, or every line after the first
indented: a method cut out of its class) or ``-`` / ``+`` lines. Whatever its shape, an edit
whose next sentence says it did not apply is shown failed (``Action.failure``). A partial edit is a ``modify`` with no old text:
Cursor's apply model merged it into the file, which nothing here can check, so it is listed and
never applied. The file is inferred from the prose around the fence as for SpecStory's Cursor
diffs (:func:`specstory_diff.inferred_file`), with ``named_by`` and a ``shown-only`` note: a
whole file is applied only when the user confirms the file; no file named: listed (outline,
``parse``), never applied.
"""

from __future__ import annotations

import bisect
import re

from ..codes import SHOWN_ONLY
from ..model import Action, ActionKind, Diagnostic, EditRules, Field, FileView, SourceMap, Span
from ..placeholders import has_placeholder
from .base import Construct, ScanContext
from .specstory_diff import inferred_file, shown_only

TYPE = "cursor-edit-file"
RULES = EditRules("Cursor's edit_file (export)", on_missing="create")

GAP, ANNOUNCED, TRAILING, CHAINED = "gap", "announced", "trailing", "chained"
OPENER, REPORTED = "opener", "reported"
_CHAIN = 30  # consecutive calls read back at most to the first one's announcement

# Blocks that are no file's code: commands, their output, a diagram, a diff (read elsewhere).
_NOT_CODE = frozenset({
    "bash", "sh", "shell", "shellscript", "zsh", "fish", "console", "terminal", "powershell", "ps1",
    "pwsh", "cmd", "bat", "batch", "output", "log", "diff", "patch", "udiff", "mermaid",
})
# A role line is this at a line's start (see _roles): a pattern that begins with ``^`` has no
# literal prefix for ``re`` to skip to, and was tried at every character (20 ms through 4 MB).
_ROLE_LINE = re.compile(r"\*\*(?P<role>User|Cursor)\*\*[ \t]*\r?$", re.MULTILINE)
_SENTENCE_END = re.compile(r"[.!?:][ \t]+(?=\S)")
# `let me` / `I'll` ... then a verb that edits a file (after an adverb or two).
_INTENT = re.compile(
    r"(?:^|(?<=[\s,(]))(?:let[ \t]+me|let's|let[ \t]+us|i'll|i[ \t]+will|i'm[ \t]+going[ \t]+to|"
    r"i[ \t]+am[ \t]+going[ \t]+to|i[ \t]+need[ \t]+to|we[ \t]+need[ \t]+to)[ \t]+"
    r"(?:(?:now|first|also|then|just|quickly|next|finally|go[ \t]+ahead[ \t]+and|try[ \t]+to|simply|"
    r"carefully|properly|directly|manually|(?!apply\b)[a-z]{2,}ly)(?:[ \t]*,|[ \t]+and)?[ \t]+)*"
    r"(?P<verb>[a-z][a-z\-]*)",
    re.IGNORECASE,
)
_EDIT_VERBS = frozenset({
    "add", "adjust", "append", "apply", "bump", "change", "clean", "comment", "configure", "convert",
    "correct", "create", "define", "disable", "document", "edit", "enable", "enhance", "extend",
    "fix", "implement", "improve", "include", "insert", "integrate", "introduce", "make", "mark",
    "modify", "move", "patch", "pin", "prepend", "put", "re-enable", "refactor", "remove",
    "rename", "reorganize", "replace", "restore", "restructure", "revert", "rewrite", "rework",
    "set", "simplify", "switch", "tweak", "uncomment", "update", "wire", "wrap", "write",
})
# A sentence that speaks to the reader about code shown, not about a step the agent takes.
_TO_READER = re.compile(
    r"\b(?:you[ \t]+(?:can|could|should|might|may|would|need)|you'd|here's|here[ \t]+is|for[ \t]+example|"
    r"example|would[ \t]+you|do[ \t]+you|like[ \t]+this|as[ \t]+follows)\b",
    re.IGNORECASE,
)
_TREE = re.compile(r"[├└]──")
_LONGEST_PROSE = 2000  # characters of the line before a fence read for its announcement


def may_be(text: str, start: int, info: str, depth: int = 0) -> str | None:
    """Cheap test on a fence at ``start`` (its info string ``info``): :data:`GAP`,
    :data:`ANNOUNCED`, :data:`TRAILING` or :data:`CHAINED` when the lines before it have one of
    the module docstring's shapes, else None (the ``**Cursor**`` turn is checked by
    :func:`parse`)."""
    info = info.strip()
    if not info or ":" in info or "{" in info:
        return None
    word = info.split(None, 1)[0].lower()
    if word in _NOT_CODE or word.startswith("assistant_snippet"):
        return None
    if start < 2 or text[start - 1] != "\n":
        return None
    blanks, prev = _blanks_before(text, start)
    if prev is None:
        return None
    if blanks >= 2:
        return GAP
    if blanks == 1 and text[prev[0]:prev[1]].rstrip() == "**Cursor**":
        return OPENER
    if blanks == 1 and _announces(text, *prev):
        return ANNOUNCED
    if blanks == 1 and depth < _CHAIN and text.startswith("```", prev[0]) and not text[prev[0] + 3:prev[1]].strip():
        opener = _opener_before(text, prev[0])
        if opener is None:
            return None
        a, b = opener
        if _ARROW.search(text, b, prev[0]):
            return None
        if may_be(text, a, text[a + 3:b], depth + 1) in _CHAINS:
            return CHAINED
        # After a quote of the code to change, the step the agent then reports.
        return REPORTED if report_after(text, start) is not None else None
    if blanks == 1 and not text.startswith(("```", "~~~"), prev[0]) and trailing(text, start) >= 0:
        return TRAILING
    if blanks == 1 and not text.startswith(("```", "~~~"), prev[0]) and report_after(text, start) is not None:
        return REPORTED
    return None


_CHAINS = (GAP, ANNOUNCED, CHAINED, OPENER)  # the shapes a fence one blank line after continues


_ARROW = re.compile(r"^->[ \t]*\r?$", re.MULTILINE)  # a search_replace fence's separator (cursor_export)
_QUOTE_LINES = 3  # an announced fence this short, with a fence right after it, quotes what is changed


def next_fence(text: str, end: int) -> int:
    """Where the reading of a fence ending at ``end`` ends when another fence's opening line
    follows it after exactly one blank line (-1: none does)."""
    nl = text.find("\n", end)
    if nl < 0 or text[end:nl].strip() or not text.startswith("```", nl + 1):
        return -1
    eol = text.find("\n", nl + 1)
    return len(text) if eol < 0 else eol + 1


def quotes(text: str, code: str, end: int) -> int:
    """An announced fence whose step is the next fence: it only quotes the line to change (a log
    line, an element, a URL) -- at most :data:`_QUOTE_LINES` lines, no placeholder -- and another
    fence follows it after one blank line. Where the text was read to, -1: not a quote."""
    lines = [ln for ln in code.splitlines() if ln.strip()]
    if len(lines) > _QUOTE_LINES or has_placeholder(code):
        return -1
    return next_fence(text, end)


_CLOSE = re.compile(r"^```[ \t]*\r?$", re.MULTILINE)
_RULE_LINE = re.compile(r"-{3,}[ \t]*\r?$")
# The agent's report of an edit it made ("I've modified the `friendly_message` method to:").
_PAST = re.compile(
    r"\bI(?:'ve|\u2019ve|[ \t]+have)[ \t]+(?:(?:now|also|just|successfully)[ \t]+)?"
    r"(?:modified|added|updated|changed|created|fixed|edited|rewritten|implemented|removed|replaced|"
    r"corrected|adjusted|refactored|made|written)\b",
    re.IGNORECASE,
)
_TURN_LOOK_BACK = 20_000  # characters read back for the turn's report
# The agent's word, right after the call, that it did not take ("It seems the previous edit
# didn't apply correctly.", "The edits to `json_server.rb` are not being applied.").
_NOT_APPLIED = re.compile(
    r"\b(?:didn't|did[ \t]+not|wasn't|was[ \t]+not|weren't|were[ \t]+not|(?:is|are)(?:n't|[ \t]+not)[ \t]+being|"
    r"(?:has|have)(?:n't|[ \t]+not)[ \t]+been|failed[ \t]+to)[ \t]+(?:(?:correctly|properly|successfully)[ \t]+)?"
    r"appl(?:y|ied)\b",
    re.IGNORECASE,
)
MADE, NOT_APPLIED = "made", "not applied"


def report_after(text: str, start: int) -> tuple[str, str, int] | None:
    """What the sentence right after the fence at ``start`` (one blank line after its closing
    line) says of it: ``(MADE or NOT_APPLIED, the sentence, where the text was read to)``, or
    None when it reports nothing (Cursor 1.2 writes its report of a call right after it)."""
    nl = text.find("\n", start)
    close = _CLOSE.search(text, nl + 1) if nl >= 0 else None
    if close is None:
        return None
    blank = close.end() + 1
    a = text.find("\n", blank) + 1
    if a <= 0 or text[blank:a].strip() or not text[a:a + 1].strip():
        return None  # not exactly one blank line, then prose
    if text.startswith(("```", "~~~", "#", "|", ">", "**", "-"), a):
        return None
    eol = text.find("\n", a)
    b = len(text) if eol < 0 else eol
    if b - a > _LONGEST_PROSE:
        return None
    m = _SENTENCE_END.search(text, a, b)
    sentence = text[a:m.start() + 1 if m is not None else b].strip()
    reach = b + 1 if eol >= 0 else b
    if _NOT_APPLIED.search(sentence):
        return NOT_APPLIED, sentence, reach
    if _PAST.match(sentence) is not None:
        return MADE, sentence, reach
    return None


def read_ahead(text: str, start: int, how: str) -> int:
    """How far the reading of the fence at ``start`` (shape ``how``) read after it: the turn's
    end for :data:`TRAILING`, the report for :data:`REPORTED`; -1 for the other shapes."""
    if how == TRAILING:
        return trailing(text, start)
    if how == REPORTED and (after := report_after(text, start)) is not None:
        return after[2]
    return -1


def trailing(text: str, start: int) -> int:
    """Cursor 1.1's other place for an edit_file fence: the fence at ``start`` is the last thing
    of a ``**Cursor**`` turn (after it only blank lines, then a ``---`` rule or the end of the
    text), right after the turn's prose, and that prose reports an edit made ("I've modified the
    `friendly_message` method ..."). Where the text was read to (-1: not such a fence)."""
    nl = text.find("\n", start)
    if nl < 0:
        return -1
    close = _CLOSE.search(text, nl + 1)
    if close is None:
        return -1
    at = close.end() + 1
    n = len(text)
    while at < n:
        eol = text.find("\n", at)
        line_end = n if eol < 0 else eol
        if text[at:line_end].strip():
            if _RULE_LINE.match(text, at, line_end + 1 if eol >= 0 else n) is None:
                return -1
            break
        at = line_end + 1
    reach = min(n, text.find("\n", at) + 1 if text.find("\n", at) >= 0 else n)
    floor = max(0, start - _TURN_LOOK_BACK)
    role = text.rfind("**Cursor**", floor, start)
    if role < 0 or (role > 0 and text[role - 1] != "\n") or text.rfind("**User**", role, start) >= 0:
        return -1
    return reach if _PAST.search(text, role, start) is not None else -1


def _opener_before(text: str, close: int) -> tuple[int, int] | None:
    """The opening line (start, end without its break) of the fence whose closing line starts
    at ``close``: the nearest line before it that starts with ```` ``` ````, when that one has an
    info string (a bare one would be a block of the file's own)."""
    end = close - 1
    while end > 0:
        a = text.rfind("\n", 0, end) + 1
        if text.startswith("```", a):
            b = end - 1 if text[end - 1] == "\r" else end
            return (a, b) if text[a + 3:b].strip() else None
        end = a - 1
    return None


def _blanks_before(text: str, start: int) -> tuple[int, tuple[int, int] | None]:
    """How many blank lines stand right before the line at ``start``, and the span (without its
    line break) of the non-blank line before them (None: none, or more than three blanks)."""
    blanks = 0
    end = start - 1  # the line break ending the line before
    while blanks <= 3:
        if end <= 0:
            return blanks, None
        a = text.rfind("\n", 0, end) + 1
        b = end - 1 if end > 0 and text[end - 1] == "\r" else end
        if text[a:b].strip():
            return blanks, (a, b)
        blanks += 1
        end = a - 1
    return blanks, None


def _announces(text: str, a: int, b: int) -> bool:
    """Does the prose line ``[a, b)`` end with the agent's announcement of an edit?"""
    if b - a > _LONGEST_PROSE or text.startswith(("```", "~~~", "#", "|", ">", "**"), a):
        return False
    line = text[a:b].rstrip()
    if line.endswith("?"):
        return False
    # Its last sentence (a colon ends one only when more follows it).
    last = 0
    for m in _SENTENCE_END.finditer(line):
        last = m.end()
    sentence = line[last:]
    if _TO_READER.search(sentence):
        return False
    for m in _INTENT.finditer(sentence):
        verb = m.group("verb").lower()
        if verb in _EDIT_VERBS:
            return True
    return False


def _roles(ctx: ScanContext) -> tuple[list[int], list[bool]]:
    """The starts of Cursor's role lines of the text (found once per scan), and whether each is
    ``**Cursor**``."""
    key = "cursor-edit-roles"
    found = ctx.cache.get(key)
    if not isinstance(found, tuple):
        starts: list[int] = []
        cursor: list[bool] = []
        text = ctx.text
        for m in _ROLE_LINE.finditer(text):
            at = m.start()
            if at == 0 or text[at - 1] == "\n":  # (``^`` in multi-line mode)
                starts.append(at)
                cursor.append(m.group("role") == "Cursor")
        found = ctx.cache[key] = (starts, cursor)
    return found


def cursor_turn(ctx: ScanContext, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the ``**Cursor**`` line opening the turn the fence at ``start`` stands
    in (the nearest of Cursor's role lines before it), or None."""
    starts, cursor = _roles(ctx)
    k = bisect.bisect_left(starts, start) - 1
    if k < 0 or not cursor[k]:
        return None
    at = starts[k]
    nl = ctx.text.find("\n", at)
    return at, (nl + 1 if nl >= 0 else len(ctx.text))


def partial(code: str) -> bool:
    """Is ``code`` part of a file (a placeholder line, or a fragment cut out of a larger
    block) rather than a whole one?"""
    if has_placeholder(code):
        return True
    lines = [ln for ln in code.splitlines() if ln.strip()]
    if not lines:
        return False
    if lines[0][:1] in (" ", "\t") or _diff_lines(lines):
        return True
    rest = lines[1:]
    return len(rest) >= 2 and all(ln[:1] in (" ", "\t") for ln in rest)


def _diff_lines(lines: list[str]) -> bool:
    """Lines of a change shown as ``-`` / ``+`` lines (a hunk without its header): both kinds,
    nothing else but context lines."""
    marks = {ln[:1] for ln in lines}
    return {"-", "+"} <= marks and marks <= {"-", "+", " ", "\t"}


_MARKDOWN = frozenset({"markdown", "md", "mdx"})
_FENCE = re.compile(r"```(?P<info>[^\r\n`]*?)[ \t]*\r?$")


def nested_end(text: str, body_start: int) -> tuple[int, int] | None:
    """Where a Markdown file's fence that starts its body at ``body_start`` really ends, when
    the file holds fences of its own: Cursor's export does not lengthen its fence for them, so
    the first ```` ``` ```` line of the file would close it. Read as a person reads it: a
    ```` ```lang ```` line opens a block of the file, and so does a bare ```` ``` ```` line
    followed at once by a non-blank line; a bare line closes the file's open block, else the
    fence itself. ``(body_end, end)``, or None when the turn ends first."""
    inner = False
    at = body_start
    n = len(text)
    while at < n:
        nl = text.find("\n", at)
        line_end = n if nl < 0 else nl
        nxt = n if nl < 0 else nl + 1
        if text.startswith("```", at):
            m = _FENCE.match(text, at, line_end)
            if m is not None:
                if m.group("info").strip():
                    inner = True
                elif inner:
                    inner = False
                else:
                    following = text.find("\n", nxt)
                    next_line = text[nxt:n if following < 0 else following]
                    if nxt >= n or not next_line.strip():
                        return at, nxt
                    inner = True
        elif text.startswith("**User**", at) and not text[at + 8:line_end].strip():
            return None
        at = nxt
    return None


def parse(
    dialect: str, ctx: ScanContext, start: int, body_start: int, body_end: int, end: int, word: str, opener: Span,
    other_role: int = -1, how: str = GAP,
) -> Construct | None:
    """The ``edit_file`` call of the fence at ``start`` (body ``[body_start, body_end)``, ending
    at ``end``; ``opener`` its opening line's span) when it stands in a ``**Cursor**`` turn
    (``other_role``: the nearest other chat's role line before it, -1: none); else None. Call
    only when :func:`may_be` said yes (``how``)."""
    t = ctx.text
    role = cursor_turn(ctx, start)
    if role is None or other_role > role[0] or body_end <= body_start:
        return None
    if word in _MARKDOWN and (nested := nested_end(t, body_start)) is not None and nested[0] > body_end:
        body_end, end = nested
    code = t[body_start:body_end]
    if not code.strip():
        return None
    if word in ("plaintext", "text", "txt") and len(_TREE.findall(code)) >= 2:
        return None  # a directory tree shown, not a file's text
    if how == ANNOUNCED and (quoted := quotes(t, code, end)) >= 0:
        return Construct(Span(start, end), lookahead=quoted, behind=role[0])
    is_partial = partial(code)
    after = report_after(t, start)
    if how == REPORTED and not is_partial:
        return None  # a whole file followed by a report may be a proposal's text: not read as a call
    content = Field("content", code, Span(body_start, body_end), None, SourceMap.verbatim(body_start, body_end))
    span = Span(start, end)
    fields, named, reach = inferred_file(t, start, role[1], role[1], end if end < len(t) else None, end,
                                         new_file=not is_partial)
    fields["content"] = content
    kind = ActionKind.MODIFY_FILE if is_partial else ActionKind.WRITE_FILE
    label = "Cursor export (edit_file, partial)" if is_partial else "Cursor export (edit_file)"
    action = Action(dialect, TYPE, kind, span, opener, fields, group=span, group_label=label)
    if is_partial:
        note = _partial_note(fields, named, opener)
    else:
        note = shown_only(fields, named, "Cursor's export names no file for this edit_file call", opener)
    if after is not None and after[0] == NOT_APPLIED:
        action.failure = after[1]
    ahead = max(trailing(t, start) if how == TRAILING else -1, after[2] if after is not None else -1)
    return Construct(span, [action], [note], lookahead=max(reach, end, ahead), behind=role[0])


def _partial_note(fields: dict[str, Field], named: tuple[str, Span, str] | None, at: Span) -> Diagnostic:
    what = ("a partial edit (Cursor's `... existing code ...` markers, or a fragment of the file) that "
            "Cursor's apply model merged into its file")
    if named is None:
        where = "the export names no file for it, and no file is named around it"
    else:
        where = f"its file is not named in the export (`{fields['path'].value}` is inferred from {named[2]})"
    return Diagnostic(SHOWN_ONLY, f"{what}; {where}: shown, never applied", at)


def file_view(action: Action) -> FileView | None:
    """A whole file's write, once a file is named; None for a partial edit (never applied) or
    an edit no file is named for."""
    path, content = action.fields.get("path"), action.fields.get("content")
    if action.kind is not ActionKind.WRITE_FILE or path is None or content is None:
        return None
    if not isinstance(path.value, str) or not isinstance(content.value, str):
        return None
    return FileView("write", path, content=content, rules=RULES)


def hover_note(action: Action) -> str:
    """What hover says of such an edit: where its file's name comes from, if anywhere."""
    head = "Cursor's export of an edit_file call (a code fence with no file name)"
    if action.kind is ActionKind.MODIFY_FILE:
        head += (": a partial edit (`... existing code ...` markers, or a fragment) that Cursor's apply "
                 "model merged into its file; shown, never applied.")
        named_by = action.fields.get("named_by")
        return head + (f" Its file is inferred from {named_by.value}: `{action.path}`." if named_by else "")
    named_by = action.fields.get("named_by")
    if named_by is None:
        return head + ": the file is not named in the export, nor around it: shown, never applied."
    return (head + f": `{action.path}` is inferred from {named_by.value}. Applied only when you confirm that "
            "file (\"Apply anyway\" after its diff, or apply --force).")
