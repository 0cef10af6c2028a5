"""The ``actions-json`` dialect (seed 000, GemBrain): ```actions and ```iteration blocks.

Every expected range is computed from the text itself (``text.index``) and, where a user sees
it, converted through :class:`action_lsp.text.LineIndex`.
"""

from __future__ import annotations

import json

import pytest

from action_lsp.document import analyze
from action_lsp.model import ActionKind, Severity, Span
from action_lsp.text import LineIndex, Position


def block(body: str, info: str = "actions") -> str:
    return f"```{info}\n{body}\n```\n"


def of(analysis, code: str):  # type: ignore[no-untyped-def]
    return [d for d in analysis.diagnostics if d.code == code]


def body_json(text: str) -> object:
    """The JSON body of the first ```actions block of ``text`` (as a strict parser sees it)."""
    start = text.index("\n", text.index("```actions")) + 1
    end = text.index("\n```", start)
    return json.loads(text[start:end])


# --- every block, in document order -----------------------------------------------------------


def test_every_block_is_parsed_in_document_order() -> None:
    text = (
        "Here is my answer.\n\n"
        + block('{"actions": [{"type": "create_task", "content": "task 1"}]}')
        + "\nMore text between the blocks.\n\n"
        + block(
            '{"actions": [{"type": "create_memory", "content": "m"},'
            ' {"type": "create_task", "content": "task 2"}]}'
        )
    )
    a = analyze(text)
    assert [(x.type, x.get("content")) for x in a.actions] == [
        ("create_task", "task 1"),
        ("create_memory", "m"),
        ("create_task", "task 2"),
    ]
    assert all(x.dialect == "actions-json" for x in a.actions)
    assert a.diagnostics == []
    # Each block is its own group, and an action's span is its JSON object.
    first, second = text.index("```actions"), text.index("```actions", 30)
    assert [g.span.start for g in a.groups] == [first, second]
    assert [g.actions for g in a.groups] == [[0], [1, 2]]
    obj = '{"type": "create_memory", "content": "m"}'
    assert a.actions[1].span == Span(text.index(obj), text.index(obj) + len(obj))
    assert a.actions[1].name_span == Span(
        text.index("create_memory"), text.index("create_memory") + 13
    )


def test_execute_code_is_a_code_action() -> None:
    text = block('{"actions": [{"type": "execute_code", "code": "gb.log(\\"hi\\")"}]}')
    (action,) = analyze(text).actions
    assert action.kind is ActionKind.CODE
    assert action.get("code") == 'gb.log("hi")'


def test_iteration_block_next_actions() -> None:
    body = (
        '{\n  "iteration": 2,\n  "reasoning": "I need tasks",\n  "observations": ["o"],\n'
        '  "next_actions": [\n    {"type": "create_task", "content": "Set up", "notes": "Step 1"},\n'
        '    {"type": "execute_code", "code": "gb.create_memory(\'init\', notes=\'m\')"}\n  ],\n'
        '  "insights_gained": ["sequential"],\n  "is_final": false\n}'
    )
    text = block(body, "iteration")
    a = analyze(text)
    assert [x.type for x in a.actions] == ["create_task", "execute_code"]
    assert a.diagnostics == []
    assert a.groups[0].label == "```iteration 2"


def test_final_iteration_needs_no_next_actions() -> None:
    text = block('{"iteration": 3, "reasoning": "done", "is_final": true}', "iteration")
    a = analyze(text)
    assert a.actions == []
    assert a.diagnostics == []


def test_non_final_iteration_without_next_actions_is_missing_field() -> None:
    text = block('{"iteration": 3, "reasoning": "more to do", "is_final": false}', "iteration")
    (d,) = analyze(text).diagnostics
    assert d.code == "missing-field"
    assert "next_actions" in d.message
    brace = text.index("{")
    assert d.span == Span(brace, brace + 1)


def test_iteration_fields_are_checked() -> None:
    text = block(
        '{"iteration": "two", "next_actions": [], "is_final": "no", "mood": "x"}', "iteration"
    )
    a = analyze(text)
    got = {(d.code, text[d.span.start : d.span.end]) for d in a.diagnostics}
    assert ("invalid-value", '"two"') in got
    assert ("invalid-value", '"no"') in got
    assert any(code == "unknown-field" and "mood" in s for code, s in got)


# --- the closing fence, found JSON-aware -------------------------------------------------------


def test_fence_inside_json_string_does_not_close_the_block() -> None:
    """Seed 000, edge case 7: ``` inside a JSON string."""
    text = (
        "```actions\n"
        '{"actions": [{"type": "execute_code", "code": "s = \'\'\'\n```\n\'\'\'\ngb.log(s)"},\n'
        '{"type": "create_task", "content": "after the fence"}]}\n'
        "```\n"
        "Reply text.\n"
    )
    a = analyze(text)
    assert [x.type for x in a.actions] == ["execute_code", "create_task"]
    assert a.actions[0].get("code") == "s = '''\n```\n'''\ngb.log(s)"
    assert a.actions[1].get("content") == "after the fence"
    assert [d.code for d in a.diagnostics] == []
    assert a.groups[0].span == Span(0, text.index("Reply"))


def test_seed_edge_case_7_escaped_newlines() -> None:
    text = (
        block(
            '{\n  "actions": [\n    {\n      "type": "execute_code",\n'
            '      "code": "```python\\nprint(\'test\')\\n```"\n    }\n  ]\n}'
        )
        + "after\n"
    )
    a = analyze(text)
    (action,) = a.actions
    assert action.get("code") == "```python\nprint('test')\n```"
    assert not of(a, "bad-json") and not of(a, "unclosed-block")


# --- tolerated quirks ---------------------------------------------------------------------------


def test_raw_newline_in_string_is_tolerated() -> None:
    text = block('{"actions": [{"type": "create_task", "content": "line one\nline two"}]}')
    a = analyze(text)
    assert a.actions[0].get("content") == "line one\nline two"
    assert a.diagnostics == []


def test_stray_backslash_is_a_warning_with_a_repair() -> None:
    text = block(
        '{"actions": [{"type": "create_memory", "content": "the \\alpha value"}]}', "actions"
    )
    a = analyze(text)
    assert a.actions[0].get("content") == "the \\alpha value"
    (d,) = a.diagnostics
    assert d.code == "bad-json"
    assert d.severity is Severity.WARNING
    at = text.index("\\alpha")
    assert d.span == Span(at, at + 2)
    (fix,) = [f for f in d.fixes if f.title == "Repair the JSON"]
    # The repaired text holds the same value, now as strict JSON.
    fixed = _apply(text, fix)
    assert body_json(fixed)["actions"][0]["content"] == "the \\alpha value"


def _apply(text: str, fix) -> str:  # type: ignore[no-untyped-def]
    for e in sorted(fix.edits, key=lambda e: -e.span.start):
        text = text[: e.span.start] + e.new_text + text[e.span.end :]
    return text


# --- bad-json at the exact error, with a repair ----------------------------------------------

BAD_JSON = [
    pytest.param(
        '{\n  "actions": [\n    {\n      "type": "create_task",\n      "content": "test",\n    }\n  ]\n}',
        '"test",',
        6,
        1,
        id="trailing-comma",
    ),
    pytest.param(
        '{"actions": [ // the tasks\n  {"type": "create_task", "content": "x"}]}',
        "// the tasks",
        0,
        12,
        id="line-comment",
    ),
    pytest.param(
        "{'actions': [{'type': 'create_task', 'content': 'x'}]}",
        "'actions'",
        0,
        1,
        id="single-quotes",
    ),
    pytest.param(
        '{"actions": [\n  {"type": "create_task", "content": "a"}\n  {"type": "create_task", "content": "b"}\n]}',
        '{"type": "create_task", "content": "b"}',
        0,
        1,
        id="missing-comma-between-items",
    ),
    pytest.param(
        '{"actions": [{"type": "create_task", "content": "unterminated}]}',
        '"unterminated',
        0,
        1,
        id="unterminated-string",
    ),
]


@pytest.mark.parametrize(("body", "anchor", "offset", "length"), BAD_JSON)
def test_bad_json_at_the_error_with_a_repair(
    body: str, anchor: str, offset: int, length: int, apply_fix
) -> None:  # type: ignore[no-untyped-def]
    text = "Intro line.\n" + block(body)
    a = analyze(text)
    bad = of(a, "bad-json")
    assert bad, a.diagnostics
    at = text.index(anchor) + offset
    first = bad[0]
    assert first.span == Span(at, at + length), (
        first.span,
        text[first.span.start : first.span.end],
    )
    assert first.severity in (None, Severity.ERROR)
    # The position a user sees: line and UTF-16 column.
    lines = LineIndex(text)
    assert lines.position(first.span.start) == Position(
        text.count("\n", 0, at), at - (text.rfind("\n", 0, at) + 1)
    )
    (fix,) = [f for f in first.fixes if f.title == "Repair the JSON"]
    fixed = apply_fix(text, fix)
    value = body_json(fixed)
    assert value["actions"][0]["type"] == "create_task"
    # The repaired block is clean: closed, strict JSON, every action found again.
    again = analyze(fixed)
    assert not of(again, "bad-json") and not of(again, "unclosed-block"), again.diagnostics
    assert [x.type for x in again.actions] == [x["type"] for x in value["actions"]]


def test_trailing_comma_block_still_yields_its_action() -> None:
    text = block('{"actions": [{"type": "create_task", "content": "x",}]}')
    a = analyze(text)
    assert [x.get("content") for x in a.actions] == ["x"]
    assert [d.code for d in a.diagnostics] == ["bad-json"]


def test_missing_comma_inside_object_is_not_also_missing_field() -> None:
    text = block('{"actions": [{"type": "create_task" "content": "x"}]}')
    a = analyze(text)
    assert [d.code for d in a.diagnostics] == ["bad-json"]


# --- unclosed blocks --------------------------------------------------------------------------


def test_unclosed_block_at_the_opener_and_later_actions_still_found() -> None:
    """Seed 000, edge case 1, followed by more of the message and another block."""
    text = (
        "```actions\n"
        '{"actions": [{"type": "create_task", "content": "first"}]}\n'
        "// Missing closing\n\n"
        'More text {"type": "create_goal", "content": "in prose"} here.\n\n'
        "```actions\n"
        '{"actions": [{"type": "create_task", "content": "second"}]}\n'
        "```\n"
    )
    a = analyze(text)
    assert [x.get("content") for x in a.actions] == ["first", "second"]
    unclosed = of(a, "unclosed-block")
    assert len(unclosed) == 1
    assert unclosed[0].span == Span(0, len("```actions"))
    outside = of(a, "action-outside-block")
    obj = '{"type": "create_goal", "content": "in prose"}'
    assert [d.span for d in outside] == [Span(text.index(obj), text.index(obj) + len(obj))]
    assert not of(a, "bad-json")
    # The insert-fence fix closes the first block.
    (fix,) = unclosed[0].fixes
    fixed = _apply(text, fix)
    again = analyze(fixed)
    assert not of(again, "unclosed-block")
    assert [x.get("content") for x in again.actions] == ["first", "second"]


def test_unclosed_block_before_a_code_fence() -> None:
    text = (
        "```actions\n"
        '{"actions": [{"type": "create_task", "content": "a"}]}\n'
        "And an example:\n"
        "```python\nprint('x')\n```\n"
    )
    a = analyze(text)
    assert [x.get("content") for x in a.actions] == ["a"]
    assert [d.code for d in a.diagnostics] == ["unclosed-block"]


def test_unclosed_block_at_the_end_of_the_text() -> None:
    text = "Reply.\n```actions\n" + '{"actions": [{"type": "create_task", "content": "test"}]}'
    a = analyze(text)
    assert [x.get("content") for x in a.actions] == ["test"]
    (d,) = a.diagnostics
    assert d.code == "unclosed-block"
    start = text.index("```actions")
    assert d.span == Span(start, start + len("```actions"))
    assert LineIndex(text).range(d.span).start == Position(1, 0)
    fixed = _apply(text, d.fixes[0])
    assert analyze(fixed).diagnostics == []


# --- wrong block name, actions outside blocks ---------------------------------------------------


def test_wrong_block_name_with_rename_fix() -> None:
    text = block('{"actions": [{"type": "create_task", "content": "x"}]}', "action")
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "wrong-block-name"
    assert d.span == Span(3, 3 + len("action"))
    assert "actions" in d.message
    fixed = _apply(text, d.fixes[0])
    assert fixed.startswith("```actions\n")
    assert analyze(fixed).diagnostics == []
    # The near miss is still read, so its actions are checked and listed.
    assert [x.type for x in a.actions] == ["create_task"]


def test_action_outside_block_in_prose() -> None:
    obj = '{"type": "create_task", "content": "test"}'
    text = f"Sure, I will remember.\n{obj}\nAnything else?\n"
    (d,) = analyze(text).diagnostics
    assert d.code == "action-outside-block"
    assert d.span == Span(text.index(obj), text.index(obj) + len(obj))
    assert analyze(text).actions == []
    fixed = _apply(text, d.fixes[0])
    a = analyze(fixed)
    assert [x.get("content") for x in a.actions] == ["test"]
    assert a.diagnostics == []


def test_action_outside_block_mid_line() -> None:
    obj = '{"type": "create_task", "content": "test"}'
    text = f"I will now run {obj} for you.\n"
    (d,) = analyze(text).diagnostics
    assert d.code == "action-outside-block"
    assert d.span == Span(text.index(obj), text.index(obj) + len(obj))


@pytest.mark.parametrize("info", ["json", "python", "js", ""])
def test_action_objects_inside_code_fences_are_examples(info: str) -> None:
    text = f"Example:\n```{info}\n" + '{"type": "create_task", "content": "test"}\n```\n'
    a = analyze(text)
    assert a.actions == [] and a.diagnostics == []


def test_action_object_in_inline_code_is_an_example() -> None:
    text = 'Write `{"type": "create_task", "content": "test"}` inside an actions block.\n'
    a = analyze(text)
    assert a.actions == [] and a.diagnostics == []


def test_unknown_type_in_prose_is_not_an_action() -> None:
    text = 'The API returns {"type": "error", "message": "nope"} on failure.\n'
    assert analyze(text).diagnostics == []


# --- field spans ------------------------------------------------------------------------------


def test_field_span_covers_the_characters_inside_the_quotes() -> None:
    text = block(
        '{"actions": [{"type": "create_task", "content": "Review the PR", "status": "pending"}]}'
    )
    (action,) = analyze(text).actions
    f = action.fields["content"]
    assert text[f.span.start : f.span.end] == "Review the PR"
    assert f.key_span is not None and text[f.key_span.start : f.key_span.end] == "content"
    assert set(action.fields) == {"content", "status"}


def test_field_span_and_value_span_with_escapes() -> None:
    written = r"a\"b\\nc"  # decodes to: a"b\nc (a backslash and an n, not a newline)
    text = block('{"actions": [{"type": "create_task", "content": "' + written + '"}]}')
    (action,) = analyze(text).actions
    f = action.fields["content"]
    assert f.value == 'a"b\\nc'
    at = text.index(written)
    assert f.span == Span(at, at + len(written))
    # value[2:4] is 'b\\' ; as written: 'b\\\\' (the escaped backslash).
    assert f.value[2:4] == "b\\"
    assert f.value_span(2, 4) == Span(at + 3, at + 6)
    assert text[at + 3 : at + 6] == "b\\\\"
    # value[1] is the quote, written as \"
    assert text[f.value_span(1, 2).start : f.value_span(1, 2).end] == '\\"'
    # the tail "nc" maps to the last two characters
    assert f.value_span(4, 6) == Span(at + len(written) - 2, at + len(written))


def test_value_span_after_unicode_escape_and_astral_char() -> None:
    written = r"caf\u00e9 😀 ok"
    text = "😀 lead\n" + block(
        '{"actions": [{"type": "create_memory", "content": "' + written + '"}]}'
    )
    (action,) = analyze(text).actions
    f = action.fields["content"]
    assert f.value == "café 😀 ok"
    start = f.value.index("ok")
    s = f.value_span(start, start + 2)
    assert text[s.start : s.end] == "ok"
    # UTF-16 columns count the astral character as two units.
    line_start = text.index('{"actions"')
    col16 = LineIndex(text).position(s.start).character
    assert col16 == (s.start - line_start) + 1


# --- schema: missing, unknown, invalid --------------------------------------------------------


def test_missing_field_at_the_type_name() -> None:
    """Seed 000, edge case 5."""
    text = block('{"actions": [{"type": "create_task"}]}')
    (d,) = analyze(text).diagnostics
    assert d.code == "missing-field"
    assert "content" in d.message
    at = text.index("create_task")
    assert d.span == Span(at, at + len("create_task"))
    assert d.severity in (None, Severity.ERROR)


@pytest.mark.parametrize(
    ("action", "field"),
    [
        ('{"type": "update_task", "status": "completed"}', "task_id"),
        ('{"type": "delete_memory"}', "memory_id"),
        ('{"type": "get_goal"}', "goal_id"),
        ('{"type": "datavault_get"}', "item_id"),
        ('{"type": "search_memories"}', "query"),
        ('{"type": "execute_code"}', "code"),
        ('{"type": "datavault_store", "filetype": "csv"}', "content"),
    ],
)
def test_required_fields(action: str, field: str) -> None:
    text = block('{"actions": [' + action + "]}")
    diags = analyze(text).diagnostics
    assert [(d.code, d.data["field"]) for d in diags] == [("missing-field", field)]


def test_list_actions_need_nothing() -> None:
    text = block(
        '{"actions": [{"type": "list_tasks"}, {"type": "list_memories"}, {"type": "datavault_list"}]}'
    )
    assert analyze(text).diagnostics == []


def test_empty_required_field_is_missing_at_the_value() -> None:
    text = block('{"actions": [{"type": "create_goal", "content": "  "}]}')
    (d,) = analyze(text).diagnostics
    assert d.code == "missing-field"
    at = text.index('"  "') + 1
    assert d.span == Span(at, at + 2)


def test_unknown_field_with_did_you_mean_and_rename() -> None:
    text = block('{"actions": [{"type": "create_task", "content": "x", "note": "n"}]}')
    (d,) = analyze(text).diagnostics
    assert d.code == "unknown-field"
    assert "did you mean `notes`" in d.message
    at = text.index('"note"') + 1
    assert d.span == Span(at, at + 4)
    fixed = _apply(text, d.fixes[0])
    assert '"notes": "n"' in fixed
    assert analyze(fixed).diagnostics == []


def test_misspelt_required_field_gives_both_missing_and_unknown() -> None:
    text = block('{"actions": [{"type": "create_task", "contnt": "x"}]}')
    got = sorted(d.code for d in analyze(text).diagnostics)
    assert got == ["missing-field", "unknown-field"]


@pytest.mark.parametrize(
    ("action", "value", "needle"),
    [
        ('{"type": "create_task", "content": "x", "status": "done"}', "done", "pending"),
        ('{"type": "update_task", "task_id": "3"}', "3", "without quotes"),
        ('{"type": "get_memory", "memory_id": 2.5}', "2.5", "integer"),
        ('{"type": "delete_goal", "goal_id": 0}', "0", "at least 1"),
        ('{"type": "list_tasks", "limit": 0}', "0", "positive"),
        ('{"type": "search_goals", "query": "q", "limit": -5}', "-5", "positive"),
        ('{"type": "create_goal", "content": "x", "status": "ongoing"}', "ongoing", "completed"),
        ('{"type": "update_goal", "goal_id": 1, "status": "paused"}', "paused", "pending"),
        ('{"type": "create_task", "content": "x", "status": true}', "true", "one of"),
        ('{"type": "create_memory", "content": 42}', "42", "string"),
    ],
)
def test_invalid_values(action: str, value: str, needle: str) -> None:
    text = block('{"actions": [' + action + "]}")
    diags = analyze(text).diagnostics
    assert [d.code for d in diags] == ["invalid-value"], diags
    (d,) = diags
    # The range covers the value as written (inside its quotes for a string).
    at = text.index(value, text.index("{", 12) + 1)
    assert d.span == Span(at, at + len(value))
    assert needle in d.message


def test_valid_statuses_and_ids_are_accepted() -> None:
    text = block(
        '{"actions": ['
        '{"type": "create_task", "content": "a", "status": "ongoing"},'
        '{"type": "update_task", "task_id": 7, "status": "paused"},'
        '{"type": "create_goal", "content": "g", "status": "completed"},'
        '{"type": "list_goals", "status": "pending", "limit": 10},'
        '{"type": "datavault_store", "content": "c", "filetype": "json", "notes": "n"}'
        "]}"
    )
    assert analyze(text).diagnostics == []


def test_unknown_action_with_nearest_suggestion_and_rename() -> None:
    text = block('{"actions": [{"type": "creat_memory", "content": "x"}]}')
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "unknown-action"
    assert "create_memory" in d.message
    at = text.index("creat_memory")
    assert d.span == Span(at, at + len("creat_memory"))
    fixed = _apply(text, d.fixes[0])
    assert '"type": "create_memory"' in fixed
    assert analyze(fixed).diagnostics == []


def test_unknown_action_far_from_everything_lists_known_types() -> None:
    text = block('{"actions": [{"type": "launch_rocket"}]}')
    (d,) = analyze(text).diagnostics
    assert d.code == "unknown-action"
    assert d.fixes == []
    assert "create_task" in d.message


def test_action_without_type() -> None:
    text = block('{"actions": [{"content": "x"}]}')
    a = analyze(text)
    assert a.actions == []
    (d,) = a.diagnostics
    assert d.code == "missing-field"
    assert d.span == Span(text.index('{"content"'), text.index('{"content"') + 1)


def test_bare_list_and_wrong_shapes() -> None:
    bare = block('[{"type": "create_task", "content": "x"}]')
    a = analyze(bare)
    assert [x.type for x in a.actions] == ["create_task"]
    assert [d.code for d in a.diagnostics] == ["invalid-value"]
    not_list = block('{"actions": {"type": "create_task"}}')
    assert [d.code for d in analyze(not_list).diagnostics] == ["invalid-value"]
    no_actions = block('{"action": []}')
    assert [d.code for d in analyze(no_actions).diagnostics] == ["missing-field"]


def test_json_repair_runs_only_when_the_fix_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """json_repair is quadratic on some strings: analysis never calls it; reading the fix does."""
    from action_lsp.dialects import json_fields

    calls: list[str] = []
    real = json_fields.repair_json

    def counting(raw: str) -> str | None:
        calls.append(raw)
        return real(raw)

    monkeypatch.setattr(json_fields, "repair_json", counting)
    text = block('{"actions": [{"type": "create_task", "content": "no end}]}')
    (d,) = [d for d in analyze(text).diagnostics if d.code == "bad-json"]
    (fix,) = [f for f in d.fixes if f.title == "Repair the JSON"]
    assert calls == [] and fix.lazy
    fixed = _apply(text, fix)
    assert len(calls) == 1
    assert body_json(fixed)["actions"][0]["content"].startswith("no end")


def test_no_json_repair_offered_past_the_size_bound() -> None:
    from action_lsp.dialects.json_fields import MAX_REPAIR_CHARS

    text = block('{"actions": [{"type": "create_task", "content": "' + 'a\\"' * (MAX_REPAIR_CHARS // 3 + 1))
    bad = [d for d in analyze(text).diagnostics if d.code == "bad-json"]
    assert bad and all(not d.fixes for d in bad)
