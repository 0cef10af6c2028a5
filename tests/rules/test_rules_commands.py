"""``empty-command``: a command action with nothing to run."""

from __future__ import annotations

import pytest

from action_lsp.dialects import DialectSet
from action_lsp.model import Action, ActionKind, Field, Span
from action_lsp.rules import RuleContext, commands, run_rules


def command_action(
    value: str | None, at: int = 40, kind: ActionKind = ActionKind.COMMAND
) -> Action:
    fields = (
        {}
        if value is None
        else {"command": Field("command", value, Span(at, at + len(value)), Span(20, 27))}
    )
    return Action("x", "execute_command", kind, Span(0, 100), Span(1, 16), fields)


@pytest.mark.parametrize("value", ["", "   ", "\n\t"])
def test_blank_command(value: str) -> None:
    (d,) = commands.check([command_action(value)], RuleContext(DialectSet()))
    assert d.code == "empty-command"
    # a blank command is reported on its (whitespace) value; an empty one at the action's name
    assert d.span == (Span(40, 40 + len(value)) if value else Span(1, 16))
    assert "execute_command" in d.message


def test_missing_command_field_is_reported_at_the_name() -> None:
    (d,) = commands.check([command_action(None)], RuleContext(DialectSet()))
    assert d.code == "empty-command"
    assert d.span == Span(1, 16)


def test_non_string_command() -> None:
    action = command_action("x")
    action.fields["command"] = Field("command", ["ls"], Span(40, 46))
    (d,) = commands.check([action], RuleContext(DialectSet()))
    assert d.code == "empty-command"


@pytest.mark.parametrize("value", ["ls -la", "npm install && npm test"])
def test_real_commands_pass(value: str) -> None:
    assert list(commands.check([command_action(value)], RuleContext(DialectSet()))) == []


def test_only_command_actions_are_checked() -> None:
    assert (
        list(commands.check([command_action("", kind=ActionKind.CODE)], RuleContext(DialectSet())))
        == []
    )


def test_the_rule_is_registered() -> None:
    codes = [d.code for d in run_rules([command_action(" ")], RuleContext(DialectSet()))]
    assert codes == ["empty-command"]
