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

Attributes become fields under their own names; the body becomes ``content`` (write), ``code``
(sandbox), ``spec`` (forge, checked as JSON), ``summary``, ``thought``, or ``body`` (unknown
tags; body-less tags such as ``aether-install`` whose body holds text, which the agent ignores).
"""

from __future__ import annotations

from typing import Any

from ..jsonscan import parse_json, trailing_data_error
from ..markdown import line_end
from ..model import Action, ActionKind, Diagnostic, Field, Span
from ..schema import ActionSpec, one_of, opt, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .json_fields import json_diagnostics
from .tag_dialect import TagDialect
from .tags import (
    Finder,
    attribute_fields,
    body_value,
    closer_at,
    find_close,
    insert_closing_fix,
    mismatched_close,
    parse_start_tag,
    stripped_value,
    trimmed_end,
    unclosed_start_tag,
    watched_tags,
)


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


class Aether(TagDialect):
    name = "aether"
    description = "<aether-write>, <aether-sandbox>, <aether-install> and the other aether-* tags (seed 003)"
    order = 30
    body_fields = BODY_FIELD
    tag_names = frozenset(SPECS)
    tag_prefixes = ("aether-",)
    specs = SPECS

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        text = ctx.text
        start = parse_start_tag(ctx, tag.start, tag.name_span.end)
        if not start.closed:
            return Construct(
                Span(tag.start, max(start.end, tag.name_span.end)),
                diagnostics=[unclosed_start_tag(start)],
                lookahead=max(start.lookahead, start.end),
            )
        type_name = tag.canonical
        spec = SPECS.get(type_name)
        fields = attribute_fields(start)
        diagnostics: list[Diagnostic] = []
        end = lookahead = start.end
        watch: tuple[str, ...] = ()
        body: tuple[int, int] | None = None
        if not start.self_closing:
            close = find_close(ctx, tag.name, start.end)
            if close is None and tag.name != type_name:
                close = find_close(ctx, type_name, start.end)
            if close is not None:
                lookahead = close.lookahead
            else:  # read to the end for a closing tag that is not there
                watch = watched_tags(tag.name, type_name)
            if close is not None:
                body, end = (start.end, close.start), close.end
            elif type_name in BODYLESS:
                diagnostics.append(_unclosed(text, tag, start.end, False))
            else:
                bound = ctx.next_tag_start(start.end)
                lookahead = line_end(text, bound)  # telling what stops it reads that line
                stray = _stray_closer(text, start.end, bound)
                if stray is not None:
                    body, end = (start.end, stray.start), stray.end
                    diagnostics.append(mismatched_close(text, stray, tag.name))
                else:
                    end = trimmed_end(text, start.end, bound)
                    body = (start.end, end)
                    multiline = any(c in text[start.end : end] for c in "\r\n")
                    diagnostics.append(_unclosed(text, tag, end, multiline))
        if body is not None:
            self._body(text, type_name, body, fields, diagnostics)
        action = Action(
            self.name,
            type_name,
            spec.kind if spec else ActionKind.OTHER,
            Span(tag.start, end),
            tag.name_span,
            fields,
        )
        return Construct(Span(tag.start, end), [action], diagnostics, max(lookahead, end), watch)

    def _body(
        self,
        text: str,
        type_name: str,
        body: tuple[int, int],
        fields: dict[str, Field],
        diagnostics: list[Diagnostic],
    ) -> None:
        name = BODY_FIELD.get(type_name, "body")
        extract = stripped_value if type_name in _PROSE else body_value
        value, span, smap = extract(text, *body)
        if name == "body" and not value.strip():
            return  # an empty body of a body-less or unknown tag says nothing
        fields[name] = Field(name, value, span, None, smap)
        if type_name == "aether-forge" and value.strip():
            result = parse_json(text, span.start, span.end)
            what = "bad JSON in <aether-forge>"
            diagnostics.extend(json_diagnostics(text, result, span, what))
            if result.ok:
                extra = trailing_data_error(text, result.end, span.end)
                if extra is not None:
                    diagnostics.append(
                        Diagnostic("bad-json", f"{what}: {extra.message}", extra.span)
                    )


def _unclosed(text: str, tag: TagOpen, at: int, multiline: bool) -> Diagnostic:
    return Diagnostic(
        "unclosed-tag",
        f"<{tag.name}> is never closed; add </{tag.name}>"
        + (" after its body" if multiline else " right after it"),
        tag.name_span,
        fixes=[insert_closing_fix(text, tag.name, at, multiline)],
    )


def _stray_closer(text: str, start: int, bound: int) -> Span | None:
    """The first closing tag of another aether action (``</aether-...>``, ``</think>``) in
    ``[start, bound)``: it most likely ends the unclosed action."""
    finder = Finder(text, bound)
    best: Span | None = None
    for needle in ("</aether-", "</think"):
        pos = start
        while True:
            at = finder.find(needle, pos)
            if at < 0 or (best is not None and at > best.start):
                break
            found = closer_at(text, at, bound)
            if found is not None:
                best = Span(at, found[1])
                break
            pos = at + 1
    return best


DIALECT = Aether()
