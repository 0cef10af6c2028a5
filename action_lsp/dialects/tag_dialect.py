"""The shared base of the tag dialects: what every dialect written as XML-like tags inherits.

A tag dialect states what differs -- its tag names (``specs``), whether fields are written as
attributes plus a body (``<aether-write path="a.py">body</aether-write>``) or as child elements
(``<create_file><path>a.py</path>...``), which field the body holds, which closing tags end an
unclosed action -- and inherits the tolerant parsing, exact spans, unclosed- and stray-tag
recovery and incrementality (through :mod:`action_lsp.dialects.tags`).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import Action, Fix, Span, TextEdit
from .base import Dialect


class TagDialect(Dialect):
    """Base class of the tag dialects."""

    children: bool = False  # fields are child elements (True) or attributes + a body (False)
    body_fields: Mapping[str, str] = {}  # type -> the field its body holds (attribute dialects)

    def field_syntax(self, type_name: str, field: str) -> str:
        if self.children:
            return "child"
        return "body" if self.body_fields.get(type_name) == field else "attribute"

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        syntax = self.field_syntax(action.type, field)
        if syntax == "attribute":
            at = action.name_span.end
            return Fix(f"Insert `{field}`", [TextEdit(Span(at, at), f' {field}=""')])
        if syntax == "child":
            return insert_child_fix(text, action, field)
        return None


def insert_child_fix(text: str, action: Action, field: str) -> Fix | None:
    """``<field></field>`` before the action's closing tag (on a line of its own, indented one
    step more than the closing tag, when the closing tag starts its line)."""
    closing = f"</{text[action.name_span.start : action.name_span.end]}"
    at = text.rfind(closing, action.name_span.end, action.span.end)
    if at < 0:
        return None
    line_start = max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1
    element = f"<{field}></{field}>"
    indent = text[line_start:at]
    if line_start > action.span.start and not indent.strip():
        edit = TextEdit(Span(line_start, line_start), f"{indent}  {element}\n")
    else:
        edit = TextEdit(Span(at, at), element)
    return Fix(f"Insert <{field}>", [edit])
