"""``tool-calls``: tool calls in OpenAI- and Anthropic-style JSON, and Codex CLI rollouts.

Recognised by shape, as a whole JSON document (a ``.json`` export), a JSON object in prose, or
line by line in a JSON Lines file:

* OpenAI chat: ``{"messages": [{"role": "assistant", "tool_calls": [{"id", "type":
  "function", "function": {"name", "arguments"}}]}]}`` (also a response's ``choices[].message``
  and fine-tuning JSONL, one ``{"messages": [...]}`` per line). ``arguments`` is a JSON
  *string*: its fields are read from the decoded string, with ranges through both levels of
  escapes.
* Anthropic messages: ``content[]`` blocks ``{"type": "tool_use", "id", "name", "input"}`` in a
  message, a ``messages`` list or a response; a ``tool_result`` with ``is_error`` marks its call
  failed (a ``tool-error`` hint; never applied).
* Codex CLI rollouts (``~/.codex/sessions/.../rollout-*.jsonl``): records ``{"type":
  "response_item", "payload": {...}}`` (and the older bare items) with ``function_call``
  (``name``, ``arguments`` string), ``custom_tool_call`` (``apply_patch`` with its patch as
  ``input``) and ``local_shell_call``.

The edit tools are recognised by name and input (see :mod:`.tool_use`):
``str_replace_based_edit_tool`` / ``str_replace_editor`` (``create``, ``str_replace``,
``insert``, ``view``), ``write_file`` / ``create_file`` / ``edit_file``, ``shell`` / ``bash`` /
``execute_command`` as commands, ``apply_patch`` as a Codex patch (read by the ``codex-patch``
dialect's parser when it is installed; otherwise shown as a call that is not applied).
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

from ..jsonscan import JNode, JResult, parse_json
from ..markdown import FenceOpen
from ..model import Action, Diagnostic, EditRules, Field, FileView, Fix, Span
from .base import Construct, Dialect, ScanContext
from .json_fields import json_diagnostics
from .tool_use import (
    Call,
    Input,
    call_action,
    decode_arguments,
    failed,
    first_line,
    tool_rules,
    tool_specs,
)

SPECS = tool_specs(
    "str_replace_based_edit_tool", "str_replace_editor", "write_file", "create_file", "edit_file",
    "apply_patch", "shell", "bash", "execute_command", "read_file",
)
_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_MARKERS = ('"tool_calls"', '"tool_use"', '"function_call"', '"custom_tool_call"', '"local_shell_call"')

_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


def _failure(output: Any) -> str | None:
    """The message of a Codex call output that reports a failure, else None: a JSON output
    whose ``metadata.exit_code`` is not 0, a text starting ``Exit code: N`` with N not 0, or
    apply_patch's ``verification failed``."""
    if not isinstance(output, str):
        return None
    text = output
    if output.startswith("{"):
        try:
            data = json.loads(output)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            if isinstance(code, int) and code != 0:
                return first_line(data.get("output")) or f"exit code {code}"
            return None
    head = text.lstrip()
    if head.startswith("Exit code:"):
        number = head[len("Exit code:"):].split(None, 1)[0] if head[len("Exit code:"):].strip() else "0"
        if number.lstrip("-").isdigit() and int(number) != 0:
            return first_line(text)
        return None
    if "verification failed" in head[:200] or head.startswith(("Failed to apply", "error:")):
        return first_line(text)
    return None


def _resolve(actions: list[Action], diagnostics: list[Diagnostic], calls: dict[str, list[int]],
             errors: dict[str, tuple[str, Span]]) -> None:
    """Mark the calls whose results were errors as failed (shown, not applied)."""
    for call_id, (message, where) in errors.items():
        for k in calls.get(call_id, ()):
            actions[k], note = failed(actions[k], message, where)
            diagnostics.append(note)


def _type(record: dict[str, Any]) -> str | None:
    """A record's ``"type"`` when it is a string (a half-typed line may hold anything)."""
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def _patch_parser() -> Any:
    """``parse_patch`` of the ``codex-patch`` dialect, when this installation has it."""
    try:
        return importlib.import_module(f"{__package__}.codex_patch").parse_patch
    except (ImportError, AttributeError):
        return None


def _patch_view() -> Any:
    """``patch_view`` of the ``codex-patch`` dialect (an ``apply_patch`` call's file views)."""
    try:
        return importlib.import_module(f"{__package__}.codex_patch").patch_view
    except (ImportError, AttributeError):
        return None


class ToolCalls(Dialect):
    name = "tool-calls"
    description = "OpenAI/Anthropic tool-call JSON (messages, tool_calls, tool_use) and Codex CLI rollout JSONL"
    order = 75
    records = True
    result_markers = ('_output"',)  # function_call_output, custom_tool_call_output
    prose_json = True
    fence_infos = frozenset({"json"})
    fence_body_needs = re.compile(r"messages|choices|input|output|role|type|\\")  # keys _shaped reads
    specs = SPECS
    any_type = True  # any tool name is a valid call

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None

    def edit_rules(self, action: Action) -> EditRules:
        return tool_rules(action)

    def file_view(self, action: Action) -> FileView | None:
        view = super().file_view(action)
        patched = _patch_view() if action.edits else None
        return patched(view) if patched is not None else view

    # -- recognising ---------------------------------------------------------------------------

    def claims_records(self, first: Any) -> bool:
        """Any record (an object): its tool-call-shaped objects are read."""
        return isinstance(first, dict)

    @staticmethod
    def _shaped(node: JNode) -> bool:
        """A tool-call document: messages, a response with choices/content/output, one
        message, or a rollout item."""
        v = node.value
        if not isinstance(v, dict):
            return False
        if isinstance(v.get("messages"), list) or isinstance(v.get("choices"), list):
            return True
        if isinstance(v.get("input"), list) or isinstance(v.get("output"), list):
            return True
        if v.get("role") in ("assistant", "user", "tool") and ("tool_calls" in v or isinstance(v.get("content"), list)):
            return True
        return _type(v) in _ITEMS or (v.get("type") == "message" and isinstance(v.get("content"), list))

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        node = result.node
        if node is None or node.kind != "object" or not self._shaped(node):
            return None
        span = Span(start, result.end)
        actions, diagnostics = self._walk(node, span, "tool calls")
        diagnostics[:0] = json_diagnostics(ctx.text, result, span, "bad JSON in tool calls")
        return Construct(span, actions, diagnostics, lookahead=result.end)

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """A ```` ```json ```` fence whose body is a tool-call document (else an example)."""
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(ctx.text)
        result = parse_json(ctx.text, fence.body_start, body_end)
        if result.node is None or result.node.kind != "object" or not self._shaped(result.node):
            return None
        end = close[1] if close else len(ctx.text)
        span = Span(fence.start, end)
        actions, diagnostics = self._walk(result.node, span, "```json tool calls")
        diagnostics[:0] = json_diagnostics(ctx.text, result, Span(fence.body_start, body_end), "bad JSON in tool calls")
        return Construct(span, actions, diagnostics, lookahead=end)

    # -- JSON Lines ----------------------------------------------------------------------------

    def parse_record(
        self, ctx: ScanContext, start: int, end: int, record: Any, problem: Diagnostic | None
    ) -> tuple[Construct, dict[str, list[int]]]:
        """One line: its tool calls (failed ones by the results in the same line marked). A
        Codex call's output comes on a later line (:meth:`record_results`); one that says it
        failed makes the call a ``tool-error`` hint, not applied."""
        text = ctx.text
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        calls: dict[str, list[int]] = {}
        waiting: dict[str, list[int]] = {}
        if problem is not None:
            diagnostics.append(problem)
        elif isinstance(record, dict):
            payload = record.get("payload")
            item: dict[str, Any] = payload if isinstance(payload, dict) else record
            shaped = _type(item) not in _OUTPUTS and any(text.find(m, start, end) >= 0 for m in _MARKERS)
            node = parse_json(text, start, end).node if shaped else None
            if node is not None:
                errors: dict[str, tuple[str, Span]] = {}
                self._visit(node, Span(start, end), "session record", actions, diagnostics, calls, errors)
                _resolve(actions, diagnostics, calls, errors)
                if _type(item) in _ITEMS:  # a Codex call: its output follows on a later line
                    waiting = calls
        return Construct(Span(start, end), actions, diagnostics, lookahead=end), waiting

    def record_results(self, record: Any, text: str, start: int, end: int) -> dict[str, tuple[str | None, Span]]:
        """A Codex call output: whether it says the call failed."""
        if not isinstance(record, dict):
            return {}
        payload = record.get("payload")
        item: dict[str, Any] = payload if isinstance(payload, dict) else record
        if _type(item) not in _OUTPUTS:
            return {}
        call_id = str(item.get("call_id", ""))
        message = _failure(item.get("output"))
        if message is None:
            return {call_id: (None, Span(start, start))}
        at = text.find(call_id, start, end) if call_id else -1
        return {call_id: (message, Span(at, at + len(call_id)) if at >= 0 else Span(start, end))}

    # -- walking the shapes --------------------------------------------------------------------

    def _walk(self, node: JNode, group: Span, label: str) -> tuple[list[Action], list[Diagnostic]]:
        """The calls of one JSON document, failed ones (by their results in it) marked."""
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        calls: dict[str, list[int]] = {}
        errors: dict[str, tuple[str, Span]] = {}
        self._visit(node, group, label, actions, diagnostics, calls, errors)
        _resolve(actions, diagnostics, calls, errors)
        return actions, diagnostics

    def _visit(self, node: JNode, group: Span, label: str, actions: list[Action],
               diagnostics: list[Diagnostic], calls: dict[str, list[int]],
               errors: dict[str, tuple[str, Span]]) -> None:

        def items(member: str, of: JNode) -> list[JNode]:
            m = of.get(member)
            return [i for i in (m.value.items or ()) if i.kind == "object"] if m and m.value.kind == "array" else []

        def visit(obj: JNode) -> None:
            v = obj.value
            if not isinstance(v, dict):
                return
            payload = obj.get("payload")
            if payload is not None and payload.value.kind == "object":
                visit(payload.value)
                return
            for key in ("messages", "input", "output"):
                for item in items(key, obj):
                    visit(item)
            for choice in items("choices", obj):
                msg = choice.get("message") or choice.get("delta")
                if msg is not None and msg.value.kind == "object":
                    visit(msg.value)
            kind = _type(v)
            if kind in _ITEMS:
                self._item(obj, group, label, actions, diagnostics, calls)
                return
            for call in items("tool_calls", obj):
                self._openai_call(call, group, label, actions, diagnostics, calls)
            if "role" in v or kind == "message":
                for block in items("content", obj):
                    bv = block.value
                    if bv.get("type") == "tool_use":
                        self._anthropic_call(block, group, label, actions, diagnostics, calls)
                    elif bv.get("type") == "tool_result" and bv.get("is_error"):
                        call_id = str(bv.get("tool_use_id", ""))
                        member = block.get("tool_use_id")
                        where = member.value.inner_span if member is not None else block.span
                        errors[call_id] = (first_line(bv.get("content")), where)

        visit(node)

    def _add(self, call: Call, call_id: Any, actions: list[Action], diagnostics: list[Diagnostic],
             calls: dict[str, list[int]]) -> None:
        action = call_action(call)
        diagnostics.extend(call.diagnostics)
        patch = action.fields.get("patch")
        found = self._patch_actions(action, patch) if patch is not None else None
        added = found[0] if found else [action, *call.more]
        if isinstance(call_id, str):
            calls[call_id] = list(range(len(actions), len(actions) + len(added)))
        actions.extend(added)
        if found:
            diagnostics.extend(found[1])

    def _patch_actions(self, action: Action, patch: Field) -> tuple[list[Action], list[Diagnostic]] | None:
        parse_patch = _patch_parser()
        value = patch.value
        if parse_patch is None or not isinstance(value, str) or patch.source_map is None:
            return None
        begin = value.find("*** Begin Patch")
        if begin < 0:
            return None
        result = parse_patch(value, begin, len(value), dialect=self.name, outer=patch.source_map,
                             group=action.group)
        if not result.actions:
            return None
        for a in result.actions:
            a.group_label = action.group_label
        return list(result.actions), list(result.diagnostics)

    def _openai_call(self, call: JNode, group: Span, label: str, actions: list[Action],
                     diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        fn = call.get("function")
        if fn is None or fn.value.kind != "object":
            return
        self._function(fn.value, call, call.value.get("id"), group, label, actions, diagnostics, calls)

    def _item(self, item: JNode, group: Span, label: str, actions: list[Action],
              diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        """A Responses-API / Codex item: function_call, custom_tool_call, local_shell_call."""
        v = item.value
        call_id = v.get("call_id") or v.get("id")
        if v.get("type") == "local_shell_call":
            act = item.get("action")
            inp = Input(act.value) if act is not None and act.value.kind == "object" else None
            kind_member = item.get("type")
            assert kind_member is not None
            self._add(Call(self.name, "local_shell", kind_member.value.inner_span, item.span, inp, group, label),
                      call_id, actions, diagnostics, calls)
            return
        if v.get("type") == "custom_tool_call":
            name = item.get("name")
            raw = item.get("input")
            if name is None or name.value.kind != "string":
                return
            field = None
            if raw is not None and raw.value.kind == "string":
                smap = raw.value.source_map
                field = Field("patch", raw.value.value, raw.value.inner_span, None, smap)
            call = Call(self.name, name.value.value, name.value.inner_span, item.span, None, group, label, raw=field)
            self._add(call, call_id, actions, diagnostics, calls)
            return
        self._function(item, item, call_id, group, label, actions, diagnostics, calls)

    def _function(self, fn: JNode, whole: JNode, call_id: Any, group: Span, label: str,
                  actions: list[Action], diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        name = fn.get("name")
        if name is None or name.value.kind != "string":
            return
        args = fn.get("arguments")
        inp: Input | None = None
        problems: list[Diagnostic] = []
        if args is not None and args.value.kind == "string":
            inp, problems = decode_arguments(args.value, f"`{name.value.value}`")
        elif args is not None and args.value.kind == "object":
            inp = Input(args.value)
        call = Call(self.name, name.value.value, name.value.inner_span, whole.span, inp, group, label,
                    diagnostics=problems)
        self._add(call, call_id, actions, diagnostics, calls)

    def _anthropic_call(self, block: JNode, group: Span, label: str, actions: list[Action],
                        diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        name = block.get("name")
        if name is None or name.value.kind != "string":
            return
        inp = block.get("input")
        call = Call(self.name, name.value.value, name.value.inner_span, block.span,
                    Input(inp.value) if inp is not None and inp.value.kind == "object" else None, group, label)
        self._add(call, block.value.get("id"), actions, diagnostics, calls)


DIALECT = ToolCalls()
