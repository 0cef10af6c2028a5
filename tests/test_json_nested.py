"""A string inside a tool call's ``arguments`` string maps to the document as the composition
of the two strings' maps does, whether its map is made from its value
(:mod:`action_lsp.jsonnested`) or composed from both maps' breaks: every index, before and
after its breaks are made, and the breaks themselves.

Arguments are written as ``json.dumps`` writes them (``ensure_ascii`` on and off: ``\\u``
escapes send a string to the plain composition), sometimes with ``\\/`` escapes, inside a
document long enough to be read as a tree made as read (and a short one, read eagerly)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import model
from action_lsp.dialects.tool_use import decode_arguments
from action_lsp.jsonnested import compose
from action_lsp.jsonscan import parse_json
from action_lsp.model import SourceMap

_PIECES = st.sampled_from(
    [
        "a",
        "x = 1",
        "\n",
        "\t",
        '"',
        "\\",
        "\b",
        "\f",
        "\r",
        "é",
        "🌍",
        "/",
        "<",
        "\x01",
        "\u2028",
        " " * 40,
    ]
)
_LONG = "y" * 600  # (the array path of the breaks)


def _eager(m: SourceMap) -> SourceMap:
    return SourceMap(m.base, m.length, m.source_end, tuple(m.breaks), m.offset)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.tuples(st.lists(_PIECES, max_size=40), st.booleans()), min_size=1, max_size=3
    ),
    ascii_args=st.booleans(),
    ascii_doc=st.booleans(),
    slashes=st.booleans(),
    long_doc=st.booleans(),
)
def test_a_string_in_an_arguments_string_maps_as_the_composition_of_both_maps(
    values: list[tuple[list[str], bool]],
    ascii_args: bool,
    ascii_doc: bool,
    slashes: bool,
    long_doc: bool,
) -> None:
    args = json.dumps(
        {f"k{i}": "".join(p) + (_LONG if long else "") for i, (p, long) in enumerate(values)},
        ensure_ascii=ascii_args,
    )
    if slashes:
        args = args.replace("/", "\\/")
    doc = json.dumps({"before": 'a\nb"c', "arguments": args}, ensure_ascii=ascii_doc)
    if long_doc:
        doc += " " * 70000
    root = parse_json(doc, 0, len(doc)).node
    assert root is not None
    member = root.get("arguments")
    assert member is not None
    outer_node = member.value
    inp, problems = decode_arguments(outer_node, "`t`")
    assert inp is not None and not problems
    outer = outer_node.source_map
    assert outer is not None
    for m in inp.node.members or ():
        inner = m.value.source_map
        assert inner is not None
        got = compose(outer, inner)
        model.LAZY = False
        try:
            want = _eager(outer).compose(_eager(inner))
        finally:
            model.LAZY = True
        n = inner.length
        wanted = [want.to_source(i) for i in range(n + 1)]
        assert (got.base, got.length, got.source_end) == (want.base, want.length, want.source_end)
        assert [got.to_source(i) for i in range(n + 1)] == wanted  # (before its breaks are made)
        assert tuple(got.breaks) == tuple(want.breaks)
        assert [got.to_source(i) for i in range(n + 1)] == wanted
        assert got == want
