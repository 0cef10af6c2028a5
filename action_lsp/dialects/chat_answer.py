"""``chat-answer``: a code block of a chat assistant's answer that names its file.

Most edits people copy from a chat are neither tool calls nor SEARCH/REPLACE blocks: a fence
holding the file (or, most often, a *lazy snippet* of it), with the file named in one of three
ways. Each way is an action *type*, shown by ``parse`` and hover:

``fence-info``
    the fence's info string is ``lang:path`` (Cursor's chat answers:
    ```` ```tsx:src/components/Menu.tsx ````). ```` ```12:40:src/app.ts ```` -- Cursor's
    *citation* of lines of an existing file -- is no action.
``path-comment``
    the block's first line is a comment naming the file: ``// filepath: src/app.ts``,
    ``# filepath: app.py`` (Copilot Chat), ``file:`` / ``path:`` / ``filename:`` forms, in any
    comment syntax (``//``, ``#``, ``--``, ``;``, ``%``, ``/* ... */``, ``<!-- ... -->``,
    ``{/* ... */}``). Inside a chat (see below), a comment that is only a path with a directory or
    an extension (``// src/app.ts``, ``# app.py``) names it too. The comment line is not content.
``path-line``
    inside a chat, the path alone on the line right before the fence: plain, ``**bold**``, in
    backticks, as a short heading (``### `src/app.py` ``), after a list marker, with or without
    a ``File:`` label or a trailing colon.

These two weaker forms are everyday documentation too ("**config.yaml**" above an example;
``// vite.config.js`` as an example's first line), so they are read only *inside an assistant
turn of a recognisable chat*: the nearest chat-role line in the ``CONTEXT_LINES`` lines before
the fence opens an assistant turn -- SpecStory's ``_**Assistant**_`` / ``_**Agent (model)**_``,
a heading ``### Assistant`` (``## 🤖 Claude``, ``## ChatGPT``, ...), ``**Assistant:**``,
``Assistant:`` -- or the document is an Aider history (``####`` user lines, with Aider's own
``# aider chat started at`` or ``> Applied edit to`` / ``> Tokens:`` lines nearby), where the
block is Aider's ``whole`` / ``editor-whole`` edit format: the type ``aider-whole``. A user turn
(``_**User**_``, ``### User``, ...), or no role line at all, reads none; and a block that names no
file is an example, never an action.

What a block means. An ``aider-whole`` block is the whole new file (a ``write``, guarded by
``truncated-content`` as every whole-file write is). Any other block is a ``write`` whose
:class:`~action_lsp.model.EditRules` say ``snippet``: for a file that does not exist it creates
it; for an existing file the content may be the whole file, a lazy snippet (unchanged code
elided by placeholder comments, :mod:`action_lsp.placeholders`) or a fragment, which the edit
engine must merge, never write as the whole file (it refuses a lazy snippet of an existing file
outright).

A fence still open at the end of the text (an answer streaming in) is the action with an
``unclosed-block`` error (in progress while the text grows), so it is never applied half-written.
Diffs (```` ```diff ````), SEARCH/REPLACE blocks, patches and JSON tool calls stay with their own
dialects, which are offered a fence first.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable

from ..markdown import EOL, FenceOpen, line_start, next_line_start
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    EditRules,
    Field,
    FileView,
    Fix,
    SourceMap,
    Span,
    TextEdit,
)
from ..schema import ActionSpec, req, specs, text
from . import cursor_edit, cursor_export, session_export, specstory, specstory_diff
from .aider_architect import settle
from .aider_reports import INTERRUPT, SKIPPING, reports
from .base import Construct, Dialect, ScanContext, TagOpen
from .tool_use import failed, tool_rules

#: How many lines before a fence the chat-role line opening its turn is looked for.
CONTEXT_LINES = 250
BREAKS_WINDOW = 64  # characters a line at most, for the first count of a stretch's breaks (_breaks_over)

FENCE_INFO, PATH_COMMENT, PATH_LINE, AIDER_WHOLE = "fence-info", "path-comment", "path-line", "aider-whole"

_FIELDS = (
    req("path", text(), "the file the block names"),
    req("content", text(), "the block's code (without a path comment)", empty_ok=True),
)
#: CopilotChat.nvim's ```lang path=... start_line=N end_line=M: lines named by number only.
REPLACE_LINES = "replace-lines"
SPECS = specs(
    ActionSpec(REPLACE_LINES, ActionKind.OTHER, (*_FIELDS, req("lines", text(), "the lines it replaces (`first-last`)")),
               "CopilotChat.nvim's code block for lines of a file by number (path=... start_line=N end_line=M): shown, never applied."),
    ActionSpec(FENCE_INFO, ActionKind.WRITE_FILE, _FIELDS,
               "A code block whose info string names its file (```lang:path, Cursor): the whole file or a snippet of it."),
    ActionSpec(PATH_COMMENT, ActionKind.WRITE_FILE, _FIELDS,
               "A code block whose first line is a comment naming its file (// filepath: path, Copilot Chat): the whole file or a snippet of it."),
    ActionSpec(PATH_LINE, ActionKind.WRITE_FILE, _FIELDS,
               "A code block of an assistant's answer with its file's path on the line before: the whole file or a snippet of it."),
    ActionSpec(AIDER_WHOLE, ActionKind.WRITE_FILE, _FIELDS,
               "Aider's whole-file edit format: the file's path on the line before the fence, then the whole new file."),
)

_SNIPPET_NOTE = (" For an existing file it may be the whole file or a snippet: a lazy snippet (a placeholder"
                 " comment for unchanged code) or a fragment is merged into the file by syntax, written only"
                 " when the merge is certain, never as the whole file.")
_NOTES = {
    REPLACE_LINES: ("CopilotChat.nvim's block for lines of a file by number (path=, start_line=, end_line=): "
                    "it does not say what the lines held, so it is shown, never applied; apply it in CopilotChat."),
    FENCE_INFO: "Chat answer: the fence's info string names the file (```lang:path, as Cursor writes it)." + _SNIPPET_NOTE,
    PATH_COMMENT: "Chat answer: the block's first line is a comment naming the file (not part of the content)." + _SNIPPET_NOTE,
    PATH_LINE: "Chat answer: the path stands on the line before the block, in an assistant turn." + _SNIPPET_NOTE,
    AIDER_WHOLE: "Aider's whole-file format: the path on the line before, then the whole new file.",
}

#: A chat answer's block: the whole file or a snippet, merged by the edit engine (never written
#: over an existing file as is when it is a snippet).
SNIPPET = EditRules("a chat answer", on_missing="create", snippet=True)
CURSOR = EditRules("Cursor's chat answer", on_missing="create", snippet=True)
COPILOT = EditRules("a chat answer (path comment)", on_missing="create", snippet=True)
AIDER = EditRules("Aider's whole format", on_missing="create")

# A path: segments of word characters and the few others file names use, `/`-separated.
_SEG = r"[\w.@~+\-\[\]()]+"
_PATH = rf"(?:\.{{1,2}}/|/)?{_SEG}(?:/{_SEG})*"
_PATH_RX = re.compile(_PATH)
_EXT = re.compile(r"(?:^|/)[^/]*[^/.]\.[A-Za-z][A-Za-z0-9_]{0,11}$|(?:^|/)\.[A-Za-z][\w.\-]*$")
_NAMES = frozenset({
    "Dockerfile", "Makefile", "GNUmakefile", "Gemfile", "Rakefile", "Procfile", "Jenkinsfile",
    "Vagrantfile", "Brewfile", "Podfile", "Justfile", "justfile", "Caddyfile", "Containerfile",
    "Pipfile", "CODEOWNERS", "LICENSE", "BUILD", "WORKSPACE",
})

# ```lang:path -- the language word, a colon, the path (nothing after it but blanks).
_INFO = re.compile(rf"(?P<lang>[A-Za-z][\w+#.\-]*):(?P<path>{_PATH})[ \t]*$")
# ````python {src/app.py} -- CodeCompanion's answers since December 2025: the path in braces.
_INFO_BRACED = re.compile(rf"(?P<lang>[A-Za-z][\w+#.\-]*)[ \t]+\{{(?P<path>{_PATH})\}}[ \t]*$")
# ```lua path=src/x.lua start_line=3 end_line=9 -- CopilotChat.nvim's edit blocks.
_INFO_LINES = re.compile(
    rf"(?P<lang>[A-Za-z][\w+#.\-]*)[ \t]+path=(?P<path>{_PATH})[ \t]+start_line=(?P<a>\d+)[ \t]+end_line=(?P<b>\d+)[ \t]*$")
# A first-line comment: its opener, its text, its closer.
_OPEN = r"(?://+|#+|--|;+|%+|/\*+|\{/\*+|<!--)"
_KEYED = re.compile(
    rf"[ \t]*{_OPEN}[ \t]*(?:file[ \t_-]?path|file[ \t_-]?name|file|path)[ \t]*:[ \t]*`?(?P<path>{_PATH})`?"
    r"[ \t]*(?:\*+/\}?|-->)?[ \t]*(?=\r|\n|\Z)",
    re.IGNORECASE,
)
_CLOSE = r"(?:\*+/\}?|-->)?"
_BARE = re.compile(rf"[ \t]*{_OPEN}[ \t]*`?(?P<path>{_PATH})`?[ \t]*{_CLOSE}[ \t]*(?=\r|\n|\Z)")
# The line before a fence naming its file: a heading or list marker, emphasis, backticks, a
# `File:` label, a trailing colon -- around the path alone.
_LINE = re.compile(
    r"[ \t]{0,3}(?:#{1,6}[ \t]+|(?:[-*+]|\d{1,3}[.)])[ \t]+)?(?:[*_]{1,2})?`?(?:(?:file(?:[ \t]?name)?|path)[ \t]*:[ \t]*)?"
    r"(?:[*_]{1,2}[ \t]*)?`?"
    rf"(?P<path>{_PATH})"
    r"`?(?:[*_]{1,2})?`?[ \t]*:?[ \t]*(?:[*_]{1,2})?[ \t]*:?[ \t]*(?=\r|\n|\Z)",
    re.IGNORECASE,
)

# Chat-role lines (at a line start). The role word is checked against the lists below.
_ROLE_LINE = (
    r"(?:"
    r"_\*\*(?P<spec>[A-Za-z][A-Za-z ]{0,20}?)(?:[ \t]*\([^\r\n]{0,80}\))?\*\*_[ \t]*(?=\r|\n|\Z)"
    r"|#{1,3}[ \t]+(?:[^\w\s`*]{1,4}[ \t]*)?\**(?P<head>[A-Za-z][A-Za-z ]{0,20}?)\**[ \t]*(?:\([^\r\n]{0,80}\))?:?[ \t]*(?=\r|\n|\Z)"
    r"|\*\*(?P<bold>[A-Za-z][A-Za-z ]{0,20}?)(?::\*\*|\*\*[ \t]*:)"
    r"|(?P<plain>User|Human|Assistant|AI|ChatGPT|Claude|Copilot|Gemini|Model)[ \t]*:"
    r"|(?P<emoji>\U0001F916|\U0001F99C|\U0001F4AC|\U0001F5E8)\ufe0f?:"  # gp.nvim / parrot.nvim turns
    r")"
)
# Searched from the line break before (a pattern that starts with a character class lets `re`
# skip ahead; a look-behind for the line start made it try every position: 2.5x slower on a
# 4 MB Aider history); the text's first line is matched on its own.
_ROLE = re.compile(r"[\r\n](?=[_#*UHACGM\U0001F916\U0001F99C\U0001F4AC\U0001F5E8])" + _ROLE_LINE)
_ROLE_AT_START = re.compile(_ROLE_LINE)
# The role words of each form: a heading or a bare word is everyday documentation too
# (``## Claude Desktop``, ``## Model``), so only the unmistakable ones count there.
_ASSISTANT = {
    "spec": frozenset({"assistant", "agent", "cursor", "copilot", "claude", "ai"}),
    "head": frozenset({"assistant", "chatgpt", "ai assistant", "codecompanion"}),
    # gp.nvim's `🤖:[agent]` and parrot.nvim's `🦜:[agent]` answers (`💬:` / `🗨:` are the user's)
    "emoji": frozenset({"\U0001F916", "\U0001F99C"}),
    "bold": frozenset({"assistant", "chatgpt", "claude", "copilot", "gemini", "ai"}),
    "plain": frozenset({"assistant", "chatgpt", "claude", "copilot", "gemini", "ai"}),
}
_USER = frozenset({"user", "human", "you", "me", "\U0001F4AC", "\U0001F5E8"})
# What only an Aider history holds: its header, its own output lines, and its user lines, which
# it ends with two spaces (a Markdown line break).
_AIDER_LINE = (
    r"(?:# aider chat started at "
    r"|> (?:Aider v\d|Applied edit to |Tokens: |Commit [0-9a-f]{7,} |Attempt to fix |Create new file\?"
    r"|Add .{1,300} to the chat\?|Added .{1,300} to the chat|Model: |Git repo: |Repo-map: )"
    r"|#### [^\r\n]*  (?=\r|\n|\Z))"
)
_AIDER = re.compile(r"[\r\n]" + _AIDER_LINE)
_AIDER_AT_START = re.compile(_AIDER_LINE)

# A fence language and the extensions its files have: a path-line or bare path comment whose
# extension another language owns (``### Next.js`` above a ```` ```bash ```` block) names no file.
_LANG_EXTS: dict[str, frozenset[str]] = {}
for _words, _exts in (
    ("python py python3", "py pyi pyw"),
    ("javascript js node jsx mjs cjs", "js jsx mjs cjs"),
    ("typescript ts tsx", "ts tsx mts cts"),
    ("bash sh shell zsh console", "sh bash zsh"),
    ("json jsonc json5", "json jsonc json5"),
    ("yaml yml", "yaml yml"),
    ("toml", "toml"),
    ("html htm", "html htm vue svelte"),
    ("css", "css"),
    ("scss sass", "scss sass"),
    ("go golang", "go mod"),
    ("rust rs", "rs"),
    ("java", "java"),
    ("kotlin kt", "kt kts"),
    ("ruby rb", "rb rake gemspec"),
    ("php", "php"),
    ("swift", "swift"),
    ("c", "c h"),
    ("cpp c++ cc cxx", "cpp cc cxx hpp hh hxx h"),
    ("csharp cs c#", "cs"),
    ("sql", "sql"),
    ("markdown md", "md mdx markdown"),
    ("xml", "xml svg xaml csproj"),
):
    for _w in _words.split():
        _LANG_EXTS[_w] = frozenset(_exts.split())
_NOT_FILES = frozenset({"diff", "patch", "udiff", "console", "terminal", "output", "log"})


_LONGEST_LINE = 400  # a path line, a tool-use line or a `File:` line is never longer


def _skipped(ctx: ScanContext, construct: Construct, end: int) -> None:
    """The Aider-whole block of ``construct`` (ending at ``end``) failed when Aider skipped its
    file after the reply (``aider_reports.Reports.skipped``), having read to the turn's end."""
    action = construct.actions[0]
    path = action.text("path")
    if path is None:
        return
    skip, why, read = reports(ctx.cache, ctx.text, ctx.cr).skipped(end, path)
    if skip is not None:
        construct.actions[0], hint = failed(action, why, skip)
        construct.diagnostics.append(hint)
        construct.lookahead = max(construct.lookahead, skip.end)
    if read >= 0:
        construct.lookahead = max(construct.lookahead, read)
    else:  # no line ends the turn: a refusal typed in later is watched for
        construct.watch = tuple(sorted({*construct.watch, SKIPPING, INTERRUPT}))


def _names_file(path: str) -> bool:
    """Is ``path`` a file's path: with an extension, or a known extensionless file name?"""
    if "://" in path or path.endswith("/") or ".." in path.replace("../", ""):
        return False
    return _EXT.search(path) is not None or path.rsplit("/", 1)[-1] in _NAMES


def _fits(path: str, lang: str) -> bool:
    """Can a fence of language ``lang`` hold the file ``path`` (by its extension)?"""
    exts = _LANG_EXTS.get(lang.lower())
    name = path.rsplit("/", 1)[-1]
    if exts is None or name in _NAMES or name.startswith("."):
        return True
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return ext in exts


def _names(path: str, lang: str) -> bool:
    """Does a path written alone (a bare comment, the line before) name a file a ``lang``
    fence holds?"""
    return _names_file(path) and _fits(path, lang)


_SOURCE_OPEN = re.compile(r"[ \t]{0,3}(?P<tag><source>)[ \t]*(?:\r\n|\r|\n|\Z)")


def _closing_line(ctx: ScanContext, closer: str, start: int) -> re.Match[str] | None:
    """The first line at or after ``start`` that ends with ``closer`` after nothing but up to 3
    blanks and other closing tags (``</details></tool-use>``).
    Searched with the scan's remembering ``find``: blocks that are never closed cost one
    search per scan, not one each."""
    t = ctx.text
    at = ctx.find(closer, start)
    while at >= 0:
        line = line_start(t, at)
        if line >= start and _CLOSERS_BEFORE.fullmatch(t, line, at):
            m = _CLOSER_LINE.match(t, at)
            if m is not None:
                return m
        at = ctx.find(closer, at + 1)
    return None


# A body line that makes a <source> block another format's: a SEARCH/REPLACE marker (or a typo
# of one), a diff or a Codex patch.
_OTHER_FORMAT = re.compile(r"(?:(?<=\n)|(?<=\r)|\A)[ \t]*(?:<<<<|>>>>>|=======|diff --git |--- |\+\+\+ |@@ |\*\*\* Begin Patch)")
_CLOSER_LINE = re.compile(r"</[\w-]+>[ \t]*(?=\r|\n|\Z)")
_CLOSERS_BEFORE = re.compile(r"[ \t]{0,3}(?:</[\w-]+>[ \t]*){0,3}")  # `</details></tool-use>`


def _aider_name(text: str, a: int, b: int) -> Span | None:
    """Where the file name on the line ``text[a:b]`` stands, cleaned as Aider's whole-file
    coder cleans it (blanks, ``*``, a trailing ``:``, backticks, leading ``#``), when what is
    left is one word (Aider would take a sentence for a file name; we take none)."""
    def strip(chars: str, left: bool = True, right: bool = True) -> None:
        nonlocal a, b
        while left and a < b and text[a] in chars:
            a += 1
        while right and b > a and text[b - 1] in chars:
            b -= 1

    strip(" \t")
    strip("*")
    strip(":", left=False)
    strip("`")
    strip("#", right=False)
    strip(" \t")
    if a == b or any(c.isspace() for c in text[a:b]) or _PATH_RX.fullmatch(text[a:b].replace("\\", "/")) is None:
        return None  # (Aider on Windows writes `backend\db.py`: a path too)
    return Span(a, b)


def _path_text(text: str, span: Span) -> str:
    """The path written at ``span``, with Windows separators as ``/`` (Aider's on Windows)."""
    return text[span.start:span.end].replace("\\", "/")


def _prev_line(text: str, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the line before the line starting at ``start``, if any."""
    if start == 0:
        return None
    end = start - (2 if text.startswith("\r\n", start - 2) else 1)
    nl = text.rfind("\n", 0, end)
    line = max(nl, text.rfind("\r", nl + 1, end)) + 1
    return line, end


class _Turns:
    """The chat-role lines and Aider lines of a text, found forward once per scan (the scanner
    asks in document order), so that each fence's look-back costs a few bisections.

    Only the line starts a query can need are listed: those of the ``CONTEXT_LINES`` lines
    before the last query on. A query far past the last one (more lines away than that) starts
    the list again at its own floor, found by walking back from it; a 4 MB history with a few
    such fences no longer lists its 100,000 line starts (40 ms of its scan)."""

    def __init__(self, text: str, cr: bool | None = None) -> None:
        self.text = text
        self.cr = "\r" in text if cr is None else cr  # (the scan's answer: a pass through the text)
        self.lines = [0]  # line starts from ``lines[0]`` (a line start) to ``to``
        self.roles: list[int] = []  # assistant and user role lines from ``lines[0]`` on, by position
        self.assistant: list[bool] = []  # for each of ``roles``: an assistant turn?
        # The first of Aider's own lines (its header, `> Applied edit to`) found at or after a
        # position: (position, found or len(text)).
        self.evidence_memo = (-1, -1)
        self.to = 0  # everything before this line start is read

    def _breaks(self, a: int, b: int) -> int:
        """Line breaks in ``text[a:b]`` (a ``\r\n`` counted at most twice: an upper bound)."""
        t = self.text
        return t.count("\n", a, b) + (t.count("\r", a, b) if self.cr else 0)

    def _breaks_over(self, a: int, b: int, k: int) -> bool:
        """``_breaks(a, b) > k``, the end of the stretch counted first: a long stretch has that
        many in its last ``BREAKS_WINDOW * k`` characters (the whole of it was counted for a
        fence far from the one before: most of a long history, once per such fence)."""
        tail = max(a, b - BREAKS_WINDOW * k)
        return self._breaks(tail, b) > k or (tail > a and self._breaks(a, b) > k)

    def _back(self, start: int) -> int:
        """The start of the line ``CONTEXT_LINES`` lines before the one holding ``start`` (0
        when there are fewer), walking back a line at a time."""
        t = self.text
        if not self.cr:
            line = t.rfind("\n", 0, start) + 1
            for _ in range(CONTEXT_LINES):
                if line == 0:
                    break
                line = t.rfind("\n", 0, line - 1) + 1
            return line
        if t.startswith("\r\n", start - 1):  # (inside a line break: its line is the one before)
            start -= 1
        line = max(t.rfind("\n", 0, start), t.rfind("\r", 0, start)) + 1
        for _ in range(CONTEXT_LINES):
            prev = _prev_line(t, line)
            if prev is None:
                break
            line = prev[0]
        return line

    def _read(self, start: int) -> None:
        t = self.text
        if self._breaks_over(self.to, start, CONTEXT_LINES + 2):
            # Nothing before the new floor is asked again: start the lists there.
            floor = self._back(start)
            if floor > self.to:
                self.lines, self.roles, self.assistant, self.to = [floor], [], [], floor
        chunk = t[self.to:start]
        if self.cr:
            self.lines.extend(m.end() for m in EOL.finditer(t, self.to, start))
        else:  # line starts summed in C: a Python step per line cost a third of a 4 MB scan
            pieces = chunk.split("\n")
            self.lines.extend(itertools.islice(
                itertools.accumulate(map((1).__add__, map(len, pieces[:-1])), initial=self.to), 1, None))
        # Matches start at the line break before a line (the text's first line: on its own).
        first = self.to == 0
        since = max(0, self.to - 1)
        roles = _ROLE.finditer(t, since, start)
        for m in ([m0] if first and (m0 := _ROLE_AT_START.match(t, 0, start)) else []) + list(roles):
            form = m.lastgroup or ""
            word = (m.group(form) or "").strip().lower()
            if word in _ASSISTANT.get(form, ()) or word in _USER:
                self.roles.append(m.start() + 1 if m.re is _ROLE else m.start())
                self.assistant.append(word not in _USER)
        self.to = start

    def _aider_line(self, floor: int, start: int) -> bool:
        """Is there one of Aider's own lines in ``[floor, start)``? The first at or after a
        query's floor is remembered: queries come in document order, so the searches add up to
        about one pass over the text."""
        q, found = self.evidence_memo
        if not q <= floor <= found:
            if floor == 0 and _AIDER_AT_START.match(self.text, 0):
                found = 0
            else:
                m = _AIDER.search(self.text, max(0, floor - 1))
                found = m.start() + 1 if m is not None else len(self.text)
            self.evidence_memo = (floor, found)
        return found < start

    def role_line(self, start: int) -> tuple[int, int]:
        """The start of the nearest chat-role line before ``start`` within the look-back (-1:
        none), and the look-back's first offset."""
        if start > self.to:
            self._read(start)
        k = bisect.bisect_right(self.lines, start) - 1
        floor = self.lines[max(0, k - CONTEXT_LINES)]
        last = bisect.bisect_left(self.roles, start) - 1
        return (self.roles[last] if last >= 0 and self.roles[last] >= floor else -1), floor

    def turn(self, start: int) -> tuple[str | None, int]:
        if start > self.to:
            self._read(start)
        k = bisect.bisect_right(self.lines, start) - 1
        if k < CONTEXT_LINES and self.lines[0] > 0:
            # Before the lines listed (a query out of document order): read from scratch.
            return _Turns(self.text, self.cr).turn(start)
        floor = self.lines[max(0, k - CONTEXT_LINES)]
        last = bisect.bisect_left(self.roles, start) - 1
        if last >= 0 and self.roles[last] >= floor:
            return ("assistant" if self.assistant[last] else "user"), floor
        if self._aider_line(floor, start):
            return "aider", floor  # an answer after `####` user lines or Aider's own prompts
        return None, floor


def _turns(ctx: ScanContext) -> _Turns:
    turns = ctx.cache.get("chat-answer")
    if not isinstance(turns, _Turns):
        turns = ctx.cache["chat-answer"] = _Turns(ctx.text, ctx.cr)
    return turns


def turn(ctx: ScanContext, start: int) -> tuple[str | None, int]:
    """The turn the line at ``start`` stands in, read from the ``CONTEXT_LINES`` lines before
    it: ``"assistant"``, ``"user"``, ``"aider"`` (an Aider history's answer), or None (no chat
    seen); and the start of the first line read."""
    turns = ctx.cache.get("chat-answer")
    if not isinstance(turns, _Turns):
        turns = ctx.cache["chat-answer"] = _Turns(ctx.text, ctx.cr)
    return turns.turn(start)


def _locator(ctx: ScanContext) -> Callable[[int], tuple[int, int]]:
    """:meth:`_Turns.role_line` for the earlier fences a SpecStory diff reads
    (:mod:`specstory_infer`): its own turn list, asked in document order from the text's start
    (the scan's list has dropped the lines behind it)."""
    def locate(start: int) -> tuple[int, int]:
        turns = ctx.cache.get("chat-answer-earlier")
        if not isinstance(turns, _Turns) or start < turns.to:
            turns = ctx.cache["chat-answer-earlier"] = _Turns(ctx.text, ctx.cr)
        return turns.role_line(start)
    return locate


class ChatAnswer(Dialect):
    name = "chat-answer"
    description = "code blocks of chat answers that name their file (```lang:path, a // filepath: comment, or the path on the line before, in a chat)"
    order = 90
    specs = SPECS
    any_type = True  # a session export's tool calls are named after their tools
    # Aider's </source> ends blocks the aider dialect reads; SpecStory leaves stray </tool-use>.
    quiet_closers = frozenset({"source", "tool-use"})
    fence_heads = True
    # A session export's tool calls without a fence (`🔧 Using tool:` + `Input: {...}`,
    # `**Tool: Edit**` + `File:` / `Old:` / `New:`): :mod:`session_export`.
    line_markers = (session_export.USING_MARKER, session_export.TOOL_MARKER)
    lookbehind_lines = 1  # the path line before a fence (all it reports on before the fence)
    context_lines = CONTEXT_LINES  # the chat-role line opening the turn, read only

    def claims_fence_head(self, text: str, start: int, info: str, body_start: int) -> bool:
        info = info.strip()
        if info == "diff":  # perhaps SpecStory's export of a Cursor edit (specstory_diff)
            return True
        word = info.split(None, 1)[0].lower() if info else ""
        if word in _NOT_FILES:
            return False
        if cursor_export.may_be(text, body_start):  # perhaps Cursor's export of a search_replace
            return True
        if cursor_edit.may_be(text, start, info) is not None:  # perhaps Cursor's export of an edit_file
            return True
        if ":" in info and (m := _INFO.match(info)) is not None:
            return _names_file(m.group("path"))
        if "{" in info and (m := _INFO_BRACED.match(info)) is not None:
            return _names_file(m.group("path"))
        if "path=" in info and (m := _INFO_LINES.match(info)) is not None:
            return _names_file(m.group("path"))
        if body_start < len(text) and text[body_start] in " \t/#-;%<{":
            if (m := _KEYED.match(text, body_start)) is not None:
                return _names_file(m.group("path"))
            if (m := _BARE.match(text, body_start)) is not None and _names(m.group("path"), word):
                return True
        if start == 0 or text[start - 1] not in "\r\n":
            return False
        prev = _prev_line(text, start)
        if prev is None or prev[1] == prev[0] or prev[1] - prev[0] > _LONGEST_LINE:
            return False  # (a path line is short; most lines before a fence are sentences)
        if "**Tool" in text[prev[0]:prev[1]] and (
            session_export.TOOL_USE.match(text, prev[0], prev[1]) or session_export.TOOL_WITH_PATH.match(text, prev[0], prev[1])
        ):
            return True  # a session export's tool call
        if text.startswith("File:", prev[0], prev[1]) and session_export.FILE.match(text, prev[0], prev[1]):
            return True  # perhaps a session export's **Tool: Write**
        m = _LINE.match(text, prev[0], prev[1])
        return m is not None and _names(m.group("path"), word)

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        t = ctx.text
        if fence.info == "diff":  # a diff no other dialect read: perhaps SpecStory's Cursor edit
            close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
            plain_end = close[1] if close is not None else len(t)
            role_at, floor = _turns(ctx).role_line(fence.start)
            return specstory_diff.parse(self.name, ctx, fence.start, floor, role_at, plain_end, _locator(ctx))
        word = fence.word.lower()
        if word in _NOT_FILES:
            return None
        if cursor_export.may_be(t, fence.body_start):
            close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
            body_end, end = close if close is not None else (len(t), len(t))
            role_at, floor = _turns(ctx).role_line(fence.start)
            found = cursor_export.parse(self.name, ctx, fence.start, fence.body_start, body_end, end, floor, role_at)
            if found is not None:
                return found
            # Not Cursor's: any other fence, but read back to the turn's start to decide.
            other = self._fence(ctx, fence, word)
            if other is None:
                return Construct(Span(fence.start, end), lookahead=end, behind=min(floor, fence.start))
            if other.behind < 0 or other.behind > floor:
                other.behind = min(floor, other.span.start)
            return other
        if (how := cursor_edit.may_be(t, fence.start, fence.info)) is not None:
            return self._cursor_edit(ctx, fence, word, how)
        return self._fence(ctx, fence, word)

    def _cursor_edit(self, ctx: ScanContext, fence: FenceOpen, word: str, how: str) -> Construct | None:
        """A fence that may be Cursor's export of an edit_file call (:mod:`cursor_edit`): the
        reading that names its file first, else Cursor's, else any other fence's."""
        other = self._fence(ctx, fence, word)
        if other is not None and other.actions:
            return other
        t = ctx.text
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end, end = close if close is not None else (len(t), len(t))
        if close is not None:
            found = cursor_edit.parse(self.name, ctx, fence.start, fence.body_start, body_end, end, word,
                                      fence.opener_span, _turns(ctx).role_line(fence.start)[0], how)
            if found is not None:
                return found
        role = cursor_edit.cursor_turn(ctx, fence.start)
        behind = role[0] if role is not None else 0
        ahead = cursor_edit.read_ahead(t, fence.start, how)
        if other is None:
            return Construct(Span(fence.start, end), lookahead=max(end, ahead), behind=behind)
        other.lookahead = max(other.lookahead, ahead)
        if other.behind < 0 or other.behind > behind:
            other.behind = min(behind, other.span.start)
        return other

    def _fence(self, ctx: ScanContext, fence: FenceOpen, word: str) -> Construct | None:
        """A fence that may name its file (fence info, a path comment, a path line)."""
        t = ctx.text
        lang = word.split(":", 1)[0]
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end, end = close if close is not None else (len(t), len(t))
        content_start = fence.body_start
        path: Span | None = None
        kind = ""
        start = fence.start
        behind = -1
        prev = _prev_line(t, fence.start)
        if prev is not None and (exported := self._exported(ctx, fence, prev, body_end, end)) is not None:
            return exported
        if "path=" in fence.info and (m := _INFO_LINES.match(fence.info)) is not None:
            # Lines by number, without what they held: nothing to check them against.
            at = fence.word_span.start
            span = Span(fence.start, end)
            fields = {
                "path": Field("path", m.group("path"), Span(at + m.start("path"), at + m.end("path"))),
                "lines": Field("lines", f"{m.group('a')}-{m.group('b')}", Span(at + m.start("a"), at + m.end("b"))),
                "content": Field("content", t[fence.body_start:body_end], Span(fence.body_start, body_end), None,
                                 SourceMap.verbatim(fence.body_start, body_end)),
            }
            action = Action(self.name, REPLACE_LINES, ActionKind.OTHER, span, fence.opener_span, fields,
                            group=span, group_label="chat answer")
            return Construct(span, [action], lookahead=end)
        if ((m := _INFO.match(fence.info)) is not None and fence.info == fence.word) or (
                "{" in fence.info and (m := _INFO_BRACED.match(fence.info)) is not None):
            at = fence.word_span.start + m.start("path")
            path = Span(at, at + len(m.group("path")))
            kind = FENCE_INFO
            lang = m.group("lang").lower()
        elif (m := _KEYED.match(t, fence.body_start, body_end)) is not None:
            path = Span(m.start("path"), m.end("path"))
            kind = PATH_COMMENT
            content_start = next_line_start(t, m.end())
        else:
            bare = _BARE.match(t, fence.body_start, body_end)
            line = _LINE.match(t, prev[0], prev[1]) if prev is not None and prev[1] > prev[0] else None
            if bare is None and line is None:
                return None
            role, behind = turn(ctx, fence.start)
            if role == "user":
                role = None
            named = _aider_name(t, *prev) if role == "aider" and prev is not None else line and Span(*line.span("path"))
            # (Aider reads no path comment: in its history only the path line names a file.)
            if bare is not None and role == "assistant" and _names(bare.group("path"), lang):
                path = Span(bare.start("path"), bare.end("path"))
                kind = PATH_COMMENT
                content_start = next_line_start(t, bare.end())
            elif named and prev is not None and role is not None and _names(_path_text(t, named), lang):
                path = named
                kind = AIDER_WHOLE if role == "aider" else PATH_LINE
                start = prev[0]
            if path is None or not _names_file(_path_text(t, path)):
                # It read the lines before to decide: an edit there may change its mind.
                return Construct(Span(fence.start, end), lookahead=end, behind=behind)
        if path is None or not _names_file(_path_text(t, path)):
            return None
        if content_start > body_end:
            content_start = body_end
        span = Span(start, end)
        content = Field("content", t[content_start:body_end], Span(content_start, body_end), None,
                        SourceMap.verbatim(content_start, body_end))
        fields = {"path": Field("path", _path_text(t, path), path), "content": content}
        action = Action(self.name, kind, ActionKind.WRITE_FILE, span, fence.opener_span, fields,
                        group=span, group_label="chat answer")
        diagnostics: list[Diagnostic] = []
        if close is None:
            eol = EOL.search(t, fence.start)
            nl = eol.group(0) if eol else "\n"
            closing = ("" if t.endswith(("\n", "\r")) or not t else nl) + fence.char * fence.length + nl
            diagnostics.append(Diagnostic(
                "unclosed-block",
                f"this code block for {t[path.start:path.end]} is never closed: its content runs to "
                "the end of the text (still being written?); it is not applied",
                fence.opener_span,
                fixes=[Fix("Insert the closing fence", [TextEdit(Span(len(t), len(t)), closing)], True)],
            ))
        construct = Construct(span, [action], diagnostics, lookahead=end,
                              behind=behind if behind >= 0 and behind < start else -1)
        if kind == AIDER_WHOLE:
            _skipped(ctx, construct, end)
        # (A block of Aider's architect answer is a proposal the editor's answer applies.)
        return settle(ctx, construct)

    def _exported(
        self, ctx: ScanContext, fence: FenceOpen, prev: tuple[int, int], body_end: int, end: int
    ) -> Construct | None:
        """A tool call of a session export (:mod:`session_export`), if the fence is one."""
        t = ctx.text
        if "**Tool" in t[prev[0]:prev[1]] and (head := session_export.TOOL_USE.match(t, prev[0], prev[1])):
            found = session_export.tool_use_call(self.name, t, fence, head, body_end, end)
            if found is not None:
                actions, diagnostics = found
                # Its result, if the export shows one (the lines before it read to count the
                # calls of its batch, no further back than the chat turn's context).
                floor = turn(ctx, prev[0])[1]
                message, at, behind, ahead = session_export.result_of(t, head, end, floor)
                session_export.mark_result(actions, diagnostics, message, at)
                watch = ("**Tool Result",) if ahead >= len(t) else ()
                return Construct(Span(prev[0], end), actions, diagnostics, lookahead=max(end, ahead),
                                 watch=watch, behind=behind if behind < prev[0] else -1)
        if (inline := session_export.TOOL_WITH_PATH.match(t, prev[0], prev[1])) is not None:
            action, cut = session_export.file_write(self.name, t, inline, inline, fence, body_end, end)
            return Construct(action.span, [action], cut, lookahead=end)
        if (file := session_export.FILE.match(t, prev[0], prev[1])) is not None:
            above = _prev_line(t, prev[0])
            tool = session_export.TOOL.match(t, above[0], above[1]) if above is not None else None
            if tool is not None:
                action, cut = session_export.file_write(self.name, t, tool, file, fence, body_end, end)
                return Construct(action.span, [action], cut, lookahead=end)
        return None

    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        """A session export's tool call without a fence (:data:`line_markers`)."""
        t = ctx.text
        at = start
        while t.startswith((" ", "\t"), at):
            at += 1
        read = session_export.using_tool if t.startswith(session_export.USING_MARKER, at) else session_export.tool_edit
        actions, diagnostics, end, reach = read(self.name, t, start)
        # (none: the marker line alone, with how far it read to decide)
        return Construct(Span(start, end), actions, diagnostics, lookahead=reach)

    def hover_note(self, action: Action) -> str:
        if action.type == specstory_diff.TYPE:
            return specstory_diff.hover_note(action)
        if action.type == cursor_export.TYPE:
            return cursor_export.hover_note(action)
        if action.type == cursor_edit.TYPE:
            return cursor_edit.hover_note(action)
        note = _NOTES.get(action.type)
        if note is None and action.group_label.endswith("not applied)"):
            return f"A tool call shown in a session export: {action.group_label}."  # (specstory)
        if note is None:
            return "A tool call shown in a session export, read as its tool means it."
        return note

    def claims_tag(self, name: str) -> bool:
        # Aider's other fence, and SpecStory's tool calls (no near misses: tag_names stays empty)
        return name in ("source", "tool-use")

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        """``<source>`` alone on its line, to the ``</source>`` line: the fence Aider's whole
        format uses for a file holding ```` ``` ````. An Aider-whole action when the line before
        names the file in an Aider history; an example block otherwise. A ``<source src=...>``
        of HTML in prose is no block."""
        t = ctx.text
        line = line_start(t, tag.start)
        if tag.name == "tool-use":
            return self._tool_use(ctx, tag, line)
        opener = _SOURCE_OPEN.match(t, line)
        if opener is None or opener.start("tag") != tag.start:
            return Construct(Span(tag.start, tag.name_span.end))
        body = opener.end()
        close = _closing_line(ctx, "</source>", body)
        body_end, end = (close.start(), next_line_start(t, close.end()) if close.end() < len(t) else len(t)) if close else (len(t), len(t))
        watch = () if close else ("</source>",)
        if _OTHER_FORMAT.search(t, body, body_end) is not None:
            # Aider's SEARCH/REPLACE blocks (or a diff) in <source> lines: the aider dialect's.
            return Construct(Span(tag.start, tag.name_span.end))
        prev = _prev_line(t, line)
        role, behind = turn(ctx, line)
        # Nobody but Aider writes a file in <source> lines: no Aider line in sight (a long answer
        # of many files) is still Aider's, unless the block stands in another chat's turn.
        named = _aider_name(t, *prev) if role in ("aider", None) and prev is not None else None
        if named is None or prev is None or not _names_file(_path_text(t, named)):
            return Construct(Span(tag.start, end), lookahead=end, watch=watch, behind=behind)
        span = Span(prev[0], end)
        content = Field("content", t[body:body_end], Span(body, body_end), None, SourceMap.verbatim(body, body_end))
        fields = {"path": Field("path", _path_text(t, named), named), "content": content}
        name_span = Span(tag.start, opener.end("tag"))
        action = Action(self.name, AIDER_WHOLE, ActionKind.WRITE_FILE, span, name_span, fields,
                        group=span, group_label="chat answer")
        diagnostics = [] if close else [Diagnostic(
            "unclosed-block",
            f"this <source> block for {fields['path'].value} never reaches </source>: its content runs "
            "to the end of the text (still being written?); it is not applied",
            name_span,
        )]
        construct = Construct(span, [action], diagnostics, lookahead=end, watch=watch, behind=behind)
        _skipped(ctx, construct, end)
        return settle(ctx, construct)

    def _tool_use(self, ctx: ScanContext, tag: TagOpen, line: int) -> Construct:
        """SpecStory's ``<tool-use ...>`` block, read whole (:mod:`specstory`)."""
        t = ctx.text
        opener = specstory.OPEN.match(t, tag.start)
        if opener is None or line != tag.start:
            return Construct(Span(tag.start, tag.name_span.end))
        body = opener.end()
        close = _closing_line(ctx, "</tool-use>", body)
        if close is None:  # never closed: only the opening tag (the rest stays prose)
            return Construct(Span(tag.start, tag.name_span.end), watch=("</tool-use>",), lookahead=len(t))
        end = next_line_start(t, close.end()) if close.end() < len(t) else len(t)
        actions, diagnostics = specstory.call(self.name, t, tag.start, opener, body, close.start(), end)
        return Construct(Span(tag.start, end), actions, diagnostics, lookahead=end)

    def edit_rules(self, action: Action) -> EditRules:
        if action.type == cursor_edit.TYPE:
            return cursor_edit.RULES
        if action.type not in SPECS:
            return tool_rules(action)  # a session export's tool call
        if action.type == AIDER_WHOLE:
            return AIDER
        return CURSOR if action.type == FENCE_INFO else SNIPPET if action.type == PATH_LINE else COPILOT

    def file_view(self, action: Action) -> FileView | None:
        if action.type == cursor_edit.TYPE:
            return cursor_edit.file_view(action)
        if action.type not in SPECS:
            return super().file_view(action)  # a session export's tool call, as its tool means it
        path, content = action.fields.get("path"), action.fields.get("content")
        if path is None or content is None or not isinstance(path.value, str) or not isinstance(content.value, str):
            return None
        return FileView("write", path, content=content, rules=self.edit_rules(action))


DIALECT = ChatAnswer()
