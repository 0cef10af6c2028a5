"""``aether``: AetherMind's action tags (seed 003) -- attributes plus a body.

``<aether-write path language description>file</aether-write>``,
``<aether-sandbox language test>code</aether-sandbox>``, ``<aether-forge tool action>JSON</...>``,
``<aether-install packages="a b">``, ``<aether-research query namespace>``,
``<aether-command type="refresh|restart">``, ``<aether-chat-summary>text</...>`` and
``<think>...</think>``. The dialect claims every ``aether-`` tag: the real project has about 35,
and an unknown one gets an ``unknown-action`` hint (from the schema rule), not an error storm.

Better than the original: attribute values may hold ``>`` and the other quote, may be unquoted or
absent (``test``), entities in them are decoded; tags without attributes and self-closing tags
work; ``<aether-install packages=..></aether-install>`` parses; the body keeps its exact bytes
(only the line break right after the opening tag is dropped) and ends at its own
closing tag, nested pairs of the same tag skipped whole. Thoughts and chat summaries are trimmed.

``<think>`` is the agent's thinking step only in a document that uses ``aether-*`` tags after it
(outside inline code): elsewhere it is a model's reasoning (an Aider history with a reasoning
model, a chat), no action, and nothing it holds is one (a tag or an edit block it drafts); an
unclosed one there hides nothing. A ``<think>`` with no aether tag after it, in an aether
transcript (its last reply), is no action either: the rule reads ahead only, as the incremental
re-scan does.

Attributes become fields under their own names; the body becomes ``content`` (write), ``code``
(sandbox), ``spec`` (forge, checked as JSON), ``summary``, ``thought``, or ``body`` (unknown
tags; body-less tags such as ``aether-install`` whose body holds text, which the agent ignores).
"""

from __future__ import annotations

from typing import Any

from ..jsonscan import parse_json, trailing_data_error
from ..model import Action, ActionKind, Diagnostic, Span
from ..schema import ActionSpec, one_of, opt, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .json_fields import json_diagnostics
from .tag_dialect import TagDialect


def _flag(value: Any) -> str | None:
    if value is True or (isinstance(value, str) and value.strip().lower() in ("true", "false")):
        return None
    return f'must be "true" or "false"; got {value!r}'


SPECS = specs(
    ActionSpec(
        "aether-write",
        ActionKind.CREATE_FILE,
        (
            req("path", text(), "the file to write, relative to the project"),
            opt("language", text(), "the file's language (python, javascript, ...)"),
            opt("description", text(), "what the file is"),
            req("content", text(), "the whole file, as the tag's body"),
        ),
        "Create or update a file.",
    ),
    ActionSpec(
        "aether-sandbox",
        ActionKind.CODE,
        (
            opt("language", text(), "the code's language (default python)"),
            opt("test", _flag, "whether this is a test run"),
            req("code", text(), "the code to run, as the tag's body"),
        ),
        "Run code in an isolated sandbox (never run here; checked).",
    ),
    ActionSpec(
        "aether-forge",
        ActionKind.OTHER,
        (
            req("tool", text(), "the tool's name"),
            req("action", text(), "what to do with it (generate, ...)"),
            opt("spec", text(), "the tool's JSON specification, as the tag's body"),
        ),
        "Create a tool (ToolForge).",
    ),
    ActionSpec(
        "aether-install",
        ActionKind.OTHER,
        (req("packages", text(), "the packages to install, separated by spaces"),),
        "Install packages.",
    ),
    ActionSpec(
        "aether-research",
        ActionKind.OTHER,
        (req("query", text(), "what to look up"), opt("namespace", text(), "where to look")),
        "Query the Mind's memory.",
    ),
    ActionSpec(
        "aether-command",
        ActionKind.OTHER,
        (req("type", one_of("refresh", "restart"), "the UI command"),),
        "Suggest a UI action to the user.",
    ),
    ActionSpec(
        "aether-chat-summary",
        ActionKind.OTHER,
        (opt("summary", text(), "the summary, as the tag's body"),),
        "A short summary of the exchange.",
    ),
    ActionSpec("think", ActionKind.OTHER, (opt("thought", text(), "the reasoning"),), "Thinking."),
)

BODY_FIELD = {
    "aether-write": "content",
    "aether-sandbox": "code",
    "aether-forge": "spec",
    "aether-chat-summary": "summary",
    "think": "thought",
}
BODYLESS = frozenset({"aether-install", "aether-research", "aether-command"})
_PROSE = frozenset({"aether-chat-summary", "think"})  # trimmed bodies


AETHER_TAG = "<aether-"


def _next_aether_tag(ctx: ScanContext, start: int) -> int:
    """Where the first ``<aether-`` tag at or after ``start`` outside inline code is, or -1."""
    at = ctx.find(AETHER_TAG, start)
    while at >= 0 and ctx.in_code_span(at):
        at = ctx.find(AETHER_TAG, at + 1)
    return at


class Aether(TagDialect):
    name = "aether"
    description = "<aether-write>, <aether-sandbox>, <aether-forge>, <aether-install>, <aether-research>, <aether-command>, <aether-chat-summary> and <think> tags (other aether-* tags get a hint)"
    order = 30
    tag_names = frozenset(SPECS)
    tag_prefixes = ("aether-",)
    specs = SPECS
    body_fields = BODY_FIELD
    prose_bodies = _PROSE
    bodyless = BODYLESS

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        construct = super().parse_tag(ctx, tag)
        if tag.canonical != "think":
            return construct
        at = _next_aether_tag(ctx, construct.end)
        if at >= 0:  # a document that uses aether tags: the agent's thinking step
            construct.lookahead = max(construct.lookahead, at + len(AETHER_TAG))
            return construct
        # A model's reasoning in an ordinary transcript: no action, and nothing it holds is one
        # (an unclosed one holds nothing: what follows it is read as usual).
        if any(d.code == "unclosed-tag" for d in construct.diagnostics):
            end = tag.name_span.end
            return Construct(Span(tag.start, end), lookahead=max(construct.lookahead, end),
                             watch=(*construct.watch, AETHER_TAG), behind=construct.behind)
        return Construct(construct.span, lookahead=construct.lookahead, watch=(*construct.watch, AETHER_TAG),
                         behind=construct.behind)

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        spec = action.fields.get("spec")
        if action.type != "aether-forge" or spec is None or not spec.value.strip():
            return
        text = ctx.text
        result = parse_json(text, spec.span.start, spec.span.end)
        what = "bad JSON in <aether-forge>"
        diagnostics.extend(json_diagnostics(text, result, spec.span, what))
        if result.ok:
            extra = trailing_data_error(text, result.end, spec.span.end)
            if extra is not None:
                diagnostics.append(Diagnostic("bad-json", f"{what}: {extra.message}", extra.span))


DIALECT = Aether()
