"""The ``action-plan`` dialect (seed 004): an action sequence recognised by its shape."""

from __future__ import annotations

import json

import pytest

from action_lsp.document import analyze
from action_lsp.model import ActionKind, Span


def plan(*types: str, can_extend: bool | None = False, reasoning: str | None = "why") -> str:
    obj: dict[str, object] = {
        "actions": [{"action": t, "context": f"step {i}"} for i, t in enumerate(types)]
    }
    if can_extend is not None:
        obj["can_extend"] = can_extend
    if reasoning is not None:
        obj["reasoning"] = reasoning
    return json.dumps(obj, indent=2)


def of(analysis, code: str):  # type: ignore[no-untyped-def]
    return [d for d in analysis.diagnostics if d.code == code]


def nth(text: str, needle: str, n: int) -> int:
    at = -1
    for _ in range(n + 1):
        at = text.index(needle, at + 1)
    return at


# --- where a plan is recognised ---------------------------------------------------------------


def test_plan_in_a_json_fence() -> None:
    text = "Here is what I will do:\n\n```json\n" + plan("THINK", "SPEAK", "DONE") + "\n```\n"
    a = analyze(text)
    assert [(x.dialect, x.type) for x in a.actions] == [
        ("action-plan", "THINK"),
        ("action-plan", "SPEAK"),
        ("action-plan", "DONE"),
    ]
    assert a.diagnostics == []
    assert all(x.kind is ActionKind.OTHER for x in a.actions)
    think = a.actions[0]
    assert think.get("context") == "step 0"
    at = text.index("THINK")
    assert think.name_span == Span(at, at + 5)
    f = think.fields["context"]
    assert text[f.span.start : f.span.end] == "step 0"
    # One group: the fence.
    (group,) = a.groups
    assert group.span == Span(text.index("```json"), len(text))
    assert group.actions == [0, 1, 2]


def test_plan_as_the_whole_document() -> None:
    text = plan("THINK", "UPDATE_MOOD", "SPEAK")
    a = analyze(text)
    assert [x.type for x in a.actions] == ["THINK", "UPDATE_MOOD", "SPEAK"]
    assert a.diagnostics == []


def test_plan_in_prose() -> None:
    text = "I considered the options.\n" + plan("ADD_MEMORY", "SPEAK") + "\nThat is the plan.\n"
    a = analyze(text)
    assert [x.type for x in a.actions] == ["ADD_MEMORY", "SPEAK"]
    assert a.diagnostics == []
    start = text.index("{")
    assert a.groups[0].span == Span(start, text.rindex("}") + 1)


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "x", "actions": [1, 2]}',
        '{"actions": [{"type": "create_task"}]}',
        '{"actions": []}',
        '{"action": "THINK", "context": "c"}',
        '[{"action": "THINK"}]',
        '{"config": {"actions": [{"action": "THINK"}]}}',
    ],
)
def test_json_fence_that_is_not_a_plan_is_an_example(body: str) -> None:
    text = f"Example response:\n```json\n{body}\n```\n"
    a = analyze(text)
    assert a.actions == [] and a.diagnostics == []


def test_plan_in_an_ordinary_code_fence_is_an_example() -> None:
    text = "```python\nPLAN = " + plan("THINK", "SPEEK") + "\n```\n"
    a = analyze(text)
    assert a.actions == [] and a.diagnostics == []


# --- schema -------------------------------------------------------------------------------------


def test_unknown_action_type_suggests_the_nearest() -> None:
    text = plan("THINK", "SPEEK")
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "unknown-action"
    at = text.index("SPEEK")
    assert d.span == Span(at, at + 5)
    assert "SPEAK" in d.message
    (fix,) = d.fixes
    fixed = text[: d.span.start] + fix.edits[0].new_text + text[d.span.end :]
    assert json.loads(fixed)["actions"][1]["action"] == "SPEAK"
    assert analyze(fixed).diagnostics == []


@pytest.mark.parametrize("missing", ["can_extend", "reasoning"])
def test_missing_sequence_fields(missing: str) -> None:
    kwargs = {missing: None}
    text = plan("THINK", "SPEAK", **kwargs)  # type: ignore[arg-type]
    (d,) = analyze(text).diagnostics
    assert d.code == "missing-field"
    assert missing in d.message
    assert d.span == Span(0, 1)


def test_missing_context_of_a_planned_action() -> None:
    text = '{"actions": [{"action": "SPEAK"}], "can_extend": true, "reasoning": "r"}'
    (d,) = analyze(text).diagnostics
    assert d.code == "missing-field"
    at = text.index("SPEAK")
    assert d.span == Span(at, at + 5)


def test_sequence_field_values_and_unknown_fields() -> None:
    text = (
        '{"actions": [{"action": "THINK", "context": "c"}], '
        '"can_extend": "yes", "reasoning": "r", "priority": 1}'
    )
    a = analyze(text)
    got = {d.code: d for d in a.diagnostics}
    assert set(got) == {"invalid-value", "unknown-field"}
    at = text.index('"yes"')
    assert got["invalid-value"].span == Span(at, at + 5)
    assert "priority" in got["unknown-field"].message


def test_planned_action_without_action_field() -> None:
    text = (
        '{"actions": [{"action": "THINK", "context": "c"}, {"context": "no type"}], '
        '"can_extend": false, "reasoning": "r"}'
    )
    a = analyze(text)
    assert [x.type for x in a.actions] == ["THINK"]
    (d,) = a.diagnostics
    assert d.code == "missing-field"
    at = text.index('{"context": "no type"}')
    assert d.span == Span(at, at + 1)


# --- repetition ---------------------------------------------------------------------------------


def test_three_thinks_running_is_one_repetition() -> None:
    text = plan("THINK", "THINK", "THINK", "SPEAK")
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "repetition"
    assert "THINK" in d.message and "3 times" in d.message
    # The range covers the repeats after the first occurrence, which is related information.
    second = a.actions[1].span
    third = a.actions[2].span
    assert d.span == Span(second.start, third.end)
    assert d.related[0][0] == a.actions[0].span
    assert text[d.span.start : d.span.end].count('"THINK"') == 2


def test_four_thinks_is_still_one_diagnostic() -> None:
    a = analyze(plan("THINK", "THINK", "THINK", "THINK"))
    reps = of(a, "repetition")
    assert len(reps) == 1
    assert "4 times" in reps[0].message
    assert reps[0].span == Span(a.actions[1].span.start, a.actions[3].span.end)


def test_cycle_think_speak_three_times() -> None:
    text = plan("THINK", "SPEAK", "THINK", "SPEAK", "THINK", "SPEAK")
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "repetition"
    assert "THINK, SPEAK" in d.message
    assert d.span == Span(a.actions[2].span.start, a.actions[5].span.end)
    assert d.span.start == nth(text, "{", 3)  # the outer object, then three action objects


@pytest.mark.parametrize(
    "types",
    [
        ("THINK", "THINK"),
        ("THINK", "SPEAK", "THINK", "SPEAK"),
        ("THINK", "ADD_MEMORY", "THINK", "UPDATE_MOOD", "THINK", "SPEAK"),
        ("THINK", "SPEAK", "DONE"),
    ],
)
def test_no_repetition(types: tuple[str, ...]) -> None:
    assert analyze(plan(*types)).diagnostics == []


def test_actions_after_done() -> None:
    text = plan("THINK", "DONE", "SPEAK", "ADD_GOAL")
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "repetition"
    assert "DONE" in d.message and "2 action" in d.message
    assert d.span == Span(a.actions[2].span.start, a.actions[3].span.end)


def test_repetition_is_per_plan() -> None:
    """Two plans of two THINKs each: no plan repeats itself three times."""
    text = (
        "```json\n"
        + plan("THINK", "THINK")
        + "\n```\n\n```json\n"
        + plan("THINK", "SPEAK")
        + "\n```\n"
    )
    a = analyze(text)
    assert len(a.actions) == 4
    assert a.diagnostics == []
    assert len(a.groups) == 2
