"""``markdown.blank_line_start``: the start of a place's line when only blanks precede it there,
read back over the blanks only (Aider's marker and user-line searches ask it at every hit)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from action_lsp.markdown import blank_line_start


def _plain(text: str, pos: int) -> int:
    start = max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1
    return start if not text[start:pos].strip(" \t") else -1


@given(st.text(alphabet=" \t\n\r#xé", max_size=60), st.data())
def test_it_is_the_line_start_when_only_blanks_precede(text: str, data: st.DataObject) -> None:
    pos = data.draw(st.integers(0, len(text)))
    assert blank_line_start(text, pos) == _plain(text, pos)


def test_a_marker_after_other_text_is_not_at_a_line_start() -> None:
    assert blank_line_start("x\n  \t#### a", 5) == 2
    assert blank_line_start("x\r  #### a", 4) == 2
    assert blank_line_start("y #### a", 2) == -1
    assert blank_line_start("#### a", 0) == 0
