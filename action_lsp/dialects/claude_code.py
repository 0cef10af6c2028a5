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

Absolute paths under the session's ``cwd`` (Claude Code always writes absolute paths) are read
relative to it, so the session applies to any checkout of the project; a path outside ``cwd``
stays absolute and is an ``absolute-path`` error. The session's ``cwd`` is the first one it
records (the project directory Claude Code was started in): the records after a ``cd`` in
its shell (or a ``/cd``) carry the new directory, and reading ``/p/sub/b.py`` under ``/p/sub``
would edit the project's ``b.py`` instead of ``sub/b.py``. A call whose result was an error (a failed
``Edit``, a call the user rejected) is shown with a ``tool-error`` hint and never applied.

Each line is a unit; a call's line looks for its result in the lines after it (at most
``records.MAX_RUN``), see :mod:`action_lsp.records`.
"""

from __future__ import annotations

from typing import Any

from ..jsonrecord import record_node
from ..jsonscan import JNode
from ..model import Action, Diagnostic, EditRules, Field, Fix, Span
from .base import Construct, Dialect, ScanContext
from .tool_calls import first_cwd, rejected
from .tool_use import (
    Call,
    Input,
    call_action,
    first_line,
    relative_path,
    tool_rules,
    tool_specs,
)

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
    result_markers = ('"tool_result"',)
    specs = SPECS
    any_type = True  # any tool name is a valid call

    def claims_records(self, first: Any) -> bool:
        """A user or assistant message record (any other record of a session -- a summary, a
        file-history snapshot, a permission-mode change -- holds no call of its own)."""
        if not isinstance(first, dict):
            return False
        kind = first.get("type")
        return isinstance(kind, str) and kind in _RECORD_TYPES and any(k in first for k in _SESSION_KEYS)

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None  # a recorded session is not written by hand

    def edit_rules(self, action: Action) -> EditRules:
        return tool_rules(action)

    def parse_record(
        self, ctx: ScanContext, start: int, end: int, record: Any, problem: Diagnostic | None
    ) -> tuple[Construct, dict[str, list[int]]]:
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        calls: dict[str, list[int]] = {}  # tool_use id -> indices into actions
        first: tuple[str, int] | None = None
        if problem is not None:
            diagnostics.append(problem)
        elif isinstance(record, dict):
            first = first_cwd(ctx)
            self._calls(ctx.text, start, end, record, first, actions, calls, diagnostics)
        # (read under the session's first cwd, maybe far before: an open document re-reads every
        # line when it changes, see action_lsp.session_dirs)
        return Construct(Span(start, end), actions, diagnostics, lookahead=end), calls

    def record_results(self, record: Any, text: str, start: int, end: int) -> dict[str, tuple[str | None, Span]]:
        """The ``tool_result`` blocks of a user record: the first for each call id."""
        found: dict[str, tuple[str | None, Span]] = {}
        content = _content(record)
        for c in content or ():
            if not isinstance(c, dict) or c.get("type") != "tool_result":
                continue
            call_id = str(c.get("tool_use_id", ""))
            if call_id in found:
                continue
            if c.get("is_error") or rejected(c.get("content")) is not None:
                at = text.find(call_id, start, end) if call_id else -1
                where = Span(at, at + len(call_id)) if at >= 0 else Span(start, end)
                found[call_id] = (first_line(c.get("content")), where)
            else:
                found[call_id] = (None, Span(start, start))
        return found

    def _calls(
        self, text: str, a: int, b: int, record: dict[str, Any], first: tuple[str, int] | None,
        actions: list[Action], calls: dict[str, list[int]], diagnostics: list[Diagnostic],
    ) -> None:
        """The ``tool_use`` blocks of an assistant record, as actions."""
        content = _content(record)
        if content is None or not any(isinstance(c, dict) and c.get("type") == "tool_use" for c in content):
            return
        node = record_node(text, a, b, record)  # the record again, with the range of every value
        if node is None:
            return
        msg = node.get("message")
        blocks = msg.value.get("content") if msg is not None else None
        if blocks is None or blocks.value.kind != "array":
            return
        cwd = first[0] if first is not None else None
        line = Span(a, b)

        def relativize(f: Field) -> Field:
            return relative_path(f, cwd)

        for block in blocks.value.items or ():
            if block.kind != "object" or block.value.get("type") != "tool_use":
                continue
            action = self._call(block, line, relativize, diagnostics)
            if action is None:
                continue
            call_id = block.value.get("id")
            if isinstance(call_id, str):
                calls.setdefault(call_id, []).append(len(actions))
            actions.append(action)

    def _call(self, block: JNode, line: Span, relativize: Any, diagnostics: list[Diagnostic]) -> Action | None:
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
        action = call_action(call)
        diagnostics.extend(call.diagnostics)
        return action


def _content(record: Any) -> list[Any] | None:
    message = record.get("message") if isinstance(record, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else None


DIALECT = ClaudeCodeDialect()

