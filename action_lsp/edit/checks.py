"""Workspace checks of a transcript: what applying its file actions would run into.

Used by ``action-lsp check --root`` and by the language server; the findings are exactly the
diagnostics of :func:`~action_lsp.edit.plan.plan_changes` (targets exist, search text found
once and how, overwrites, paths leaving the workspace, new syntax errors, already applied).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Action, Diagnostic
from .plan import plan_changes
from .workspace import Workspace


def workspace_diagnostics(
    actions: Sequence[Action],
    ws: Workspace,
    *,
    blockers: Sequence[Diagnostic] = (),
    force: bool = False,
) -> list[Diagnostic]:
    """The plan's findings. With the transcript's ``blockers`` (see
    :func:`~action_lsp.edit.plan.blocking_diagnostics`) the actions they block are left out of
    the plan, as ``apply`` leaves them out; the blockers themselves are not repeated.
    ``force`` checks as ``apply --force`` applies."""
    return plan_changes(actions, ws, blockers=blockers, force=force, check_only=True).diagnostics
