"""The tree of a strict JSON document made as it is read is the tree the eager parse makes.

``parse_json`` gives a long strict JSON object or array a tree whose members are made when first
read (:mod:`action_lsp.jsonlazy`). Every node of it, read in full, must equal the eager parse's:
kinds, spans, decoded values, keys and their spans, every string's map (each index mapped), the
errors, notes and end, on any JSON: non-ASCII text, every escape, surrogate pairs and lone
surrogates, duplicate keys, any whitespace (CRLF), deep nesting; and text that is not strict
JSON (trailing commas, comments, trailing data) is read by the tolerant parser alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import jsonscan
from action_lsp.dialects.tool_use import parse_arguments
from action_lsp.jsonlazy import LazyNode, strict_tree
from action_lsp.jsonscan import JNode, JResult, parse_eager, parse_json


@dataclass
class Obj:
    """An object as written: its members in order, duplicate keys kept."""

    pairs: list[tuple[str, Any]]


_CHARS = ["a", "b", "é", "🌍", "\u2028", '"', "\\", "/", "\n", "\t", "\x08", "\x1f", "\ud800", "\udc00", " ", "{", "]"]
_STR = st.lists(st.sampled_from(_CHARS), max_size=6).map("".join)
_KEY = st.sampled_from(["a", "b", "é", "k\\", 'q"', "🌍", ""])  # few keys: duplicates are common
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False, allow_infinity=False), _STR
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=5) | st.lists(st.tuples(_KEY, children), max_size=5).map(Obj),
    max_leaves=40,
)
_WS = st.sampled_from(["", "", " ", "\n", "\r\n", "\t", "  \n  "])


def _dump(value: Any, draw: st.DrawFn, ascii_: bool) -> str:
    def ws() -> str:
        return draw(_WS)

    if isinstance(value, Obj):
        inner = ",".join(f"{ws()}{json.dumps(k, ensure_ascii=ascii_)}{ws()}:{ws()}{_dump(v, draw, ascii_)}{ws()}"
                         for k, v in value.pairs)
        return "{" + (inner or ws()) + "}"
    if isinstance(value, list):
        return "[" + (",".join(f"{ws()}{_dump(v, draw, ascii_)}{ws()}" for v in value) or ws()) + "]"
    return json.dumps(value, ensure_ascii=ascii_)


@st.composite
def documents(draw: st.DrawFn) -> str:
    value = draw(st.lists(st.tuples(_KEY, _VALUES), max_size=4).map(Obj) | st.lists(_VALUES, max_size=4))
    text = draw(_WS) + _dump(value, draw, draw(st.booleans())) + draw(_WS)
    damage = draw(st.sampled_from(["", "", "", "comma", "comment", "extra", "python"]))
    if damage == "comma" and "}" in text:
        text = text.replace("}", ",}", 1) if "{}" not in text else text.replace("{}", '{"x": 1,}', 1)
    elif damage == "comment":
        text = "// c\n" + text
    elif damage == "extra":
        text += ' {"more": 1}'
    elif damage == "python":
        text = text.replace("null", "None", 1)
    return text


def _smap(node: JNode) -> Any:
    m = node.source_map
    if m is None:
        return None
    return (m.base, m.length, m.source_end, tuple(m.to_source(i) for i in range(m.length + 1)))


def _full(node: JNode | None) -> list[Any]:
    """Every node of the tree read out, in document order (no recursion: deep trees too)."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            out.append(None)
            continue
        v = n.value  # (a container's value: its keys or length here, whole in _result)
        seen = list(v) if isinstance(v, dict) else len(v) if isinstance(v, list) else (type(v), repr(v))
        out.append((n.kind, n.span, seen, n.inner_span, _smap(n) if n.kind == "string" else n.source_map))
        if n.members is not None:
            out.append([(m.key, m.key_span) for m in n.members])
            stack.extend(m.value for m in reversed(n.members))
        if n.items is not None:
            out.append(len(n.items))
            stack.extend(reversed(n.items))
    return out


def _result(r: JResult) -> Any:
    try:
        value = repr(r.node.value) if r.node is not None else None
    except RecursionError:  # (deep nesting: compared node by node only)
        value = None
    return (_full(r.node), value, r.errors, r.notes, r.end)


@pytest.fixture
def lazy_from_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonscan, "LAZY_TREE", 0)


@settings(max_examples=400, deadline=None)
@given(text=documents())
def test_a_tree_made_as_read_is_the_eager_tree(text: str) -> None:
    old = jsonscan.LAZY_TREE
    jsonscan.LAZY_TREE = 0
    try:
        lazy = parse_json(text)
    finally:
        jsonscan.LAZY_TREE = old
    assert _result(lazy) == _result(parse_eager(text))


@settings(max_examples=100, deadline=None)
@given(text=documents(), data=st.data())
def test_a_part_of_the_text_reads_the_same(text: str, data: st.DataObject) -> None:
    """A value inside a longer text (offsets from ``start``), with its members read in any order."""
    prefix = data.draw(st.sampled_from(["", "x\n", "é🌍 = ", "\r\n\r\n"]))
    whole = prefix + text + data.draw(st.sampled_from(["", "\n", " tail"]))
    old = jsonscan.LAZY_TREE
    jsonscan.LAZY_TREE = 0
    try:
        lazy = parse_json(whole, len(prefix), len(prefix) + len(text))
    finally:
        jsonscan.LAZY_TREE = old
    node = lazy.node
    if node is not None and node.kind in ("object", "array"):  # a member read first, then the rest
        kids = [m.value for m in node.members] if node.members is not None else node.items or []
        if kids:
            _full(data.draw(st.sampled_from(kids)))
    assert _result(lazy) == _result(parse_eager(whole, len(prefix), len(prefix) + len(text)))


def test_the_tree_is_made_only_where_read(lazy_from_any_size: None) -> None:
    """Not vacuous: a strict document gets a lazy root, and a member not read stays unmade."""
    text = json.dumps({"meta": {"deep": [{"x": "é\\n" * 50}] * 20}, "calls": [{"name": "w", "input": {"p": "a"}}]})
    r = parse_json(text)
    assert isinstance(r.node, LazyNode) and r.errors == []
    calls = r.node.get("calls")
    meta = r.node.get("meta")
    assert calls is not None and meta is not None
    assert _full(calls.value) == _full(parse_eager(text).node.get("calls").value)  # type: ignore[union-attr]
    with pytest.raises(AttributeError):  # (the slot is still unset)
        object.__getattribute__(meta.value, "members")


def test_duplicate_keys_are_read_as_the_eager_parse_reads_them(lazy_from_any_size: None) -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": "1", "b": [1], "a": {"c": 2}}', '[{"k": 1, "k": 1}, {"k": [{"k": 2, "k": 3}]}]'):
        assert _result(parse_json(text)) == _result(parse_eager(text))
    r = parse_json('{"a": 1, "a": 2}')
    assert [m.key for m in r.node.members] == ["a", "a"] and r.node.value == {"a": 2}  # type: ignore[union-attr]


def test_deep_nesting(lazy_from_any_size: None) -> None:
    for depth in (50, 3000):
        text = "[" * depth + '{"a": "é"}' + "]" * depth
        assert _result(parse_json(text)) == _result(parse_eager(text))


def test_not_strict_json_is_read_by_the_tolerant_parser(lazy_from_any_size: None) -> None:
    for text in ('{"a": 1,}', '// c\n{"a": 1}', "{'a': 1}", '{"a": "x\ty"}', '{"a": "\\q"}', '{"a": 1} {"b": 2}',
                 '{"a": 1e999}', '{"a": "\ud800"}'):
        r = parse_json(text)
        assert not isinstance(r.node, LazyNode)
        assert _result(r) == _result(parse_eager(text))


@settings(max_examples=300, deadline=None)
@given(text=documents())
def test_a_decoded_arguments_string_reads_as_the_eager_parse(text: str) -> None:
    """A tool call's ``arguments`` string, however short, is read through the tree made as read
    when it is strict JSON (:func:`strict_tree`), else by the tolerant parser: the same result."""
    made = strict_tree(text)
    if made is not None:
        assert isinstance(made[0], LazyNode)
        assert _result(JResult(made[0], [], [], made[1])) == _result(parse_eager(text))
    assert _result(parse_arguments(text)) == _result(parse_eager(text))


def test_an_arguments_string_that_is_not_strict_json_is_read_by_the_tolerant_parser() -> None:
    for text in ('{"a": 1,}', '{"a": 1} {"b": 2}', '{"a": "\ud800"}', ' "str" ', "[1, 2", "", "  "):
        assert strict_tree(text) is None
        assert _result(parse_arguments(text)) == _result(parse_eager(text))
    assert strict_tree(' \n{"path": "é", "n": [1]}\r\n') is not None  # (whitespace around it)
