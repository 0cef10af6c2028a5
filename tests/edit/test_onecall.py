"""The checks on one action's edits (a MultiEdit refusing a search text that is part of an
earlier replacement, a diff or Codex patch refusing a hunk that rewrites another's text) give
the same answers as the straightforward walk over every earlier edit, which they replaced
because it was quadratic in the number of edits."""

from __future__ import annotations

import random

import pytest

from action_lsp.edit import onecall
from action_lsp.edit.onecall import rewritten, search_in_replacement


def _walk_search(searches: list[str], replacements: list[str]) -> tuple[int, int] | None:
    for k, search in enumerate(searches):
        j = next((j for j in range(k) if search and search in replacements[j]), None)
        if j is not None:
            return j, k
    return None


def _walk_rewritten(edits: list[tuple[int, int, str]], owners: list[int]) -> tuple[int, int] | None:
    written: list[tuple[int, int, int]] = []
    for (s, e, t), k in zip(edits, owners, strict=True):
        for ws, we, j in written:
            if j != k and s < we and ws < e:
                return j, k
        delta = len(t) - (e - s)
        written = [(ws + delta, we + delta, j) if ws >= e else (ws, we, j) for ws, we, j in written
                   if not (ws >= s and we <= e)]
        written.append((s, s + len(t), k))
    return None


@pytest.fixture(autouse=True)
def _index_always(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onecall, "INDEXED_FROM", 0)  # the index, even for a few edits


def test_search_in_an_earlier_replacement_is_found_as_the_walk_finds_it() -> None:
    rng = random.Random(21)
    found = 0
    for _ in range(3000):
        n = rng.randrange(1, 14)
        alphabet = rng.choice(["ab", "abc\n", "ab \n\t"])
        searches = ["".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 3, 7, 8, 9, 12])))
                    for _ in range(n)]
        replacements = ["".join(rng.choice(alphabet) for _ in range(rng.choice([0, 2, 8, 15, 30])))
                        for _ in range(n)]
        want = _walk_search(searches, replacements)
        found += want is not None
        assert search_in_replacement(searches, replacements) == want, (searches, replacements)
    assert found > 300  # the random cases do refuse, often


def test_an_edit_rewriting_an_earlier_one_s_text_is_found_as_the_walk_finds_it() -> None:
    rng = random.Random(12)
    found = 0
    for _ in range(3000):
        length = rng.randrange(0, 60)
        edits, owners, owner = [], [], 0
        for _ in range(rng.randrange(1, 12)):
            s = rng.randrange(length + 1)
            e = min(length, s + rng.choice([0, 0, 1, 2, 5]))
            t = "x" * rng.choice([0, 1, 3])
            edits.append((s, e, t))
            owner += rng.random() < 0.7  # an edit of several places (replace_all) keeps its owner
            owners.append(owner)
            length += len(t) - (e - s)
        want = _walk_rewritten(edits, owners)
        found += want is not None
        assert rewritten(edits, owners) == want, (edits, owners)
    assert found > 300


def test_many_apart_edits_are_checked_without_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hunks apart from each other never reach the walk (which is what was quadratic)."""
    monkeypatch.setattr(onecall, "_rewritten_walk", None)
    edits = [(i, i + 1, "yy") for i in range(0, 3000, 2)]
    import random as r

    r.Random(4).shuffle(edits)  # in current coordinates, each after the ones before it: shifted
    shifted, done = [], []
    for s, e, t in edits:
        grow = sum(1 for ds in done if ds < s)
        shifted.append((s + grow, e + grow, t))
        done.append(s)
    assert rewritten(shifted, list(range(len(shifted)))) is None
