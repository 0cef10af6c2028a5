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

from .checks import workspace_diagnostics
from .diff import unified_diff
from .journal import Recovery, recover
from .locate import Located, Refused, ReplacementTransform, locate
from .plan import ActionOutcome, FileChange, Plan, plan_changes
from .workspace import FileText, PathProblem, Target, Workspace
from .write import WriteError, write_plan

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
