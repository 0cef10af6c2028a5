"""A session record's span-keeping tree built from its decoded value is the tree the tolerant
parser makes of it.

``tool-calls`` reads a JSON Lines record holding a call with the range of every value; the
tree is built from the value msgspec decoded (:func:`action_lsp.jsonrecord.record_tree`), the
text matched member by member. Read in full, every node must equal ``parse_eager``'s (kinds,
spans, decoded values, keys and their spans, every string's map index by index), on any JSON:
non-ASCII text, every escape (and spellings JSON.stringify does not write: ``\\u`` escapes,
``\\/``), surrogate pairs and lone surrogates, any whitespace, deep nesting; and a text that is
not its value written once as strict JSON (a key twice, raw control characters, ``NaN``,
trailing commas) gives no tree, so that the caller parses it as before.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.jsonrecord import MAX_DEPTH, StringNode, record_tree
from action_lsp.jsonscan import JNode, parse_eager
from action_lsp.records import loads


@dataclass
class Obj:
    """An object as written: its members in order, duplicate keys kept."""

    pairs: list[tuple[str, Any]]


_CHARS = ["a", "b", "é", "🌍", "\u2028", '"', "\\", "/", "\n", "\t", "\x08", "\x1f", "\ud800", "\udc00", " ", "{", "]"]
_STR = st.lists(st.sampled_from(_CHARS), max_size=6).map("".join)
_KEY = st.sampled_from(["a", "b", "é", "k\\", 'q"', "🌍", "", "x\n"])  # few keys: duplicates are common
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(allow_nan=False, allow_infinity=False), _STR
)
_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.lists(children, max_size=5) | st.lists(st.tuples(_KEY, children), max_size=5).map(Obj),
    max_leaves=40,
)
_WS = st.sampled_from(["", "", "", " ", "\n", "\r\n", "\t"])


def _dump(value: Any, draw: st.DrawFn, ascii_: bool) -> str:
    def ws() -> str:
        return draw(_WS)

    def string(s: str) -> str:
        written = json.dumps(s, ensure_ascii=ascii_)
        return written.replace("/", "\\/") if draw(st.integers(0, 7)) == 0 else written

    if isinstance(value, Obj):
        inner = ",".join(f"{ws()}{string(k)}{ws()}:{ws()}{_dump(v, draw, ascii_)}{ws()}" for k, v in value.pairs)
        return "{" + (inner or ws()) + "}"
    if isinstance(value, list):
        return "[" + (",".join(f"{ws()}{_dump(v, draw, ascii_)}{ws()}" for v in value) or ws()) + "]"
    return string(value) if isinstance(value, str) else json.dumps(value)


@st.composite
def records(draw: st.DrawFn) -> str:
    value = draw(st.lists(st.tuples(_KEY, _VALUES), max_size=4).map(Obj) | st.lists(_VALUES, max_size=4))
    text = draw(_WS) + _dump(value, draw, draw(st.booleans())) + draw(_WS)
    damage = draw(st.sampled_from(["", "", "", "", "comma", "raw", "nan", "extra"]))
    if damage == "comma" and "}" in text:
        text = text.replace("}", ",}", 1) if "{}" not in text else text.replace("{}", '{"x": 1,}', 1)
    elif damage == "raw":
        text = text.replace("\\t", "\t", 1).replace("\\n", "\n", 1)
    elif damage == "nan":
        text = text.replace("null", "NaN", 1)
    elif damage == "extra":
        text += ' {"more": 1}'
    return text


def _smap(node: JNode) -> Any:
    m = node.source_map
    if m is None:
        return None
    return (m.base, m.length, m.source_end, tuple(m.to_source(i) for i in range(m.length + 1)))


def _full(node: JNode | None) -> list[Any]:
    """Every node of the tree read out, in document order."""
    out: list[Any] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            out.append(None)
            continue
        v = n.value
        seen = list(v) if isinstance(v, dict) else len(v) if isinstance(v, list) else (type(v), repr(v))
        out.append((n.kind, n.span, seen, n.inner_span, _smap(n) if n.kind == "string" else n.source_map))
        if n.members is not None:
            out.append([(m.key, m.key_span) for m in n.members])
            stack.extend(m.value for m in reversed(n.members))
        if n.items is not None:
            out.append(len(n.items))
            stack.extend(reversed(n.items))
    return out


def _decoded(text: str) -> Any:
    try:
        return loads(text)
    except (ValueError, RecursionError):
        return None


@settings(max_examples=600, deadline=None)
@given(text=records(), data=st.data())
def test_the_tree_built_from_the_value_is_the_eager_tree(text: str, data: st.DataObject) -> None:
    prefix = data.draw(st.sampled_from(["", '{"x": 1}\n', "é🌍\n", "\r\n"]))
    whole = prefix + text + data.draw(st.sampled_from(["", "\n", "\n{}"]))
    start, end = len(prefix), len(prefix) + len(text)
    value = _decoded(text)
    tree = record_tree(whole, start, end, value)
    if tree is None:
        return
    eager = parse_eager(whole, start, end)
    assert eager.errors == [] and eager.notes == []  # only strict JSON gets a tree
    assert _full(tree) == _full(eager.node)
    assert repr(tree.value) == repr(eager.node.value)  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(value=st.recursive(_SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(_KEY, c, max_size=4),
                          max_leaves=30).filter(lambda v: isinstance(v, dict | list)),
       ascii_=st.booleans(), compact=st.booleans())
def test_a_record_written_once_always_gets_its_tree(value: Any, ascii_: bool, compact: bool) -> None:
    """Not vacuous: what JSON writers write (no key twice) is built, never left to the parser."""
    text = json.dumps(value, ensure_ascii=ascii_, separators=(",", ":") if compact else None)
    tree = record_tree(text, 0, len(text), loads(text))
    assert tree is not None
    assert _full(tree) == _full(parse_eager(text).node)


def test_what_is_not_the_value_written_once_gets_no_tree() -> None:
    for text in ('{"a": 1, "a": 2}', '{"a": [{"k": 1, "k": 1}]}', '{"a": "x\ty"}', '{"a": NaN}', '{"a": -Infinity}',
                 '{"a": 1} x'):
        assert record_tree(text, 0, len(text), json.loads(text.split(" x")[0], strict=False)) is None
    assert record_tree('{"a": 1}', 0, 8, {"b": 1}) is None  # (not that text's value)
    assert record_tree('{"a": 1}', 0, 8, {"a": "1"}) is None
    assert record_tree('"a"', 0, 3, "a") is None  # a record is an object or an array


def test_deep_nesting_is_left_to_the_parser() -> None:
    text = "[" * (MAX_DEPTH + 5) + "1" + "]" * (MAX_DEPTH + 5)
    assert record_tree(text, 0, len(text), json.loads(text)) is None
    text = "[" * (MAX_DEPTH - 1) + '{"a": "é"}' + "]" * (MAX_DEPTH - 1)
    tree = record_tree(text, 0, len(text), json.loads(text))
    assert tree is not None and _full(tree) == _full(parse_eager(text).node)


def test_a_string_map_is_made_when_first_read() -> None:
    text = '{"t": "2026-01-01", "c": "a\\nb\\"c"}'
    tree = record_tree(text, 0, len(text), json.loads(text))
    assert tree is not None and tree.members is not None
    leaf = tree.members[1].value
    assert isinstance(leaf, StringNode)
    assert leaf.source_map == parse_eager(text).node.members[1].value.source_map  # type: ignore[union-attr,index]
    assert leaf.source_map.to_source(2) == text.index("b")
