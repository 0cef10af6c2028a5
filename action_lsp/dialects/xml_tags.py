"""``xml-tags``: action tags with child elements (seeds 001, 002) --
``<create_file><path/><content/></create_file>``, ``<modify_file><path/><search/><replace/>``
(several search/replace pairs allowed), ``<create_directory><path/>``, ``<read_file><path/>``,
``<execute_command><command/>[<description/>]``.

Better than the original on each point it got wrong: actions come in document order; file
content keeps its exact bytes (only the line break right after ``<content>`` is dropped; the
one before ``</content>`` is the file's final newline); a ``</content>`` inside the written file does not end the element
(content runs to the last ``</content>`` before the action's own closing tag, and nested
``<create_file>...</create_file>`` pairs in a file that documents the format are skipped whole);
a lone CDATA section gives its inside; unclosed and mismatched tags are reported and the parse
goes on.

Paths, commands and descriptions are trimmed (the span follows the trimmed value). Text between
child elements is ignored. Attributes on the action tag are not read by the agent and are
reported as ``unknown-field``. Several ``<search>``/``<replace>`` pairs give several
:class:`~action_lsp.model.Edit`; the fields ``search``/``replace`` hold the first pair.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..markdown import line_end
from ..model import Action, ActionKind, Diagnostic, Edit, Field, SourceMap, Span
from ..schema import ActionSpec, opt, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .tag_dialect import TagDialect
from .tags import (
    Finder,
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

SPECS = specs(
    ActionSpec(
        "create_file",
        ActionKind.CREATE_FILE,
        (
            req("path", text(), "the file to write, relative to the workspace"),
            req("content", text(), "the whole file"),
        ),
        "Write a whole file.",
    ),
    ActionSpec(
        "modify_file",
        ActionKind.MODIFY_FILE,
        (
            req("path", text(), "the file to change"),
            req("search", text(), "the exact text to find"),
            req("replace", text(), "what replaces it"),
        ),
        "Replace text in an existing file (one or more <search>/<replace> pairs).",
    ),
    ActionSpec(
        "create_directory",
        ActionKind.CREATE_DIRECTORY,
        (req("path", text(), "the directory to create"),),
        "Create a directory and its parents.",
    ),
    ActionSpec(
        "read_file",
        ActionKind.READ_FILE,
        (req("path", text(), "the file to read"),),
        "Read a file.",
    ),
    ActionSpec(
        "execute_command",
        ActionKind.COMMAND,
        (req("command", text(), "the shell command"), opt("description", text(), "what it is for")),
        "Run a shell command (never run here).",
    ),
)

CHILD_NAMES = frozenset(f.name for s in SPECS.values() for f in s.fields)
_STRIPPED = frozenset({"path", "command", "description"})  # trimmed values
_LONG = frozenset({"content"})  # ends at the last closing tag before the action's close
_PAIRED = frozenset({"search", "replace"})  # may repeat: ends at a closing tag a sibling follows
_OPEN = re.compile(r"<([A-Za-z][\w\-.:]*)")
_SIBLING = re.compile(r"[ \t\r\n\f]*<(" + "|".join(sorted(CHILD_NAMES)) + r")(?=[\s/>])")


def _is_action_name(name: str) -> bool:
    return name.lower().replace("-", "_") in SPECS


@dataclass(slots=True)
class Child:
    """One child element: its name as written and its value."""

    name: str
    name_span: Span
    value: str
    span: Span
    source_map: SourceMap

    def to_field(self) -> Field:
        return Field(self.name, self.value, self.span, self.name_span, self.source_map)


@dataclass(slots=True)
class Children:
    items: list[Child]
    diagnostics: list[Diagnostic]
    stray: Span | None  # a closing action tag that ended an unclosed action
    last_end: int = -1  # just past the last child element


def parse_children(ctx: ScanContext, start: int, bound: int, closed: bool) -> Children:
    """The child elements in ``[start, bound)`` (the action's content)."""
    text = ctx.text
    finder = Finder(text, bound)
    out = Children([], [], None)
    pos = start
    while pos < bound:
        lt = finder.find("<", pos)
        if lt < 0:
            break
        if text.startswith("</", lt):
            closer = closer_at(text, lt, bound)
            if closer is None:
                pos = lt + 1
                continue
            name, end = closer
            if not closed and _is_action_name(name):
                out.stray = Span(lt, end)
                break
            out.diagnostics.append(
                Diagnostic(
                    "mismatched-tag",
                    f"</{name}> closes no open <{name}>; remove it",
                    Span(lt + 2, lt + 2 + len(name)),
                )
            )
            pos = end
            continue
        m = _OPEN.match(text, lt)
        if m is None:
            pos = lt + 1
            continue
        tag = parse_start_tag(ctx, lt, m.end())
        if not tag.closed or tag.end > bound:
            pos = lt + 1  # `a < b` or a broken tag: text, ignored
            continue
        name = m.group(1)
        if tag.self_closing:
            out.items.append(
                Child(
                    name,
                    tag.name_span,
                    "",
                    Span(tag.end, tag.end),
                    SourceMap.verbatim(tag.end, tag.end),
                )
            )
            pos = out.last_end = tag.end
            continue
        pos = out.last_end = _child(ctx, finder, out, name, tag.name_span, tag.end, bound, closed)
    return out


def _child(
    ctx: ScanContext,
    finder: Finder,
    out: Children,
    name: str,
    name_span: Span,
    vstart: int,
    bound: int,
    closed: bool,
) -> int:
    """Read one child's value from ``vstart``; returns where the parse goes on."""
    text = ctx.text
    closing = f"</{name}>"
    vend = -1
    resume = bound
    problem: Diagnostic | None = None
    if name in _LONG:
        close = text.rfind(closing, vstart, bound)
        if close >= 0:
            vend, resume = close, close + len(closing)
        else:
            vend = resume = trimmed_end(text, vstart, bound)
            tail = _closer_before(text, vstart, vend)
            if tail is not None and not _is_action_name(tail[0]):
                problem = mismatched_close(text, Span(tail[1], vend), name)
                vend = tail[1]
            else:
                if tail is not None:  # `</modify_file>` ending an unclosed action: leave it
                    vend = resume = tail[1]
                problem = _unclosed_child(text, name, name_span, vstart, vend)
    elif name in _PAIRED:
        close = finder.find(closing, vstart)
        last = -1
        while close >= 0 and not _followed_by_sibling(text, close + len(closing), bound, closed):
            last = close
            close = finder.find(closing, close + 1)
        close = close if close >= 0 else last
        if close >= 0:
            vend, resume = close, close + len(closing)
        else:
            sibling = _next_sibling(text, finder, vstart)
            vend = resume = trimmed_end(text, vstart, sibling if sibling >= 0 else bound)
            problem = _unclosed_child(text, name, name_span, vstart, vend)
    else:
        close = finder.find(closing, vstart)
        sibling = _next_sibling(text, finder, vstart)
        if close >= 0 and (sibling < 0 or sibling > close):
            vend, resume = close, close + len(closing)
        else:
            # Not closed before the next element: `<path>a</content>` is a mistyped closing
            # tag; `<path>a` then `<content>` is an unclosed one.
            stop = sibling if sibling >= 0 else bound
            foreign = _first_closer(text, finder, vstart, stop)
            if foreign is not None and not _is_action_name(foreign[0]):
                problem = mismatched_close(text, Span(foreign[1], foreign[2]), name)
                vend, resume = foreign[1], foreign[2]
            else:
                stop = foreign[1] if foreign is not None else stop
                vend = resume = trimmed_end(text, vstart, stop)
                problem = _unclosed_child(text, name, name_span, vstart, vend)
    if name in _STRIPPED:
        value, span, smap = stripped_value(text, vstart, vend)
    else:
        value, span, smap = body_value(text, vstart, vend)
    if problem is not None:
        out.diagnostics.append(problem)
    out.items.append(Child(name, name_span, value, span, smap))
    return max(resume, vstart)


def _unclosed_child(text: str, name: str, name_span: Span, vstart: int, vend: int) -> Diagnostic:
    at = trimmed_end(text, vstart, vend)
    multiline = any(c in text[vstart:at] for c in "\r\n")
    return Diagnostic(
        "unclosed-tag",
        f"<{name}> is never closed; add </{name}> after its value",
        name_span,
        fixes=[insert_closing_fix(text, name, at, multiline)],
    )


def _closer_before(text: str, start: int, end: int) -> tuple[str, int] | None:
    """``(name, start)`` of a closing tag ``</name>`` that ends exactly at ``end``."""
    if end <= start or text[end - 1] != ">":
        return None
    lt = text.rfind("</", start, end)
    if lt < 0:
        return None
    found = closer_at(text, lt, end)
    return (found[0], lt) if found is not None and found[1] == end else None


def _first_closer(text: str, finder: Finder, start: int, stop: int) -> tuple[str, int, int] | None:
    """``(name, start, end)`` of the first closing tag in ``[start, stop)``."""
    pos = start
    while True:
        lt = finder.find("</", pos)
        if lt < 0 or lt >= stop:
            return None
        found = closer_at(text, lt, stop)
        if found is not None:
            return found[0], lt, found[1]
        pos = lt + 1


def _next_sibling(text: str, finder: Finder, start: int) -> int:
    """Offset of the next opening tag of a known child element (-1 if none before the bound)."""
    best = -1
    for name in CHILD_NAMES:
        needle = "<" + name
        pos = start
        while True:
            at = finder.find(needle, pos)
            if at < 0 or (best >= 0 and at > best):
                break
            after = at + len(needle)
            if after < len(text) and text[after] in " \t\r\n\f/>":
                best = at
                break
            pos = at + 1
    return best


def _followed_by_sibling(text: str, pos: int, bound: int, closed: bool) -> bool:
    """Does a closing tag ending at ``pos`` end its element: next comes the action's end, a
    sibling element, or (in an unclosed action) a closing action tag?"""
    m = _SIBLING.match(text, pos, bound)
    if m is not None:
        return True
    ws = pos
    while ws < bound and text[ws].isspace():
        ws += 1
    if ws >= bound:
        return True
    found = closer_at(text, ws, bound)
    return found is not None and not closed and _is_action_name(found[0])


class XmlTags(TagDialect):
    name = "xml-tags"
    description = "<create_file>, <modify_file>, <create_directory>, <read_file>, <execute_command> with child elements (seeds 001, 002)"
    order = 20
    children = True
    tag_names = frozenset(SPECS)
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
        spec = SPECS[type_name]
        diagnostics = [
            Diagnostic(
                "unknown-field",
                f"<{type_name}> takes no attributes; the agent ignores `{a.name}` "
                f"(write it as a child element, <{a.name}>...</{a.name}>)",
                a.name_span,
            )
            for a in start.attributes
        ]
        if start.self_closing:
            action = Action(
                self.name, type_name, spec.kind, Span(tag.start, start.end), tag.name_span
            )
            return Construct(Span(tag.start, start.end), [action], diagnostics, start.end)
        close = find_close(ctx, tag.name, start.end)
        if close is None and tag.name != type_name:
            close = find_close(ctx, type_name, start.end)
        watch: tuple[str, ...] = ()
        if close is not None:
            bound, end, lookahead = close.start, close.end, close.lookahead
        else:
            bound = ctx.next_tag_start(start.end)
            lookahead = line_end(text, bound)  # telling that a tag or fence stops it reads its line
            end = bound
            watch = watched_tags(tag.name, type_name)
        children = parse_children(ctx, start.end, bound, close is not None)
        diagnostics.extend(children.diagnostics)
        if close is None:
            if children.stray is not None:
                diagnostics.append(mismatched_close(text, children.stray, tag.name))
                end = children.stray.end
            else:
                # The action ends after its last element; prose after it is not part of it.
                end = trimmed_end(text, start.end, children.last_end if children.items else bound)
                multiline = any(c in text[start.end : end] for c in "\r\n")
                diagnostics.append(
                    Diagnostic(
                        "unclosed-tag",
                        f"<{tag.name}> is never closed; add </{tag.name}> after its last element",
                        tag.name_span,
                        fixes=[insert_closing_fix(text, tag.name, end, multiline)],
                    )
                )
        if close is None and children.stray is None and not children.items:
            # `<create_file>` mentioned in prose, or the start of an action cut off before its
            # first element: the unclosed tag says it all; no empty action and its noise.
            return Construct(Span(tag.start, end), [], diagnostics, lookahead, watch)
        fields: dict[str, Field] = {}
        edits: list[Edit] = []
        pending: Child | None = None
        for child in children.items:
            if child.name in _PAIRED and child.name in fields:
                pass  # the fields hold the first pair; all pairs are in `edits`
            else:
                fields[child.name] = child.to_field()
            if child.name == "search":
                if pending is not None:
                    diagnostics.append(_unpaired(pending, type_name))
                pending = child
            elif child.name == "replace" and pending is not None:
                edits.append(Edit(pending.to_field(), child.to_field()))
                pending = None
        if pending is not None and edits:
            diagnostics.append(_unpaired(pending, type_name))
        action = Action(
            self.name,
            type_name,
            spec.kind,
            Span(tag.start, end),
            tag.name_span,
            fields,
            edits=edits,
        )
        return Construct(Span(tag.start, end), [action], diagnostics, lookahead, watch)


def _unpaired(search: Child, type_name: str) -> Diagnostic:
    return Diagnostic(
        "missing-field",
        f"this <search> of <{type_name}> has no <replace> after it",
        search.name_span,
        data={"field": "replace", "type": type_name},
    )


DIALECT = XmlTags()
