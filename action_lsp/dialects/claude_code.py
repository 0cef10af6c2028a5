"""``claude-code``: Claude Code session files (``~/.claude/projects/<project>/<session>.jsonl``)
and ``claude -p --output-format stream-json`` output.

Each line is one JSON record: ``{"type": "user" | "assistant" | "summary" | "system" | ...,
"cwd": ..., "sessionId": ..., "message": {"role", "content": [...]}, ...}``. An assistant
record's ``message.content`` holds ``tool_use`` blocks ``{"type": "tool_use", "id", "name",
"input"}``: ``Write`` (``file_path``, ``content``), ``Edit`` (``file_path``, ``old_string``,
``new_string``, ``replace_all``), ``MultiEdit`` (``file_path``, ``edits``), ``NotebookEdit``,
``Bash`` (``command``), ``Read``, ``Glob``, ``Grep``, ``TodoWrite``, ``Task``, MCP tools, ...
A later user record answers each call with a ``tool_result`` block (``tool_use_id``,
``content``, ``is_error``).

Absolute paths under the record's ``cwd`` (Claude Code always writes absolute paths) are read
relative to it, so the session applies to any checkout of the project; a path outside ``cwd``
stays absolute and is an ``absolute-path`` error. A call whose result was an error (a failed
``Edit``, a call the user rejected) is shown with a ``tool-error`` hint and never applied.

A unit is a line, or a run of lines from a tool call to the line holding its result (at most
``MAX_RUN`` lines), so that the result is known where the call is.
"""

from __future__ import annotations

from typing import Any

from ..jsonscan import JNode, parse_json
from ..model import Action, Diagnostic, Field, Fix, Span
from ..records import line_end, load, next_line
from .base import Construct, Dialect, ScanContext
from .tool_use import (
    Call,
    Input,
    call_action,
    failed,
    first_line,
    relative_path,
    tool_specs,
)

MAX_RUN = 64  # lines a unit may run on waiting for its calls' results

_RECORD_TYPES = frozenset({"user", "assistant", "summary", "system", "result", "file-history-snapshot"})
_SESSION_KEYS = ("sessionId", "session_id", "uuid", "leafUuid", "parentUuid", "cwd")

SPECS = tool_specs(
    "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "BashOutput", "KillShell", "Read",
    "Glob", "Grep", "LS", "TodoWrite", "WebFetch", "WebSearch", "Task", "ExitPlanMode",
    "SlashCommand",
)


class ClaudeCodeDialect(Dialect):
    name = "claude-code"
    description = "Claude Code session JSONL: tool_use blocks (Write, Edit, MultiEdit, Bash, Read, ...) and their results"
    order = 70
    records = True
    specs = SPECS
    any_type = True  # any tool name is a valid call

    def claims_records(self, first: Any) -> bool:
        return first.get("type") in _RECORD_TYPES and any(k in first for k in _SESSION_KEYS)

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None  # a recorded session is not written by hand

    def parse_records(self, ctx: ScanContext, start: int) -> Construct:
        text = ctx.text
        n = len(text)
        pos = start
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        pending: dict[str, int] = {}  # tool_use id -> index into actions, until its result
        calls: dict[str, int] = {}  # every tool_use id of this unit -> index into actions
        results: dict[str, tuple[str, Span]] = {}  # failed call id -> (message, where)
        lines = 0
        while pos < n:
            a = pos
            b = line_end(text, a)
            pos = next_line(text, b)
            lines += 1
            if text[a:b].strip():
                self._record(text, a, b, actions, diagnostics, pending, calls, results)
            if not pending or lines >= MAX_RUN:
                break
        for call_id, (message, where) in results.items():
            k = calls.get(call_id)
            if k is not None:
                actions[k], note = failed(actions[k], message, where)
                diagnostics.append(note)
        return Construct(Span(start, pos), actions, diagnostics, lookahead=pos)

    def _record(
        self,
        text: str,
        a: int,
        b: int,
        actions: list[Action],
        diagnostics: list[Diagnostic],
        pending: dict[str, int],
        calls: dict[str, int],
        results: dict[str, tuple[str, Span]],
    ) -> None:
        record, problem = load(text, a, b, "session record")
        if problem is not None:
            diagnostics.append(problem)
            return
        if not isinstance(record, dict):
            return
        message = record.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            return
        kinds = {c.get("type") for c in content if isinstance(c, dict)}
        if "tool_result" in kinds:
            for c in content:
                if not isinstance(c, dict) or c.get("type") != "tool_result":
                    continue
                call_id = str(c.get("tool_use_id", ""))
                pending.pop(call_id, None)
                if c.get("is_error"):
                    at = text.find(call_id, a, b) if call_id else -1
                    where = Span(at, at + len(call_id)) if at >= 0 else Span(a, b)
                    results[call_id] = (first_line(c.get("content")), where)
        if "tool_use" not in kinds:
            return
        node = parse_json(text, a, b).node  # the record again, with the range of every value
        if node is None:
            return
        msg = node.get("message")
        blocks = msg.value.get("content") if msg is not None else None
        if blocks is None or blocks.value.kind != "array":
            return
        cwd = record.get("cwd") if isinstance(record.get("cwd"), str) else None
        line = Span(a, b)

        def relativize(f: Field) -> Field:
            return relative_path(f, cwd)

        for block in blocks.value.items or ():
            if block.kind != "object" or block.value.get("type") != "tool_use":
                continue
            action = self._call(block, line, relativize)
            if action is None:
                continue
            call_id = block.value.get("id")
            if isinstance(call_id, str):
                pending[call_id] = calls[call_id] = len(actions)
            actions.append(action)

    def _call(self, block: JNode, line: Span, relativize: Any) -> Action | None:
        name = block.get("name")
        if name is None or name.value.kind != "string":
            return None
        inp = block.get("input")
        call = Call(
            self.name,
            name.value.value,
            name.value.inner_span,
            block.span,
            Input(inp.value) if inp is not None and inp.value.kind == "object" else None,
            line,
            "assistant message",
            relativize,
        )
        return call_action(call)


DIALECT = ClaudeCodeDialect()
