"""Shared tag scanning: start tags and attributes, element values, closing-tag search."""

from __future__ import annotations

import random
from typing import Any

import pytest

from action_lsp.dialects.tags import (
    Finder,
    body_value,
    decode_entities,
    find_close,
    parse_start_tag,
    stripped_value,
)
from action_lsp.model import Span


class Ctx:
    """A minimal ScanContext."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cache: dict[str, Any] = {}
        self.finds = 0

    def find(self, needle: str, start: int) -> int:
        self.finds += 1
        return self.text.find(needle, start)

    def find_fence_close(self, body_start: int, char: str, length: int) -> tuple[int, int] | None:
        return None

    def next_tag_start(self, start: int) -> int:
        return len(self.text)

    def in_code_span(self, pos: int) -> bool:
        from action_lsp.dialects import DialectSet
        from action_lsp.scan_state import ScanState

        return ScanState(self.text, DialectSet()).in_code_span(pos)  # the scanner's own rule


def start_tag(text: str, name: str) -> Any:
    at = text.index("<" + name)
    return parse_start_tag(Ctx(text), at, at + 1 + len(name))


def test_double_and_single_quotes_hold_gt_and_the_other_quote() -> None:
    text = """<aether-write path="a>b.py" description='say "hi" > there'>body"""
    tag = start_tag(text, "aether-write")
    assert tag.closed and not tag.self_closing
    assert tag.end == text.index("body")
    path, desc = tag.attributes
    assert (path.name, path.value) == ("path", "a>b.py")
    assert path.span == Span(text.index("a>b"), text.index('" desc'))
    assert path.name_span == Span(text.index("path"), text.index("path") + 4)
    assert desc.value == 'say "hi" > there'
    assert text[desc.span.start : desc.span.end] == 'say "hi" > there'


def test_unquoted_boolean_and_no_attributes() -> None:
    text = "<aether-sandbox test language=python path=src/a.py>"
    tag = start_tag(text, "aether-sandbox")
    assert [(a.name, a.value) for a in tag.attributes] == [
        ("test", True),
        ("language", "python"),
        ("path", "src/a.py"),
    ]
    src = tag.attribute("path")
    assert src is not None and text[src.span.start : src.span.end] == "src/a.py"
    bare = start_tag("<think>x", "think")
    assert bare.closed and bare.attributes == [] and bare.end == len("<think>")


def test_self_closing_forms() -> None:
    for text in (
        '<aether-command type="refresh"/>',
        "<aether-command type=refresh/>",
        "<aether-command type=refresh />",
    ):
        tag = start_tag(text, "aether-command")
        assert tag.closed and tag.self_closing and tag.end == len(text), text
        assert tag.attribute("type").value == "refresh"


def test_duplicate_attribute_last_wins() -> None:
    tag = start_tag('<x a="1" a="2">', "x")
    assert tag.attribute("a").value == "2"


def test_entities_decoded_with_a_source_map() -> None:
    text = '<w path="a &amp; b&#62;c.py">'
    tag = start_tag(text, "w")
    a = tag.attributes[0]
    assert a.value == "a & b>c.py"
    f = a.to_field()
    # "c.py" in the value maps to "c.py" in the document, past both entities
    i = a.value.index("c.py")
    assert f.value_span(i, i + 4) == Span(text.index("c.py"), text.index("c.py") + 4)
    amp = a.value.index("&")
    assert f.value_span(amp, amp + 1).start == text.index("&amp;")
    value, smap = decode_entities("&bogus; &lt;", 0, 12)
    assert value == "&bogus; <"
    assert smap.to_source(len(value)) == 12


def test_unterminated_start_tags() -> None:
    tag = start_tag("<aether-write path='a' <aether-write>", "aether-write")
    assert not tag.closed and tag.end == tag.start + len("<aether-write path='a' ")
    tag = start_tag('<aether-write path="a.py>\nno closing quote', "aether-write")
    assert not tag.closed and "never closed" in tag.problem


def test_body_value_keeps_exact_bytes() -> None:
    for raw, expected in [
        ("\n  indented\n\n\n", "  indented\n\n\n"),
        ("\r\nline\r\n\r\n", "line\r\n\r\n"),
        ("\rmac\r", "mac\r"),
        ("no newlines", "no newlines"),
        ("\n", ""),
        ("", ""),
        ("  <![CDATA[\n a < b ]]>  ", "\n a < b "),
        ("<![CDATA[a]]> tail", "<![CDATA[a]]> tail"),
    ]:
        text = "<c>" + raw + "</c>"
        value, span, smap = body_value(text, 3, 3 + len(raw))
        assert value == expected, raw
        assert text[span.start : span.end] == expected
        assert smap.to_source(0) == span.start


def test_stripped_value_span_follows_the_value() -> None:
    text = "<path>  src/a b.py \n</path>"
    value, span, _ = stripped_value(text, 6, text.index("</path>"))
    assert value == "src/a b.py"
    assert span == Span(text.index("src"), text.index(".py") + 3)


def test_find_close_skips_nested_pairs_and_code_spans() -> None:
    text = "<a>x <a>nested</a> `<a>` y</a> tail <a>open"
    ctx = Ctx(text)
    first = text.index(">") + 1
    close = find_close(ctx, "a", first)
    assert close is not None
    assert (close.start, close.end) == (text.index("</a> tail"), text.index(" tail"))
    assert close.lookahead == close.end
    assert find_close(ctx, "a", text.index("open")) is None


def test_find_close_ignores_self_closing_and_prefixes() -> None:
    text = "<a><a/><ab></ab></a>"
    assert find_close(Ctx(text), "a", 3) == (text.index("</a>"), len(text), len(text))


def test_find_close_many_unclosed_openers_reads_once() -> None:
    text = "<a>\n" * 5000 + "</a>"
    ctx = Ctx(text)
    # each opener asks; only the innermost is closed
    results = [find_close(ctx, "a", i * 4 + 3) for i in range(5000)]
    assert results[-1] == (len(text) - 4, len(text), len(text))
    assert all(r is None for r in results[:-1])
    matcher = ctx.cache["tags:close:a"]
    assert len(matcher.starts) == 5000  # every later opener and the closer, once


def test_find_close_reports_how_far_a_nested_start_tag_read() -> None:
    text = '<a>x <a q="never closed> y</a> z'
    close = find_close(Ctx(text), "a", 3)
    assert close is not None and close.end == text.index(" z")
    assert close.lookahead == len(text)  # the open quote was searched to the end


@pytest.mark.parametrize("seed", range(5))
def test_finder_agrees_with_str_find(seed: int) -> None:
    rng = random.Random(seed)
    text = "".join(rng.choice("ab<>/") for _ in range(400))
    bound = rng.randrange(200, 400)
    finder = Finder(text, bound)
    pos = 0
    while pos < bound:
        for needle in ("<a", "</", "b>", "<"):
            expected = text.find(needle, pos, bound)
            assert finder.find(needle, pos) == expected
        pos += rng.randrange(1, 9)
