"""The units a snippet merge aligns: a level of a syntax tree as a list of whole-line pieces.

A *level* is the top of a file, or the body of a class, function, section, ... Its *units* are
its children, each covering whole lines: a definition (matched by kind and name), a declaration
(``const x = ...``, ``x = 1``: matched by name), an import (merged as a set), a statement
(matched by its first line when it spans several lines, else by its text), a comment, or a
*placeholder* comment (``// ... existing code ...``, see :mod:`.placeholders`). A comment
directly above a unit (no blank line between) belongs to it, as a decorator does.

Used by :mod:`.lazymerge`; nothing here decides anything about a merge.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from tree_sitter import Node, Query, QueryCursor

from ..syntax.languages import Lang
from ..syntax.parse import Parsed
from ..syntax.tokens import _name

UnitKind = Literal["def", "var", "import", "stmt", "comment", "placeholder"]

#: Node types that are imports (merged as a set), by grammar.
IMPORTS = frozenset({
    "import_statement", "import_from_statement", "future_import_statement",  # Python, JS/TS
    "import_declaration", "use_declaration", "extern_crate_declaration",  # Go/Java/Swift, Rust
    "preproc_include", "using_directive", "namespace_use_declaration",  # C/C++, C#, PHP
    "import_header", "import_list", "import",  # Kotlin, CSS @import
})
#: Node types that wrap the definition they export or decorate: keyed by what they hold.
WRAPPERS = frozenset({
    "export_statement", "decorated_definition", "template_declaration", "ambient_declaration",
    "annotated_declaration", "type_declaration",
})
#: Node types that stand before the definition they qualify, as siblings (Rust's ``#[test]``,
#: a decorator of a TypeScript method): they belong to it.
ATTRIBUTES = frozenset({"attribute_item", "inner_attribute_item", "decorator", "annotation"})
#: Declarations keyed by the names they declare.
DECLARATIONS = frozenset({
    "lexical_declaration", "variable_declaration", "const_declaration", "var_declaration",
    "field_declaration", "property_declaration", "const_item", "static_item", "let_declaration",
    "event_field_declaration", "public_field_definition", "field_definition",
    "short_var_declaration", "declaration",
})
#: Definition kinds whose body is a level of its own (members merged one by one).
CONTAINERS = frozenset({
    "class", "struct", "interface", "impl", "trait", "module", "namespace", "extension",
    "enum", "section", "union",
})
_BODY_TYPES = frozenset({
    "block", "class_body", "declaration_list", "field_declaration_list", "statement_block",
    "interface_body", "enum_body", "body_statement", "compound_statement", "object_type",
    "enum_class_body", "protocol_body", "enum_declaration_list", "block_node",
})
_SPACE = re.compile(r"\s+")


@dataclass(slots=True)
class Unit:
    """One piece of a level: ``start``/``end`` cover whole lines of the text (``end`` at the
    end of its last line, before the line break); ``indent`` is its first line's."""

    start: int
    end: int
    kind: UnitKind
    key: tuple[str, str] | None
    node: Node | None
    indent: str
    first: str = ""  # its first line, spaces collapsed (tells same-named definitions apart)
    defines: bool = False  # a definition or declaration: never dropped by a merge
    body: Node | None = None  # the level inside it, when it has one
    container: bool = False  # a class-like definition: its members are merged one by one


@dataclass(slots=True)
class Source:
    """A parsed text and what the units of its levels need: its placeholder lines, its
    comments by position, and the line starts."""

    parsed: Parsed
    placeholder_lines: Collection[int]
    wrapped: bool = False  # methods given alone, parsed inside a class wrapped around them
    text: str = ""
    line_starts: list[int] = field(default_factory=list)
    comments: list[Node] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text = self.parsed.code
        self.line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        self.comments = nodes_of(self.parsed, self.parsed.lang.comments | {"comment", "html_block"})

    @property
    def lang(self) -> Lang:
        return self.parsed.lang

    def line_of(self, offset: int) -> int:
        import bisect

        return bisect.bisect_right(self.line_starts, offset) - 1

    def line_start(self, offset: int) -> int:
        return self.line_starts[self.line_of(offset)]

    def line_end(self, offset: int) -> int:
        """The end of the line holding ``offset - 1`` (a node's end), before its line break."""
        nl = self.text.find("\n", max(offset - 1, 0) if offset > 0 else 0)
        if offset > 0 and self.text[offset - 1 : offset] == "\n":
            return offset - 1
        return len(self.text) if nl < 0 else nl


_NEWLINE = re.compile("\n")
_QUERIES: dict[tuple[str, frozenset[str]], Query | None] = {}


def nodes_of(parsed: Parsed, types: Collection[str]) -> list[Node]:
    """Every node of ``parsed`` whose type is one of ``types``, in document order (a
    tree-sitter query: the walk runs in C). Types the grammar does not have are left out."""
    lang = parsed.lang
    key = (lang.name, frozenset(types))
    if key not in _QUERIES:
        known = []
        for t in sorted(types):
            try:
                Query(lang.language, f"({t}) @n")
            except Exception:  # (QueryError: not a node type of this grammar)
                continue
            known.append(t)
        _QUERIES[key] = (Query(lang.language, "[" + " ".join(f"({t})" for t in known) + "] @n")
                         if known else None)
    query = _QUERIES[key]
    if query is None:
        return []
    found = QueryCursor(query).captures(parsed.root).get("n", [])
    found.sort(key=lambda n: n.start_byte)
    return found


def normalized(text: str) -> str:
    """``text`` with runs of whitespace collapsed: how statements and imports are compared."""
    return _SPACE.sub(" ", text).strip()


def body_of(node: Node) -> Node | None:
    """The level inside a definition or statement: its ``body`` field, else its last child of
    a body type; a Markdown section is its own body (the heading is its header)."""
    if node.type == "section":
        return node
    body = node.child_by_field_name("body")
    if body is None:
        for child in reversed(node.named_children):
            if child.type in _BODY_TYPES:
                body = child
                break
    if body is not None:
        lists = [c for c in body.named_children if c.type == "statement_list"]
        if len(lists) == 1:
            return lists[0]  # Go: a block holds one statement list (and comments)
    return body


def _unwrap(node: Node) -> Node:
    while node.type in WRAPPERS:
        inner = (node.child_by_field_name("declaration") or node.child_by_field_name("definition"))
        if inner is None:
            named = [c for c in node.named_children if c.type not in ("decorator", "comment")]
            if not named:
                return node
            inner = named[-1]
        node = inner
    return node


def _declared_names(src: Source, node: Node) -> list[str]:
    own = node.child_by_field_name("name")
    if own is not None:
        return [src.parsed.text(own)]
    names: list[str] = []
    stack = [node]
    depth = {node.id: 0}
    while stack:
        n = stack.pop()
        d = depth[n.id]
        name = n.child_by_field_name("name") if n is not node else None
        if name is not None:
            names.append(src.parsed.text(name))
            continue
        if d >= 3:
            continue
        for child in reversed(n.named_children):
            depth[child.id] = d + 1
            stack.append(child)
    if not names:
        for child in node.named_children:
            if child.type.endswith("identifier") or child.type == "variable_name":
                names.append(src.parsed.text(child))
                break
    return names


def _key(src: Source, node: Node) -> tuple[UnitKind, tuple[str, str] | None, Node | None, bool]:
    """(kind, key, body, container) of a child node of a level."""
    lang = src.lang
    if node.type in IMPORTS:
        return "import", ("import", normalized(src.parsed.text(node))), None, False
    inner = _unwrap(node)
    if inner.type in IMPORTS:
        return "import", ("import", normalized(src.parsed.text(node))), None, False
    kind = lang.definitions.get(inner.type)
    if kind is not None and inner.type != "variable_declarator":
        name = _name(src.parsed, inner)
        if inner.type == "class_declaration" and lang.name == "swift":
            which = inner.child_by_field_name("declaration_kind")
            word = src.parsed.text(which) if which is not None else "class"
            kind = word if word in ("struct", "enum", "extension") else "class"
        if name:
            norm = "function" if kind in ("function", "method") else kind
            body = body_of(inner)
            return "def", (norm, name), body, kind in CONTAINERS
    if inner.type in DECLARATIONS or inner.type in ("const_declaration",):
        names = _declared_names(src, inner)
        if names:
            return "var", ("var", ",".join(names)), None, False
    if inner.type == "expression_statement" and inner.named_child_count == 1:
        child = inner.named_children[0]
        if child.type == "assignment":  # Python's `x = 1` (not `x += 1`: a statement)
            left = child.child_by_field_name("left")
            if left is not None:
                return "var", ("var", normalized(src.parsed.text(left))), None, False
    if inner.type == "assignment" and lang.name == "ruby":
        left = inner.child_by_field_name("left")
        if left is not None:
            return "var", ("var", normalized(src.parsed.text(left))), None, False
    if inner.type in ("rule_set",):  # CSS: a rule is named by its selectors
        selectors = inner.named_children[0] if inner.named_children else None
        if selectors is not None:
            return "def", ("rule", normalized(src.parsed.text(selectors))), None, False
    if inner.type in ("media_statement", "keyframes_statement", "supports_statement"):
        head = src.parsed.text(inner).split("{", 1)[0]
        return "def", ("rule", normalized(head)), inner.named_children[-1] if inner.named_children else None, True
    text = src.parsed.text(node)
    if "\n" in text.strip():
        first = text.strip().split("\n", 1)[0]
        return "stmt", ("block", normalized(first)), body_of(inner), False
    return "stmt", ("stmt", normalized(text)), None, False


def units(src: Source, level: Node, lo: int, hi: int, *, skip_first: bool = False) -> list[Unit]:
    """The units of the level ``level`` (its named children; comments found by position in
    ``[lo, hi)``, so that a comment a grammar hung elsewhere -- Python's trailing comment of a
    block -- still counts where its lines are). ``skip_first``: the first child is the level's
    header (a Markdown section's heading)."""
    children = [c for c in level.named_children if c.type not in src.lang.comments
                and c.type not in ("comment", "html_block")]
    if skip_first and children:
        children = children[1:]
    raw: list[Unit] = []
    for child in children:
        start = src.parsed.start(child)
        end = src.parsed.end(child)
        kind, key, body, container = _key(src, child)
        if child.type in ATTRIBUTES:
            kind = "comment"  # belongs to the definition below it, as a comment right above it
        unit = _unit(src, start, end, kind, key, child, body, container)
        if src.lang.name == "python" and body is not None:
            python_extent(src, unit)
        raw.append(unit)
    spans = [(u.start, u.end) for u in raw]
    for comment in src.comments:
        cs, ce = src.parsed.start(comment), src.parsed.end(comment)
        if cs < lo or ce > hi:
            continue
        if any(s <= cs and ce <= e for s, e in spans):
            continue
        line = src.line_of(cs)
        kind = "placeholder" if line in src.placeholder_lines else "comment"
        if comment.type == "html_block" and kind == "comment":
            kind_t: UnitKind = "stmt"
            raw.append(_unit(src, cs, ce, kind_t, ("stmt", normalized(src.parsed.text(comment))),
                             comment, None, False))
            continue
        raw.append(_unit(src, cs, ce, kind, None, comment, None, False))
    raw.sort(key=lambda u: u.start)
    return _attach(src, _join_lines(raw))


def _unit(src: Source, start: int, end: int, kind: UnitKind, key: tuple[str, str] | None,
          node: Node | None, body: Node | None, container: bool) -> Unit:
    s = src.line_start(start)
    if src.text[s:start].strip():
        s = start  # something else stands on the line before it: from the node on
    e = src.line_end(end)
    if src.text[end:e].strip() and kind != "placeholder":
        e = end if not src.text[end:e].strip().startswith(("//", "#", "/*", ",", ";")) else e
    e = s + len(src.text[s:e].rstrip())  # a node may end with blank lines (a Markdown section)
    line = src.text[s:e].split("\n", 1)[0]
    indent = line[: len(line) - len(line.lstrip())]
    return Unit(s, e, kind, key, node, indent, normalized(line), kind in ("def", "var"), body,
                container)


def _join_lines(raw: list[Unit]) -> list[Unit]:
    """Units that share a line are one (``int a; int b;``; a trailing comment): the first one's
    key is kept."""
    out: list[Unit] = []
    for u in raw:
        if out and u.start < out[-1].end:
            prev = out[-1]
            prev.end = max(prev.end, u.end)
            if u.kind == "placeholder" or prev.kind == "placeholder":
                prev.kind = "stmt" if prev.kind == "placeholder" else prev.kind
            continue
        out.append(u)
    return out


def _attach(src: Source, raw: list[Unit]) -> list[Unit]:
    """A comment right above a unit (no blank line between) belongs to it."""
    out: list[Unit] = []
    pending: list[Unit] = []
    for u in raw:
        if u.kind == "comment":
            if pending and src.text[pending[-1].end : u.start].count("\n") > 1:
                out.extend(pending)
                pending = []
            pending.append(u)
            continue
        if pending and u.kind != "placeholder" and src.text[pending[-1].end : u.start].count("\n") == 1:
            u.start = pending[0].start
            u.indent = pending[0].indent
            pending = []
        out.extend(pending)
        pending = []
        out.append(u)
    out.extend(pending)
    return out


def python_extent(src: Source, unit: Unit) -> None:
    """Python: the comment lines right after a block, indented deeper than the unit's first
    line, belong to its block (tree-sitter-python hangs them after it): the unit grows over them."""
    text = src.text
    pos = unit.end
    depth = len(unit.indent.expandtabs(4))
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            break
        nxt = text.find("\n", nl + 1)
        line = text[nl + 1 : len(text) if nxt < 0 else nxt]
        if line.strip() and not line.lstrip().startswith("#"):
            break
        if line.strip():
            if len(line[: len(line) - len(line.lstrip())].expandtabs(4)) <= depth:
                break
            unit.end = nl + 1 + len(line.rstrip())
        pos = nl + 1 if nxt < 0 else nxt
        if nxt < 0:
            break
