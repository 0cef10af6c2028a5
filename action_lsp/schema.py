"""Declarative action-type specs: which fields a type has, which are required, what values fit.

Dialects declare their types with these; the schema rules (:mod:`action_lsp.rules.schema`)
and the server's completion read them. Adding an action type is one ``ActionSpec`` entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .model import ActionKind

Check = Callable[[Any], str | None]  # returns what is wrong, or None


def one_of(*values: str) -> Check:
    allowed = ", ".join(f"`{v}`" for v in values)

    def check(value: Any) -> str | None:
        if isinstance(value, str) and value in values:
            return None
        return f"must be one of {allowed}; got {_show(value)}"

    check.values = values  # type: ignore[attr-defined]
    return check


def integer(*, minimum: int | None = None, what: str = "an integer") -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, str) and value.strip().lstrip("-").isdigit():
                return f"must be {what}, not a string: write {value.strip()} without quotes"
            return f"must be {what}; got {_show(value)}"
        if minimum is not None and value < minimum:
            return f"must be {what} (at least {minimum}); got {value}"
        return None

    return check


def boolean() -> Check:
    def check(value: Any) -> str | None:
        return None if isinstance(value, bool) else f"must be true or false; got {_show(value)}"

    return check


def text() -> Check:
    def check(value: Any) -> str | None:
        return None if isinstance(value, str) else f"must be a string; got {_show(value)}"

    return check


def text_list() -> Check:
    def check(value: Any) -> str | None:
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return None
        return f"must be a list of strings; got {_show(value)}"

    return check


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"' if len(value) < 40 else f'"{value[:37]}..."'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return str(value)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    name: str
    required: bool = False
    check: Check | None = None
    doc: str = ""
    empty_ok: bool = False  # an empty value means something (an empty <replace> deletes)

    @property
    def values(self) -> tuple[str, ...]:
        """The allowed values of an enumerated field (for completion)."""
        return tuple(getattr(self.check, "values", ()))


@dataclass(frozen=True, slots=True)
class ActionSpec:
    type: str
    kind: ActionKind = ActionKind.OTHER
    fields: tuple[FieldSpec, ...] = ()
    doc: str = ""
    open_fields: bool = False  # unknown fields are fine (no ``unknown-field``)
    fields_by_name: dict[str, FieldSpec] = field(default_factory=dict, compare=False)
    _required: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        self.fields_by_name.update({f.name: f for f in self.fields})
        object.__setattr__(self, "_required", tuple(f.name for f in self.fields if f.required))

    @property
    def required(self) -> tuple[str, ...]:
        return self._required

    def field(self, name: str) -> FieldSpec | None:
        return self.fields_by_name.get(name)


def specs(*items: ActionSpec) -> dict[str, ActionSpec]:
    return {s.type: s for s in items}


def req(name: str, check: Check | None = None, doc: str = "", *, empty_ok: bool = False) -> FieldSpec:
    return FieldSpec(name, True, check, doc, empty_ok)


def opt(name: str, check: Check | None = None, doc: str = "", *, empty_ok: bool = False) -> FieldSpec:
    return FieldSpec(name, False, check, doc, empty_ok)


def nearest(name: str, candidates: Iterable[str]) -> str | None:
    """The closest known name to a misspelt one, or None when nothing is close."""
    from rapidfuzz import fuzz, process, utils

    choices = list(candidates)
    if not choices:
        return None
    lowered = name.lower().replace("-", "_")
    for c in choices:
        if c.lower().replace("-", "_") == lowered:
            return c
    best = process.extractOne(name, choices, scorer=fuzz.ratio, processor=utils.default_process)
    if best is None or best[1] < 60:
        return None
    return str(best[0])
