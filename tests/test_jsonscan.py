"""Tests for the tolerant, span-keeping JSON parser."""

from __future__ import annotations

import json
import math

import pytest

from action_lsp.jsonscan import (
    JError,
    JNode,
    JResult,
    find_json_fence_end,
    parse_json,
    repair_json,
    trailing_data_error,
)
from action_lsp.model import Span


def kinds(errors: list[JError]) -> list[str]:
    return [e.kind for e in errors]


def member_value(node: JNode | None, key: str) -> JNode:
    assert node is not None
    member = node.get(key)
    assert member is not None, key
    return member.value


def ok(text: str) -> JResult:
    result = parse_json(text)
    assert result.node is not None
    assert result.errors == [], result.errors
    return result


# --------------------------------------------------------------------------------------------
# Valid JSON: same value as json.loads

VALID_DOCUMENTS = [
    '{"actions": [{"type": "create_task", "content": "test", "status": "pending"}]}',
    "[1, -2, 3.5, -0.25e-3, 1E+2, 0, true, false, null]",
    '{"nested": {"deep": [[[], {}], [{"x": [1, [2, [3]]]}]]}, "empty": "", "e": {}}',
    '"caf\\u00e9 \\ud83d\\ude00 na\\u00efve \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t"',
    '{"unicode": "日本語 — ü 😀", "key with spaces": "v", "": "empty key"}',
    '  \n\t {"dup": 1, "dup": 2, "arr": ["a", "b"]}',
    "-12345678901234567890",
    "1.5e300",
    '{"code": "```python\\nprint(\'test\')\\n```"}',
]


@pytest.mark.parametrize("text", VALID_DOCUMENTS)
def test_valid_documents_match_json_loads(text: str) -> None:
    result = ok(text)
    assert result.node is not None
    assert result.node.value == json.loads(text, strict=False)
    assert result.notes == []
    assert result.end == len(text)


def test_value_types_int_versus_float() -> None:
    node = ok("[1, 1.0, 1e0, -0]").node
    assert node is not None
    assert [type(v) for v in node.value] == [int, float, float, int]


def test_nan_and_infinity_as_json_loads_accepts_them() -> None:
    node = ok("[NaN, Infinity, -Infinity]").node
    assert node is not None
    assert math.isnan(node.value[0])
    assert node.value[1:] == [math.inf, -math.inf]


def test_raw_control_chars_match_json_loads_non_strict() -> None:
    text = '{"a": "x\ny\tz\r\x01"}'
    result = parse_json(text)
    assert result.errors == []
    assert result.node is not None
    assert result.node.value == json.loads(text, strict=False)


# --------------------------------------------------------------------------------------------
# Spans


def test_spans_of_nested_members() -> None:
    text = '{"a": {"b": [10, "xy", null]}, "c": true}'
    result = ok(text)
    root = result.node
    assert root is not None
    assert root.span == Span(0, len(text))
    a = root.get("a")
    assert a is not None
    assert a.key_span == Span(1, 4)
    assert text[a.value.span.start : a.value.span.end] == '{"b": [10, "xy", null]}'
    b = a.value.get("b")
    assert b is not None
    assert text[b.key_span.start : b.key_span.end] == '"b"'
    items = b.value.items
    assert items is not None
    assert [text[i.span.start : i.span.end] for i in items] == ["10", '"xy"', "null"]
    assert [i.kind for i in items] == ["number", "string", "null"]
    assert items[1].inner_span == Span(items[1].span.start + 1, items[1].span.end - 1)
    assert items[0].inner_span == items[0].span
    c = root.get("c")
    assert c is not None
    assert (c.value.kind, c.value.value, c.value.span) == ("bool", True, Span(36, 40))
    assert text[36:40] == "true"


def test_offsets_are_document_offsets_with_start_and_end() -> None:
    doc = 'prose before ```actions\n{"k": "v"}\n``` after {"x": 1}'
    start = doc.index("{")
    result = parse_json(doc, start, doc.index("```", start))
    assert result.errors == []
    k = member_value(result.node, "k")
    assert k.span == Span(doc.index('"v"'), doc.index('"v"') + 3)
    assert result.end == doc.index("}") + 1


def test_end_bound_is_respected() -> None:
    text = '{"a": 1} tail'
    result = parse_json(text, 0, 5)
    assert kinds(result.errors) == ["unexpected-end"]
    assert result.errors[0].offset == 5


def test_parsing_stops_after_first_value() -> None:
    text = '  [1, 2] {"more": true}'
    result = ok(text)
    assert result.end == 8
    error = trailing_data_error(text, result.end)
    assert error is not None
    assert (error.kind, error.offset) == ("extra-data", 9)
    assert trailing_data_error("[1]  \n", 3) is None


def test_duplicate_keys_kept_in_members_last_wins() -> None:
    result = ok('{"k": 1, "k": 2}')
    node = result.node
    assert node is not None and node.members is not None
    assert [m.value.value for m in node.members] == [1, 2]
    member = node.get("k")
    assert member is not None and member.value.value == 2
    assert node.value == {"k": 2}
    assert node.get("missing") is None


# --------------------------------------------------------------------------------------------
# Source maps of strings


def substring_source(text: str, node: JNode, sub: str) -> str:
    assert node.source_map is not None
    i = node.value.index(sub)
    span = node.source_map.span(i, i + len(sub))
    return text[span.start : span.end]


@pytest.mark.parametrize(
    ("body", "sub", "written"),
    [
        ("a\\nbc", "bc", "bc"),
        ("a\\nbc", "\nb", "\\nb"),
        ('say \\"hi\\" now', '"hi"', '\\"hi\\"'),
        ('say \\"hi\\" now', "now", "now"),
        ("C:\\\\dir\\\\file", "file", "file"),
        ("C:\\\\dir\\\\file", "\\dir", "\\\\dir"),
        ("caf\\u00e9 ok", "é ok", "\\u00e9 ok"),
        ("x\\ud83d\\ude00y", "😀", "\\ud83d\\ude00"),
        ("x\\ud83d\\ude00y", "y", "y"),
        ("line1\nline2", "line2", "line2"),
        ("a\\talpha\\alpha", "\\alpha", "\\alpha"),
        ("😀 raw then \\n esc", "esc", "esc"),
    ],
)
def test_source_map_maps_substrings_exactly(body: str, sub: str, written: str) -> None:
    text = '{"s": "' + body + '"}'
    node = member_value(parse_json(text).node, "s")
    assert substring_source(text, node, sub) == written


def test_source_map_every_index_points_at_its_first_source_char() -> None:
    body = 'a\\n\\"\\\\\\u00e9\\ud83d\\ude00\nz'
    text = '"' + body + '"'
    node = parse_json(text).node
    assert node is not None and node.source_map is not None
    assert node.value == 'a\n"\\é😀\nz'
    starts = [node.source_map.to_source(i) for i in range(len(node.value))]
    written = ["a", "\\n", '\\"', "\\\\", "\\u00e9", "\\ud83d\\ude00", "\n", "z"]
    expected = []
    pos = 1
    for w in written:
        expected.append(pos)
        pos += len(w)
    assert starts == expected
    assert node.source_map.to_source(len(node.value)) == len(text) - 1
    assert node.inner_span == Span(1, len(text) - 1)


# --------------------------------------------------------------------------------------------
# Tolerated quirks (notes only)


def test_raw_newline_in_string_is_a_note() -> None:
    text = '{"content": "line1\nline2"}'
    result = parse_json(text)
    assert result.errors == []
    assert kinds(result.notes) == ["control-char"]
    note = result.notes[0]
    assert (note.offset, note.end) == (text.index("\n"), text.index("\n") + 1)
    assert note.repairable
    assert member_value(result.node, "content").value == "line1\nline2"


def test_stray_backslash_kept_literally() -> None:
    text = '{"latex": "\\alpha + \\d \\ and \\\'x"}'
    result = parse_json(text)
    assert result.errors == []
    assert kinds(result.notes) == ["invalid-escape"]
    assert result.notes[0].offset == text.index("\\alpha")
    assert result.notes[0].end == text.index("\\alpha") + 2
    assert member_value(result.node, "latex").value == "\\alpha + \\d \\ and \\'x"


def test_invalid_unicode_escape_is_an_error() -> None:
    text = '["\\u12G4"]'
    result = parse_json(text)
    assert kinds(result.errors) == ["invalid-unicode-escape"]
    assert result.errors[0].offset == 2
    assert result.node is not None and result.node.value == ["\\u12G4"]


def test_lone_surrogate_decoded_like_json_loads() -> None:
    text = '"\\ud83d x"'
    assert ok(text).node is not None
    node = ok(text).node
    assert node is not None and node.value == json.loads(text)


# --------------------------------------------------------------------------------------------
# Repairable errors


def test_trailing_comma_in_object_and_array() -> None:
    text = '{"a": [1, 2,], "b": 3,}'
    result = parse_json(text)
    assert kinds(result.errors) == ["trailing-comma", "trailing-comma"]
    assert [e.offset for e in result.errors] == [11, 21]
    assert all(e.repairable for e in result.errors)
    assert "remove it" in result.errors[1].message and "'}'" in result.errors[1].message
    assert result.node is not None and result.node.value == {"a": [1, 2], "b": 3}
    assert result.end == len(text)


def test_seed_trailing_comma_with_comment() -> None:
    text = (
        "{\n"
        '  "actions": [\n'
        "    {\n"
        '      "type": "create_task",\n'
        '      "content": "test",  // Trailing comma\n'
        "    }\n"
        "  ]\n"
        "}"
    )
    result = parse_json(text)
    assert kinds(result.errors) == ["trailing-comma", "comment"]
    comma = text.index('"test",') + len('"test"')
    assert result.errors[0].offset == comma
    assert result.errors[1].offset == text.index("//")
    assert result.errors[1].end == text.index("\n", text.index("//"))
    assert result.node is not None
    assert result.node.value == {"actions": [{"type": "create_task", "content": "test"}]}
    assert result.ok
    repaired = repair_json(text)
    assert repaired == text.replace('"test",  // Trailing comma', '"test"')


def test_comments_line_and_block() -> None:
    text = '/* head */ {"a": 1, // one\n "b": /* two */ 2}'
    result = parse_json(text)
    assert kinds(result.errors) == ["comment", "comment", "comment"]
    assert [e.offset for e in result.errors] == [0, text.index("//"), text.index("/* two")]
    assert result.node is not None and result.node.value == {"a": 1, "b": 2}
    assert result.node.span.start == text.index("{")


def test_unterminated_block_comment_is_fatal() -> None:
    result = parse_json("[1, /* never closed")
    assert kinds(result.errors) == ["comment"]
    assert not result.errors[0].repairable
    assert result.errors[0].offset == 4
    assert result.node is not None and result.node.value == [1]


def test_single_quoted_strings() -> None:
    text = "{'key': 'it\\'s \"q\"'}"
    result = parse_json(text)
    assert kinds(result.errors) == ["single-quote", "single-quote"]
    assert [e.offset for e in result.errors] == [1, 8]
    assert result.node is not None and result.node.value == {"key": 'it\'s "q"'}
    member = result.node.get("key")
    assert member is not None and member.key_span == Span(1, 6)
    assert json.loads(repair_json(text) or "") == {"key": 'it\'s "q"'}


def test_missing_comma_at_newline_recovers() -> None:
    text = '{\n  "a": 1\n  "b": [1\n  2]\n}'
    result = parse_json(text)
    assert kinds(result.errors) == ["missing-comma", "missing-comma"]
    assert result.errors[0].offset == text.index('"b"')
    assert result.errors[1].offset == text.index("2]")
    assert result.node is not None and result.node.value == {"a": 1, "b": [1, 2]}
    assert repair_json(text) == '{\n  "a": 1,\n  "b": [1,\n  2]\n}'


def test_missing_comma_on_same_line_is_fatal() -> None:
    text = '{"a": 1 "b": 2}'
    result = parse_json(text)
    assert kinds(result.errors) == ["unexpected-char"]
    assert result.errors[0].offset == 8
    assert not result.errors[0].repairable
    assert result.node is not None and result.node.value == {"a": 1}


def test_unquoted_keys_and_python_literals() -> None:
    text = "{type: True, other_key: None, x: False}"
    result = parse_json(text)
    assert kinds(result.errors) == ["unquoted-key", "python-literal"] * 3
    assert [e.offset for e in result.errors] == [1, 7, 13, 24, 30, 33]
    assert result.node is not None
    assert result.node.value == {"type": True, "other_key": None, "x": False}
    member = result.node.get("other_key")
    assert member is not None and member.key_span == Span(13, 22)
    assert repair_json(text) == '{"type": true, "other_key": null, "x": false}'


# --------------------------------------------------------------------------------------------
# Fatal errors: first one, exact offset, partial tree


def test_unterminated_string_partial_tree() -> None:
    text = '{"a": 1, "b": "never closed\n}'
    result = parse_json(text)
    assert kinds(result.errors) == ["unterminated-string"]
    error = result.errors[0]
    assert (error.offset, error.repairable) == (text.index('"never'), False)
    assert result.node is not None and result.node.value == {"a": 1}
    assert result.node.span == Span(0, error.offset)
    assert result.end == error.offset


def test_missing_closing_brace_reports_end_of_input() -> None:
    text = '{"a": [1, {"b": 2}'
    result = parse_json(text)
    assert kinds(result.errors) == ["unexpected-end"]
    assert result.errors[0].offset == len(text)
    assert "']'" in result.errors[0].message
    assert result.node is not None and result.node.value == {"a": [1, {"b": 2}]}
    inner = member_value(result.node, "a")
    assert inner.span == Span(6, len(text))


def test_unexpected_character_stops_at_first() -> None:
    text = '{"a": hello, "b": @}'
    result = parse_json(text)
    assert kinds(result.errors) == ["unexpected-char"]
    assert (result.errors[0].offset, result.errors[0].end) == (6, 7)
    assert "expected a value" in result.errors[0].message


@pytest.mark.parametrize(
    ("text", "offset", "kind"),
    [
        ("", 0, "unexpected-end"),
        ("   \n", 4, "unexpected-end"),
        ("x", 0, "unexpected-char"),
        ("[1,,2]", 3, "unexpected-char"),
        ('{"a" 1}', 5, "unexpected-char"),
        ('{"a":}', 5, "unexpected-char"),
        ("[1 2]", 3, "unexpected-char"),
        ('{"a": 1]', 7, "unexpected-char"),
        ('"abc', 0, "unterminated-string"),
        ('"abc\\', 0, "unterminated-string"),
        ("[01]", 2, "unexpected-char"),
        ("[-]", 1, "unexpected-char"),
    ],
)
def test_fatal_error_offsets(text: str, offset: int, kind: str) -> None:
    result = parse_json(text)
    assert kinds(result.errors) == [kind]
    assert result.errors[0].offset == offset
    assert result.errors[0].end >= result.errors[0].offset
    assert result.fatal is result.errors[0]
    assert not result.ok


def test_nothing_parsed_gives_no_node() -> None:
    assert parse_json("").node is None
    assert parse_json("  oops").node is None


# --------------------------------------------------------------------------------------------
# Deep nesting


def test_deep_nesting_does_not_recurse() -> None:
    depth = 20_000
    text = "[" * depth + "1" + "]" * depth
    result = ok(text)
    assert result.end == len(text)
    node = result.node
    for _ in range(depth):
        assert node is not None and node.items is not None
        node = node.items[0]
    assert node is not None and node.value == 1


def test_deep_nesting_unclosed_reports_end() -> None:
    depth = 5_000
    text = '{"a":' * depth + "1"
    result = parse_json(text)
    assert kinds(result.errors) == ["unexpected-end"]
    assert result.errors[0].offset == len(text)
    assert result.node is not None and result.node.span == Span(0, len(text))


# --------------------------------------------------------------------------------------------
# find_json_fence_end


def test_fence_inside_json_string_does_not_close() -> None:
    doc = (
        "```actions\n"
        '{"actions": [{"type": "execute_code",\n'
        '  "code": "```python\n'
        "print('x')\n"
        '```\n"}]}\n'
        "```\n"
        "after\n"
    )
    body = doc.index("\n") + 1
    closing = doc.index("```\nafter")
    assert find_json_fence_end(doc, body) == (closing, closing + 4)


def test_fence_with_escaped_fence_in_string() -> None:
    doc = '```actions\n{"code": "```python\\nprint(\'test\')\\n```"}\n```'
    body = doc.index("\n") + 1
    closing = doc.rindex("```")
    assert find_json_fence_end(doc, body) == (closing, len(doc))


def test_fence_escaped_quote_keeps_string_open() -> None:
    doc = 'x\n{"a": "he said \\"\n```\n\\" ok"}\n  ````  \r\nrest'
    closing = doc.index("  ````")
    assert find_json_fence_end(doc, 2) == (closing, doc.index("rest"))


def test_fence_rules_indent_length_and_trailing_text() -> None:
    doc = '{"a": 1}\n    ```\n``` x\n``\n ```\r'
    closing = doc.index(" ```\r")
    assert find_json_fence_end(doc, 0) == (closing, len(doc))
    assert find_json_fence_end("{}\n~~~~\n", 0, "~", 4) == (3, 8)
    assert find_json_fence_end("{}\n~~~\n", 0, "~", 4) is None


def test_fence_comment_with_quote_is_not_a_string() -> None:
    doc = '{"a": 1 // a " quote\n}\n```\n'
    assert find_json_fence_end(doc, 0) == (doc.index("```"), len(doc))


def test_fence_unterminated_string_falls_back_to_first_fence() -> None:
    doc = '{"a": "oops\n```\ntext\n```\n'
    assert find_json_fence_end(doc, 0) == (doc.index("```"), doc.index("text"))


def test_fence_missing_closing_returns_none() -> None:
    doc = '```actions\n{"actions": [{"type": "create_task", "content": "test"}]}\n// no fence\n'
    assert find_json_fence_end(doc, doc.index("{")) is None
    # The only fence sits inside a string that closes later: nothing closes the block.
    assert find_json_fence_end('{"a": "\n```\n"}\n', 0) is None


def test_fence_search_is_linear_on_many_lines() -> None:
    doc = '{"a": "' + "line\n" * 200_000 + '"}\n```\n'
    assert find_json_fence_end(doc, 0) == (len(doc) - 4, len(doc))


# --------------------------------------------------------------------------------------------
# repair_json


def test_repair_returns_valid_input_unchanged() -> None:
    text = '{\n  "a": [1, 2],\n  "b": "x"\n}'
    assert repair_json(text) is text


def test_repair_trailing_commas_minimal_edit() -> None:
    text = '{\n  "a": [1, 2,],\n  "b": "x",\n}'
    assert repair_json(text) == '{\n  "a": [1, 2],\n  "b": "x"\n}'


def test_repair_raw_control_chars_and_stray_backslashes() -> None:
    text = '{"content": "line1\nline2\t\\alpha \\n ok"}'
    repaired = repair_json(text)
    assert repaired == '{"content": "line1\\nline2\\t\\\\alpha \\n ok"}'
    assert json.loads(repaired) == parse_json(text).node.value  # type: ignore[union-attr]


def test_repair_comment_on_its_own_line_removes_the_line() -> None:
    text = "[\n  // first\n  1\n]"
    assert repair_json(text) == "[\n  1\n]"


def test_repair_single_quotes_and_python_literals() -> None:
    text = "{'a': 'b\"c', 'd': [True, None]}"
    repaired = repair_json(text)
    assert repaired == '{"a": "b\\"c", "d": [true, null]}'


def test_repair_falls_back_to_json_repair_for_truncated_input() -> None:
    repaired = repair_json('{"a": [1, 2')
    assert repaired is not None
    assert json.loads(repaired) == {"a": [1, 2]}


def test_repair_gives_none_when_hopeless() -> None:
    assert repair_json("") is None
    assert repair_json("hello there") is None


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1,}',
        "[1, 2, /* c */ 3,]",
        "{'k': 'v'}",
        '{"s": "a\nb"}',
        '{"s": "\\u12"}',
        "{\"s\": '\\u12 and \\q'}",
        '{\n "a": 1\n "b": 2\n}',
    ],
)
def test_repair_round_trips_to_the_tolerant_value(text: str) -> None:
    repaired = repair_json(text)
    assert repaired is not None
    result = parse_json(text)
    assert result.node is not None
    assert json.loads(repaired) == result.node.value
    assert repair_json(repaired) == repaired


# --------------------------------------------------------------------------------------------
# Source maps against the decoder itself, on both decoding paths


def _random_strings() -> list[str]:
    import random

    rng = random.Random(7)
    alphabet = ["a", "é", "😀", '"', "\\", "\n", "\t", "/", "\x01", "Z", " ", "\ud83d"]
    return ["".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 24))) for _ in range(300)]


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_source_map_each_char_decodes_from_its_source_slice(ensure_ascii: bool) -> None:
    extra = ["\\u0041\\udc00 tail text", "\\u0041\\udc00", "\\ud83d\\u0041 long enough"]
    for value in _random_strings():
        written = json.dumps(value, ensure_ascii=ensure_ascii)
        for body in [written, *('"' + e + '"' for e in extra)]:
            text = "[0, " + body + "]"
            result = parse_json(text)
            assert result.errors == []
            assert result.node is not None and result.node.items is not None
            node = result.node.items[1]
            assert node.value == json.loads(body)
            assert node.source_map is not None
            for i in range(len(node.value)):
                span = node.source_map.span(i, i + 1)
                assert json.loads('"' + text[span.start : span.end] + '"') == node.value[i]


def test_large_document_matches_json_loads() -> None:
    doc = {
        "actions": [
            {"type": "execute_code", "id": i, "code": f"print({i})\n\tx = '\\\\d'\n" * 5}
            for i in range(1500)
        ]
    }
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    assert len(text) > 65536
    result = ok(text)
    assert result.node is not None and result.node.value == doc
