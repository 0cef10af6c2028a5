"""Line-based helpers of the strategies that match a block line by line: how the indentation
of the file's lines differs from the search block's, and the :class:`Located` of whole lines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .base import FileText, Located, ReplacementTransform, SearchBlock, indent_width, leading_ws

#: (reindent?, shift, tab size, use tabs, any change)
Shift = tuple[bool, int, int, bool, bool]


def uniform_shift(pairs: Sequence[tuple[str, str]]) -> Shift | None:
    """For (file line, search line) pairs: (reindent?, shift, tab size, use tabs, any change).

    None when the indentation differs by more than one uniform shift.
    """
    file_ind = [leading_ws(f) for f, s in pairs if s.strip()]
    search_ind = [leading_ws(s) for f, s in pairs if s.strip()]
    if not file_ind:
        return (False, 0, 4, False, False)
    if file_ind == search_ind:
        return (False, 0, 4, False, False)
    uses_tabs = any(ind.startswith("\t") for ind in file_ind)
    for tab in (4, 8, 2):
        shifts = {
            indent_width(f, tab) - indent_width(s, tab)
            for f, s in zip(file_ind, search_ind, strict=True)
        }
        if len(shifts) == 1:
            return (True, shifts.pop(), tab, uses_tabs, True)
    return None


def mode_shift(pairs: Sequence[tuple[str, str]]) -> Shift | None:
    """The most common indentation shift of the pairs (for blocks that are not uniform)."""
    uniform = uniform_shift(pairs)
    if uniform is not None:
        return uniform
    file_ind = [leading_ws(f) for f, s in pairs if s.strip() and f.strip()]
    search_ind = [leading_ws(s) for f, s in pairs if s.strip() and f.strip()]
    shifts = Counter(
        indent_width(f) - indent_width(s) for f, s in zip(file_ind, search_ind, strict=True)
    )
    if not shifts:
        return None
    shift = shifts.most_common(1)[0][0]
    uses_tabs = any(ind.startswith("\t") for ind in file_ind)
    return (shift != 0 or uses_tabs, shift, 4, uses_tabs, True)


def line_located(
    text: FileText,
    s: SearchBlock,
    first: int,
    last: int,
    strategy: str,
    pairs: Sequence[tuple[str, str]] | None,
    *,
    strip_blank: bool = False,
    score: float | None = None,
    mode: bool = False,
) -> Located:
    """File lines ``first..last`` (0-based) as the place of ``s``, the replacement re-indented
    by the shift of ``pairs`` (uniform, or the most common one when ``mode``)."""
    with_nl = s.ends_nl or (strip_blank and s.trailing_blank > 0)
    start, end = text.line_region(first, last, with_nl)
    has_nl = end > start and text.norm[end - 1] == "\n"
    shift = None
    if pairs is not None:
        shift = mode_shift(pairs) if mode else uniform_shift(pairs)
    reindent, delta, tab, tabs = (shift[0], shift[1], shift[2], shift[3]) if shift else (
        False, 0, 4, False)
    pair = next(((f, q) for f, q in pairs or () if q.strip() and f.strip()), None)
    transform = ReplacementTransform(
        widths=(indent_width(leading_ws(pair[1]), tab), indent_width(leading_ws(pair[0]), tab))
        if pair is not None else None,
        newline=text.newline_at(start),
        reindent=reindent,
        shift=delta,
        tab_size=tab,
        use_tabs=tabs,
        strip_leading_blank=s.leading_blank if strip_blank else 0,
        strip_trailing_blank=s.trailing_blank if strip_blank else 0,
        final_newline=has_nl,
    )
    return Located(
        text.to_raw(start), text.to_raw(end), strategy, transform, first + 1, score
    )
