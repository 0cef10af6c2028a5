"""Syntax errors in code, as precise ranges with short messages.

tree-sitter marks two kinds of problems: MISSING nodes (a token the parser inserted to recover,
reported as a point where it belongs) and ERROR nodes (text it could not fit). An ERROR node
often spans the valid code before the real fault too, so its range is narrowed: to an unbalanced
bracket inside it when there is one, else to the first ERROR nested in it (where recovery gave up
first), else to its first line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from action_lsp.syntax.languages import Lang
from action_lsp.syntax.parse import Parsed, Results, parse

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class SyntaxProblem:
    """A syntax error at ``[start, end)``, code-point indices into the code."""

    start: int
    end: int
    message: str


_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {close: open_ for open_, close in _OPENERS.items()}
_EXCERPT = 40


_FOUND = Results()


def syntax_errors(code: str, lang: Lang, limit: int = 20) -> list[SyntaxProblem]:
    """Up to ``limit`` syntax errors of ``code`` in document order; none inside another."""
    key = (lang.name, code, limit)
    found = _FOUND.get(key)
    if not isinstance(found, tuple):
        found = tuple(_syntax_errors(code, lang, limit))
        _FOUND.put(key, found)
    return list(found)


def _syntax_errors(code: str, lang: Lang, limit: int) -> list[SyntaxProblem]:
    parsed = parse(code, lang)
    if not parsed.root.has_error:
        return []
    out: list[SyntaxProblem] = []
    stack: list[Node] = [parsed.root]
    while stack and len(out) < limit:
        node = stack.pop()
        if node.is_missing:
            out.append(_missing(parsed, node))
        elif node.is_error:
            out.append(_error(parsed, node))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return out


def _missing(parsed: Parsed, node: Node) -> SyntaxProblem:
    at = parsed.start(node)
    what = node.type.replace("_", " ") if node.is_named else f"`{node.type}`"
    return SyntaxProblem(at, at, f"missing {what}")


def _error(parsed: Parsed, node: Node) -> SyntaxProblem:
    bracket = _unbalanced_bracket(node)
    if bracket is not None:
        start, end = parsed.start(bracket), parsed.end(bracket)
        if bracket.type in _OPENERS:
            return SyntaxProblem(start, end, f"`{bracket.type}` is never closed")
        return SyntaxProblem(start, end, f"unexpected `{bracket.type}`")
    for child in node.children:
        if child.is_error:  # where recovery gave up first, nearer the fault than `node`'s start
            return _error(parsed, child)
    code = parsed.code
    start, end = parsed.start(node), parsed.end(node)
    # Narrow to the first line of the error, without the whitespace around it.
    newline = code.find("\n", start, end)
    if newline >= 0:
        end = newline
    while end > start and code[end - 1].isspace():
        end -= 1
    while start < end and code[start].isspace():
        start += 1
    text = code[start:end]
    if not text:
        return SyntaxProblem(start, end, "syntax error")
    excerpt = " ".join(text.split())
    if len(excerpt) > _EXCERPT:
        excerpt = excerpt[: _EXCERPT - 1] + "…"
    return SyntaxProblem(start, end, f"unexpected `{excerpt}`")


def _unbalanced_bracket(node: Node) -> Node | None:
    """The first bracket among ``node``'s own tokens that has no partner among them."""
    open_: list[Node] = []
    for child in _own_tokens(node):
        kind = child.type
        if kind in _OPENERS:
            open_.append(child)
        elif kind in _CLOSERS:
            if open_ and open_[-1].type == _CLOSERS[kind]:
                open_.pop()
            else:
                return child
    return open_[0] if open_ else None


def _own_tokens(node: Node) -> list[Node]:
    """``node``'s anonymous leaf children, and those of ERROR children (skipped tokens)."""
    out: list[Node] = []
    for child in node.children:
        if child.is_error:
            out.extend(_own_tokens(child))
        elif not child.is_named and not child.child_count:
            out.append(child)
    return out
