"""A long strict JSON document's tree is walked by the separators of its containers.

:func:`action_lsp.jsonlazy._separators` finds every comma and closing bracket outside the
strings in one pass over the document's bytes (NumPy: the quotes not escaped, the brackets
counted for depth), so that no container is decoded again to find its members. These tests
compare it with the simple version -- a character-by-character scan -- on random documents, and
the trees walked by it (whole, or a container made straight by
:func:`~action_lsp.jsonlazy.descendants`) with the eager parse's, node by node, for documents of
any length.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import jsonlazy, jsonscan
from action_lsp.jsonlazy import LazyNode, strict_tree
from action_lsp.jsonscan import JNode, JResult, parse_eager, parse_json
from tests.test_json_lazy_tree import _full, _result, documents


def _simple_separators(text: str, base: int) -> tuple[list[int], list[int]]:
    """Every comma and closing bracket outside the strings, one character at a time (strict
    JSON): where the value before each ends, by the depth of the container it separates the
    members of (or closes), then by offset; and where each depth's run starts."""
    found: list[tuple[int, int]] = []
    depth = 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "{[":
            depth += 1
        elif c in "}],":
            j = i
            while text[j - 1] in " \t\n\r":
                j -= 1
            found.append((depth, j + base))
            if c in "}]":
                depth -= 1
        i += 1
    if not found:
        return [], [0]
    found.sort()
    top = found[-1][0]
    return [at for _, at in found], [sum(1 for d, _ in found if d < k) for k in range(top + 2)]


_CHARS = ["a", "é", "🌍", "—", '"', "\\", "\\\\", '\\"', "{", "}", "[", "]", ":", ",", "\n", " "]
_TEXT = st.lists(st.sampled_from(_CHARS), max_size=8).map("".join)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TEXT, kids, max_size=4),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(value=_JSON.filter(lambda v: isinstance(v, (list, dict))), ascii_=st.booleans(), indent=st.sampled_from([None, 1, 2]),
       base=st.integers(0, 5), spaced=st.sampled_from([(", ", ": "), (",", ":"), (" ,\r\n", "\t : ")]))
def test_the_separators_are_the_simple_scan_s(value: Any, ascii_: bool, indent: int | None, base: int,
                                              spaced: tuple[str, str]) -> None:
    text = json.dumps(value, ensure_ascii=ascii_, indent=indent, separators=spaced)
    assert jsonlazy._separators(text.encode("utf-8"), base) == _simple_separators(text, base)


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
    assert doc.seps is not None and doc.buf == b""


def test_duplicate_keys_and_deep_nesting_by_extents(extents_always: None) -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": "1", "b": [1], "a": {"c": 2}}', '[{"k": 1, "k": 1}, {"k": [{"k": 2, "k": 3}]}]',
                 "[" * 3000 + '{"a": "é"}' + "]" * 3000, '{"k\\"": {"\\u00e9": [1, "\\\\"]}}'):
        assert _result(parse_json(text)) == _result(parse_eager(text))


def _containers(value: Any, path: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Any]]:
    """Every container below the decoded ``value``, with its path of member or item indices."""
    out: list[tuple[tuple[int, ...], Any]] = []
    kids = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else []
    for i, kid in enumerate(kids):
        if isinstance(kid, (dict, list)):
            out.append(((*path, i), kid))
            out.extend(_containers(kid, (*path, i)))
    return out


def _at(node: JNode, path: tuple[int, ...]) -> JNode:
    for i in path:
        node = node.members[i].value if node.members is not None else (node.items or [])[i]
    return node


@settings(max_examples=300, deadline=None)
@given(text=documents(), data=st.data())
def test_containers_made_straight_from_the_separators_are_the_eager_tree_s(text: str, data: st.DataObject) -> None:
    """`descendants`: the node of any container below the root, or below one of those, made
    with nothing on the way (or through the members of one made already), reads as the eager
    parse's node at that place."""
    old = jsonlazy.EXTENTS, jsonscan.LAZY_TREE
    jsonlazy.EXTENTS, jsonscan.LAZY_TREE = 0, 0
    try:
        root = parse_json(text).node
        if root is None or not isinstance(root, LazyNode) or not jsonlazy.keys_unique(root):
            return
        found = _containers(root.value)
        if found and data.draw(st.booleans()):  # (a container on the way made already, members and all)
            _full(_at(root, found[data.draw(st.integers(0, len(found) - 1))][0]))
        made = jsonlazy.descendants(root, found)
        assert made is not None
        eager = parse_eager(text).node
        assert eager is not None
        for (path, _), node in zip(found, made, strict=True):
            assert _full(node) == _full(_at(eager, path))
        if found:
            k = data.draw(st.integers(0, len(found) - 1))
            below = _containers(found[k][1])
            inner = jsonlazy.descendants(jsonlazy.descendants(root, [found[k]])[0], below)  # type: ignore[index]
            assert inner is not None
            for (path, _), node in zip(below, inner, strict=True):
                assert _full(node) == _full(_at(eager, found[k][0] + path))
    finally:
        jsonlazy.EXTENTS, jsonscan.LAZY_TREE = old


def test_containers_are_not_made_straight_where_a_key_is_written_twice(extents_always: None) -> None:
    """A decoded object with a key written twice has one member less than its text: no node is
    made from a path through it (the reader reads it member by member)."""
    root = parse_json('{"a": [{"k": 1, "k": {"x": []}}], "b": {}}').node
    assert isinstance(root, LazyNode)
    assert jsonlazy.descendants(root, [((0, 0, 0), root.value["a"][0]["k"])]) is None
    assert jsonlazy.descendants(root, [((1,), root.value["b"])]) is not None
