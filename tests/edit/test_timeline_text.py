"""The text the timeline searches and replays (``edit/timeline.py``, ``_Text``): one ``str``
until searching it plainly has cost more than indexing it, then a ``ChunkedText``; and the
lines of an appended text looked up in a count of the text's lines instead of one search of
the whole text per line (lines times the text). On random collapsed texts and random
sequences of searches, replacements, appends and line lookups it must answer as the plain
``str`` operations it stands for, indexed at once, never, or part way."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.edit import chunked, timeline
from action_lsp.edit.timeline import _collapse, _partly_held, _Text, _words

_LINES = ["x = 1", "y = 2", "def f():", "return x", "}", "", "z", "# x = 1", "é = 3"]
_LINE_LISTS = st.lists(st.sampled_from(_LINES), max_size=12)
_PIECES = _LINE_LISTS.map(lambda lines: _collapse("\n".join(lines)))


def _plain_partly_in(appended: str, text: str) -> bool:
    """``_partly_held`` on a replay's text as first written: each line of the appended text
    searched in the text."""
    words = _words(appended)
    there = sum(1 for line in words if text.find(f"\n{line}\n") >= 0)
    return there >= 3 and 3 * there >= len(words)


@pytest.mark.parametrize("index_after", [0, 1, 10**9])
@settings(max_examples=100, deadline=None)
@given(start=_PIECES, data=st.data())
def test_a_replayed_text_answers_as_str(index_after: int, start: str, data: st.DataObject) -> None:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(timeline, "INDEX_AFTER", index_after)
        m.setattr(chunked, "CHUNK", 8)
        m.setattr(chunked, "MAX_CHUNK", 32)
        text, plain = _Text(start), start
        for _ in range(data.draw(st.integers(0, 25))):
            op = data.draw(st.sampled_from(["find", "swap", "swap", "append", "line", "partly"]))
            lines = data.draw(_LINE_LISTS)
            if op == "find":
                piece = data.draw(st.one_of(_PIECES, _slices(plain)))
                assert text.find(piece) == plain.find(piece)
            elif op == "swap":  # as the replay does: a piece found, replaced by another or a line break
                piece = data.draw(_slices(plain))
                at = plain.find(piece)
                if at >= 0:
                    new = _collapse("\n".join(lines)) if lines else "\n"
                    assert text.find(piece) == at
                    text.swap(at, piece, new)
                    plain = plain[:at] + new + plain[at + len(piece):]
            elif op == "append":
                piece = _collapse("\n".join(lines))
                text.append(piece[1:])
                plain += piece[1:]
            elif op == "line":
                for line in [*lines, *plain.split("\n")]:
                    if line:
                        assert text.has_line(line) == (plain.find(f"\n{line}\n") >= 0)
            else:
                appended = "\n".join(lines)
                assert _partly_held(appended, text.has_line) == _plain_partly_in(appended, plain)
            assert str(text) == plain
            assert len(text) == len(plain)


def _slices(text: str) -> st.SearchStrategy[str]:
    """A run of whole lines of ``text`` framed by line breaks, as a replay's search text is."""
    lines = text.split("\n")[1:-1]
    if not lines:
        return st.just("\n")
    return st.tuples(st.integers(0, len(lines) - 1), st.integers(1, 4)).map(
        lambda ij: "\n" + "".join(line + "\n" for line in lines[ij[0] : ij[0] + ij[1]]))


def test_a_text_searched_often_is_indexed_and_one_searched_rarely_is_not() -> None:
    body = _collapse("\n".join(f"v{i} = {i}" for i in range(200)))
    rare = _Text(body)
    for i in range(10):
        assert rare.find(f"\nv{i} = {i}\n") >= 0
    assert rare.chunked is None
    often = _Text(body)
    for i in range(timeline.INDEX_AFTER + 10):
        assert often.find(f"\nv{i % 200} = {i % 200}\n") >= 0
    assert often.chunked is not None
    assert often.read <= timeline.INDEX_AFTER * len(body)


def test_the_lines_of_an_appended_text_are_counted_once() -> None:
    """Looking up n appended lines reads the text once, not n times."""
    body = _collapse("\n".join(f"v{i} = {i}" for i in range(300)))
    text = _Text(body)
    for i in range(300):
        assert text.has_line(f"v{i} = {i}")
    assert not text.has_line("v = 1")
    assert text.read == len(body)
    text.append("w = 1\n")
    text.swap(text.find("\nv0 = 0\n"), "\nv0 = 0\n", "\n")
    assert text.has_line("w = 1") and not text.has_line("v0 = 0")
