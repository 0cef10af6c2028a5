"""``action-plan``: an action sequence (seed 004) — ``{"actions": [{"action": "THINK", "context":
...}], "can_extend": ..., "reasoning": ...}`` — as the whole document, in prose, or inside a
```` ```json ```` fence (how structured outputs are shown). Recognised by its shape: an
``actions`` list whose items carry an ``action`` field; any other ``json`` fence stays an example.
"""

from __future__ import annotations

import re

from ..jsonscan import JNode, JResult, parse_json, trailing_data_error
from ..markdown import FenceOpen
from ..model import Action, ActionKind, Diagnostic, Span
from ..schema import ActionSpec, boolean, req, specs, text
from .base import Construct, ScanContext
from .json_fields import JsonDialect, fields_of, json_diagnostics, key_span, mark_partial

_TYPES = {
    "THINK": "Process emotional reactions and analyze the situation",
    "UPDATE_MOOD": "Change the agent's current mood and intensity",
    "ADD_MEMORY": "Store important details",
    "REMOVE_MEMORY": "Forget specific memories",
    "UPDATE_APPEARANCE": "Visual changes",
    "UPDATE_ENVIRONMENT": "Setting changes",
    "ADD_GOAL": "Add new goals",
    "REMOVE_GOAL": "Complete/abandon goals",
    "ADD_DESIRE": "New immediate wants",
    "REMOVE_DESIRE": "Satisfy/abandon desires",
    "SPEAK": "Generate a conversational response",
    "DONE": "Complete the sequence",
}

SPECS = specs(
    *(
        ActionSpec(name, ActionKind.OTHER, (req("context", text(), "what this action should focus on"),), doc)
        for name, doc in _TYPES.items()
    )
)

SEQUENCE_FIELDS = {"actions": None, "can_extend": boolean(), "reasoning": text()}


def is_plan(node: JNode | None) -> bool:
    """The recognising shape: an object whose ``actions`` list holds items with ``action``."""
    if node is None or node.kind != "object":
        return False
    member = node.get("actions")
    if member is None or member.value.kind != "array" or not member.value.items:
        return False
    return any(i.kind == "object" and i.get("action") is not None for i in member.value.items)


class ActionPlan(JsonDialect):
    name = "action-plan"
    description = "action sequences `{\"actions\": [{\"action\": \"THINK\", ...}], \"can_extend\", \"reasoning\"}`: the whole document, in prose or in a ```json fence"
    order = 40
    type_key = "action"
    sequential = True
    fence_infos = frozenset({"json", "jsonc", "json5"})
    fence_body_needs = re.compile(r"action(?!s)|\\")  # an item's "action" key (or an escape)
    prose_json = True
    specs = SPECS

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(ctx.text)
        result = parse_json(ctx.text, fence.body_start, body_end)
        if not is_plan(result.node):
            return None
        end = close[1] if close else len(ctx.text)
        construct = self._plan(ctx.text, result, Span(fence.body_start, body_end), Span(fence.start, end))
        construct.lookahead = end
        return construct

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        if not is_plan(result.node):
            return None
        return self._plan(ctx.text, result, Span(start, result.end), Span(start, result.end))

    def _plan(self, text: str, result: JResult, body: Span, span: Span) -> Construct:
        node = result.node
        assert node is not None
        diagnostics = json_diagnostics(text, result, body, "bad JSON in action plan")
        if result.ok:
            extra = trailing_data_error(text, result.end, body.end)
            if extra is not None and body.end > result.end and span != body:
                diagnostics.append(Diagnostic("bad-json", f"bad JSON in action plan: {extra.message}", extra.span))
        brace = Span(node.span.start, node.span.start + 1)
        for m in node.members or ():
            if m.key not in SEQUENCE_FIELDS:
                diagnostics.append(Diagnostic("unknown-field", f"an action sequence has no field `{m.key}`", key_span(m)))
            elif (check := SEQUENCE_FIELDS[m.key]) is not None and (problem := check(m.value.value)):
                diagnostics.append(Diagnostic("invalid-value", f"`{m.key}` {problem}", m.value.span))
        if result.ok:
            for key in ("can_extend", "reasoning"):
                if node.get(key) is None:
                    diagnostics.append(
                        Diagnostic("missing-field", f"the action sequence needs `{key}`", brace, data={"field": key})
                    )
        actions: list[Action] = []
        member = node.get("actions")
        assert member is not None and member.value.items is not None
        for item in member.value.items:
            if item.kind != "object":
                diagnostics.append(Diagnostic("invalid-value", 'each planned action must be an object with "action"', item.span))
                continue
            kind_member = item.get("action")
            if kind_member is None or not isinstance(kind_member.value.value, str):
                diagnostics.append(
                    Diagnostic(
                        "missing-field",
                        'this planned action has no "action"; add e.g. "action": "THINK"',
                        kind_member.value.span if kind_member else Span(item.span.start, item.span.start + 1),
                        data={"field": "action"},
                    )
                )
                continue
            actions.append(
                Action(
                    self.name,
                    kind_member.value.value,
                    ActionKind.OTHER,
                    item.span,
                    kind_member.value.inner_span,
                    fields_of(item, skip=("action",)),
                    group=span,
                    group_label="action plan",
                )
            )
        mark_partial(actions, result)
        return Construct(span, actions, diagnostics, lookahead=span.end)


DIALECT = ActionPlan()
