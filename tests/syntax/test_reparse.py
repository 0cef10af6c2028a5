"""syntax/reparse.py: a file's parse updated edit by edit says what a parse from scratch says."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp.syntax import language_for
from action_lsp.syntax.reparse import Reparse

PIECES = {
    "x.py": ["def f(a, b):\n", "    return a + b\n", "x = 'é😀'\n", "if x:\n", "    pass\n", "(", ")",
             "\n", "class C:\n", "    y = [1,\n", "2]\n", "ü", " ", ":"],
    "x.js": ["function f(a) {\n", "  return a;\n", "}\n", "const s = 'é😀';\n", "{", "}", "(", ")",
             "\n", "let x = [1,\n", "2];\n", "ü", " ", ";"],
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
