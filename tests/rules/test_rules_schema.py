"""``unknown-action``, ``missing-field``, ``unknown-field``, ``invalid-value`` against declared specs.

A test dialect declares its types with :mod:`action_lsp.schema`; the rule is run on hand-built
actions so that every span is known.
"""

from __future__ import annotations

import pytest

from action_lsp.dialects import ALL, Dialect, DialectSet
from action_lsp.model import Action, ActionKind, Field, Severity, Span
from action_lsp.rules import RuleContext, schema
from action_lsp.schema import (
    ActionSpec,
    boolean,
    integer,
    nearest,
    one_of,
    opt,
    req,
    specs,
    text,
    text_list,
)


class Toy(Dialect):
    name = "toy"
    specs = specs(
        ActionSpec(
            "make_thing",
            fields=(
                req("title", text(), "what to call it"),
                opt("size", integer(minimum=1, what="a positive integer")),
                opt("color", one_of("red", "green")),
                opt("tags", text_list()),
                opt("public", boolean()),
            ),
        ),
        ActionSpec("run", ActionKind.COMMAND, fields=(req("command", text()),)),
        ActionSpec("anything", fields=(req("id", integer()),), open_fields=True),
    )


CTX = RuleContext(DialectSet([*ALL, Toy()]))


def act(type_: str, **values: object) -> Action:
    """An action whose field ``k`` has its key at 100*i and its value at 100*i + 10."""
    fields = {}
    for i, (k, v) in enumerate(values.items(), 1):
        width = len(str(v))
        fields[k] = Field(
            k, v, Span(100 * i + 10, 100 * i + 10 + width), Span(100 * i, 100 * i + len(k))
        )
    return Action("toy", type_, ActionKind.OTHER, Span(0, 1000), Span(2, 2 + len(type_)), fields)


def check(action: Action) -> list:  # type: ignore[type-arg]
    return list(schema.check([action], CTX))


def test_valid_action() -> None:
    assert check(act("make_thing", title="t", size=3, color="red", tags=["a"], public=True)) == []


def test_missing_required_field_at_the_name() -> None:
    (d,) = check(act("make_thing", size=2))
    assert (d.code, d.span) == ("missing-field", Span(2, 12))
    assert "title" in d.message and "what to call it" in d.message
    assert d.data == {"field": "title", "type": "make_thing"}


@pytest.mark.parametrize("value", ["", "  ", None])
def test_empty_or_null_required_field(value: object) -> None:
    (d,) = check(act("make_thing", title=value))
    assert d.code == "missing-field"
    assert d.data["empty"] is True  # type: ignore[index]


def test_required_command_is_left_to_empty_command() -> None:
    action = act("run")
    action.kind = ActionKind.COMMAND
    assert check(action) == []


def test_unknown_field_with_suggestion_and_rename_fix() -> None:
    (d,) = check(act("make_thing", title="t", colour="red"))
    assert d.code == "unknown-field"
    assert d.span == Span(200, 206)
    assert "did you mean `color`" in d.message
    (fix,) = d.fixes
    assert [(e.span, e.new_text) for e in fix.edits] == [(Span(200, 206), "color")]


def test_unknown_field_without_suggestion() -> None:
    (d,) = check(act("make_thing", title="t", zzzqqq=1))
    assert d.code == "unknown-field"
    assert d.fixes == [] and "did you mean" not in d.message


def test_suggestion_skips_fields_already_present() -> None:
    (d,) = check(act("make_thing", title="t", color="red", colour="green"))
    assert "did you mean" not in d.message


def test_open_fields_accept_anything() -> None:
    assert check(act("anything", id=1, whatever="x")) == []


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("size", 0, "at least 1"),
        ("size", "3", "write 3 without quotes"),
        ("size", True, "positive integer"),
        ("size", 1.5, "positive integer"),
        ("color", "blue", "`red`, `green`"),
        ("tags", "a", "list of strings"),
        ("tags", ["a", 1], "list of strings"),
        ("public", "yes", "true or false"),
        ("title", 5, "string"),
    ],
)
def test_invalid_values_at_the_value(field: str, value: object, words: str) -> None:
    values = {"title": "t", field: value}
    diags = check(act("make_thing", **values))
    (d,) = diags
    assert d.code == "invalid-value"
    assert d.span == Span(
        100 * list(values).index(field) + 110,
        100 * list(values).index(field) + 110 + len(str(value)),
    )
    assert words in d.message


def test_unknown_action_with_suggestion() -> None:
    (d,) = check(act("make_thign", title="t"))
    assert d.code == "unknown-action"
    assert d.span == Span(2, 12)
    assert d.data == {"suggestion": "make_thing"}
    assert d.fixes[0].edits[0].new_text == "make_thing"
    assert d.severity is None


def test_unknown_action_far_away_lists_known() -> None:
    (d,) = check(act("xyzzy"))
    assert d.code == "unknown-action" and d.fixes == []
    assert "make_thing" in d.message


def test_unknown_aether_tag_is_only_a_hint() -> None:
    action = Action("aether", "aether-dance", ActionKind.OTHER, Span(0, 10), Span(1, 13))
    diags = list(schema.check([action], CTX))
    if "aether" not in CTX.dialects.names:
        assert diags == []
        return
    (d,) = diags
    assert d.code == "unknown-action" and d.severity is Severity.HINT


def test_actions_of_unknown_or_disabled_dialects_are_skipped() -> None:
    action = act("make_thign")
    assert list(schema.check([action], RuleContext(DialectSet()))) == []


def test_nearest() -> None:
    known = ["create_task", "create_memory", "update_task", "list_tasks"]
    assert nearest("creat_task", known) == "create_task"
    assert nearest("CREATE-TASK", known) == "create_task"
    assert nearest("list_task", known) == "list_tasks"
    assert nearest("frobnicate", known) is None
    assert nearest("x", []) is None


def test_an_empty_value_that_means_something_is_no_missing_field() -> None:
    """An empty <replace> deletes the search text; an empty <search> appends (or creates)."""
    from action_lsp.document import analyze

    text = "<modify_file>\n<path>a.py</path>\n<search>\nx = 1\n</search>\n<replace></replace>\n</modify_file>\n"
    assert [d.code for d in analyze(text).diagnostics] == []
    text = "<modify_file>\n<path>a.py</path>\n<search></search>\n<replace>\ny = 2\n</replace>\n</modify_file>\n"
    assert [d.code for d in analyze(text).diagnostics] == []
    text = "<modify_file>\n<path></path>\n<search>x</search>\n<replace>y</replace>\n</modify_file>\n"
    assert "invalid-path" in [d.code for d in analyze(text).diagnostics] or "missing-field" in [
        d.code for d in analyze(text).diagnostics
    ]
