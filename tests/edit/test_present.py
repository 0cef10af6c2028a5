"""Whether a replacement is already in the file (``plan._present``, asked when a search text is
not found, and before an insertion is applied): the faster form -- whitespace dropped by
``str.split``, and only the layout strategies tried -- must answer as the first one did
(``re.sub(r"\\s+", "", ...)``, and ``locate`` with every strategy, a place counting only when a
layout strategy found it), on random files and replacements, with and without a grammar."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.edit import plan
from action_lsp.edit.locate import Located, ReplacementTransform, locate

_SPACE = re.compile(r"\s+")
_LINES = ["def f(a, b):", "    return a + b", "\treturn a + b", "", "  ", "x = 1", "x  =  1",
          "class C:", "    pass", "# note", "é\u00a0= 2", "}", "y = [1,\u2003 2]"]
_TEXTS = st.lists(st.sampled_from(_LINES), max_size=14).map("\n".join)


def _first(text: str, replace: str, rel: str, within: Located | None = None) -> bool:
    if not replace.strip():
        return False
    if _SPACE.sub("", replace) not in _SPACE.sub("", text):
        return False
    got = locate(text, replace, path=None)
    if not isinstance(got, Located) or got.strategy not in ("exact", "whitespace", "blank-lines"):
        return False
    if within is None:
        return True
    return got.start <= within.start and within.end <= got.end


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(["a", " ", "\t", "\n", "\r", "\x0b", "\x1c", "\u00a0",
                                               "\u2028", "\u3000", "\u200b", "é"]), max_size=40))
def test_whitespace_is_dropped_as_the_pattern_dropped_it(text: str) -> None:
    assert plan._despaced(text) == _SPACE.sub("", text)


def test_every_character_is_whitespace_to_both_or_to_neither() -> None:
    for point in range(sys.maxunicode + 1):
        c = chr(point)
        assert (len(("a" + c + "b").split()) == 2) == bool(_SPACE.fullmatch(c))


@settings(max_examples=400, deadline=None)
@given(text=_TEXTS, replace=_TEXTS, rel=st.sampled_from(["m.py", "m.txt"]), data=st.data())
def test_a_replacement_is_present_as_before(text: str, replace: str, rel: str, data: st.DataObject) -> None:
    within = None
    if text and data.draw(st.booleans()):
        a = data.draw(st.integers(0, len(text)))
        b = data.draw(st.integers(a, len(text)))
        within = Located(a, b, "exact", ReplacementTransform(), 1)
    assert plan._present(text, replace, rel, within) == _first(text, replace, rel, within)


def test_a_replacement_already_in_the_file_up_to_indentation() -> None:
    text = "class C:\n    def f(self):\n        return 1\n"
    assert plan._present(text, "def f(self):\n    return 1\n", "m.py")
    assert not plan._present(text, "def f(self):\n    return 2\n", "m.py")


def test_the_layout_strategies_are_the_first_three() -> None:
    import importlib

    from action_lsp.edit.strategies import STRATEGIES

    locate_module = importlib.import_module("action_lsp.edit.locate")  # (the package's `locate` is the function)

    assert STRATEGIES[:3] == locate_module._BY_LAYOUT
    assert [s.tried for s in STRATEGIES[:3]] == ["exact", "whitespace", "blank-line"]
