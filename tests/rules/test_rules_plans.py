"""``repetition``: plans that loop, and actions planned after DONE (seed 004)."""

from __future__ import annotations

import json

import pytest

from action_lsp.dialects import DialectSet
from action_lsp.document import analyze
from action_lsp.model import Action, ActionKind, Span
from action_lsp.rules import RuleContext, plans


def plan_text(types: list[str]) -> str:
    return json.dumps(
        {
            "actions": [{"action": t, "context": f"c{i}"} for i, t in enumerate(types)],
            "can_extend": False,
            "reasoning": "r",
        }
    )


def repetitions(types: list[str]) -> list[tuple[str, list[int]]]:
    """Each repetition diagnostic as (message, indices of the actions its range covers)."""
    a = analyze(plan_text(types))
    out = []
    for d in a.diagnostics:
        assert d.code == "repetition", d
        covered = [
            i
            for i, x in enumerate(a.actions)
            if d.span.start <= x.span.start and x.span.end <= d.span.end
        ]
        out.append((d.message, covered))
    return out


@pytest.mark.parametrize(
    ("types", "covered", "words"),
    [
        (["THINK"] * 3, [1, 2], "`THINK` 3 times"),
        (["SPEAK", "THINK", "THINK", "THINK", "THINK", "THINK"], [2, 3, 4, 5], "`THINK` 5 times"),
        (["THINK", "SPEAK"] * 3, [2, 3, 4, 5], "THINK, SPEAK 3 times"),
        (
            ["THINK", "ADD_MEMORY", "SPEAK"] * 3,
            [3, 4, 5, 6, 7, 8],
            "THINK, ADD_MEMORY, SPEAK 3 times",
        ),
        (["THINK", "THINK", "SPEAK"] * 3, [3, 4, 5, 6, 7, 8], "THINK, THINK, SPEAK 3 times"),
        (["UPDATE_MOOD"] + ["THINK", "SPEAK"] * 4, [3, 4, 5, 6, 7, 8], "THINK, SPEAK 4 times"),
    ],
)
def test_loops(types: list[str], covered: list[int], words: str) -> None:
    ((message, got),) = repetitions(types)
    assert got == covered
    assert words in message


@pytest.mark.parametrize(
    "types",
    [
        ["THINK", "THINK"],
        ["THINK", "SPEAK", "THINK", "SPEAK"],
        ["THINK", "THINK", "SPEAK", "THINK", "THINK", "SPEAK"],
        ["THINK", "UPDATE_MOOD", "ADD_MEMORY", "SPEAK", "DONE"],
        ["THINK", "SPEAK", "THINK", "ADD_GOAL", "THINK", "SPEAK"],
    ],
)
def test_not_loops(types: list[str]) -> None:
    assert repetitions(types) == []


def test_two_separate_loops_are_two_diagnostics() -> None:
    types = ["THINK"] * 3 + ["SPEAK"] * 3
    got = repetitions(types)
    assert [c for _, c in got] == [[1, 2], [4, 5]]


def test_actions_after_done() -> None:
    got = repetitions(["THINK", "DONE", "SPEAK"])
    assert got == [(got[0][0], [2])]
    assert "after DONE" in got[0][0]


def test_done_last_is_fine() -> None:
    assert repetitions(["THINK", "SPEAK", "DONE"]) == []


def test_only_action_plan_actions_are_looked_at() -> None:
    def act(dialect: str, type_: str, at: int) -> Action:
        return Action(dialect, type_, ActionKind.OTHER, Span(at, at + 5), Span(at, at + 5))

    ctx = RuleContext(DialectSet())
    same = [act("actions-json", "create_task", i * 10) for i in range(4)]
    assert list(plans.check(same, ctx)) == []
    mixed = [act("action-plan", "THINK", i * 10) for i in range(3)]
    (d,) = plans.check(mixed, ctx)
    assert d.span == Span(10, 25)
    assert d.related == [(Span(0, 5), "first occurrence")]
