"""A long strict JSON document's tree is walked by the extents of its containers and strings.

:func:`action_lsp.jsonlazy._extents` finds every container's and string's extent in one pass
over the document's bytes (NumPy: the quotes not escaped, the brackets outside strings paired by
depth), so that no container is decoded again to find its members. These tests compare it with
the simple version -- a character-by-character scan keeping a stack -- on random documents, and
the trees walked by it with the eager parse's, node by node, for documents of any length.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import jsonlazy, jsonscan
from action_lsp.jsonlazy import LazyNode, strict_tree
from action_lsp.jsonscan import JResult, parse_eager, parse_json
from tests.test_json_lazy_tree import _result, documents


def _simple_extents(text: str, base: int) -> tuple[tuple[list[int], list[int]], tuple[list[int], list[int]]]:
    """Every container's and string's extent, one character at a time (strict JSON): (starts
    in order, their ends) of the containers, the same of the strings."""
    ends: dict[int, int] = {}
    starts: list[int] = []
    string_ends: list[int] = []
    stack: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            starts.append(i + base)
            string_ends.append(j + 1 + base)
            i = j + 1
            continue
        if c in "{[":
            stack.append(i)
        elif c in "}]":
            ends[stack.pop() + base] = i + 1 + base
        i += 1
    opens = sorted(ends)
    return (opens, [ends[k] for k in opens]), (starts, string_ends)


_CHARS = ["a", "é", "🌍", "—", '"', "\\", "\\\\", '\\"', "{", "}", "[", "]", ":", ",", "\n", " "]
_TEXT = st.lists(st.sampled_from(_CHARS), max_size=8).map("".join)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TEXT, kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(value=_JSON.filter(lambda v: isinstance(v, (list, dict))), ascii_=st.booleans(), indent=st.sampled_from([None, 1, 2]),
       base=st.integers(0, 5))
def test_the_extents_are_the_simple_scan_s(value: Any, ascii_: bool, indent: int | None, base: int) -> None:
    text = json.dumps(value, ensure_ascii=ascii_, indent=indent)
    assert jsonlazy._extents(text.encode("utf-8"), base) == _simple_extents(text, base)


@pytest.fixture
def extents_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonlazy, "EXTENTS", 0)
    monkeypatch.setattr(jsonscan, "LAZY_TREE", 0)


@settings(max_examples=400, deadline=None)
@given(text=documents())
def test_a_tree_walked_by_extents_is_the_eager_tree(text: str) -> None:
    old = jsonlazy.EXTENTS, jsonscan.LAZY_TREE
    jsonlazy.EXTENTS, jsonscan.LAZY_TREE = 0, 0
    try:
        lazy = parse_json(text)
        made = strict_tree(text)
    finally:
        jsonlazy.EXTENTS, jsonscan.LAZY_TREE = old
    assert _result(lazy) == _result(parse_eager(text))
    if made is not None:
        assert _result(JResult(made[0], [], [], made[1])) == _result(parse_eager(text))


@settings(max_examples=100, deadline=None)
@given(text=documents(), prefix=st.sampled_from(["", "x\n", "é🌍 = ", "\r\n\r\n"]), first=st.integers(0, 5))
def test_a_part_of_the_text_walked_by_extents_reads_the_same(text: str, prefix: str, first: int) -> None:
    """A value inside a longer text, one of its members read before the rest."""
    whole = prefix + text + " tail"
    old = jsonlazy.EXTENTS, jsonscan.LAZY_TREE
    jsonlazy.EXTENTS, jsonscan.LAZY_TREE = 0, 0
    try:
        lazy = parse_json(whole, len(prefix), len(prefix) + len(text))
        node = lazy.node
        if node is not None and node.kind in ("object", "array"):
            kids = [m.value for m in node.members] if node.members is not None else node.items or []
            if kids:
                _result(JResult(kids[first % len(kids)], [], [], 0))
        got = _result(lazy)
    finally:
        jsonlazy.EXTENTS, jsonscan.LAZY_TREE = old
    assert got == _result(parse_eager(whole, len(prefix), len(prefix) + len(text)))


def test_a_long_document_is_walked_by_its_extents() -> None:
    """Not vacuous: a document over the threshold gets the tables at its first expansion, and a
    long value nested deep is read with the eager parse's spans."""
    body = "é \\\"x\\\" {[" * 4000
    text = json.dumps({"meta": {"a": [{"b": {"c": body}}] * 3}, "n": [1, -2.5e3, True, None, "🌍"]}, ensure_ascii=False, indent=1)
    assert len(text.encode("utf-8")) >= jsonlazy.EXTENTS
    r = parse_json(text)
    assert isinstance(r.node, LazyNode)
    assert _result(r) == _result(parse_eager(text))
    doc = object.__getattribute__(r.node, "_doc")
    assert doc.ends is not None and doc.buf == b""


def test_duplicate_keys_and_deep_nesting_by_extents(extents_always: None) -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": "1", "b": [1], "a": {"c": 2}}', '[{"k": 1, "k": 1}, {"k": [{"k": 2, "k": 3}]}]',
                 "[" * 3000 + '{"a": "é"}' + "]" * 3000, '{"k\\"": {"\\u00e9": [1, "\\\\"]}}'):
        assert _result(parse_json(text)) == _result(parse_eager(text))
