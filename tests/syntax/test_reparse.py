"""syntax/reparse.py: a file's parse updated edit by edit says what a parse from scratch says."""

from __future__ import annotations

import importlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp.syntax import language_for
from action_lsp.syntax.reparse import Reparse

parse_module = importlib.import_module("action_lsp.syntax.parse")  # (the package's `parse` is the function)

PIECES = {
    "x.py": ["def f(a, b):\n", "    return a + b\n", "x = 'é😀'\n", "if x:\n", "    pass\n", "(", ")",
             "\n", "class C:\n", "    y = [1,\n", "2]\n", "ü", " ", ":"],
    "x.js": ["function f(a) {\n", "  return a;\n", "}\n", "const s = 'é😀';\n", "{", "}", "(", ")",
             "\n", "let x = [1,\n", "2];\n", "ü", " ", ";"],
    "x.go": ["package p\n", "func f() {\n", "}\n", "x := 1\n", "{", "}", "(", ")", "\n", "// c\n"],
    "x.rs": ["fn f() {\n", "}\n", "let x = 1;\n", "{", "}", "(", ")", "\n", "#[a]\n"],
}


def full_error(code: str, name: str) -> bool:
    lang = language_for(path=name)
    assert lang is not None
    return lang.parser().parse(code.encode("utf-8", "surrogatepass")).root_node.has_error


@st.composite
def chains(draw: st.DrawFn) -> tuple[str, str, list[list[tuple[int, int, str]]]]:
    name = draw(st.sampled_from(sorted(PIECES)))
    pieces = st.lists(st.sampled_from(PIECES[name]), max_size=6).map("".join)
    code = draw(pieces)
    steps = []
    current = code
    for _ in range(draw(st.integers(1, 5))):
        edits = []
        for _ in range(draw(st.integers(1, 3))):
            start = draw(st.integers(0, len(current)))
            end = draw(st.integers(start, len(current)))
            text = draw(pieces)
            edits.append((start, end, text))
            current = current[:start] + text + current[end:]
        steps.append(edits)
    return name, code, steps


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_kept_parse_agrees_with_a_parse_from_scratch(chain) -> None:
    name, code, steps = chain
    lang = language_for(path=name)
    assert lang is not None and Reparse.usable(lang)
    kept = Reparse(lang)
    assert kept.has_error(code) == full_error(code, name)
    for edits in steps:
        after = code
        for start, end, text in edits:
            after = after[:start] + text + after[end:]
        assert kept.after(code, edits, after) == full_error(after, name)
        code = after


def test_edits_that_do_not_lead_to_the_text_are_parsed_in_full() -> None:
    lang = language_for(path="x.py")
    assert lang is not None
    kept = Reparse(lang)
    assert kept.after("x = 1\n", [(4, 5, "2")], "x = (\n")
    assert not kept.after("x = (\n", [(4, 5, "2")], "x = 2\n")


def _nodes(tree) -> list[tuple[str, int, int, bool]]:
    out, stack = [], [tree.root_node]
    while stack:
        node = stack.pop()
        out.append((node.type, node.start_byte, node.end_byte, node.is_missing))
        stack.extend(reversed(node.children))
    return out


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chains())
def test_a_kept_tree_the_syntax_strategy_is_given_is_the_tree_from_scratch(chain) -> None:
    """The tree of the text after an edit, when it has no syntax error, is what ``parse`` gives
    for that text from then on (the syntax strategy tokenises the edited file with it): it
    must be the tree a parse from scratch makes, node for node. (With an error, tree-sitter's
    incremental parse may recover otherwise: such a tree is never kept.)"""
    name, code, steps = chain
    lang = language_for(path=name)
    assert lang is not None
    parse_module.forget()
    kept = Reparse(lang)
    kept.has_error(code)
    for edits in steps:
        after = code
        for start, end, text in edits:
            after = after[:start] + text + after[end:]
        kept.after(code, edits, after)
        scratch = lang.parser().parse(after.encode("utf-8", "surrogatepass"))
        assert _nodes(parse_module.parse(after, lang).tree) == _nodes(scratch)
        code = after


def test_the_tree_after_an_edit_is_the_one_parse_then_gives() -> None:
    lang = language_for(path="x.py")
    assert lang is not None
    parse_module.forget()
    kept = Reparse(lang)
    before = "def f(a):\n    return a\n" * 50
    after = before.replace("return a", "return a + 1", 1)
    at = before.index("return a") + len("return a")
    assert not kept.after(before, [(at, at, " + 1")], after)
    assert parse_module.parse(after, lang).tree is kept._tree
    broken = after + "def (\n"
    assert kept.after(after, [(len(after), len(after), "def (\n")], broken)
    assert parse_module.parse(broken, lang).tree is not kept._tree  # (a tree with an error: parsed anew)
