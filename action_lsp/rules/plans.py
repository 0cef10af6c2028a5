"""``repetition``: an action plan that repeats itself.

The planner's repetition analyser (seed 004) stops a sequence that loops. Here: the same action
three times running, or a cycle of two or three actions repeated three times (THINK, SPEAK,
THINK, SPEAK, THINK, SPEAK); and actions planned after ``DONE``, which never run.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import Action, Diagnostic, Span
from . import RuleContext

REPEATS = 3  # copies of a pattern that make a loop


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    sequential = ctx.dialects.sequential
    plan = [a for a in actions if a.dialect in sequential]
    if len(plan) < 2:
        return
    names = [a.type for a in plan]
    done = names.index("DONE") if "DONE" in names else -1
    if 0 <= done < len(plan) - 1:
        after = plan[done + 1 :]
        yield Diagnostic(
            "repetition",
            f"{len(after)} {'action' if len(after) == 1 else 'actions'} planned after DONE never "
            "run; DONE ends the sequence",
            Span(after[0].span.start, after[-1].span.end),
        )
    i = 0
    while i < len(names):
        hit = _loop_ending_at(names, i)
        if hit is None:
            i += 1
            continue
        period, start = hit
        # Extend over every further copy, then report the whole loop once.
        end = i
        while end + 1 < len(names) and names[end + 1] == names[end + 1 - period]:
            end += 1
        pattern = ", ".join(names[start : start + period])
        copies = (end - start + 1) // period
        what = f"`{pattern}` {copies} times running" if period == 1 else f"the cycle {pattern} {copies} times"
        yield Diagnostic(
            "repetition",
            f"the plan repeats {what}; the repetition analyser will stop it — plan each step once",
            Span(plan[start + period].span.start, plan[end].span.end),
            related=[(plan[start].span, "first occurrence")],
        )
        i = end + 1


def _loop_ending_at(names: list[str], i: int) -> tuple[int, int] | None:
    """(period, start) when ``names[..i]`` ends with ``REPEATS`` copies of a short pattern."""
    for period in (1, 2, 3):
        start = i - REPEATS * period + 1
        if start < 0:
            continue
        window = names[start : i + 1]
        if period > 1 and len(set(window[:period])) == 1:
            continue  # AA, AAA repeated is the period-1 case (THINK, THINK, SPEAK is a cycle)
        if all(window[k] == window[k - period] for k in range(period, len(window))):
            return period, start
    return None
