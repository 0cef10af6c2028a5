"""The fuzzy strategy's prefilter without NumPy (``edit/strategies/fuzzy.py``): the per-line
scores read from rapidfuzz's matrix, the sums along the diagonals and the order of the window
starts must be what the NumPy version gave (``process.cdist`` in ``uint8``, ``acc[:n] += row``,
``np.argsort(-acc, kind="stable")``), on random lines; and ``closest`` must place a block as
that version did."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from action_lsp.edit.strategies import fuzzy
from action_lsp.edit.strategies.base import FileText, SearchBlock

_WORDS = ["x", "y = 1", "return x", "def f(a, b):", "    pass", "é", "foo(bar)", "}", "if a:"]
_LINES = st.lists(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=3).map(" ".join),
                  min_size=1, max_size=40)


def _numpy_starts(rows_text: list[str], rows: list[int], lines: list[str], width: int) -> list[int]:
    """The order of the window starts as the NumPy version made it."""
    sim = process.cdist(rows_text, lines, scorer=fuzz.ratio, dtype=np.uint8, workers=-1)
    acc = np.zeros(width, dtype=np.int64)
    for r, j in enumerate(rows):
        row = sim[r, j : j + width]
        acc[: len(row)] += row
    return [int(x) for x in np.argsort(-acc, kind="stable")]


@settings(max_examples=300, deadline=None)
@given(search=_LINES, lines=_LINES, data=st.data())
def test_the_window_starts_are_ordered_as_with_numpy(search: list[str], lines: list[str],
                                                     data: st.DataObject) -> None:
    rows = data.draw(st.lists(st.integers(0, len(search) - 1), min_size=1, max_size=16, unique=True))
    width = max(1, len(lines) - len(search) + 1)
    rows_text = [search[j] for j in rows]
    sim = fuzzy._line_scores(rows_text, lines)
    assert sim == process.cdist(rows_text, lines, scorer=fuzz.ratio, dtype=np.uint8).tolist()
    acc = fuzzy._diagonals(sim, rows, width)
    assert sorted(range(width), key=acc.__getitem__, reverse=True) == _numpy_starts(rows_text, rows, lines, width)


def test_without_rapidfuzz_s_c_matrix_the_public_cdist_gives_the_same_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    rows, lines = ["def f(a, b):", "return x"], ["def f(a):", "x", "return  x", "é"]
    want = fuzzy._line_scores(rows, lines)
    monkeypatch.setitem(sys.modules, "rapidfuzz.process_cpp_impl", None)  # (import fails)
    assert fuzzy._line_scores(rows, lines) == want


def test_the_closest_window_of_a_changed_block() -> None:
    names = ["apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel", "iris", "juniper"]
    body = "".join(f"def {name}_total(items, start):\n    return sum(items, start) * {len(name)}\n\n"
                   for name in names * 4)
    body += "def quince_mean(values):\n    return sum(values) / len(values)\n"
    found = fuzzy.closest(FileText(body, "m.py"), SearchBlock("def quince_mean(values):\n    return sum(values) / len(values or [1])\n"))
    assert isinstance(found, fuzzy.Located)
    assert found.line == 1 + 3 * len(names) * 4
