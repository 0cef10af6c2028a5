"""``textDocument/hover`` on an action: what applying it would do (never runs anything).

A file action shows its effect (``create 42 lines at src/app.py``, ``replace lines 10–14 of
main.go``), how its search text was found, and the diff it would make; any other action says
that action-lsp never executes it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from ..model import Action, ActionKind
from .commands import blockers_for, describe_change, selection_for
from .convert import offset_of, span_range
from .documents import action_at

if TYPE_CHECKING:
    from ..edit import Plan
    from .server import ActionLanguageServer

MAX_DIFF_LINES = 80
#: What a chat answer's code is to the file it names (``ActionOutcome.shape``).
SHAPES = {
    "whole": "A chat answer holding the whole file: written as it is.",
    "lazy": ("A chat answer's lazy snippet (placeholders stand for the code left out): merged "
             "into the file by syntax."),
    "fragment": ("A chat answer's fragment (some of the file's definitions): merged into the "
                 "file by syntax, the rest kept."),
}
MAX_RESULT_CHARS = 300


def describe(action: Action, index: int, plan: Plan | None) -> str:
    """What the action would do; ``plan`` is the edit engine's plan for it (file actions)."""
    head = f"**{action.type}**" + (f" `{action.path}`" if action.path else "") + f" · {action.dialect}"
    note = _note(action)
    if note:
        head += f"\n\n{note}"
    if action.failure is not None:
        return f"{head}\n\n{_failed(action)}"
    if not action.kind.is_file_action or plan is None:
        return f"{head}\n\n{_not_run(action)}"
    outcome = plan.outcome(index)
    if outcome is None:
        return head
    if not outcome.ok:
        shape = f"\n\n{SHAPES[outcome.shape]}" if outcome.shape else ""
        return f"{head}\n\n**Cannot apply:** {outcome.reason}{shape}"
    if outcome.applied:
        return f"{head}\n\nAlready applied: the file holds this change."
    if outcome.superseded_by is not None:
        by = outcome.superseded_by
        if by < 0:
            return (f"{head}\n\nHistory: its result is no longer in the file and no later "
                    "action rewrote it (the file was changed since); it is not applied again.")
        return (f"{head}\n\nSuperseded by action {by + 1}, which rewrote this text later in the "
                "transcript: history, nothing to apply.")
    change = outcome.change
    if change is None:
        return f"{head}\n\nNothing would change."
    lines = [head, "", f"Would {describe_change(change)}."]
    if outcome.shape:
        lines.append(SHAPES[outcome.shape])
    if outcome.strategies and any(s != "exact" for s in outcome.strategies):
        lines.append(f"Search text found by: {', '.join(outcome.strategies)}.")
    others = [i for i in change.actions if i != index]
    if others:
        earlier = "an earlier action" if len(others) == 1 else f"{len(others)} earlier actions"
        lines.append(f"This includes {earlier} on the same file.")
    from ..edit import unified_diff

    diff = unified_diff(plan)
    diff_lines = diff.splitlines()
    if len(diff_lines) > MAX_DIFF_LINES:
        diff_lines = [*diff_lines[:MAX_DIFF_LINES], f"... {len(diff_lines) - MAX_DIFF_LINES} more lines"]
    if diff_lines:
        lines += ["", "```diff", *diff_lines, "```"]
    return "\n".join(lines)


def _note(action: Action) -> str:
    """What the action's dialect says of how it was recognised (a chat answer's convention)."""
    from ..dialects import by_name

    try:
        return by_name(action.dialect).hover_note(action)
    except KeyError:
        return ""


def _failed(action: Action) -> str:
    """A call the session ran and that failed there: what it was, the tool's answer."""
    result = " ".join((action.failure or "").split())
    if len(result) > MAX_RESULT_CHARS:
        result = result[: MAX_RESULT_CHARS - 3] + "..."
    said = f" (tool result: {result})" if result else ""
    return f"`{action.title}` failed in the session{said}: it is shown, not applied."


def _not_run(action: Action) -> str:
    if action.kind is ActionKind.COMMAND:
        cmd = action.text("command") or ""
        return f"A shell command: `{cmd.strip()[:200]}`. action-lsp never runs it."
    if action.kind is ActionKind.CODE:
        return "Code to execute; action-lsp only checks it and never runs it."
    if action.kind is ActionKind.READ_FILE:
        return "Reads a file; nothing changes."
    why = action.text("unchecked")  # a line edit its own transcript cannot confirm
    if why:
        return f"`{action.title}` is shown, not applied: {why}."
    return f"`{action.title}` changes no files; action-lsp never executes it."


def register(ls: ActionLanguageServer) -> None:
    @ls.handle(types.TEXT_DOCUMENT_HOVER)
    async def hover(params: types.HoverParams) -> types.Hover | None:
        od = ls.document(params.text_document.uri)
        offset = offset_of(od.doc.lines, params.position, ls.encoding)
        index = action_at(od, offset)
        if index is None:
            return None
        actions = od.analysis().actions
        action = actions[index]
        name_range = span_range(od.doc.lines, action.name_span, ls.encoding)
        plan = None
        if action.kind.is_file_action:
            # Locating a drifted search block in a big file can take a while (tree-sitter):
            # plan in a worker thread so diagnostics and typing are never held up by a hover.
            from ..edit import plan_changes

            ws = ls.workspace_for(od, snapshot=True)
            only = selection_for(od, [index])
            plan = await asyncio.to_thread(
                plan_changes, actions, ws, only=only, blockers=blockers_for(ls, od)
            )
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value=describe(action, index, plan)
            ),
            range=name_range,
        )
