"""Positions by LSP's rules, in every encoding, and the editable index under random edits."""

from __future__ import annotations

import random

import pytest

from action_lsp.model import Span
from action_lsp.text import EditableLineIndex, LineIndex, Position, line_starts


def test_only_lsp_line_endings_break_lines() -> None:
    text = "a\u2028b\fc\vd\x85e\u2029f\ng\r\nh\ri"
    index = LineIndex(text)
    assert index.line_count() == 4
    assert index.line_text(0) == "a\u2028b\fc\vd\x85e\u2029f"
    assert index.position(text.index("g")) == Position(1, 0)
    assert index.position(text.index("h")) == Position(2, 0)
    assert index.position(text.index("i")) == Position(3, 0)


@pytest.mark.parametrize(
    ("encoding", "column"),
    [("utf-16", 5), ("utf-8", 8), ("utf-32", 4)],  # "é😀x" before the target: 1+2+1 / 2+4+1 / 1+1+1
)
def test_columns_follow_the_negotiated_encoding(encoding: str, column: int) -> None:
    text = "héllo\n é😀x!"
    target = text.index("!")
    index = LineIndex(text)
    pos = index.position(target, encoding)  # type: ignore[arg-type]
    assert pos == Position(1, column)
    assert index.offset(pos, encoding) == target  # type: ignore[arg-type]


def test_offsets_clamp_like_lsp() -> None:
    index = LineIndex("ab\ncd")
    assert index.offset(Position(0, 99)) == 2  # past the line end: the line end, not the next line
    assert index.offset(Position(9, 0)) == 5
    assert index.offset(Position(1, 1)) == 4
    # A column inside a surrogate pair rounds down to the character's start.
    emoji = LineIndex("😀z")
    assert emoji.offset(Position(0, 1), "utf-16") == 0


def test_range_of_span() -> None:
    text = "x = 1\r\ny = 2\r\n"
    index = LineIndex(text)
    r = index.range(Span(text.index("y"), text.index("2") + 1))
    assert (r.start.line, r.start.character, r.end.line, r.end.character) == (1, 0, 1, 5)


def test_editable_index_matches_a_fresh_one_after_random_edits() -> None:
    rng = random.Random(7)
    alphabet = ["a", "é", "😀", "\r", "\n", "\r\n", "\u2028", " "]
    for _ in range(800):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 25)))
        index = EditableLineIndex(text)
        for _ in range(6):
            start = rng.randint(0, len(index.text))
            end = rng.randint(start, len(index.text))
            new = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4)))
            index.replace(start, end, new)
            assert [int(s) for s in index._starts] == line_starts(index.text), repr(index.text)
            fresh = LineIndex(index.text)
            probe = rng.randint(0, len(index.text))
            assert index.position(probe, "utf-8") == fresh.position(probe, "utf-8")


def test_chunked_storage_survives_edits_across_chunk_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    from action_lsp.text import ChunkedText

    monkeypatch.setattr(ChunkedText, "CHUNK", 4)
    rng = random.Random(11)
    alphabet = ["a", "é", "😀", "\r", "\n", "\r\n", "bcdefgh"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        index = EditableLineIndex(text)
        shadow = text
        for _ in range(8):
            start = rng.randint(0, len(shadow))
            end = rng.randint(start, min(len(shadow), start + 12))
            new = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
            index.replace(start, end, new)
            shadow = shadow[:start] + new + shadow[end:]
            a = rng.randint(0, len(shadow))
            b = rng.randint(a, len(shadow))
            assert index.slice(a, b) == shadow[a:b]
            assert len(index) == len(shadow)
            assert [int(s) for s in index._starts] == line_starts(shadow)
        assert index.text == shadow


def _units_by_character(text: str, encoding: str) -> int:
    """The reference: code units counted a character at a time."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-16":
        return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)
    return sum(1 if ord(ch) < 0x80 else 2 if ord(ch) < 0x800 else 3 if ord(ch) < 0x10000 else 4 for ch in text)


def _index_by_character(text: str, count: int, encoding: str) -> int:
    used = 0
    for i, ch in enumerate(text):
        used += _units_by_character(ch, encoding)
        if used > count:
            return i
    return len(text)


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
def test_code_units_and_indices_agree_with_counting_each_character(encoding: str) -> None:
    """Columns are counted by C codecs, not a Python loop per character (an outline of 100,000
    actions on lines holding one non-ASCII character took seconds); the same answers."""
    from action_lsp.text import index_at_units, units

    rng = random.Random(5)
    alphabet = ["a", " ", "é", "•", "中", "😀", "\U0010ffff", "\ud800", "\udfff", "\x7f", "\x80", "\u07ff", "\u0800"]
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        total = _units_by_character(text, encoding)
        assert units(text, encoding) == total, (text, encoding)  # type: ignore[arg-type]
        for count in range(total + 3):
            assert index_at_units(text, count, encoding) == _index_by_character(text, count, encoding), (text, count)  # type: ignore[arg-type]


def test_lines_looked_up_at_once_are_those_looked_up_one_by_one() -> None:
    """Folding asks for the lines of 100,000 spans in one call; the answer is line_of's."""
    rng = random.Random(5)
    for _ in range(50):
        text = "".join(rng.choice(["a", "é", "\n", "\r\n", "\r", "😀", " "]) for _ in range(rng.randrange(0, 300)))
        offsets = [rng.randrange(0, len(text) + 1) for _ in range(40)]
        for index in (EditableLineIndex(text), LineIndex(text)):
            lines = index.lines_of(offsets)
            assert lines == [index.line_of(o) for o in offsets]
            assert index.line_starts_of(lines) == [index.line_start(n) for n in lines]
        assert EditableLineIndex(text).lines_of([]) == [] == EditableLineIndex(text).line_starts_of([])
