"""The tool-call dialect's walk of decoded records decides as it did when written with ``any``.

Every JSON line's decoded record is walked (``tool_calls._wants``) before the line is parsed
with ranges, and a tree made as read is pruned by the same walk (``tool_calls._holds``); both
ask of each object whether it is named like a call (``_named``). Written as plain loops for
speed, they must answer as the generator form below (kept here as the reference) on any
decoded value: nested messages, roles, names of any type, ``_NOT_CALLS`` members, deep nesting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import tool_calls
from action_lsp.dialects.tool_calls import _NAME_KEYS, _NOT_CALLS


def _reference(value: Any, test: Callable[[dict[str, Any], bool], bool], speaking: bool = False,
               depth: int = 0) -> bool:
    if depth > 48:
        return True
    if isinstance(value, list):
        return any(_reference(v, test, speaking, depth + 1) for v in value if isinstance(v, dict | list))
    if not isinstance(value, dict):
        return False
    role = value.get("role")
    kind = tool_calls._type(value)
    if isinstance(role, str) or kind in ("user", "gemini"):
        speaking = role in ("assistant", "model") or kind == "gemini"
    if test(value, speaking):
        return True
    return any(_reference(v, test, speaking, depth + 1) for k, v in value.items()
               if isinstance(v, dict | list) and k not in _NOT_CALLS)


_KEYS = st.sampled_from(["role", "type", "name", "tool_name", "toolName", "recipient_name", "input", "arguments",
                         "args", "parameters", "content", "text", "function", "tools", "schema", "say", "tool",
                         "state", "payload", "x"])
_SCALARS = st.one_of(st.sampled_from(["assistant", "user", "model", "gemini", "tool_use", "text", "function_call",
                                      "tool", "", "Write", "<tool>x</tool>", "```py\nx\n```", "{}"]),
                     st.none(), st.booleans(), st.integers(-1, 2))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=5),
                       max_leaves=30)


@settings(max_examples=500, deadline=None)
@given(_VALUES, st.booleans())
def test_the_walk_answers_as_the_generator_form(value: Any, speaking: bool) -> None:
    seen: list[tuple[int, bool]] = []

    def test(v: dict[str, Any], s: bool) -> bool:  # (records the objects asked, in order)
        seen.append((id(v), s))
        return tool_calls._wanted(v, s)

    ref_seen: list[tuple[int, bool]] = []

    def ref_test(v: dict[str, Any], s: bool) -> bool:
        ref_seen.append((id(v), s))
        return tool_calls._wanted(v, s)

    assert tool_calls._somewhere(value, test, speaking) == _reference(value, ref_test, speaking)
    assert seen == ref_seen
    assert tool_calls._holds(value, speaking) == _reference(value, tool_calls._reads, speaking)


def test_past_48_levels_the_walker_decides() -> None:
    deep: Any = {"x": 1}
    for _ in range(60):
        deep = [deep]
    assert tool_calls._wants(deep) is True and _reference(deep, tool_calls._wanted) is True


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _SCALARS | st.lists(_SCALARS, max_size=2), max_size=6))
def test_a_name_is_a_non_empty_string_under_a_name_key(v: dict[str, Any]) -> None:
    assert tool_calls._named(v) == any(isinstance(v.get(k), str) and bool(v[k]) for k in _NAME_KEYS)
    arg_keys = ("input", "parameters", "arguments", "args")
    assert tool_calls._reads(v, False) == _reads_reference(v, arg_keys)


def _reads_reference(v: dict[str, Any], arg_keys: tuple[str, ...]) -> bool:
    if not tool_calls._READ_KEYS.isdisjoint(v) or v.get("say") == "tool" or v.get("ask") == "tool":
        return True
    kind = tool_calls._type(v)
    if kind in tool_calls._READ_TYPES:
        return True
    if kind == "text":
        said = v.get("text")
        if isinstance(said, str) and (said.startswith("[") or "# Current Working Directory (" in said):
            return True
    return any(isinstance(v.get(k), str) and v[k] for k in _NAME_KEYS) and any(k in v for k in arg_keys)
