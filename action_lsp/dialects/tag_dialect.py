"""The shared base of the tag dialects: what every dialect written as XML-like tags inherits.

A tag dialect states what differs -- its tag names (``specs``, ``tag_prefixes``), whether
fields are written as attributes plus a body (``<aether-write path="a.py">body</aether-write>``)
or as child elements (``<create_file><path>a.py</path>...``), which field the body holds, which
bodies are prose (trimmed) -- and inherits from :class:`TagDialect`:

* tolerant start tags (quoted, unquoted and boolean attributes, entities decoded, exact spans);
* the closing tag that ends the action, nested pairs of the same tag skipped whole;
* recovery from an unclosed action: it ends at a stray closing tag of another action of the
  dialect (reported as ``mismatched-tag``), or before the next action tag or fence (reported as
  ``unclosed-tag`` with a fix inserting the closing tag);
* child elements (for ``children`` dialects): long values (a file holding ``</content>``),
  repeated search/replace pairs, mistyped and missing closing tags;
* incrementality: each construct declares its look-ahead and, when unclosed, the strings it
  watches (:class:`~action_lsp.dialects.base.Construct`).

Hooks a dialect may override: :meth:`TagDialect.action_type` (the action's type, by default
the tag name), :meth:`TagDialect.finish` (checks of a parsed action: a JSON body, SEARCH/REPLACE
markers in a body), :meth:`TagDialect.parse_tag` (a container tag holding actions).
The low-level scanning lives in :mod:`action_lsp.dialects.tags`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    Field,
    Fix,
    SourceMap,
    Span,
    TextEdit,
)
from ..shared import share
from .base import Construct, Dialect, ScanContext, TagOpen
from .tags import (
    Finder,
    StartTag,
    attribute_fields,
    body_value,
    closer_at,
    find_close,
    insert_closing_fix,
    mismatched_close,
    parse_start_tag,
    stop_lookahead,
    stripped_value,
    trimmed_end,
    unclosed_start_tag,
    watched_tags,
)

_OPEN = re.compile(r"<([A-Za-z][\w\-.:]*)")


class TagDialect(Dialect):
    """Base class of the tag dialects. Subclasses set ``name``, ``specs`` and the attributes
    below; ``tag_names`` defaults to the spec names."""

    children: bool = False  # fields are child elements (True) or attributes + a body (False)
    # Attribute dialects:
    body_fields: Mapping[str, str] = {}  # type -> the field its body holds ("body" otherwise)
    prose_bodies: frozenset[str] = frozenset()  # types whose body is prose: trimmed
    bodyless: frozenset[str] = frozenset()  # types whose body the agent ignores
    closed_only: bool = False  # an unclosed action is reported but yields no action (the
    # agent's parser needs the closing tag: Dyad's regexes)
    # Child-element dialects:
    long_children: frozenset[str] = frozenset({"content"})  # may hold their own closing tag
    paired_children: frozenset[str] = frozenset({"search", "replace"})  # may repeat
    stripped_children: frozenset[str] = frozenset({"path", "command", "description"})

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "tag_names" not in cls.__dict__ and "specs" in cls.__dict__:
            cls.tag_names = frozenset(cls.specs)

    # -- hooks ---------------------------------------------------------------------------
    def field_syntax(self, type_name: str, field: str) -> str:
        if self.children:
            return "child"
        return "body" if self.body_fields.get(type_name) == field else "attribute"

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        syntax = self.field_syntax(action.type, field)
        if syntax == "attribute":
            m = _OPEN.match(text, action.span.start)
            if m is None:
                return None
            return Fix(f"Insert `{field}`", [TextEdit(Span(m.end(), m.end()), f' {field}=""')])
        if syntax == "child":
            return insert_child_fix(text, action, field)
        return None

    def action_type(self, ctx: ScanContext, tag: TagOpen, start: StartTag) -> tuple[str, Span]:
        """The action's type and the span that names it (default: the tag name)."""
        return tag.canonical, tag.name_span

    def kind(self, type_name: str) -> ActionKind:
        spec = self.spec(type_name)
        return spec.kind if spec else ActionKind.OTHER

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        """Checks of a parsed action (its body's JSON, SEARCH/REPLACE markers, ...)."""

    def is_action_name(self, name: str) -> bool:
        """Does a closing tag ``</name>`` close one of this dialect's actions?"""
        return name.lower().replace("-", "_") in self._folded_names or (
            bool(self.tag_prefixes) and name.startswith(self.tag_prefixes)
        )

    @cached_property
    def _folded_names(self) -> frozenset[str]:
        return frozenset(n.lower().replace("-", "_") for n in self.tag_names)

    @cached_property
    def stray_needles(self) -> tuple[str, ...]:
        """The starts of closing tags that end an unclosed action of an attribute dialect."""
        names = [n for n in sorted(self.tag_names) if not n.startswith(self.tag_prefixes or ("\0",))]
        return tuple(f"</{p}" for p in self.tag_prefixes) + tuple(f"</{n}" for n in names)

    # -- parsing -------------------------------------------------------------------------
    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        return self.parse_element(ctx, tag)

    def parse_element(self, ctx: ScanContext, tag: TagOpen, group: Span | None = None) -> Construct:
        """Parse the action tag ``tag`` (its start tag, content and closing tag)."""
        start = parse_start_tag(ctx, tag.start, tag.name_span.end)
        if not start.closed:
            return Construct(
                Span(tag.start, max(start.end, tag.name_span.end)),
                diagnostics=[unclosed_start_tag(start)],
                lookahead=max(start.lookahead, start.end),
            )
        if self.children:
            construct = self._children_element(ctx, tag, start)
        else:
            construct = self._attribute_element(ctx, tag, start)
        if group is not None:
            for a in construct.actions:
                a.group = group
        return construct

    def _attribute_element(self, ctx: ScanContext, tag: TagOpen, start: StartTag) -> Construct:
        text = ctx.text
        type_name, name_span = self.action_type(ctx, tag, start)
        fields = attribute_fields(start)
        diagnostics: list[Diagnostic] = []
        end = lookahead = start.end
        watch: tuple[str, ...] = ()
        body: tuple[int, int] | None = None
        if not start.self_closing:
            close = find_close(ctx, tag.name, start.end)
            if close is None and tag.name != tag.canonical:
                close = find_close(ctx, tag.canonical, start.end)
            if close is not None:
                lookahead = close.lookahead
                body, end = (start.end, close.start), close.end
            else:  # read to the end for a closing tag that is not there
                watch = watched_tags(tag.name, tag.canonical)
                if type_name in self.bodyless:
                    diagnostics.append(_unclosed(text, tag, start.end, False))
                else:
                    bound = ctx.next_tag_start(start.end)
                    lookahead = stop_lookahead(text, bound)  # what told that the tag or fence stops it
                    stray = self._stray_closer(text, start.end, bound)
                    if stray is not None:
                        body, end = (start.end, stray.start), stray.end
                        diagnostics.append(mismatched_close(text, stray, tag.name))
                    else:
                        end = trimmed_end(text, start.end, bound)
                        body = (start.end, end)
                        multiline = any(c in text[start.end : end] for c in "\r\n")
                        diagnostics.append(_unclosed(text, tag, end, multiline))
        if body is not None:
            self._body(text, type_name, body, fields)
        action = Action(
            self.name, type_name, self.kind(type_name), Span(tag.start, end), name_span, fields
        )
        if self.closed_only and watch:
            return Construct(Span(tag.start, end), [], diagnostics, max(lookahead, end), watch)
        self.finish(ctx, action, diagnostics)
        return Construct(Span(tag.start, end), [action], diagnostics, max(lookahead, end), watch)

    def _body(self, text: str, type_name: str, body: tuple[int, int], fields: dict[str, Field]) -> None:
        name = self.body_fields.get(type_name, "body")
        extract = stripped_value if type_name in self.prose_bodies else body_value
        value, span, smap = extract(text, *body)
        if name == "body" and not value.strip():
            return  # an empty body of a body-less or unknown tag says nothing
        fields[name] = Field(name, value, span, None, smap)

    def _stray_closer(self, text: str, start: int, bound: int) -> Span | None:
        """The first closing tag of another action of this dialect in ``[start, bound)``: it
        most likely ends the unclosed action."""
        finder = Finder(text, bound)
        best: Span | None = None
        for needle in self.stray_needles:
            pos = start
            while True:
                at = finder.find(needle, pos)
                if at < 0 or (best is not None and at > best.start):
                    break
                found = closer_at(text, at, bound)
                if found is not None and self.is_action_name(found[0]):
                    best = Span(at, found[1])
                    break
                pos = at + 1
        return best

    # -- child elements ------------------------------------------------------------------
    def _children_element(self, ctx: ScanContext, tag: TagOpen, start: StartTag) -> Construct:
        text = ctx.text
        type_name, name_span = self.action_type(ctx, tag, start)
        kind = self.kind(type_name)
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
            action = Action(self.name, type_name, kind, Span(tag.start, start.end), name_span)
            self.finish(ctx, action, diagnostics)
            return Construct(Span(tag.start, start.end), [action], diagnostics, start.end)
        close = find_close(ctx, tag.name, start.end)
        if close is None and tag.name != tag.canonical:
            close = find_close(ctx, tag.canonical, start.end)
        watch: tuple[str, ...] = ()
        if close is not None:
            bound, end, lookahead = close.start, close.end, close.lookahead
        else:
            bound = ctx.next_tag_start(start.end)
            lookahead = stop_lookahead(text, bound)  # what told that the tag or fence stops it
            end = bound
            watch = watched_tags(tag.name, tag.canonical)
        children = _ChildReader(self, ctx, bound, close is not None).read(start.end)
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
        if close is None and (self.closed_only or (children.stray is None and not children.items)):
            # `<create_file>` mentioned in prose, or the start of an action cut off before its
            # first element: the unclosed tag says it all; no empty action and its noise.
            return Construct(Span(tag.start, end), [], diagnostics, lookahead, watch)
        fields: dict[str, Field] = {}
        edits: list[Edit] = []
        pending: Child | None = None
        for child in children.items:
            if child.name in self.paired_children and child.name in fields:
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
            self.name, type_name, kind, Span(tag.start, end), name_span, fields, edits=edits
        )
        self.finish(ctx, action, diagnostics)
        return Construct(Span(tag.start, end), [action], diagnostics, lookahead, watch)

    @cached_property
    def child_names(self) -> frozenset[str]:
        return frozenset(f.name for s in self.specs.values() for f in s.fields)

    @cached_property
    def sibling_open(self) -> re.Pattern[str]:
        names = "|".join(re.escape(n) for n in sorted(self.child_names, key=lambda n: (-len(n), n)))
        return re.compile(r"<(?:" + names + r")(?=[ \t\r\n\f/>])")

    @cached_property
    def sibling_pattern(self) -> re.Pattern[str]:
        names = "|".join(re.escape(n) for n in sorted(self.child_names, key=lambda n: (-len(n), n)))
        return re.compile(r"[ \t\r\n\f]*<(" + names + r")(?=[\s/>])")


def _unclosed(text: str, tag: TagOpen, at: int, multiline: bool) -> Diagnostic:
    return Diagnostic(
        "unclosed-tag",
        f"<{tag.name}> is never closed; add </{tag.name}>"
        + (" after its body" if multiline else " right after it"),
        tag.name_span,
        fixes=[insert_closing_fix(text, tag.name, at, multiline)],
    )


def _unpaired(search: Child, type_name: str) -> Diagnostic:
    return Diagnostic(
        "missing-field",
        f"this <search> of <{type_name}> has no <replace> after it",
        search.name_span,
        data={"field": "replace", "type": type_name},
    )


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


# --------------------------------------------------------------------------------------------
# Child elements


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


class _ChildReader:
    """The child elements of one action's content ``[start, bound)``."""

    def __init__(self, dialect: TagDialect, ctx: ScanContext, bound: int, closed: bool) -> None:
        self.d = dialect
        self.ctx = ctx
        self.text = ctx.text
        self.bound = bound
        self.closed = closed
        self.finder = Finder(ctx.text, bound)
        self._sibling = (1 << 62, -1)  # (searched from, found at) of _next_sibling; none yet

    def read(self, start: int) -> Children:
        text, bound, finder = self.text, self.bound, self.finder
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
                if not self.closed and self.d.is_action_name(name):
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
            tag = parse_start_tag(self.ctx, lt, m.end())
            if not tag.closed or tag.end > bound:
                pos = lt + 1  # `a < b` or a broken tag: text, ignored
                continue
            name = share(m.group(1))
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
            pos = out.last_end = self._child(out, name, tag.name_span, tag.end)
        return out

    def _child(self, out: Children, name: str, name_span: Span, vstart: int) -> int:
        """Read one child's value from ``vstart``; returns where the parse goes on."""
        text, bound, finder = self.text, self.bound, self.finder
        closing = f"</{name}>"
        vend = -1
        resume = bound
        problem: Diagnostic | None = None
        if name in self.d.long_children:
            close = text.rfind(closing, vstart, bound)
            if close >= 0:
                vend, resume = close, close + len(closing)
            else:
                vend = resume = trimmed_end(text, vstart, bound)
                tail = _closer_before(text, vstart, vend)
                if tail is not None and not self.d.is_action_name(tail[0]):
                    problem = mismatched_close(text, Span(tail[1], vend), name)
                    vend = tail[1]
                else:
                    if tail is not None:  # `</modify_file>` ending an unclosed action: leave it
                        vend = resume = tail[1]
                    problem = _unclosed_child(text, name, name_span, vstart, vend)
        elif name in self.d.paired_children:
            close = finder.find(closing, vstart)
            last = -1
            while close >= 0 and not self._followed_by_sibling(close + len(closing)):
                last = close
                close = finder.find(closing, close + 1)
            close = close if close >= 0 else last
            if close >= 0:
                vend, resume = close, close + len(closing)
            else:
                sibling = self._next_sibling(vstart)
                vend = resume = trimmed_end(text, vstart, sibling if sibling >= 0 else bound)
                problem = _unclosed_child(text, name, name_span, vstart, vend)
        else:
            close = finder.find(closing, vstart)
            sibling = self._next_sibling(vstart)
            if close >= 0 and (sibling < 0 or sibling > close):
                vend, resume = close, close + len(closing)
            else:
                # Not closed before the next element: `<path>a</content>` is a mistyped closing
                # tag; `<path>a` then `<content>` is an unclosed one.
                stop = sibling if sibling >= 0 else bound
                foreign = self._first_closer(vstart, stop)
                if foreign is not None and not self.d.is_action_name(foreign[0]):
                    problem = mismatched_close(text, Span(foreign[1], foreign[2]), name)
                    vend, resume = foreign[1], foreign[2]
                else:
                    stop = foreign[1] if foreign is not None else stop
                    vend = resume = trimmed_end(text, vstart, stop)
                    problem = _unclosed_child(text, name, name_span, vstart, vend)
        if name in self.d.stripped_children:
            value, span, smap = stripped_value(text, vstart, vend)
        else:
            value, span, smap = body_value(text, vstart, vend)
        if problem is not None:
            out.diagnostics.append(problem)
        out.items.append(Child(name, name_span, value, span, smap))
        return max(resume, vstart)

    def _first_closer(self, start: int, stop: int) -> tuple[str, int, int] | None:
        """``(name, start, end)`` of the first closing tag in ``[start, stop)``."""
        pos = start
        while True:
            lt = self.finder.find("</", pos)
            if lt < 0 or lt >= stop:
                return None
            found = closer_at(self.text, lt, stop)
            if found is not None:
                return found[0], lt, found[1]
            pos = lt + 1

    def _next_sibling(self, start: int) -> int:
        """Offset of the next opening tag of a known child element (-1 if none before the
        bound). One search for all names; its answer is reused while ``start`` stays before
        it, so the content is read once however many children ask."""
        memo_from, found = self._sibling
        if memo_from <= start and (found < 0 or found >= start):
            return found
        m = self.d.sibling_open.search(self.text, start, self.bound)
        found = m.start() if m is not None else -1
        self._sibling = (start, found)
        return found

    def _followed_by_sibling(self, pos: int) -> bool:
        """Does a closing tag ending at ``pos`` end its element: next comes the action's end, a
        sibling element, or (in an unclosed action) a closing action tag?"""
        text, bound = self.text, self.bound
        if self.d.sibling_pattern.match(text, pos, bound) is not None:
            return True
        ws = pos
        while ws < bound and text[ws].isspace():
            ws += 1
        if ws >= bound:
            return True
        found = closer_at(text, ws, bound)
        return found is not None and not self.closed and self.d.is_action_name(found[0])


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


__all__ = ["Child", "Children", "Dialect", "TagDialect", "insert_child_fix"]
