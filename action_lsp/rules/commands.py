"""``empty-command``: a command action with nothing to run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import Action, ActionKind, Diagnostic
from . import RuleContext


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if action.kind is not ActionKind.COMMAND:
            continue
        dialect = ctx.dialects.get(action.dialect)
        f = action.fields.get(dialect.command_field(action.type) if dialect else "command")
        if f is None or not isinstance(f.value, str) or not f.value.strip():
            yield Diagnostic(
                "empty-command",
                f"`{action.type}` has no command to run; write the command or remove the action",
                f.span if f is not None and len(f.span) else action.name_span,
            )
