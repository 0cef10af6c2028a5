"""The checks on the edits of one action (a MultiEdit, a diff's hunks, a Codex patch's chunks)
that compare each edit with the ones before it, without walking all of those for every edit.

Walking them made these checks quadratic in the number of edits (issue 21: a MultiEdit of
20,000 edits spent 50 s asking whether each search text is part of an earlier replacement, a
diff of 20,000 hunks 90 s asking whether each hunk rewrites an earlier one's text). The
answers are the same as the straightforward walks' (``tests/edit/test_onecall.py`` compares
them on random inputs).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from .compose import ComposedEdits

TextEdit = tuple[int, int, str]

GRAM = 8  # the length of the substrings the replacements are indexed by
INDEXED_FROM = 32  # fewer edits than this: the straightforward walk


def search_in_replacement(searches: Sequence[str], replacements: Sequence[str]) -> tuple[int, int] | None:
    """``(j, k)``: the first edit ``k`` whose (non-empty) search text is part of the
    replacement of an earlier edit, ``j`` the first such earlier edit; None when there is none."""
    if len(searches) < INDEXED_FROM:
        return _search_in_replacement_walk(searches, replacements)
    grams: dict[str, list[int]] = {}  # each GRAM-long substring: the replacements holding it
    short_lengths = sorted({len(s) for s in searches if 0 < len(s) < GRAM})
    short_wanted = {s for s in searches if 0 < len(s) < GRAM}
    short_first: dict[str, int] = {}  # each short search text: the first replacement holding it
    for j, r in enumerate(replacements):
        for p in range(len(r) - GRAM + 1):
            held = grams.setdefault(r[p : p + GRAM], [])
            if not held or held[-1] != j:
                held.append(j)
        for size in short_lengths:
            for p in range(len(r) - size + 1):
                piece = r[p : p + size]
                if piece in short_wanted and piece not in short_first:
                    short_first[piece] = j
    for k, search in enumerate(searches):
        if not search:
            continue
        if len(search) < GRAM:
            first = short_first.get(search)
            if first is not None and first < k:
                return first, k
            continue
        rarest = min((grams.get(search[p : p + GRAM], []) for p in range(len(search) - GRAM + 1)), key=len)
        for j in rarest[: bisect.bisect_left(rarest, k)]:
            if search in replacements[j]:
                return j, k
    return None


def _search_in_replacement_walk(searches: Sequence[str], replacements: Sequence[str]) -> tuple[int, int] | None:
    for k, search in enumerate(searches):
        j = next((j for j in range(k) if search and search in replacements[j]), None)
        if j is not None:
            return j, k
    return None


def rewritten(edits: Sequence[TextEdit], owners: Sequence[int]) -> tuple[int, int] | None:
    """``(j, k)``: the first edit (of owner ``k``) that, applied in sequence, changes text an
    edit of another owner ``j`` wrote before it; None when none does. ``edits`` are each in the
    coordinates of the text the ones before it left.

    While no edit touches a place an earlier one changed (the usual case: hunks and chunks
    apart from each other), none can rewrite another's text, and finding that out takes
    O(log n) an edit (:class:`ComposedEdits`); from the first edit that does, the
    straightforward walk answers."""
    if len(edits) < INDEXED_FROM:
        return _rewritten_walk(edits, owners)
    places = ComposedEdits()
    for s, e, t in edits:
        if places.touches(s, e):
            return _rewritten_walk(edits, owners)
        places.add(s, e, t, "")  # touching nothing: the current text is not read
    return None


def _rewritten_walk(edits: Sequence[TextEdit], owners: Sequence[int]) -> tuple[int, int] | None:
    written: list[tuple[int, int, int]] = []  # (start, end, owner) in the running text
    for (s, e, t), k in zip(edits, owners, strict=True):
        for ws, we, j in written:
            if j != k and s < we and ws < e:
                return j, k
        delta = len(t) - (e - s)
        written = [(ws + delta, we + delta, j) if ws >= e else (ws, we, j) for ws, we, j in written
                   if not (ws >= s and we <= e)]
        written.append((s, s + len(t), k))
    return None
