"""The cut points of a long paragraph's lines found in C (``scan._lf_line_points``: the lines
split, measured and hashed without a Python step per line) are those of the plain definition, a
line at a time: any characters (astral ones, lone surrogates), empty lines, ranges that start or
end inside a line, and a cut after every non-empty line (modulus 1) so that offsets are compared
on every line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import scan as scan_module
from action_lsp.scan import _line_points

_PIECES = st.sampled_from(["\n", "\n\n", "x = 1", "é", "😀", "\ud800", "€ ok", "a" * 40, " ", "}", "日本語"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=300).map("".join), st.integers(0, 3000), st.integers(0, 3000), st.sampled_from([1, 2, 16]))
def test_line_points_in_c_are_the_plain_ones(text: str, a: int, b: int, modulus: int) -> None:
    a, b = sorted((min(a, len(text)), min(b, len(text))))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan_module, "CUT_MODULUS", modulus)  # (1: a cut after every non-empty line)
        assert _line_points(text, a, b, False) == _line_points(text, a, b)
