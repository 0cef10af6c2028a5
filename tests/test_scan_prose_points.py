"""The prose's cut points (``scan._prose_points``: blank lines found by runs of line feeds,
long paragraphs' lines hashed in C) are those of the plain definition: every ``\\n\\n`` of the
stretch, overlapping ones included, a paragraph's end, and each line of a long paragraph
hashed on its own. Texts of few characters so that runs of blank lines, paragraphs of exactly
``LONG_PARAGRAPH`` line feeds and stretches ending in blank lines occur; the moduli lowered so
that cuts are frequent."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import scan as scan_module
from action_lsp.scan import _ENCODE, _line_points, _prose_points


def _plain(text: str, pos: int, stop: int) -> list[int]:
    """The definition, a blank line at a time (``str.find``), each line of a long paragraph
    hashed on its own."""
    if stop - pos < scan_module.LONG_STRETCH:
        return []
    found: list[int] = []
    long = text.count("\n", pos, stop) >= scan_module.LONG_PARAGRAPH
    seg = pos
    i = text.find("\n\n", pos, stop)
    while 0 <= i < stop - 2:
        if long and text.count("\n", seg, i) >= scan_module.LONG_PARAGRAPH:
            found.extend(_line_points(text, seg, i))
        a = max(seg, i - scan_module._HASHED)
        if a < i and zlib.crc32(_ENCODE(text[a:i])) % scan_module.PARAGRAPH_MODULUS == 0:
            found.append(i + 2)
        seg = i + 2
        i = text.find("\n\n", i + 1, stop)
    if long and text.count("\n", seg, stop) >= scan_module.LONG_PARAGRAPH:
        found.extend(_line_points(text, seg, stop))
    return found


_PIECES = st.sampled_from(["\n", "\n", "\n\n", "\n\n\n", "x", "x = 1", "é", "😀", "\ud800", " ", "a" * 9])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_PIECES, max_size=400).map("".join),
    st.integers(0, 4000),
    st.integers(0, 4000),
    st.sampled_from([(1, 1), (2, 2), (16, 8)]),
    st.sampled_from([(8, 4, 16), (32, 256, 2048)]),
)
def test_prose_points_are_the_plain_ones(
    text: str, a: int, b: int, moduli: tuple[int, int], sizes: tuple[int, int, int]
) -> None:
    a, b = sorted((min(a, len(text)), min(b, len(text))))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan_module, "CUT_MODULUS", moduli[0])
        mp.setattr(scan_module, "PARAGRAPH_MODULUS", moduli[1])
        mp.setattr(scan_module, "LONG_PARAGRAPH", sizes[0])
        mp.setattr(scan_module, "_HASHED", sizes[1])
        mp.setattr(scan_module, "LONG_STRETCH", sizes[2])
        expected = _plain(text, a, b)
        assert _prose_points(text, a, b, False) == expected
        assert _prose_points(text, a, b, False, text.count("\n", a, b)) == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["\n", "\n\n", "ab", "x = 1", "é", "😀", "a" * 30]), max_size=300).map("".join))
def test_prose_points_of_a_whole_text_with_the_shipped_constants(text: str) -> None:
    assert _prose_points(text, 0, len(text), False) == _plain(text, 0, len(text))


def test_a_cut_line_whose_text_ends_an_earlier_line() -> None:
    """A line that is a cut, after a line that is none but ends with the same text (``xab``,
    then ``ab``): the cut is after the second, found at a line start."""
    cut = next(s for s in (f"line {k}" for k in range(10_000)) if zlib.crc32(s.encode()) % scan_module.CUT_MODULUS == 0)
    longer = next(p + cut for p in "abcdefghijklmnop" if zlib.crc32((p + cut).encode()) % scan_module.CUT_MODULUS)
    para = "\n".join(["filler"] * 40 + [longer, cut] + ["filler"] * 40) + "\n"
    text = "intro\n\n" + para * 20
    points = _prose_points(text, 0, len(text), False)
    assert points == _plain(text, 0, len(text))
    assert text.index("\n" + cut + "\n") + len(cut) + 2 in points
