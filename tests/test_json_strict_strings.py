"""A JSON string decoded by the C decoder first is the string the tolerant path reads.

The tolerant parser read an escaped string with three regular expressions over its body
(where it ends, then raw control characters, twice) and the C decoder. Now the C decoder
(``json.decoder.scanstring``, not strict) finds the closing quote as it decodes
(``jsonscan._decoded_string``), control characters are searched for once, and a string in a
tree made from msgspec's decode (strict JSON by construction: ``jsonlazy``) is mapped from its
known end with no search at all. Either way the node -- value, span, every index of its source
map --, the errors and the notes must be those of the tolerant path, on any text: escapes of
every kind, raw control characters, stray backslashes, unterminated strings, bounds cutting a
string.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import jsonscan
from action_lsp.jsonlazy import lazy_tree

_PIECES = st.sampled_from(
    ["a", "bc", " ", "\\n", "\\t", '\\"', "\\\\", "\\/", "\\u00e9", "\\ud83c\\udf0d", "\\ud800", "\\q", "\\u12",
     "\n", "\t", "\x01", "é", "🌍", '"', "\\", "x = 1;", "\r\n"]
)
_BODY = st.lists(_PIECES, min_size=0, max_size=16).map("".join)


def _tolerant(text: str, pos: int, end: int, monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(jsonscan, "_decoded_string", lambda text, start, end: (None, -1))
        return _read(text, pos, end)


def _read(text: str, pos: int, end: int) -> object:
    parser = jsonscan._Parser(text, end)
    try:
        node = parser.string(pos)
    except jsonscan._Fatal as fatal:
        return ("fatal", repr(fatal), parser.errors)
    return _seen(node), parser.errors, parser.notes


def _seen(node: jsonscan.JNode) -> object:
    smap = node.source_map
    assert smap is not None
    n = len(node.value)
    return (node.value, node.span, smap.base, smap.source_end, [smap.to_source(i) for i in range(n + 1)],
            [smap.span(i, min(n, i + 3)) for i in range(n)])


@settings(max_examples=400, deadline=None)
@given(_BODY, _BODY, st.integers(min_value=0, max_value=40))
def test_the_decoded_string_reads_as_the_tolerant_path(body: str, after: str, cut: int) -> None:
    text = f'[ "{body}"{after}'
    end = max(2, len(text) - cut)  # (a bound that may cut the string)
    with pytest.MonkeyPatch.context() as mp:
        old = _tolerant(text, 2, end, mp)
    assert _read(text, 2, end) == old


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_a_lazy_trees_string_maps_as_the_eager_parse(value: str) -> None:
    for ensure_ascii in (False, True):
        try:
            encoded = json.dumps({"k": [value, {"v": value}]}, ensure_ascii=ensure_ascii)
            encoded.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: no strict UTF-8 text, the tolerant parser reads it
            continue
        text = "  " + encoded
        made = lazy_tree(text, 0, len(text))
        assert made is not None
        eager = jsonscan.parse_eager(text, 0, len(text)).node
        assert eager is not None
        lazy_k, eager_k = made[0].get("k"), eager.get("k")
        assert lazy_k is not None and eager_k is not None
        lazy_items, eager_items = lazy_k.value.items or [], eager_k.value.items or []
        lazy_v, eager_v = lazy_items[1].get("v"), eager_items[1].get("v")
        assert lazy_v is not None and eager_v is not None
        for lazy, exact in ((lazy_items[0], eager_items[0]), (lazy_v.value, eager_v.value)):
            assert _seen(lazy) == _seen(exact)


def test_a_long_escaped_string_with_a_raw_tab_keeps_its_note() -> None:
    text = '"a long string\\n with\ta raw tab"'
    parser = jsonscan._Parser(text, len(text))
    node = parser.string(0)
    assert node.value == "a long string\n with\ta raw tab"
    assert [n.kind for n in parser.notes] == ["control-char"]


def test_a_string_closing_after_the_bound_is_unterminated() -> None:
    text = '"escaped \\" quote, then more" and the rest'
    parser = jsonscan._Parser(text, 20)
    with pytest.raises(jsonscan._Fatal):
        parser.string(0)


def test_the_decoder_finds_the_closing_quote_past_escaped_ones() -> None:
    text = '"say \\"hi\\" twice\\\\" and more "'
    assert jsonscan._decoded_string(text, 1, len(text)) == ('say "hi" twice\\', 20)
    assert jsonscan._decoded_string(text, 1, 19) == (None, -1)  # (its closing quote past the bound)
    assert jsonscan._decoded_string('"a raw\ttab, escaped\\n"', 1, 23) == ("a raw\ttab, escaped\n", 22)
    assert jsonscan._decoded_string('"a bad \\q escape, long"', 1, 24) == (None, -1)


@settings(max_examples=300, deadline=None)
@given(_BODY, st.sampled_from(["\n", "\r\n", "", " tail", '" more "', "\t"]), st.integers(0, 6))
def test_a_bound_at_a_line_break_reads_as_the_tolerant_path(body: str, tail: str, back: int) -> None:
    text = f'{{"k": "{body}"}}{tail}'
    end = max(2, len(text) - len(tail) - back)
    with pytest.MonkeyPatch.context() as mp:
        old = _tolerant(text, 6, end, mp)
    assert _read(text, 6, end) == old


def test_a_string_of_many_escaped_quotes_inside_a_line_reads_as_the_tolerant_path() -> None:
    body = '{\\"k\\": \\"v\\"} ' * 20  # (JSON in a JSON string: more escaped quotes than the strict pass steps over)
    text = f'x = ["{body}", "{body}\\q"] and more prose'
    end = text.index(" and more")
    for pos in (5, text.index('"{', 6)):
        with pytest.MonkeyPatch.context() as mp:
            old = _tolerant(text, pos, end, mp)
        assert _read(text, pos, end) == old
    jsonscan._refused = (0, -1)  # (the decoder refused the second string of this text above)
    assert jsonscan._decoded_string(text, 6, end)[1] == text.index('", "') + 1


@settings(max_examples=300, deadline=None)
@given(_BODY, _BODY)
def test_strings_after_one_the_decoder_refused_read_the_same(body: str, after: str) -> None:
    """Once the C decoder refuses a string of a text (its error counts every line before it:
    quadratic on a session with many bad escapes), the text's other strings are read by the
    tolerant path alone -- to the same node, errors and notes."""
    text = f'[ "a bad \\q escape in a long string", "{body}"{after}'
    second = text.index('", "') + 3
    jsonscan._refused = (0, -1)
    fresh = _read(text, second, len(text))
    _read(text, 2, len(text))  # (refused: a bad escape)
    assert jsonscan._decoder_refused(text)
    assert _read(text, second, len(text)) == fresh
