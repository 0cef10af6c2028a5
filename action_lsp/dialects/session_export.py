"""Markdown exports of agent sessions: a tool call shown as a heading line and its input.

Read by the ``chat-answer`` dialect (no dialect of its own: a fence is offered to it, and it
asks here first; the two shapes without a fence are its line markers). Every call is mapped
through the one tool registry (:func:`~action_lsp.dialects.tool_use.call_action`), as Claude
Code's own session would be, every field with its exact range. Shapes seen in public
repositories:

- *Claude Code Session Export* (``# Claude Code Session Export``): a line
  ``🔧 **Tool Use: Write** (ID: toolu_...)``, then a ```` ```json ```` fence holding the tool's
  input (``{"file_path": ..., "content": ...}``, ``old_string`` / ``new_string`` for ``Edit``,
  ``edits`` for ``MultiEdit``). Its results are ``📊 **Tool Result:**`` lines, each followed by
  a fence: matched to the calls by the ``(ID: ...)`` a result line shows, else by order (the
  calls since the last result, then their results in the same order; :func:`result_of`).
- *Claude Conversation Log* (``# Claude Conversation Log``): ``🔧 Using tool: Edit`` on one
  line, then ``Input: {`` and the input as pretty-printed JSON (no fence, no results).
- *Transcript* exports (``# Transcript``) that write ``**Tool: Write**``, then
  ``File: `$CLAUDE_PROJECT_DIR/path``` (or the path on the tool's own line:
  ``**Tool: Write** `/abs/path```), then the file's whole content in a fence; and
  ``**Tool: Edit**``, ``File: `...```, then ``Old: `...``` / ``New: `...``` backtick spans over
  several lines (a backtick inside is text: ``Old`` ends at the backtick before the ``New:``
  line, ``New`` at the backtick that ends a line followed by a blank line and the next bold
  heading). ``$CLAUDE_PROJECT_DIR/`` (or ``$PWD/``, ``./``) is the workspace root. The exporter
  joins the lines "```", the content and "```" with line breaks: the content is the fence's body
  less its last line break (a file ending in a line break shows a blank line before the fence).

A text the export cut short (it ends in ``... (truncated)``) is a ``truncated-content`` error:
the call is listed, never applied. A call whose result is one of Claude Code's error messages
(``String to replace not found in file.``, a ``<tool_use_error>``, ...) is shown failed
(:func:`~action_lsp.dialects.tool_use.failed`), never pending.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..jsonscan import JMember, JNode, parse_json
from ..markdown import EOL, FenceOpen, fence_open_at, find_fence_close, line_start, next_line_start
from ..model import Action, ActionKind, Diagnostic, Field, SourceMap, Span
from .tool_use import Call, Input, call_action, failed, first_line

# `🔧 **Tool Use: Write** (ID: toolu_...)` -- a few characters of decoration before it.
TOOL_USE = re.compile(
    r"[^\r\n*]{0,8}\*\*Tool[ \t]+Use:[ \t]*(?P<name>[A-Za-z_][\w.:-]*)\*\*(?:[ \t]*\(ID:[ \t]*(?P<id>[^)\s]*)[ \t]*\))?[ \t]*(?=\r|\n|\Z)"
)
# `📊 **Tool Result:**` (perhaps with the call's id), on the line before the result's fence.
RESULT = re.compile(
    r"[^\r\n*]{0,8}\*\*Tool[ \t]+Result:?\*\*:?(?:[ \t]*\(ID:[ \t]*(?P<id>[^)\s]*)[ \t]*\))?[ \t]*(?=\r|\n|\Z)"
)
# A call or a result line's marker after its decoration (at most 8 characters into its line).
_USE, _RESULT = "**Tool Use:", "**Tool Result"
# `**Tool: Write**` on the line before `File: `...``.
TOOL = re.compile(r"[^\r\n*]{0,8}\*\*Tool:[ \t]*(?P<name>Write|Create|write_file|create_file)\*\*[ \t]*(?=\r|\n|\Z)")
FILE = re.compile(r"File:[ \t]*`(?P<path>[^`\r\n]+)`[ \t]*(?=\r|\n|\Z)")
# `**Tool: Write** `/abs/path`` on the line right before the fence (the path on the tool's line).
TOOL_WITH_PATH = re.compile(
    r"[^\r\n*]{0,8}\*\*Tool:[ \t]*(?P<name>Write|Create|write_file|create_file)\*\*[ \t]*`(?P<path>[^`\r\n]+)`[ \t]*(?=\r|\n|\Z)"
)
_ROOT = re.compile(r"\$\{?(?:CLAUDE_PROJECT_DIR|PWD|PROJECT_DIR)\}?/+|\./")
_NL = r"(?:\r\n|\r|\n)"
#: The line markers of the two shapes without a fence (the ``chat-answer`` dialect's).
USING_MARKER, TOOL_MARKER = "\U0001F527 Using tool:", "**Tool:"
# `🔧 Using tool: Edit` then `Input: {` on the next line.
USING_TOOL = re.compile(
    r"[ \t]*\U0001F527\ufe0f?[ \t]*Using tool:[ \t]*(?P<name>[A-Za-z_][\w.:-]*)[ \t]*" + _NL + r"Input:[ \t]*(?=\{)"
)
# `**Tool: Edit**`, `File: `path``, then `Old: `` (the old text starts after the backtick).
TOOL_EDIT = re.compile(
    r"[ \t]*\*\*Tool:[ \t]*(?P<name>[A-Za-z_][\w.:-]*)\*\*[ \t]*" + _NL
    + r"(?P<file>File):[ \t]*`(?P<path>[^`\r\n]+)`[ \t]*" + _NL + r"(?P<old>Old):[ \t]?`"
)
_OLD_END = re.compile(r"`" + _NL + r"(?P<new>New):[ \t]?`")
_NEW_END = re.compile(r"`(?=[ \t]*(?:" + _NL + r"[ \t]*){2,}\*\*[A-Za-z]|[ \t]*(?:" + _NL + r"[ \t]*)*\Z)")
_BLANKS = re.compile(r"[ \t]*(?:" + _NL + r"[ \t]*)*")
_TRUNCATED = "... (truncated)"
# What Claude Code answers a call it did not run, or that failed (the result's first words).
_ERROR = re.compile(
    r"\s*(?:<tool_use_error>|Error:|String to replace not found in file|Found \d+ matches of the string to replace"
    r"|File has not been read yet|File has been (?:unexpectedly )?modified since read|No changes to make:"
    r"|File does not exist|The user doesn't want to (?:proceed|take this action)|\[Request interrupted by user)"
)


def tool_use_call(
    dialect: str, text: str, fence: FenceOpen, head: re.Match[str], body_end: int, end: int
) -> tuple[list[Action], list[Diagnostic]] | None:
    """The tool call whose heading line is ``head`` and whose input is the JSON fence
    ``fence`` (body to ``body_end``, block to ``end``); None when the body holds no object."""
    result = parse_json(text, fence.body_start, body_end)
    node = result.node
    if node is None or node.kind != "object":
        return None
    span = Span(head.start(), end)
    call = Call(dialect, head.group("name"), Span(head.start("name"), head.end("name")), span,
                Input(node), span, "session export")
    action = call_action(call)
    return [action, *call.more], list(call.diagnostics)


#: What a line-marker parse gives: actions, diagnostics, where the call ends (the marker line's
#: end when it is none), and how far it read to decide (the scanner's look-ahead).
Found = tuple[list[Action], list[Diagnostic], int, int]


def _nothing(text: str, start: int, reach: int) -> Found:
    """No call: the marker line without its line break (so the scanner cuts no unit after it:
    a fence's file may be named by the line before it), and how far it read."""
    eol = EOL.search(text, start)
    end = eol.start() if eol else len(text)
    return [], [], end, min(len(text), max(reach, end))


def _lines_ahead(text: str, start: int, lines: int) -> int:
    """How far a head pattern of ``lines`` lines may read: past the start of the line after."""
    at = start
    for _ in range(lines):
        at = next_line_start(text, at)
    return min(len(text), at + 1)


def using_tool(dialect: str, text: str, start: int) -> Found:
    """``🔧 Using tool: NAME`` at ``start``, then ``Input: {...}`` (pretty-printed JSON, no
    fence): its actions and diagnostics (none when no JSON object follows)."""
    head = USING_TOOL.match(text, start)
    if head is None:
        return _nothing(text, start, _lines_ahead(text, start, 2))
    result = parse_json(text, head.end())
    node = result.node
    if node is None or node.kind != "object" or not result.ok:
        return _nothing(text, start, result.end + 1)
    end = next_line_start(text, result.end) if result.end < len(text) else len(text)
    span = Span(start, end)
    call = Call(dialect, head.group("name"), Span(head.start("name"), head.end("name")), span,
                Input(node), span, "session export")
    action = call_action(call)
    return [action, *call.more], list(call.diagnostics), end, end


def _string(text: str, a: int, b: int) -> JNode:
    return JNode("string", Span(a, b), text[a:b], source_map=SourceMap.verbatim(a, b))


def _root_relative(f: Field) -> Field:
    """``$CLAUDE_PROJECT_DIR/src/x.py`` -> ``src/x.py`` (the workspace root)."""
    a, b = f.span.start, f.span.end
    m = _ROOT.match(f.value) if isinstance(f.value, str) else None
    if m is None:
        return f
    a += m.end()
    return Field(f.name, f.value[m.end():], Span(a, b), f.key_span, SourceMap.verbatim(a, b))


def _truncated(text: str, a: int, b: int, what: str) -> Diagnostic | None:
    """``truncated-content`` when ``text[a:b]`` ends in the export's ``... (truncated)``."""
    stripped = text[a:b].rstrip()
    if not stripped.endswith(_TRUNCATED):
        return None
    at = a + len(stripped) - len(_TRUNCATED)
    return Diagnostic(
        "truncated-content",
        f"the export cut this {what} short (`{_TRUNCATED}`): the call is shown, not applied",
        Span(at, at + len(_TRUNCATED)),
    )


def tool_edit(dialect: str, text: str, start: int) -> Found:
    """``**Tool: Edit**`` at ``start``, ``File: `path```, ``Old: `...``` and ``New: `...```:
    its actions and diagnostics (none when the shape is not complete)."""
    head = TOOL_EDIT.match(text, start)
    if head is None:
        return _nothing(text, start, _lines_ahead(text, start, 3))
    old_start = head.end()
    old_end = _OLD_END.search(text, old_start)
    if old_end is None:
        return _nothing(text, start, len(text))
    new_start = old_end.end()
    new_end = _NEW_END.search(text, new_start)
    if new_end is None:
        return _nothing(text, start, len(text))
    end = next_line_start(text, new_end.end()) if new_end.end() < len(text) else len(text)
    # (the end was decided by the blank lines and the bold heading after it: read that far)
    blanks = _BLANKS.match(text, new_end.end())  # (matches always: it may match nothing)
    reach = min(len(text), (blanks.end() if blanks else new_end.end()) + 3)
    members = [
        JMember("file_path", Span(*head.span("file")), _string(text, *head.span("path"))),
        JMember("old_string", Span(*head.span("old")), _string(text, old_start, old_end.start())),
        JMember("new_string", Span(*old_end.span("new")), _string(text, new_start, new_end.start())),
    ]
    value: dict[str, Any] = {m.key: m.value.value for m in members}
    node = JNode("object", Span(head.start("path"), new_end.end()), value, members=members)
    span = Span(start, end)
    call = Call(dialect, head.group("name"), Span(head.start("name"), head.end("name")), span,
                Input(node), span, "session export", relativize=_root_relative)
    action = call_action(call)
    diagnostics = list(call.diagnostics)
    for a, b, what in ((old_start, old_end.start(), "old text"), (new_start, new_end.start(), "new text")):
        if (cut := _truncated(text, a, b, what)) is not None:
            diagnostics.append(cut)
    return [action, *call.more], diagnostics, end, max(end, reach)


def _last_break(text: str, a: int, b: int) -> int:
    """The length of the line break ending ``text[a:b]`` (0: none)."""
    if b - a >= 2 and text.startswith("\r\n", b - 2):
        return 2
    return 1 if b > a and text[b - 1] in "\r\n" else 0


def file_write(
    dialect: str, text: str, tool: re.Match[str], file: re.Match[str], fence: FenceOpen, body_end: int, end: int
) -> tuple[Action, list[Diagnostic]]:  # ``file`` may be ``tool`` itself (the path on the tool's line)
    """``**Tool: Write**`` / ``File: `path``` / a fence holding the whole file."""
    a, b = file.span("path")
    root = _ROOT.match(text, a, b)
    if root is not None:
        a = root.end()
    if file is not tool:  # a "# Transcript" export: the content, then a line break, then the fence
        body_end -= _last_break(text, fence.body_start, body_end)
    content = Field("content", text[fence.body_start:body_end], Span(fence.body_start, body_end), None,
                    SourceMap.verbatim(fence.body_start, body_end))
    fields = {"path": Field("path", text[a:b], Span(a, b)), "content": content}
    span = Span(tool.start(), end)
    name = Span(tool.start("name"), tool.end("name"))
    action = Action(dialect, tool.group("name"), ActionKind.WRITE_FILE, span, name, fields,
                    group=span, group_label="session export")
    cut = _truncated(text, fence.body_start, body_end, "content")
    return action, [cut] if cut is not None else []


def result_of(text: str, call: re.Match[str], end: int, floor: int) -> tuple[str | None, Span | None, int, int]:
    """The result a Claude Code Session Export shows for the call whose line is ``call`` (its
    input ends at ``end``): (the failure it reports, None if none or no result; the result
    line; how far it read, before ``call``: from ``floor`` on; and after it).

    By id when result lines show one; else by order: the call is the k-th since the last
    result (a batch of calls Claude Code ran together), and its result is the k-th of the
    results that follow the batch."""
    call_id = call.group("id")
    back = text.rfind(_RESULT, floor, call.start())
    behind = line_start(text, back) if back >= 0 else floor
    k = sum(1 for _, use in _events(text, behind, call.start()) if use)
    seen = 0
    for at, use in _events(text, end, len(text)):
        if use:
            if seen:
                # the next batch: no result for this call (its line read, to know it is a call)
                return None, None, behind, next_line_start(text, at)
            continue
        line = RESULT.match(text, at)
        if line is None:
            continue
        rid = line.group("id")
        if (rid and call_id and rid == call_id) or (not rid and seen == k):
            message, stop = _failure(text, next_line_start(text, line.end()))
            return message, Span(line.start(), line.end()), behind, stop
        seen += 1
    return None, None, behind, len(text)


def _events(text: str, start: int, stop: int) -> Iterator[tuple[int, bool]]:
    """The call and result lines starting in ``text[start:stop]``: (line start, is a call)."""
    i = text.find("**Tool ", start, stop)
    while i >= 0:
        line = line_start(text, i)
        if line >= start and i - line <= 8 and "*" not in text[line:i]:
            if text.startswith(_USE, i):
                yield line, True
            elif text.startswith(_RESULT, i):
                yield line, False
        i = text.find("**Tool ", i + 7, stop)


def _failure(text: str, at: int) -> tuple[str | None, int]:
    """The failure a result (its fence on the line at ``at``) reports, None for success; and the
    end of the result."""
    fence = fence_open_at(text, at)
    if fence is None:
        eol = EOL.search(text, at)
        body_start, body_end = at, eol.start() if eol else len(text)
        stop = eol.end() if eol else len(text)
    else:
        close = find_fence_close(text, fence.body_start, fence.char, fence.length)
        body_start, body_end = fence.body_start, close[0] if close else len(text)
        stop = close[1] if close else len(text)
    if _ERROR.match(text, body_start, body_end) is None:
        return None, stop
    return first_line(text[body_start:body_end]) or "an error", stop


def mark_result(actions: list[Action], diagnostics: list[Diagnostic], message: str | None, at: Span | None) -> None:
    """Mark the call's actions failed when its result says so."""
    if message is None:
        return
    for i, a in enumerate(actions):
        actions[i], hint = failed(a, message, at)
        diagnostics.append(hint)
