"""Tokens and definitions of code, for syntax-aware search in the edit engine.

Two layouts of the same code (re-wrapped arguments, other indentation, different comments) give
the same token kinds and texts, so a search block can be matched by tokens when its text does
not match. Ranges are code-point indices into the code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from action_lsp.syntax.languages import Lang
from action_lsp.syntax.parse import Parsed, parse, parse_ok

if TYPE_CHECKING:
    from tree_sitter import Node

__all__ = ["Definition", "Token", "definitions", "parse_ok", "tokens"]


class Token(NamedTuple):
    """A leaf of the syntax tree: ``kind`` is the node type (``identifier``, ``(``, ``string``).

    (A named tuple, not a frozen dataclass: the syntax strategy makes one per token of a whole
    file, and a frozen dataclass's ``__init__`` took a fifth of that walk.)"""

    kind: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Definition:
    """A named definition; ``start``/``end`` cover all of it, decorators and attributes included."""

    kind: str
    name: str
    start: int
    end: int


def tokens(code: str, lang: Lang) -> list[Token]:
    """The leaf tokens of ``code`` in order, without comments; a string literal is one token."""
    parsed = parse(code, lang)
    strings, comments = lang.strings, lang.comments
    # (the walk is most of the syntax strategy's time on a long file: kept tight, and ASCII
    # code's byte offsets are its indices)
    index = None if parsed.offsets.identity else parsed.offsets.index
    out: list[Token] = []
    append = out.append
    stack: list[Node] = [parsed.root]
    pop, extend = stack.pop, stack.extend
    while stack:
        node = pop()
        kind = node.type
        if kind in comments:
            continue
        if node.child_count == 0 or kind in strings:
            start, end = node.start_byte, node.end_byte
            if end > start:  # MISSING nodes are zero-width
                if index is not None:
                    start, end = index(start), index(end)
                append(Token(kind, code[start:end], start, end))
            continue
        children = node.children
        children.reverse()
        extend(children)
    return out


def comments(code: str, lang: Lang) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each comment of ``code``, in order."""
    parsed = parse(code, lang)
    kinds = lang.comments
    index = None if parsed.offsets.identity else parsed.offsets.index
    out: list[tuple[int, int]] = []
    stack: list[Node] = [parsed.root]
    while stack:
        node = stack.pop()
        if node.type in kinds:
            start, end = node.start_byte, node.end_byte
            out.append((index(start), index(end)) if index is not None else (start, end))
            continue
        children = node.children
        children.reverse()
        stack.extend(children)
    return out


_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
_CLASS_VALUES = frozenset({"class"})
_CONTAINERS = frozenset({"class", "impl", "trait", "interface", "struct", "enum", "extension"})


def definitions(code: str, lang: Lang) -> list[Definition]:
    """Functions, classes, methods, types, ... of ``code``, in document order (nested included).

    A function directly inside a class, struct, enum, extension, impl, trait or interface is
    reported as ``method``.
    """
    table = lang.definitions
    if not table:
        return []
    parsed = parse(code, lang)
    out: list[Definition] = []
    # (node, kind of the nearest enclosing definition)
    stack: list[tuple[Node, str | None]] = [(parsed.root, None)]
    while stack:
        node, enclosing = stack.pop()
        inner = enclosing
        kind = table.get(node.type)
        if kind is not None:
            found = _definition(parsed, node, kind, enclosing)
            if found is not None:
                out.append(found)
                inner = found.kind
        stack.extend((child, inner) for child in reversed(node.named_children))
    return out


def _definition(parsed: Parsed, node: Node, kind: str, enclosing: str | None) -> Definition | None:
    outer = node  # the node whose range the definition covers
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None:
            return None
        if value.type in _CLASS_VALUES:
            kind = "class"
        elif value.type not in _FUNCTION_VALUES:
            return None
        parent = node.parent
        if parent is not None and parent.named_child_count == 1:
            outer = parent  # the whole `const f = () => ...;`
    elif node.type.endswith("_specifier") and node.child_by_field_name("body") is None:
        return None  # C/C++ `struct s *p`: names a type, defines none
    elif node.type in ("type_spec", "type_alias"):
        parent = node.parent
        if (
            parent is not None
            and parent.type == "type_declaration"
            and parent.named_child_count == 1
        ):
            outer = parent  # the whole `type T struct {...}`
    elif node.type == "class_declaration" and parsed.lang.name == "swift":
        # Swift's grammar has one node for class, struct, enum, actor and extension.
        which = node.child_by_field_name("declaration_kind")
        word = parsed.text(which) if which is not None else "class"
        kind = word if word in ("struct", "enum", "extension") else "class"
    if kind == "function" and enclosing in _CONTAINERS:
        kind = "method"
    name = _name(parsed, node)
    if not name:
        return None
    start = parsed.start(outer)
    parent = outer.parent
    if parent is not None and parent.type == "decorated_definition":
        start = parsed.start(parent)
        outer = parent
    else:
        # Rust `#[...]` attributes belong to the item that follows them (comments may sit between).
        previous = outer.prev_named_sibling
        while previous is not None and (
            previous.type == "attribute_item" or previous.type in parsed.lang.comments
        ):
            if previous.type == "attribute_item":
                start = parsed.start(previous)
            previous = previous.prev_named_sibling
    return Definition(kind, name, start, parsed.end(outer))


_DECLARATOR_NAMES = frozenset({
    "identifier", "field_identifier", "qualified_identifier", "destructor_name",
    "operator_name", "template_function",
})


def _name(parsed: Parsed, node: Node) -> str:
    name = node.child_by_field_name("name")
    if name is not None:
        return parsed.text(name)
    if node.type == "function_definition":  # C/C++: the name is inside the declarator chain
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in _DECLARATOR_NAMES:
            declarator = declarator.child_by_field_name("declarator")
        return parsed.text(declarator) if declarator is not None else ""
    if node.type == "section":  # Markdown: a section is named by its heading's text
        heading = node.named_children[0] if node.named_children else None
        if heading is None or not heading.type.endswith("heading"):
            return ""
        text = heading.child_by_field_name("heading_content")
        return " ".join(parsed.text(text).split()) if text is not None else ""
    if node.type == "impl_item":  # `impl Type` or `impl Trait for Type`
        target = node.child_by_field_name("type")
        trait = node.child_by_field_name("trait")
        if target is None:
            return ""
        if trait is None:
            return parsed.text(target)
        return f"{parsed.text(trait)} for {parsed.text(target)}"
    return ""
