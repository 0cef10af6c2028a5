"""``unknown-action``, ``missing-field``, ``unknown-field``, ``invalid-value``: actions against
their dialect's declared types (:mod:`action_lsp.schema`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import Action, ActionKind, Diagnostic, Fix, Severity, TextEdit
from ..schema import nearest
from . import RuleContext


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        dialect = ctx.dialects.get(action.dialect)
        if dialect is None or not dialect.specs:
            continue
        spec = dialect.spec(action.type)
        if spec is None:
            if dialect.any_type:
                continue
            severity = dialect.unknown_action_severity(action.type)
            yield _unknown_action(action, list(dialect.specs), dialect.name, severity)
            continue
        fields = action.fields
        for name in spec.required:
            if action.kind is ActionKind.COMMAND and name == dialect.command_field(action.type):
                continue  # ``empty-command`` says it better
            f = fields.get(name)
            if f is None and action.partial:
                continue  # the JSON broke before this field: bad-json already says so
            if f is None:
                yield Diagnostic(
                    "missing-field",
                    f"`{action.type}` needs `{name}`" + (f": {spec.field(name).doc}" if spec.field(name) and spec.field(name).doc else ""),  # type: ignore[union-attr]
                    action.name_span,
                    data={"field": name, "type": action.type},
                )
            elif f.value is None or (
                isinstance(f.value, str) and not f.value.strip() and not spec.field(name).empty_ok  # type: ignore[union-attr]
            ):
                yield Diagnostic(
                    "missing-field",
                    f"`{name}` of `{action.type}` is empty",
                    f.span if len(f.span) else (f.key_span or f.span),
                    data={"field": name, "type": action.type, "empty": True},
                )
        for name, f in action.fields.items():
            fspec = spec.field(name)
            if fspec is None:
                if spec.open_fields or name == "type":
                    continue
                guess = nearest(name, [x.name for x in spec.fields if x.name not in action.fields])
                hint = f"; did you mean `{guess}`?" if guess else ""
                yield Diagnostic(
                    "unknown-field",
                    f"`{action.type}` has no field `{name}`{hint}",
                    f.key_span or f.span,
                    fixes=[Fix(f"Rename to `{guess}`", [TextEdit(f.key_span, guess)], True)]
                    if guess and f.key_span
                    else [],
                )
                continue
            if fspec.check is not None and f.value is not None:
                problem = fspec.check(f.value)
                if problem:
                    yield Diagnostic(
                        "invalid-value", f"`{name}` {problem}", f.span, data={"field": name}
                    )


def _unknown_action(
    action: Action, known: list[str], dialect: str, severity: Severity | None
) -> Diagnostic:
    guess = nearest(action.type, known)
    if guess:
        return Diagnostic(
            "unknown-action",
            f"`{action.type}` is not a known {dialect} action; did you mean `{guess}`?",
            action.name_span,
            severity=severity,
            fixes=[Fix(f"Rename to `{guess}`", [TextEdit(action.name_span, guess)], True)],
            data={"suggestion": guess},
        )
    return Diagnostic(
        "unknown-action",
        f"`{action.type}` is not a known {dialect} action; known: {', '.join(sorted(known)[:12])}",
        action.name_span,
        severity=severity,
    )
