"""``actions-json``: ```` ```actions ```` blocks ``{"actions": [...]}`` and ```` ```iteration ````
blocks with ``next_actions`` (seed 000, GemBrain).

Every block in a document is parsed (the original read only the first); the closing fence is
found JSON-aware, so a fence inside a JSON string does not end the block; an action object
written in prose is reported as ``action-outside-block``.
"""

from __future__ import annotations

import re

from ..jsonscan import JNode, JResult, parse_json
from ..markdown import LINE_START, FenceOpen
from ..model import Action, ActionKind, Diagnostic, Fix, Span, TextEdit
from ..schema import ActionSpec, Check, boolean, integer, one_of, opt, req, specs, text, text_list
from ..shared import share
from .base import Construct, ScanContext
from .json_fields import (
    JsonDialect,
    fields_of,
    json_diagnostics,
    json_fence_close,
    json_fence_end,
    key_span,
    mark_partial,
)

# A fence line with an info string opens a block; it never closes one.
_OPENER_WITH_INFO = re.compile(LINE_START + r" {0,3}(?:`{3,}[ \t]*[^\s`]|~{3,}[ \t]*[^\s~])")

TASK_STATUS = one_of("pending", "ongoing", "paused", "completed")
GOAL_STATUS = one_of("pending", "completed")
ID = integer(minimum=1, what="an integer id")
LIMIT = integer(minimum=1, what="a positive integer")


def _family(kind: str, plural: str, id_name: str, status: Check | None = None) -> list[ActionSpec]:
    content = [req("content", text(), f"the {kind}'s text"), opt("notes", text())]
    status_field = [opt("status", status)] if status else []
    return [
        ActionSpec(f"create_{kind}", fields=(*content, *status_field), doc=f"Create a {kind}."),
        ActionSpec(
            f"update_{kind}",
            fields=(req(id_name, ID), opt("content", text()), opt("notes", text()), *status_field),
            doc=f"Update a {kind} by id.",
        ),
        ActionSpec(f"delete_{kind}", fields=(req(id_name, ID),), doc=f"Delete a {kind}."),
        ActionSpec(f"get_{kind}", fields=(req(id_name, ID),), doc=f"Read a {kind}."),
        ActionSpec(
            f"list_{plural}", fields=(*status_field, opt("limit", LIMIT)), doc=f"List {plural}."
        ),
        ActionSpec(
            f"search_{plural}",
            fields=(req("query", text()), opt("limit", LIMIT)),
            doc=f"Search {plural}.",
        ),
    ]


SPECS = specs(
    *_family("task", "tasks", "task_id", TASK_STATUS),
    *_family("memory", "memories", "memory_id"),
    *_family("goal", "goals", "goal_id", GOAL_STATUS),
    ActionSpec(
        "datavault_store",
        fields=(req("content", text()), opt("filetype", text()), opt("notes", text())),
        doc="Store an item in the datavault.",
    ),
    ActionSpec("datavault_get", fields=(req("item_id", ID),), doc="Read a datavault item."),
    ActionSpec(
        "datavault_update",
        fields=(req("item_id", ID), opt("content", text()), opt("filetype", text()), opt("notes", text())),
        doc="Update a datavault item.",
    ),
    ActionSpec("datavault_delete", fields=(req("item_id", ID),), doc="Delete a datavault item."),
    ActionSpec(
        "datavault_list", fields=(opt("filetype", text()), opt("limit", LIMIT)), doc="List items."
    ),
    ActionSpec(
        "datavault_search", fields=(req("query", text()), opt("limit", LIMIT)), doc="Search items."
    ),
    ActionSpec(
        "execute_code",
        ActionKind.CODE,
        fields=(req("code", text(), "Python code calling the `gb` API"),),
        doc="Python code run against the `gb` API (never run here; checked).",
    ),
)

ITERATION_FIELDS = {
    "iteration": integer(minimum=0, what="an integer"),
    "reasoning": text(),
    "observations": text_list(),
    "next_actions": None,
    "insights_gained": text_list(),
    "is_final": boolean(),
}


class ActionsJson(JsonDialect):
    name = "actions-json"
    description = "```actions fenced blocks `{\"actions\": [{\"type\": ...}]}` and ```iteration blocks with `next_actions`"
    order = 10
    type_key = "type"
    fence_infos = frozenset({"actions", "iteration"})
    prose_json = True
    specs = SPECS

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct:
        text = ctx.text
        close, read_to = json_fence_close(ctx, fence)
        body_end = close[0] if close else len(text)
        result = parse_json(text, fence.body_start, body_end)
        if close is not None and result.ok and _OPENER_WITH_INFO.search(text, result.end, close[0]):
            # The fence found closes a later block (```actions, ```python, ...): this block was
            # never closed (seed 000, edge case 1), and what follows its JSON is scanned anew.
            close, body_end = None, len(text)
        kind = fence.word.lower() if fence.word.lower() in self.fence_infos else "actions"
        what = share(f"```{kind} block")  # (every action's group label)
        diagnostics = json_diagnostics(text, result, Span(fence.body_start, body_end), f"bad JSON in {what}")
        # Recover an unclosed block: it ends after its JSON value when that parsed, else at the end.
        end = json_fence_end(text, fence, result, close, body_end, what, diagnostics)
        span = Span(fence.start, end)
        actions: list[Action] = []
        if result.node is not None:
            label = what
            if kind == "iteration":
                number = result.node.get("iteration") if result.node.kind == "object" else None
                if number is not None and isinstance(number.value.value, int):
                    label = f"```iteration {number.value.value}"
            items = self._items(result.node, kind, diagnostics)
            actions = [a for a in (self._action(item, span, label, diagnostics) for item in items) if a]
            mark_partial(actions, result)
        # The fence search tracks JSON strings from the body's start and reads to the end of
        # the text only when no fence line outside a string closes the block; what it read is
        # all the block's result rests on.
        lookahead = max(read_to, end)
        return Construct(span, actions, diagnostics, lookahead=lookahead)

    def _items(self, node: JNode, kind: str, diagnostics: list[Diagnostic]) -> list[JNode]:
        key = "next_actions" if kind == "iteration" else "actions"
        if node.kind == "array" and kind == "actions":
            diagnostics.append(
                Diagnostic(
                    "invalid-value",
                    'the block must be an object {"actions": [...]}, not a bare list; wrap the list',
                    node.span,
                )
            )
            return node.items or []
        if node.kind != "object":
            diagnostics.append(
                Diagnostic("invalid-value", f'the block must be a JSON object with "{key}"', node.span)
            )
            return []
        if kind == "iteration":
            for m in node.members or ():
                if m.key not in ITERATION_FIELDS:
                    diagnostics.append(
                        Diagnostic("unknown-field", f"an iteration has no field `{m.key}`", key_span(m))
                    )
                elif (check := ITERATION_FIELDS[m.key]) is not None:
                    problem = check(m.value.value)
                    if problem:
                        diagnostics.append(Diagnostic("invalid-value", f"`{m.key}` {problem}", m.value.span))
        member = node.get(key)
        if member is None:
            if kind == "actions" or node.get("is_final") is None or node.get("is_final").value.value is not True:  # type: ignore[union-attr]
                brace = Span(node.span.start, node.span.start + 1)
                diagnostics.append(
                    Diagnostic("missing-field", f'the block has no "{key}" list', brace, data={"field": key})
                )
            return []
        if member.value.kind != "array":
            diagnostics.append(
                Diagnostic("invalid-value", f'"{key}" must be a list of action objects', member.value.span)
            )
            return []
        return member.value.items or []

    def _action(self, item: JNode, group: Span, label: str, diagnostics: list[Diagnostic]) -> Action | None:
        if item.kind != "object":
            diagnostics.append(
                Diagnostic("invalid-value", 'each action must be an object with a "type"', item.span)
            )
            return None
        type_member = item.get("type")
        if type_member is None or not isinstance(type_member.value.value, str):
            brace = Span(item.span.start, item.span.start + 1)
            diagnostics.append(
                Diagnostic(
                    "missing-field",
                    'this action has no "type"; add e.g. "type": "create_task"',
                    type_member.value.span if type_member else brace,
                    data={"field": "type"},
                )
            )
            return None
        type_name = type_member.value.value
        spec = SPECS.get(type_name)
        fields = fields_of(item, skip=("type",))
        return Action(
            self.name,
            type_name,
            spec.kind if spec else ActionKind.OTHER,
            item.span,
            type_member.value.inner_span,
            fields,
            group=group,
            group_label=label,
        )

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        node = result.node
        if node is None or node.kind != "object":
            return None
        kind = node.value.get("type")  # (the value, not the members: a tree made as read stays unmade)
        known = isinstance(kind, str) and kind in SPECS
        actions_member = node.get("actions")
        if not known and actions_member is not None and actions_member.value.kind == "array":
            items = actions_member.value.items or []
            known = bool(items) and all(
                i.kind == "object" and isinstance(i.value.get("type"), str) for i in items
            )
        if not known:
            return None
        text = ctx.text
        span = Span(start, result.end)
        obj = text[span.start : span.end]
        wrapped = obj if actions_member is not None and "type" not in node.value else f'{{"actions": [{obj}]}}'
        lead = "" if start == 0 or text[start - 1] in "\r\n" else "\n"
        fix = Fix(
            "Wrap in an ```actions block",
            [TextEdit(span, f"{lead}```actions\n{wrapped}\n```\n")],
            True,
        )
        return Construct(
            span,
            diagnostics=[
                Diagnostic(
                    "action-outside-block",
                    "this action is written in prose and will not run; put it inside an ```actions block",
                    span,
                    fixes=[fix],
                )
            ],
            lookahead=result.end,
        )


DIALECT = ActionsJson()
