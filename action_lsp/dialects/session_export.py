"""Markdown exports of agent sessions: a tool call shown as a heading line and a fence.

Read by the ``chat-answer`` dialect (no dialect of its own: a fence is offered to it, and it
asks here first). Two shapes seen in public repositories:

- *Claude Code Session Export* (``# Claude Code Session Export``): a line
  ``🔧 **Tool Use: Write** (ID: toolu_...)``, then a ```` ```json ```` fence holding the tool's
  input (``{"file_path": ..., "content": ...}``, ``old_string`` / ``new_string`` for ``Edit``,
  ``edits`` for ``MultiEdit``). The call is read as Claude Code's own session would be (the same
  tool mapping, :func:`~action_lsp.dialects.tool_use.call_action`), every field with its exact
  range inside the JSON strings.
- *Transcript* exports that write ``**Tool: Write**``, then ``File: `$CLAUDE_PROJECT_DIR/path```
  (or the path on the tool's own line: ``**Tool: Write** `/abs/path```), then the file's whole
  content in a fence. ``$CLAUDE_PROJECT_DIR/`` (or ``$PWD/``,
  ``./``) is the workspace root.

A tool's result shown after it is not matched to the call (yet): a failed call in an export is
listed like the others.
"""

from __future__ import annotations

import re

from ..jsonscan import parse_json
from ..markdown import FenceOpen
from ..model import Action, ActionKind, Diagnostic, Field, SourceMap, Span
from .tool_use import Call, Input, call_action

# `🔧 **Tool Use: Write** (ID: toolu_...)` -- a few characters of decoration before it.
TOOL_USE = re.compile(
    r"[^\r\n*]{0,8}\*\*Tool[ \t]+Use:[ \t]*(?P<name>[A-Za-z_][\w.:-]*)\*\*(?:[ \t]*\(ID:[^)\r\n]*\))?[ \t]*(?=\r|\n|\Z)"
)
# `**Tool: Write**` on the line before `File: `...``.
TOOL = re.compile(r"[^\r\n*]{0,8}\*\*Tool:[ \t]*(?P<name>Write|Create|write_file|create_file)\*\*[ \t]*(?=\r|\n|\Z)")
FILE = re.compile(r"File:[ \t]*`(?P<path>[^`\r\n]+)`[ \t]*(?=\r|\n|\Z)")
# `**Tool: Write** `/abs/path`` on the line right before the fence (the path on the tool's line).
TOOL_WITH_PATH = re.compile(
    r"[^\r\n*]{0,8}\*\*Tool:[ \t]*(?P<name>Write|Create|write_file|create_file)\*\*[ \t]*`(?P<path>[^`\r\n]+)`[ \t]*(?=\r|\n|\Z)"
)
_ROOT = re.compile(r"\$\{?(?:CLAUDE_PROJECT_DIR|PWD|PROJECT_DIR)\}?/+|\./")


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


def file_write(
    dialect: str, text: str, tool: re.Match[str], file: re.Match[str], fence: FenceOpen, body_end: int, end: int
) -> Action:  # ``file`` may be ``tool`` itself (the path on the tool's line)
    """``**Tool: Write**`` / ``File: `path``` / a fence holding the whole file."""
    a, b = file.span("path")
    root = _ROOT.match(text, a, b)
    if root is not None:
        a = root.end()
    content = Field("content", text[fence.body_start:body_end], Span(fence.body_start, body_end), None,
                    SourceMap.verbatim(fence.body_start, body_end))
    fields = {"path": Field("path", text[a:b], Span(a, b)), "content": content}
    span = Span(tool.start(), end)
    name = Span(tool.start("name"), tool.end("name"))
    return Action(dialect, tool.group("name"), ActionKind.WRITE_FILE, span, name, fields,
                  group=span, group_label="session export")
