"""The edit engine: locate search blocks, plan file changes, diff them, write them atomically.

Public API::

    locate(file_text, search, *, path=None) -> Located | Refused
    Workspace(root, extra_roots=(), allow_overwrite=False, read_override=None)
    plan_changes(actions, ws, *, only=None) -> Plan     # Plan.changes, Plan.outcomes, Plan.ok
    unified_diff(plan) -> str
    write_plan(plan, *, root=None, label="") -> list[str]  # all or none, journaled; warnings
    recover(root) -> Recovery | None                    # finish or undo an interrupted write
    workspace_diagnostics(actions, ws) -> list[Diagnostic]

No LSP import here: the server and the CLI are fronts over these functions.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .checks import workspace_diagnostics
    from .diff import unified_diff
    from .journal import Recovery, recover
    from .plan import ActionOutcome, FileChange, Plan, plan_changes
    from .workspace import FileText, PathProblem, Target, Workspace
    from .write import WriteError, write_plan

# ``locate`` (the function) is bound at once: its module has its name, and a module imported
# later would be bound to the package's attribute instead.
from .locate import Located, Refused, ReplacementTransform, locate

# The other names are imported from their modules when first asked for: the scan uses a helper
# of the engine (``edit.placeholders``), and the language server must publish a transcript's own
# findings before it needs the rest of the engine (about 0.1 s of imports).
_MODULES = {
    "workspace_diagnostics": "checks",
    "unified_diff": "diff",
    "Recovery": "journal",
    "recover": "journal",
    "ActionOutcome": "plan",
    "FileChange": "plan",
    "Plan": "plan",
    "plan_changes": "plan",
    "FileText": "workspace",
    "PathProblem": "workspace",
    "Target": "workspace",
    "Workspace": "workspace",
    "WriteError": "write",
    "write_plan": "write",
}


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "ActionOutcome",
    "FileChange",
    "FileText",
    "Located",
    "PathProblem",
    "Plan",
    "Recovery",
    "Refused",
    "ReplacementTransform",
    "Target",
    "Workspace",
    "WriteError",
    "locate",
    "plan_changes",
    "recover",
    "unified_diff",
    "workspace_diagnostics",
    "write_plan",
]
