"""`jsonlazy.keys_unique`: whether any object of a strict JSON document has a key twice, decided
by counting colons (the text's against the decoded value written out again), must answer what
the plain check -- every object's pairs from the standard library's decoder -- answers, on any
document: keys written twice at any depth, colons in keys and values, written raw or escaped
(``\\u003a``, where the count alone would be fooled), non-ASCII, every escape."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import jsonscan
from action_lsp.jsonlazy import LazyNode, keys_unique, keys_unique_by_pairs
from action_lsp.jsonscan import parse_json


class Obj:
    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


_CHARS = ["a", ":", "§", "é", "🌍", '"', "\\", "\n", "\x1f", " ", "{", "}", ",", "[", "\ud800"]
_STR = st.lists(st.sampled_from(_CHARS), max_size=5).map("".join)
_KEY = st.sampled_from(["a", "b", ":", "a:b", "§", "x§", "é", ""])  # few keys: duplicates are common
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=False, allow_infinity=False), _STR),
    lambda kids: st.lists(kids, max_size=4) | st.lists(st.tuples(_KEY, kids), max_size=4).map(Obj),
    max_leaves=30,
)


def _dump(value: Any, ascii_: bool) -> str:
    if isinstance(value, Obj):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=ascii_)}: {_dump(v, ascii_)}" for k, v in value.pairs) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump(v, ascii_) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_)


@st.composite
def documents(draw: st.DrawFn) -> str:
    value = draw(st.lists(st.tuples(_KEY, _VALUES), max_size=4).map(Obj) | st.lists(_VALUES, max_size=4))
    text = _dump(value, draw(st.booleans())).replace("\\u00a7", "§")
    # "§" stands only inside strings: each becomes a colon, raw or escaped either way
    colons = iter(draw(st.lists(st.sampled_from([":", "\\u003a", "\\u003A", "\\u003b"]), min_size=text.count("§"),
                                max_size=text.count("§"))))
    return "".join(next(colons) if c == "§" else c for c in text)


def _root(text: str) -> LazyNode | None:
    old = jsonscan.LAZY_TREE
    jsonscan.LAZY_TREE = 0
    try:
        node = parse_json(text).node
    finally:
        jsonscan.LAZY_TREE = old
    return node if isinstance(node, LazyNode) else None


@settings(max_examples=500, deadline=None)
@given(text=documents())
def test_counting_colons_answers_as_every_objects_pairs(text: str) -> None:
    root = _root(text)
    if root is None:  # not strict JSON (a lone surrogate): no tree made as read, nothing pruned
        return
    assert keys_unique(root) == keys_unique_by_pairs(text.encode("utf-8"))


@pytest.mark.parametrize(("text", "unique"), [
    ('{"a": 1, "a": 2}', False),
    ('{"a": 1, "b": {"c": [1, {"d": 2, "d": 2}]}}', False),
    ('{"a:b": "c:d", "b": ":"}', True),
    ('{"a": "\\u003a", "a": 1}', False),  # an escaped colon makes up for the member dropped
    ('{"\\u003a": 1, ":": 2}', False),  # the same key spelled two ways
    ('{"\\u003a": 1, "b": 2}', True),
    ('[{"k": 1}, {"k": 1}]', True),
])
def test_known_documents(text: str, unique: bool) -> None:
    root = _root(text)
    assert root is not None and keys_unique(root) is unique


def test_deep_nesting() -> None:
    """As deep as msgspec decodes (the standard library's decoder too, below its recursion limit)."""
    for inner, unique in (('{"a": 1, "b": ":"}', True), ('{"a": 1, "a": ":"}', False)):
        text = "[" * 900 + inner + "]" * 900
        root = _root(text)
        assert root is not None and keys_unique(root) is unique is keys_unique_by_pairs(text.encode())


def test_only_the_root_of_a_tree_made_as_read() -> None:
    root = _root('{"a": {"b": 1}}')
    assert root is not None and root.members is not None
    assert keys_unique(root.members[0].value) is False
    assert keys_unique(parse_json('{"a": 1}').node) is False  # type: ignore[arg-type]  # (eager: no tree made as read)
