"""The turn a chat-answer block stands in (``chat_answer.turn``): read from the ``CONTEXT_LINES``
lines before it. The scan asks in document order and lists only the line starts it can still
need (a long history's line starts are not all listed): every answer, for every line-ending
style, is the one the rule gives when each query reads its lines from scratch."""

from __future__ import annotations

import bisect
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import chat_answer
from action_lsp.markdown import EOL

LINES = [
    "Some prose.", "", "_**User**_", "_**Assistant**_", "### Assistant", "**User:**", "Assistant:",
    "#### make it so  ", "> Applied edit to a.py", "# aider chat started at 2025", "src/a.py",
    "```python", "```", "x = 1", "é😀 words", "User", "**Assistant**: hi",
]


def reference(text: str, start: int) -> tuple[str | None, int]:
    """The rule, read from scratch: the last role line in the ``CONTEXT_LINES`` lines before
    ``start``'s line (and that line), else an Aider line there, else nothing."""
    starts = [0] + [m.end() for m in EOL.finditer(text)]
    k = bisect.bisect_right(starts, start) - 1
    floor = starts[max(0, k - chat_answer.CONTEXT_LINES)]
    found: list[tuple[int, bool]] = []
    head = chat_answer._ROLE_AT_START.match(text, 0, start)
    matches = ([head] if head else []) + list(chat_answer._ROLE.finditer(text, 0, start))
    for m in matches:
        form = m.lastgroup or ""
        word = (m.group(form) or "").strip().lower()
        if word in chat_answer._ASSISTANT.get(form, ()) or word in chat_answer._USER:
            found.append((m.start() + 1 if m.re is chat_answer._ROLE else m.start(), word not in chat_answer._USER))
    before = [(at, assistant) for at, assistant in found if floor <= at < start]
    if before:
        return ("assistant" if before[-1][1] else "user"), floor
    if floor == 0 and chat_answer._AIDER_AT_START.match(text, 0):
        aider = 0
    else:
        later = chat_answer._AIDER.search(text, max(0, floor - 1))
        aider = later.start() + 1 if later is not None else len(text)
    if aider < start:
        return "aider", floor
    return None, floor


@pytest.mark.parametrize("seed", range(40))
def test_turns_in_document_order_match_the_rule(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(chat_answer, "CONTEXT_LINES", rng.choice([1, 3, 8, 20]))
    endings = rng.choice([["\n"], ["\r\n"], ["\r"], ["\n", "\r\n", "\r"]])
    text = "".join(rng.choice(LINES) + rng.choice(endings) for _ in range(rng.randint(1, 200)))
    line_starts = [0] + [m.end() for m in EOL.finditer(text)]
    queries = sorted(rng.sample(line_starts, min(len(line_starts), rng.randint(1, 12))))
    turns = chat_answer._Turns(text)
    for q in queries:
        assert turns.turn(q) == reference(text, q), (q, text)
    if queries:  # a query out of document order (never made by the scan) is still answered right
        q = queries[0]
        assert turns.turn(q) == reference(text, q)


def test_a_long_history_lists_only_the_lines_around_its_queries() -> None:
    text = "".join(f"line {i}\n" for i in range(100_000)) + "src/a.py\n```python\nx = 1\n```\n"
    turns = chat_answer._Turns(text)
    at = text.index("src/a.py")
    assert turns.turn(at) == reference(text, at)
    assert len(turns.lines) <= chat_answer.CONTEXT_LINES + 2


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["x", "long line of words", "\n", "\r\n", "\r", "é😀"]), max_size=300).map("".join),
    st.integers(0, 2000), st.integers(0, 2000), st.integers(0, 40), st.integers(1, 64),
)
def test_more_breaks_than_is_the_plain_count(text: str, a: int, b: int, k: int, window: int) -> None:
    """``_breaks_over`` (the stretch's end counted first) says what comparing its count does."""
    a, b = sorted((min(a, len(text)), min(b, len(text))))
    turns = chat_answer._Turns(text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(chat_answer, "BREAKS_WINDOW", window)
        assert turns._breaks_over(a, b, k) == (text.count("\n", a, b) + ("\r" in text) * text.count("\r", a, b) > k)
