"""Positions by LSP's rules, in every encoding, and the editable index under random edits."""

from __future__ import annotations

import random

import pytest

from action_lsp.model import Span
from action_lsp.text import ENCODINGS, EditableLineIndex, LineIndex, Position, line_starts


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


def _long_line(n: int) -> str:
    """One line of ``n`` characters with a two-byte, a three-byte and an astral one now and then."""
    pieces = ["abc", "é", "x" * 50, "€", "😀", "y" * 300]
    out, size, k = [], 0, 0
    while size < n:
        out.append(pieces[k % len(pieces)])
        size += len(out[-1])
        k += 1
    return "".join(out)[:n]


def test_columns_far_along_one_long_line_are_right_in_every_encoding() -> None:
    """A compact JSON export is one line: its columns are counted from marks along the line,
    and must equal counting from the line's start."""
    text = "head\n" + _long_line(20_000) + "\ntail"
    rng = random.Random(5)
    for index in (LineIndex(text), EditableLineIndex(text)):
        for _ in range(300):
            offset = rng.randrange(len(text) + 1)
            for enc in ("utf-8", "utf-16", "utf-32"):
                pos = index.position(offset, enc)  # type: ignore[arg-type]
                start = text.rfind("\n", 0, offset) + 1
                expected = len(text[start:offset].encode({"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}[enc]))
                expected //= {"utf-8": 1, "utf-16": 2, "utf-32": 4}[enc]
                assert pos == Position(text.count("\n", 0, offset), expected), (offset, enc)
                assert index.offset(pos, enc) == offset, (offset, enc)  # type: ignore[arg-type]
        # a column inside a character rounds down to its start; past the line, its end
        emoji = text.index("😀", 1000)
        line_start = text.index("\n") + 1
        col = index.position(emoji, "utf-16").character
        assert index.offset(Position(1, col + 1), "utf-16") == emoji
        assert index.offset(Position(1, 10**9), "utf-8") == text.index("\ntail")
        assert index.offset(Position(1, 0), "utf-8") == line_start


def test_columns_stay_right_after_edits_on_a_long_line() -> None:
    text = _long_line(10_000)
    index = EditableLineIndex(text)
    assert index.position(9_000, "utf-16").character == len(text[:9_000].encode("utf-16-le")) // 2
    index.replace(10, 10, "😀😀")
    text = text[:10] + "😀😀" + text[10:]
    assert index.position(9_000, "utf-16").character == len(text[:9_000].encode("utf-16-le")) // 2
    assert index.offset(Position(0, 9_500), "utf-8") == len(text.encode()[:9_500].decode("utf-8", "ignore"))


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-32"])
@pytest.mark.parametrize("cls", [LineIndex, EditableLineIndex])
def test_columns_of_every_place_on_one_long_line_count_the_line_about_once(
    monkeypatch: pytest.MonkeyPatch, encoding: str, cls: type
) -> None:
    """Each position on a 200,000-character line was counted from the line's start (a sliced
    copy of it measured): 20,000 actions on one line took seconds. The characters measured
    are now the line's length once, plus at most two marks' spacing per conversion."""
    import action_lsp.text as text_module

    measured = [0]
    for name in ("units", "index_at_units"):
        original = getattr(text_module, name)

        def counting(s: str, *args: object, _original: object = original) -> object:
            measured[0] += len(s)
            return _original(s, *args)  # type: ignore[operator]

        monkeypatch.setattr(text_module, name, counting)
    line = _long_line(200_000)
    index = cls(line)
    asked = 0
    for offset in range(0, len(line), 100):
        pos = index.position(offset, encoding)
        index.offset(pos, encoding)
        asked += 2
    bound = 2 * len(line) + 2 * text_module.MARK * asked
    assert measured[0] <= bound, f"{measured[0]:,} characters measured for a line of {len(line):,}"


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_open_document_line_starts_at_every_line_end(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # An open document finds its lines a chunk at a time (text._line_start_array): a `\r\n`
    # split between two chunks is one line end, a lone `\r` is one, at the very end too.
    import action_lsp.text as text_module

    monkeypatch.setattr(text_module, "LINE_CHUNK", chunk)
    rng = random.Random(chunk)
    alphabet = ["a", "é", "😀", "\n", "\r", "\r\n", "\ud800", " "]
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        for each in (text, text.replace("\r", "")):  # (a text without `\r` is read another way)
            index = EditableLineIndex(each)
            assert [index.line_start(k) for k in range(index.line_count())] == line_starts(each)


def test_positions_looked_up_at_once_are_those_looked_up_one_by_one() -> None:
    """An outline converts its places a symbol at a time (``positions``); each is ``position``'s,
    clamped the same way, in every encoding, on short lines and far along a long one."""
    rng = random.Random(7)
    for _ in range(50):
        text = "".join(rng.choice(["a", "é", "\n", "\r\n", "\r", "😀", " ", "x" * 700]) for _ in range(rng.randrange(0, 300)))
        offsets = [rng.randrange(-2, len(text) + 3) for _ in range(40)]
        for index in (EditableLineIndex(text), LineIndex(text)):
            for encoding in ENCODINGS:
                expected = [(p.line, p.character) for p in (index.position(o, encoding) for o in offsets)]
                assert index.positions(offsets, encoding) == expected
        assert EditableLineIndex(text).positions([]) == []
