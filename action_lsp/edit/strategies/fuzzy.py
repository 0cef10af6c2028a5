"""Strategy 5: a bounded rapidfuzz match over windows of about the block's line count,
accepted only above :data:`FUZZY_THRESHOLD` and :data:`FUZZY_MARGIN` points ahead of the
runner-up. Where the file's grammar is known, a place that defines other names than the block
does is dropped (``add`` is never the closest match of ``div``)."""

from __future__ import annotations

import operator
from typing import cast

from .base import FileText, Located, Refused, SearchBlock
from .lines import line_located

FUZZY_THRESHOLD = 80.0  # rapidfuzz ratio (0-100) a fuzzy window must reach
FUZZY_MARGIN = 6.0  # points the best window must lead the best non-overlapping runner-up by
FUZZY_MIN_LINES = 2  # non-blank lines a search block needs before fuzzy matching is tried
FUZZY_SAMPLE_ROWS = 16  # search lines used for the cheap prefilter
FUZZY_CANDIDATES = 12  # window starts kept after the prefilter


class Fuzzy:
    tried = "fuzzy"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return bool(search.nb_pos)

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        found = closest(text, search)
        if found is None or text.lang is None:
            return found
        kept, name = _same_definitions(text, search, found)
        if kept is None and name is not None:
            return Refused("search-not-found", f"search text not found: `{name}` is not defined "
                           f"in {text.path}; nothing close")
        return kept


def _same_definitions(text: FileText, s: SearchBlock,
                      found: Located | Refused) -> tuple[Located | Refused | None, str | None]:
    """``found`` (a fuzzy place, or two) without the places that are another definition than
    the search block's (see :func:`.syntax.same_definitions`); None when none is left."""
    from . import syntax

    places = [found] if isinstance(found, Located) else found.candidates
    kept, name = syntax.same_definitions(text, s, text.lang, places)
    if len(kept) == len(places):
        return found, name
    if not kept:
        return None, name
    return kept[0], name


def _line_scores(rows: list[str], lines: list[str]) -> list[list[int]]:
    """``fuzz.ratio`` of each of ``rows`` against each of ``lines``, as rapidfuzz's ``cdist``
    gives it in ``uint8`` (vectorised in C). Read through the matrix's buffer when rapidfuzz's
    C implementation is there: its public ``cdist`` wraps the same call in a NumPy array, and
    importing NumPy cost more than all of the fuzzy matching of a long history (0.1-0.2 s)."""
    from rapidfuzz import fuzz

    try:
        from rapidfuzz.process_cpp_impl import UINT8, cdist
    except ImportError:  # (the pure-Python rapidfuzz: its public cdist)
        import numpy as np
        from rapidfuzz import process

        found = process.cdist(rows, lines, scorer=fuzz.ratio, dtype=np.uint8, workers=-1)
        return [[int(x) for x in row] for row in found]
    matrix = memoryview(cdist(rows, lines, scorer=fuzz.ratio, dtype=UINT8, workers=-1))
    return cast("list[list[int]]", matrix.tolist())  # (a 2-D buffer: a list per row)


def _diagonals(sim: list[list[int]], rows: list[int], width: int) -> list[int]:
    """For each window start ``x`` (``width`` of them), the sum over the sampled rows ``r``
    (search line ``rows[r]``) of ``sim[r][x + rows[r]]``: how well the window's lines match
    the sampled search lines at their places."""
    acc = [0] * width
    for r, j in enumerate(rows):
        row = sim[r][j : j + width]
        acc[: len(row)] = map(operator.add, acc, row)
    return acc


def closest(text: FileText, s: SearchBlock) -> Located | Refused | None:
    """The closest window, or a refusal naming two windows about as close."""
    from rapidfuzz import fuzz

    m = len(s.nb_text)
    nb_idx, nb_text = text.nonblank
    n_file = len(nb_text)
    if m < FUZZY_MIN_LINES or n_file == 0:
        return None
    slack = min(3, max(1, m // 8))
    target = "\n".join(s.nb_text)

    # Cheap prefilter: per-line similarity of a sample of search lines against every file line
    # (vectorised in rapidfuzz), summed along the diagonals = windows of the block's length.
    if n_file <= m + slack:
        starts = [0]
    else:
        rows = sorted(
            range(m), key=lambda j: -len(s.nb_text[j])
        )[:FUZZY_SAMPLE_ROWS]
        sim = _line_scores([s.nb_text[j] for j in rows], nb_text)
        width = max(1, n_file - m + 1)
        acc = _diagonals(sim, rows, width)
        starts = []
        # (best first, the earlier start first among equal sums: a stable sort)
        for st in sorted(range(width), key=acc.__getitem__, reverse=True)[: 64 * FUZZY_CANDIDATES]:
            if all(abs(st - o) >= m for o in starts):
                starts.append(st)
                if len(starts) >= FUZZY_CANDIDATES:
                    break

    scored: dict[tuple[int, int], float] = {}
    for st in starts:
        for a in range(max(0, st - slack), min(n_file, st + slack + 1)):
            for size in range(max(1, m - slack), m + slack + 1):
                if a + size > n_file or (a, size) in scored:
                    continue
                scored[(a, size)] = fuzz.ratio(target, "\n".join(nb_text[a : a + size]))
    if not scored:
        return None
    (best_a, best_size), best = max(scored.items(), key=lambda kv: (kv[1], -abs(kv[0][1] - m)))
    if best < FUZZY_THRESHOLD:
        return None
    best_end = best_a + best_size
    runner = [
        (key, sc) for key, sc in scored.items()
        if key[0] >= best_end or key[0] + key[1] <= best_a
    ]
    def window(a: int, size: int, score: float) -> Located:
        pairs = [(text.lines[nb_idx[a + q]], s.lines[s.nb_pos[q]]) for q in range(min(m, size))]
        return line_located(
            text, s, nb_idx[a], nb_idx[a + size - 1], "fuzzy", pairs, strip_blank=True,
            score=float(score), mode=True,
        )

    found = window(best_a, best_size, best)
    if runner:
        (r_a, r_size), r_score = max(runner, key=lambda kv: kv[1])
        if r_score > best - FUZZY_MARGIN:
            # Two places about as close: neither is "the closest match". Both are offered.
            other = window(r_a, r_size, r_score)
            return Refused(
                "search-not-found",
                f"search text not found; the closest places, lines {found.line} (score "
                f"{best:.0f}) and {other.line} (score {r_score:.0f}), differ from it and are "
                "too close to each other to choose",
                [found.line, other.line],
                "fuzzy",
                [found, other],
            )
    return found
