"""SpecStory's Markdown v2 tool calls: ``<tool-use data-tool-type=... data-tool-name=...>``.

Read by the ``chat-answer`` dialect, which claims the ``tool-use`` tag. SpecStory (Markdown
v2.1, ``.specstory/history/*.md``) writes each tool call of a Cursor agent session as::

    <tool-use data-tool-type="write" data-tool-name="search_replace">

    <details><summary>Tool use: **search_replace** • Edit file: /abs/path/components/Terrain.tsx</summary>

    **Chunk 1**
    Lines added: 1, lines removed: 1

    ```diff
    @@ -2,5 +2,5 @@
      import { useMemo } from 'react'
    - import { Mesh } from 'three'
    + import { BufferGeometry } from 'three'
    ```

    </details>
    </tool-use>

Each line of a chunk has a two-character prefix (``- ``, ``+ ``, two spaces). A ``write``-type
call is an edit of the file named in the summary: each chunk an edit located by its text (the
context and removed lines, replaced by the context and added lines), or, when its one chunk
replaces nothing but an empty line (``@@ -1,1 +1,N @@`` of a new file), the whole new file.
SpecStory writes the code HTML-escaped (``&lt;``, ``&amp;``, ``&#96;``): the values are
unescaped, each field's map restarting after every entity so that ranges stay exact.
Other tools (``read_file``, ``run_terminal_cmd``, ...) are no file actions; their block is read
as one piece, so what it shows (a file's text, a command's output) is never taken for actions.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from ..codes import SHOWN_ONLY
from ..markdown import fence_open_at, find_fence_close
from ..model import Action, ActionKind, Diagnostic, Edit, Field, SourceMap, Span
from .hunks import Line, lines_of

OPEN = re.compile(r"<tool-use\b(?P<attrs>[^<>\r\n]*)>")
_TYPE = re.compile(r'data-tool-type="(?P<v>[^"]*)"')
_NAME = re.compile(r'data-tool-name="(?P<v>[^"]*)"')
_SUMMARY = re.compile(
    r"<summary>Tool use: \*\*(?P<name>[^*\r\n]+)\*\*(?:[^\r\n<]*?(?:Edit|Create|Write)[ \t]+file:[ \t]*(?P<path>[^<\r\n]+?))?[ \t]*</summary>"
)
# What Claude Code answers a Write (SpecStory's Claude Code sessions name the file only there).
_RESULT = re.compile(r"(?:File created successfully at:?|The file)[ \t]+(?P<path>[^\s`]+?)(?=[ \t]+has been updated|[ \t]*(?:\r|\n|\Z))")
_HUNK = re.compile(r"@@ -\d+(?:,(?P<old>\d+))? \+\d+(?:,\d+)? @@")
_FENCE = re.compile(r"(?:(?<=\n)|(?<=\r)) {0,3}```")
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z]{2,8});")


def joined(text: str, name: str, lines: Sequence[tuple[Line, bool]], skip: int, span: Span) -> Field:
    """The field of ``lines`` without their first ``skip`` characters, each ended by ``\\n``,
    HTML entities decoded; its map restarts at every line and after every entity."""
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    length = 0
    source_end = span.start
    for line, _eol in lines:
        a = min(line.start + skip, line.end)
        breaks.append((length, a))
        pos = a
        for m in _ENTITY.finditer(text, a, line.end):
            piece = text[pos : m.start()] + html.unescape(m.group(0))
            parts.append(piece)
            length += len(piece)
            breaks.append((length, m.end()))
            pos = m.end()
        parts.append(text[pos : line.end] + "\n")
        length += line.end - pos + 1
        source_end = line.next if line.next > line.end else line.end
    if not breaks:
        return Field(name, "", span, None, SourceMap(span.start, 0, span.start))
    return Field(name, "".join(parts), span, None, SourceMap(breaks[0][1], length, source_end, tuple(breaks)))


Found = tuple[list[Action], list[Diagnostic]]


def call(dialect: str, text: str, start: int, opener: re.Match[str], body: int, body_end: int, end: int) -> Found:
    """The file action of the ``<tool-use>`` block at ``start`` (its body ``[body, body_end)``,
    the block to ``end``), if it is an edit, and its diagnostics; else none."""
    attrs = opener.group("attrs")
    kind = _TYPE.search(attrs)
    name = _NAME.search(attrs)
    span = Span(start, end)
    name_span = Span(opener.start(), opener.start() + len("<tool-use"))
    if name is not None and name.group("v") in _COPILOT_EDITS:
        return _unnamed(dialect, name.group("v"), span, name_span)
    if kind is None or kind.group("v") != "write":
        return [], []
    summary = _SUMMARY.search(text, body, body_end)
    if summary is None:
        return [], []
    tool = name.group("v") if name is not None else summary.group("name")
    if summary.group("path") is None:
        return _claude_code(dialect, text, tool, summary.end(), body_end, span, name_span)
    path = Field("path", summary.group("path"), Span(summary.start("path"), summary.end("path")))
    chunks = _chunks(text, summary.end(), body_end)
    if not chunks:
        return [], []
    if len(chunks) == 1 and chunks[0][1] is not None:
        content = chunks[0][1]
        return [Action(dialect, tool, ActionKind.WRITE_FILE, span, name_span,
                       {"path": path, "content": content}, group=span, group_label="SpecStory tool use")], []
    edits = [e for e, _ in chunks]
    return [Action(dialect, tool, ActionKind.MODIFY_FILE, span, name_span, {"path": path},
                   group=span, group_label="SpecStory tool use", edits=edits)], []


#: VS Code Copilot's edit tools whose SpecStory export holds the new text only, never the file.
_COPILOT_EDITS = frozenset({"copilot_replaceString", "copilot_multiReplaceString"})


def _unnamed(dialect: str, tool: str, span: Span, name_span: Span) -> Found:
    """A Copilot edit exported without its file: a modify of no path, shown, never applied."""
    action = Action(dialect, tool, ActionKind.MODIFY_FILE, span, name_span, {},
                    group=span, group_label="SpecStory tool use (file not named in the export: not applied)")
    note = Diagnostic(SHOWN_ONLY, f"file not named in the export: SpecStory keeps only the new text of this "
                      f"{tool}, not the file it changed; shown, never applied", name_span)
    return [action], [note]


def _claude_code(
    dialect: str, text: str, tool: str, at: int, end: int, span: Span, name_span: Span
) -> Found:
    """SpecStory's Claude Code form: ``Tool use: **Write**``, a fence holding the content, then
    a fence holding the tool's result, which names the file. An ``Edit`` is exported with its
    result only (no old and new text): a modify of that file with no edit, shown, never applied."""
    fences = list(_fences(text, at, end))
    result = next((r for a, b, _ in fences if (r := _RESULT.search(text, a, b)) is not None), None)
    if result is None:
        return [], []
    path = Field("path", result.group("path"), Span(result.start("path"), result.end("path")))
    if tool.lower() in ("write", "create") and len(fences) >= 2 and fences[0][0] < result.start():
        a, b, _ = fences[0]
        content = Field("content", text[a:b], Span(a, b), None, SourceMap.verbatim(a, b))
        return [Action(dialect, tool, ActionKind.WRITE_FILE, span, name_span, {"path": path, "content": content},
                       group=span, group_label="SpecStory tool use")], []
    action = Action(dialect, tool, ActionKind.MODIFY_FILE, span, name_span, {"path": path},
                    group=span, group_label="SpecStory tool use (shown with its result only: not applied)")
    note = Diagnostic(SHOWN_ONLY, f"SpecStory exports this {tool} of {path.value} with its result only (no old "
                      "and new text): shown, never applied", name_span)
    return [action], [note]


def _fences(text: str, at: int, end: int) -> list[tuple[int, int, str]]:
    """``(body start, body end, info word)`` of each fence in ``[at, end)``."""
    out: list[tuple[int, int, str]] = []
    m = _FENCE.search(text, at, end)
    while m is not None:
        fence = fence_open_at(text, m.start())
        if fence is None:
            m = _FENCE.search(text, m.end(), end)
            continue
        close = find_fence_close(text, fence.body_start, fence.char, fence.length, end)
        body_end, after = close if close is not None else (end, end)
        out.append((fence.body_start, body_end, fence.word.lower()))
        m = _FENCE.search(text, after, end) if after < end else None
    return out


def _chunks(text: str, at: int, end: int) -> list[tuple[Edit, Field | None]]:
    """The ```` ```diff ```` chunks in ``[at, end)``: each an edit, and the new file's content
    when the chunk replaces nothing but one empty line (a new file)."""
    out: list[tuple[Edit, Field | None]] = []
    for a, b, word in _fences(text, at, end):
        if word == "diff":
            out.extend(_hunks(text, a, b))
    return out


def _hunks(text: str, start: int, end: int) -> list[tuple[Edit, Field | None]]:
    out: list[tuple[Edit, Field | None]] = []
    lines = lines_of(text, start, end)
    i = 0
    while i < len(lines):
        head = _HUNK.match(text, lines[i].start, lines[i].end)
        if head is None:
            i += 1
            continue
        body: list[tuple[Line, str]] = []
        i += 1
        while i < len(lines) and _HUNK.match(text, lines[i].start, lines[i].end) is None:
            ln = lines[i]
            op = text[ln.start] if ln.end > ln.start else " "
            body.append((ln, op if op in "+-" else " "))
            i += 1
        if not body:
            continue
        span = Span(body[0][0].start, body[-1][0].end)
        search = joined(text, "search", [(ln, True) for ln, op in body if op != "+"], 2, span)
        replace = joined(text, "replace", [(ln, True) for ln, op in body if op != "-"], 2, span)
        new_file = not any(op == " " for _, op in body) and not search.value.strip() and head.group("old") in (None, "0", "1")
        content = joined(text, "content", [(ln, True) for ln, op in body if op == "+"], 2, span) if new_file else None
        out.append((Edit(search, replace), content))
    return out
