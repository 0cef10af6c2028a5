"""SourceMap composition: a value decoded from a string that was itself decoded from the
document (a tool call's ``arguments``) maps each character to its exact document range."""

from __future__ import annotations

import json
import random

import pytest

from action_lsp.jsonscan import parse_json
from action_lsp.model import SourceMap


def _inner_string(doc: str, key: str):
    """The outer ``arguments`` string's map and the inner string node of ``key``."""
    outer = parse_json(doc).node
    assert outer is not None
    args = outer.get("arguments")
    assert args is not None and args.value.source_map is not None
    inner = parse_json(args.value.value).node
    assert inner is not None
    member = inner.get(key)
    assert member is not None and member.value.source_map is not None
    return args.value.source_map, member.value


def _check_every_char(doc: str, value: str, smap: SourceMap) -> None:
    for i, ch in enumerate(value):
        raw = doc[smap.to_source(i) : smap.to_source(i + 1)]
        # The characters written for value[i], decoded twice (or once, when written plainly).
        once = json.loads(f'"{raw}"') if raw != '"' else raw
        decoded = once if len(once) == 1 and once == ch else json.loads(f'"{once}"')
        assert decoded == ch, (i, ch, raw)
    assert smap.to_source(len(value)) == smap.source_end


@pytest.mark.parametrize(
    "value",
    [
        "plain text",
        'print("hi")\n\tx = 1\\2',
        "é🌍 — «ü» \u2028 \x01",
        '\\"\\\\\n"',
        "",
        "\n\n\n",
    ],
)
def test_compose_maps_every_character_through_two_levels(value: str) -> None:
    doc = json.dumps({"name": "write_file", "arguments": json.dumps({"content": value})}, ensure_ascii=False)
    outer, node = _inner_string(doc, "content")
    composed = outer.compose(node.source_map)
    assert composed.length == len(value)
    _check_every_char(doc, value, composed)
    start = composed.span(0, len(value)).start
    assert doc[start - 2 : start] == '\\"'  # right after the escaped opening quote


def test_compose_random_strings_ascii_and_unicode_escapes() -> None:
    rng = random.Random(7)
    alphabet = 'ab\n\t"\\/é🌍\x1f —'
    for _ in range(300):
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        for ascii_only in (True, False):
            inner = json.dumps({"c": value}, ensure_ascii=ascii_only)
            doc = json.dumps({"arguments": inner}, ensure_ascii=not ascii_only)
            outer, node = _inner_string(doc, "c")
            composed = outer.compose(node.source_map)
            _check_every_char(doc, value, composed)


def test_slice_maps_the_rest_of_a_value() -> None:
    doc = json.dumps({"p": "/home/a\\b/src/é.py"})
    node = parse_json(doc).node
    assert node is not None
    m = node.get("p")
    assert m is not None and m.value.source_map is not None
    value = m.value.value
    cut = value.index("src")
    rest = m.value.source_map.slice(cut)
    assert rest.length == len(value) - cut
    span = rest.span(0, rest.length)
    assert doc[span.start : span.end] == "src/\\u00e9.py"


def test_compose_with_a_verbatim_outer_map_is_a_shift() -> None:
    outer = SourceMap.verbatim(10, 30)
    inner = SourceMap(2, 3, 8, ((1, 5),))
    composed = outer.compose(inner)
    assert [composed.to_source(i) for i in range(4)] == [12, 15, 16, 18]


def test_composing_maps_with_many_escapes_maps_each_index_through_both() -> None:
    """A file written through two levels of JSON escapes (Cline's UI log, an ``arguments``
    string) has a break a line in each map: the composition, worked out on arrays past a few
    breaks, maps every index as the two maps one after the other do."""
    import json
    import random

    from action_lsp.jsonscan import parse_json

    rng = random.Random(5)
    for _ in range(200):
        value = "".join(rng.choice(["a", "\n", '"', "\\", "\t", "é", "🌍", " "]) for _ in range(rng.randint(0, 300)))
        doc = "x" + json.dumps(json.dumps({"k": value}, ensure_ascii=rng.random() < 0.5))
        outer = parse_json(doc, 1, len(doc)).node
        assert outer is not None and outer.source_map is not None
        member = parse_json(outer.value, 0, len(outer.value)).node.get("k")  # type: ignore[union-attr]
        assert member is not None and member.value.source_map is not None
        inner = member.value.source_map
        composed = outer.source_map.compose(inner)
        for i in range(inner.length + 1):
            assert composed.to_source(i) == outer.source_map.to_source(inner.to_source(i))
