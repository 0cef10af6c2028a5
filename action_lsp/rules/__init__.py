"""The rule registry: each rule looks at the actions of one construct (a block, a tag, a plan).

A rule is a function ``(actions, ctx) -> diagnostics``. Parse-level codes (``bad-json``,
``unclosed-tag``, ...) come from the dialects; the rules here decide everything else that the
transcript alone can decide. Rules that need the workspace files live in :mod:`action_lsp.edit`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..dialects import DialectSet
from ..model import Action, Diagnostic


@dataclass(frozen=True, slots=True)
class RuleContext:
    dialects: DialectSet
    roots: tuple[str, ...] = ()  # workspace roots, for fixes that make paths relative


Rule = Callable[[Sequence[Action], RuleContext], Iterable[Diagnostic]]


def _load() -> tuple[Rule, ...]:
    from . import code, commands, encoding, paths, plans, schema, truncation

    return (
        schema.check, paths.check, encoding.check, commands.check, code.check, plans.check,
        truncation.check,
    )


RULES: tuple[Rule, ...] = _load()


def run_rules(actions: Sequence[Action], ctx: RuleContext) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    for rule in RULES:
        found.extend(rule(actions, ctx))
    return found
