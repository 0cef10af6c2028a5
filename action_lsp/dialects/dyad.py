"""``dyad``: the tags of Dyad (dyad-sh/dyad), the local AI app builder.

``<dyad-write path description>file</dyad-write>`` (creates or replaces the whole file),
``<dyad-rename from to>``, ``<dyad-delete path>``, ``<dyad-search-replace path description>``
holding ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE`` blocks,
``<dyad-add-dependency packages="a b">``, ``<dyad-execute-sql description>SQL</...>``,
``<dyad-command type="rebuild|restart|refresh">``, ``<dyad-chat-summary>text</...>``, and the
tags Dyad writes into a chat itself (``<dyad-output>``, ``<dyad-problem-report>``, ...). The
dialect claims every ``dyad-`` tag; an unknown one is a hint.

What Dyad's own parser (``src/ipc/utils/dyad_tag_parser.ts``) extracts, we extract: a tag counts
only once closed (a write still streaming in is no action), the body of a write, a
search-replace or an SQL query is trimmed, a Markdown fence line that opens or closes it is
dropped, and ``&lt; &gt; &amp;`` in bodies are decoded (values map back to the exact
characters through their source map). Better than Dyad: attribute values may hold ``>`` and
the other quote, and malformed SEARCH/REPLACE markers are reported where they are written
(Dyad finds no block and applies nothing).
"""

from __future__ import annotations

import re

from ..model import Action, ActionKind, Diagnostic, Edit, EditRules, Field, SourceMap, Span
from ..schema import ActionSpec, one_of, opt, req, specs, text
from .base import ScanContext
from .search_replace import DYAD, parse_blocks
from .tag_dialect import TagDialect
from .tags import decoded

SPECS = specs(
    ActionSpec(
        "dyad-write",
        ActionKind.WRITE_FILE,
        (
            req("path", text(), "the file to write, relative to the app"),
            opt("description", text(), "what the change does"),
            req("content", text(), "the whole new file, as the tag's body"),
        ),
        "Write a whole file, creating it or replacing it.",
    ),
    ActionSpec(
        "dyad-rename",
        ActionKind.RENAME_FILE,
        (req("from", text(), "the file to rename"), req("to", text(), "its new path")),
        "Rename or move a file.",
    ),
    ActionSpec(
        "dyad-delete",
        ActionKind.DELETE_FILE,
        (req("path", text(), "the file to delete"),),
        "Delete a file.",
    ),
    ActionSpec(
        "dyad-search-replace",
        ActionKind.MODIFY_FILE,
        (
            req("path", text(), "the file to change"),
            opt("description", text(), "what the change does"),
            req("diff", text(), "<<<<<<< SEARCH / ======= / >>>>>>> REPLACE blocks, as the body"),
        ),
        "Replace text in a file, one SEARCH/REPLACE block per change.",
    ),
    ActionSpec(
        "dyad-copy",
        ActionKind.OTHER,
        (
            req("from", text(), "the file to copy"),
            req("to", text(), "where the copy goes"),
            opt("description", text(), "why"),
        ),
        "Copy a file (not applied here).",
    ),
    ActionSpec(
        "dyad-add-dependency",
        ActionKind.OTHER,
        (req("packages", text(), "the npm packages to install, separated by spaces"),),
        "Install npm packages (never run here).",
    ),
    ActionSpec(
        "dyad-execute-sql",
        ActionKind.OTHER,
        (opt("description", text(), "what the query does"), req("sql", text(), "the SQL, as the body")),
        "Run SQL against the app's database (never run here).",
    ),
    ActionSpec(
        "dyad-command",
        ActionKind.OTHER,
        (req("type", one_of("rebuild", "restart", "refresh"), "the app command"),),
        "Ask Dyad to rebuild, restart or refresh the app.",
    ),
    ActionSpec(
        "dyad-chat-summary",
        ActionKind.OTHER,
        (opt("summary", text(), "the chat's title, as the body"),),
        "A short title for the chat.",
    ),
    ActionSpec(
        "dyad-add-integration",
        ActionKind.OTHER,
        (opt("provider", text(), "the integration (supabase, neon)"),),
        "Ask the user to connect an integration.",
        open_fields=True,
    ),
    ActionSpec(
        "dyad-output",
        ActionKind.OTHER,
        (opt("type", text()), opt("message", text()), opt("body", text())),
        "Output of the app that Dyad adds to the chat (an error, a warning).",
        open_fields=True,
    ),
    ActionSpec(
        "dyad-problem-report",
        ActionKind.OTHER,
        (opt("summary", text()), opt("body", text())),
        "TypeScript problems that Dyad adds to the chat.",
        open_fields=True,
    ),
)

BODY_FIELD = {
    "dyad-write": "content",
    "dyad-search-replace": "diff",
    "dyad-execute-sql": "sql",
    "dyad-chat-summary": "summary",
}
_TRIMMED = frozenset({"dyad-write", "dyad-search-replace", "dyad-execute-sql"})
_ENTITY = re.compile(r"&(lt|gt|amp);")
_DECODED = {"lt": "<", "gt": ">", "amp": "&"}


def decode_content(text: str, start: int, end: int) -> tuple[str, SourceMap]:
    """``text[start:end]`` with Dyad's body entities (``&lt; &gt; &amp;``) decoded."""
    if text.find("&", start, end) < 0:
        return text[start:end], SourceMap.verbatim(start, end)
    return decoded(text, start, end, ((m.start(), m.end(), _DECODED[m.group(1)])
                                      for m in _ENTITY.finditer(text, start, end)))


def _trimmed_body(text: str, start: int, end: int) -> tuple[int, int]:
    """Dyad's body: trimmed, then a first and a last line starting with ``` dropped."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if text.startswith("```", start, end):
        nl = text.find("\n", start, end)
        start = end if nl < 0 else nl + 1
    last = text.rfind("\n", start, end) + 1 if start < end else start
    if last > start and text.startswith("```", last, end):
        end = last - 1
        if end > start and text[end - 1] == "\r":
            end -= 1
    elif last == start and text.startswith("```", start, end):
        end = start
    return start, max(start, end)


class Dyad(TagDialect):
    name = "dyad"
    # Dyad's search-replace blocks: an empty SEARCH has no documented meaning; refused.
    rules = EditRules("<dyad-search-replace>", empty_hint="use <dyad-write> to write a whole file")
    description = "Dyad's <dyad-write>, <dyad-search-replace>, <dyad-rename>, <dyad-delete> and other dyad-* tags"
    order = 50
    specs = SPECS
    tag_prefixes = ("dyad-",)
    body_fields = BODY_FIELD
    prose_bodies = frozenset({"dyad-chat-summary"})
    bodyless = frozenset({"dyad-rename", "dyad-delete", "dyad-add-dependency", "dyad-command", "dyad-copy"})
    closed_only = True

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        text = ctx.text
        name = BODY_FIELD.get(action.type)
        body = action.fields.get(name) if name else None
        if body is None or action.type not in _TRIMMED:
            return
        # The tag's body (body_value dropped only its first line break): Dyad's reading of it.
        start, end = _trimmed_body(text, body.span.start, body.span.end)
        value, smap = decode_content(text, start, end)
        action.fields[body.name] = Field(body.name, value, Span(start, end), None, smap)
        if action.type != "dyad-search-replace":
            return
        found = parse_blocks(text, start, end, DYAD, decode_content)
        diagnostics.extend(found.diagnostics)
        action.edits = [Edit(b.search, b.replace) for b in found.blocks]
        if not action.edits and not found.diagnostics:
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    "<dyad-search-replace> holds no <<<<<<< SEARCH / ======= / >>>>>>> REPLACE "
                    "block; Dyad changes nothing",
                    action.name_span,
                )
            )


DIALECT = Dyad()
