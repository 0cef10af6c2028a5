"""The commands behind code lenses and code actions (``workspace/executeCommand``).

``action-lsp.apply`` ``{uri, version, action}``, ``action-lsp.applyAll`` ``{uri, version,
actions}``, ``action-lsp.previewDiff`` ``{uri, version, action}`` and
``action-lsp.applyCandidate`` ``{uri, version, action, edit, line, confirmed?}`` and
``action-lsp.applyForced`` ``{uri, version, action, confirmed?}`` and
``action-lsp.applyMerge`` ``{uri, version, action, confirmed?}`` (docs/server.md).

Apply never writes a place whose content differs from the search text, nor an action the
transcript's own errors block (the edit engine refuses them). ``applyCandidate`` is the user's
explicit choice of one candidate place (the closest match of a ``search-not-found``, one of the
places of a ``search-ambiguous``): it shows the diff, asks (``window/showMessageRequest``) and
applies only on "Apply" (or at once with ``confirmed: true``). ``applyForced`` is the editor's
``apply --force`` for one action that a transcript error, a new syntax error, a read-only file,
truncated content or an overwrite blocks: the same diff and question ("Apply anyway"), then the
action is planned forced. Force never lifts a path outside the workspace
(:data:`NEVER_FORCED`) nor takes a place whose content differs from the search text.
``applyMerge`` is the editor's ``apply --accept-merge`` for one chat answer whose merge into
its file is not certain (``lazy-ambiguous``): the proposed merge as a diff, the question
("Apply"), then the proposal is written -- never one that would drop or double a definition.

Apply sends one ``workspace/applyEdit`` whose ``documentChanges`` hold every file the actions
touch (``CreateFile`` + versioned ``TextDocumentEdit``; ``version`` null for files not open in
the editor; a modify replaces only the matched ranges), so the editor applies the group as one
undoable step or not at all; directories are made only once the editor accepted the edit. What
the editor applied is kept in the ledger (``ledger.py``) until saved, so it is not applied
twice. Clients that cannot apply workspace edits get the files written by the edit engine
directly (all or none). Preview writes the unified diff to a new file in a private temporary
directory (``preview.py``) and asks the editor to show it once (``window/showDocument``); the
diff text is also the command's result, with ``uri`` set only when the editor showed it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from ..model import ActionKind, Diagnostic, Severity
from ..text import LineIndex
from .convert import lsp_range
from .documents import OpenDocument
from .preview import PreviewFiles, safe_name

if TYPE_CHECKING:
    from ..edit import FileChange, Plan
    from .server import ActionLanguageServer

# The edit engine is imported by the functions that use it: the server publishes a transcript's
# own findings before anything needs it (see edit/__init__.py).

APPLY = "action-lsp.apply"
APPLY_ALL = "action-lsp.applyAll"
PREVIEW = "action-lsp.previewDiff"
APPLY_CANDIDATE = "action-lsp.applyCandidate"
APPLY_FORCED = "action-lsp.applyForced"
APPLY_MERGE = "action-lsp.applyMerge"

#: Findings that no "apply anyway" lifts: nothing is ever written outside the workspace.
NEVER_FORCED = frozenset({"path-traversal", "absolute-path", "invalid-path", "protected-path"})
#: Workspace findings that refuse an action only until the user forces it (``apply --force``;
#: ``runs-code``: ``apply --allow-code-paths``, which "Apply anyway" also confirms).
FORCIBLE = frozenset({"new-syntax-error", "file-readonly", "truncated-content", "runs-code"})


def selection_for(od: OpenDocument, indices: Collection[int]) -> set[int]:
    """The actions to plan so that ``indices`` see the files as the transcript left them: each
    selected action plus the earlier file actions on the same paths."""
    actions = od.analysis().actions
    wanted = set(indices)
    paths = {actions[i].path for i in wanted if 0 <= i < len(actions)}
    last = max(wanted, default=-1)
    for j in range(last + 1):
        a = actions[j]
        if a.kind.is_file_action and a.path in paths:
            wanted.add(j)
    return wanted


def blockers_for(ls: ActionLanguageServer, od: OpenDocument) -> list[Diagnostic]:
    """The transcript's own diagnostics that keep their actions from being applied (error
    severity as the settings say, and misspelled tags)."""
    from ..edit.plan import blocking_diagnostics

    return blocking_diagnostics(
        od.analysis().diagnostics, lambda d: ls.settings.severity_of(d.code, d.severity)
    )


def plan_for(
    ls: ActionLanguageServer,
    od: OpenDocument,
    indices: Collection[int],
    choices: Mapping[tuple[int, int], int] | None = None,
    force: Collection[int] = (),
    accept_merge: Collection[int] = (),
) -> Plan:
    """The plan of ``indices``; a ``force``d action (the user's "Apply anyway" after the diff)
    may also write a file that runs code (``runs-code``), never a protected one; an action in
    ``accept_merge`` writes its proposed merge (the user's "Apply the proposed merge")."""
    from ..edit import plan_changes

    return plan_changes(
        od.analysis().actions, ls.workspace_for(od), only=selection_for(od, indices),
        choices=choices, blockers=blockers_for(ls, od), force=force, allow_code_paths=force,
        accept_merge=accept_merge,
    )


def action_at(od: OpenDocument, offset: int) -> int | None:
    """The index of the action whose text holds ``offset``."""
    for i, a in enumerate(od.analysis().actions):
        if a.span.start <= offset < max(a.span.end, a.span.start + 1):
            return i
    return None


def never_forced(ls: ActionLanguageServer, od: OpenDocument, index: int) -> Diagnostic | None:
    """A finding on action ``index`` that forcing must not lift (its path leaves the workspace
    or is invalid), from the transcript's checks or the workspace's."""
    from ..edit import PathProblem

    action = od.analysis().actions[index]
    span = action.span
    for d in [*od.analysis().diagnostics, *od.workspace.diagnostics]:
        if d.code in NEVER_FORCED and span.start <= d.span.start < max(span.end, span.start + 1):
            return d
    # The workspace checks skip an action the transcript blocks: resolve its paths here (a
    # symlinked parent leading out is only seen on disk).
    ws = ls.workspace_for(od)
    for rel in (action.path, action.text("to")):
        found = ws.resolve(rel) if rel else None
        if isinstance(found, PathProblem):
            return Diagnostic(found.code, found.message, action.name_span)
    return None


def forcible(d: Diagnostic, blockers: Sequence[Diagnostic]) -> bool:
    """Whether ``d`` is a refusal that "Apply anyway" may lift: a transcript finding that
    blocks its action (one of ``blockers``, see :func:`blockers_for`), a new syntax error, a
    read-only file, truncated content, an overwrite."""
    if d.code in NEVER_FORCED:
        return False
    if d.code == "new-syntax-error" and d.severity is Severity.WARNING:
        return False  # a grammar trusted as a warning only: the action is applied as it is
    if d.code in FORCIBLE or (d.code == "file-exists" and (d.data or {}).get("overwrite")):
        return True
    return any(b is d for b in blockers)


def _why_refused(plan: Plan) -> list[str]:
    """The codes that keep the plan's actions from being applied (what forcing lifts)."""
    codes: list[str] = []
    for o in plan.outcomes:
        if o.ok or o.skipped:
            continue
        found = [o.blocked_by] if o.blocked_by is not None else [
            d for d in o.diagnostics if d.code in FORCIBLE or d.code == "file-exists"]
        for d in found:
            if d is not None and d.code not in codes:
                codes.append(d.code)
    return codes


def file_uri(path: Path) -> str:
    uri = from_fs_path(str(path))
    if uri is None:
        raise ValueError(f"no URI for {path}")
    return uri


def workspace_edit(ls: ActionLanguageServer, plan: Plan) -> types.WorkspaceEdit:
    enc = ls.encoding
    changes: list[Any] = []
    deleted = {ch.path: ch for ch in plan.changes if ch.kind == "delete"}
    # A rename is a RenameFile (the editor keeps the file's history), not a delete + create.
    moved = {ch.renamed_from: ch for ch in plan.changes
             if ch.kind == "create" and ch.renamed_from in deleted}
    for ch in plan.changes:
        if ch.kind == "mkdir":
            continue  # LSP has no "create directory": made after the editor accepts the edit
        uri = file_uri(ch.path)
        if ch.kind == "delete" and ch.path in moved:
            continue  # emitted as the RenameFile of its target
        if ch.kind == "delete":
            changes.append(types.DeleteFile(uri=uri))
            continue
        if ch.renamed_from is not None and ch.renamed_from in deleted:
            source = deleted[ch.renamed_from]
            changes.append(
                types.RenameFile(
                    old_uri=file_uri(ch.renamed_from),
                    new_uri=uri,
                    options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
                )
            )
            if source.old_text == ch.new_text:
                continue
            whole = LineIndex(source.old_text or "").range(_span(0, len(source.old_text or "")), enc)
            changes.append(
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                    edits=[types.TextEdit(range=lsp_range(whole), new_text=ch.new_text)],
                )
            )
            continue
        open_doc = ls.documents.by_path(ch.path)
        version = open_doc.version if open_doc is not None else None
        if ch.kind == "create":
            # Overwrite only what the plan meant to replace (the setting allowed it). A file that
            # appears between planning and applying makes the client fail the whole edit
            # rather than empty it: neither overwrite nor ignoreIfExists.
            replaces = ch.old_bytes is not None
            changes.append(
                types.CreateFile(
                    uri=uri,
                    options=types.CreateFileOptions(overwrite=replaces, ignore_if_exists=False),
                )
            )
            # The range ends one line past the empty new file. Clients clamp it (VS Code), and
            # Neovim, seeing an edit that reaches past the last line, drops the empty line its
            # buffer would otherwise keep after text ending in a newline: the file on disk then
            # ends with exactly one newline, as the action wrote it, not two.
            edits = [
                types.TextEdit(
                    range=types.Range(
                        start=types.Position(line=0, character=0),
                        end=types.Position(line=1, character=0),
                    ),
                    new_text=ch.new_text,
                )
            ]
        else:
            old = LineIndex(ch.old_text or "")
            edits = [
                types.TextEdit(range=lsp_range(old.range(_span(s, e), enc)), new_text=t)
                for s, e, t in ch.edits
            ]
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits,
            )
        )
    return types.WorkspaceEdit(document_changes=changes)


def _span(s: int, e: int) -> Any:
    from ..model import Span

    return Span(s, e)


def describe_change(ch: FileChange) -> str:
    """One line: what the change does to its file."""
    if ch.kind == "create" and ch.renamed_from is not None:
        return f"move `{ch.renamed_from.name}` to `{ch.rel}`"
    if ch.kind == "create":
        n = ch.new_text.count("\n") + (0 if ch.new_text.endswith("\n") or not ch.new_text else 1)
        return f"create `{ch.rel}` ({n} line{'s' if n != 1 else ''})"
    if ch.kind == "mkdir":
        return f"create the directory `{ch.rel}`"
    if ch.kind == "delete":
        return f"delete `{ch.rel}`"
    old = LineIndex(ch.old_text or "")
    parts: list[str] = []
    for s, e, _t in ch.edits:
        first = old.line_of(s) + 1
        last = old.line_of(max(s, e - 1)) + 1 if e > s else first
        part = f"line {first}" if first == last else f"lines {first}–{last}"
        if not parts or parts[-1] != part:  # two occurrences on one line (replace_all): once
            parts.append(part)
    merged = f" (a {ch.merged} merged by syntax)" if ch.merged else ""
    return f"replace {', '.join(parts)} of `{ch.rel}`{merged}"


def _args(args: Sequence[Any]) -> Mapping[str, Any]:
    if len(args) == 1 and isinstance(args[0], Mapping):
        return args[0]
    raise JsonRpcInvalidParams(message="expected one argument object {uri, version, ...}")


class Commands:
    def __init__(self, ls: ActionLanguageServer) -> None:
        self.ls = ls
        self.previews = PreviewFiles()

    def _document(self, a: Mapping[str, Any]) -> OpenDocument:
        uri = a.get("uri")
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(message="`uri` is required")
        od = self.ls.document(uri)
        version = a.get("version")
        if version is not None and od.version is not None and version != od.version:
            raise JsonRpcInvalidParams(
                message=f"the transcript changed (version {od.version}, not {version}); try again"
            )
        return od

    def _indices(self, od: OpenDocument, raw: Any) -> list[int]:
        n = len(od.analysis().actions)
        items = raw if isinstance(raw, list) else [raw]
        if not items or not all(isinstance(i, int) and 0 <= i < n for i in items):
            raise JsonRpcInvalidParams(message=f"action indices must be in 0..{n - 1}")
        return sorted(set(items))

    async def apply(self, *args: Any) -> dict[str, Any]:
        a = _args(args)
        od = self._document(a)
        return await self._apply(od, self._indices(od, a.get("action")))

    async def apply_all(self, *args: Any) -> dict[str, Any]:
        a = _args(args)
        od = self._document(a)
        return await self._apply(od, self._indices(od, a.get("actions")))

    async def apply_candidate(self, *args: Any) -> dict[str, Any]:
        """Apply one action with one search block at the candidate place the user chose."""
        a = _args(args)
        od = self._document(a)
        (index,) = self._indices(od, a.get("action"))
        edit, line = a.get("edit", 0), a.get("line")
        if not (isinstance(edit, int) and edit >= 0 and isinstance(line, int) and line >= 1):
            raise JsonRpcInvalidParams(message="`edit` (0-based) and `line` (1-based) are required")
        return await self._apply(
            od, [index], choices={(index, edit): line}, confirm=a.get("confirmed") is not True
        )

    async def apply_forced(self, *args: Any) -> dict[str, Any]:
        """``apply --force`` for one action, after the diff and the user's "Apply anyway"."""
        a = _args(args)
        od = self._document(a)
        (index,) = self._indices(od, a.get("action"))
        never = never_forced(self.ls, od, index)
        if never is not None:
            msg = (f"not applied, even forced: {never.message} [{never.code}] (action-lsp never "
                   "writes outside the workspace, nor inside .git, .hg, .svn, .jj or its "
                   "journal)")
            self._tell(types.MessageType.Error, msg)
            return {"applied": False, "message": msg, "told": True}
        why = _why_refused(plan_for(self.ls, od, [index]))
        question = (f"action-lsp: {od.analysis().actions[index].title} is refused"
                    + (f" ({', '.join(why)})" if why else "")
                    + ". Apply the diff shown anyway ({summary})?")
        return await self._apply(
            od, [index], force={index}, confirm=a.get("confirmed") is not True,
            question=question, yes="Apply anyway",
        )

    async def apply_merge(self, *args: Any) -> dict[str, Any]:
        """``apply --accept-merge`` for one chat answer, after the proposed merge's diff and
        the user's "Apply"."""
        a = _args(args)
        od = self._document(a)
        (index,) = self._indices(od, a.get("action"))
        question = (f"action-lsp: {od.analysis().actions[index].title} cannot be merged into "
                    "its file with certainty. Apply the proposed merge shown ({summary})?")
        return await self._apply(
            od, [index], accept_merge={index}, confirm=a.get("confirmed") is not True,
            question=question,
        )

    async def _apply(
        self,
        od: OpenDocument,
        indices: list[int],
        *,
        choices: Mapping[tuple[int, int], int] | None = None,
        confirm: bool = False,
        force: Collection[int] = (),
        accept_merge: Collection[int] = (),
        question: str = ("action-lsp: the search text differs from this place. Apply the diff "
                         "shown ({summary})?"),
        yes: str = "Apply",
    ) -> dict[str, Any]:
        from ..edit import WriteError, unified_diff, write_plan

        ls = self.ls
        actions = od.analysis().actions
        file_indices = [i for i in indices if actions[i].kind.is_file_action]
        if not file_indices:
            return {"applied": False, "message": "no file actions: nothing to apply (nothing is ever executed)"}
        plan = plan_for(ls, od, file_indices, choices, force, accept_merge)
        failed = [o for o in plan.outcomes if not o.ok and not o.skipped]
        if failed:
            reasons = "; ".join(f"{actions[o.action_index].title}: {o.reason}" for o in failed)
            if force and any(d.code in NEVER_FORCED for o in failed for d in o.diagnostics):
                reasons += (" (action-lsp never writes outside the workspace, nor inside .git, "
                            ".hg, .svn, .jj or its journal, even forced)")
            self._tell(types.MessageType.Error, f"Nothing applied: {reasons}")
            return {"applied": False, "message": reasons, "told": True}
        if confirm and plan.changes:
            diff = unified_diff(plan)
            await self._show_diff(od, file_indices[0], diff)
            summary = "; ".join(describe_change(ch) for ch in plan.changes)
            answer = await ls.window_show_message_request_async(
                types.ShowMessageRequestParams(
                    type=types.MessageType.Warning,
                    message=question.replace("{summary}", summary),
                    actions=[types.MessageActionItem(title=yes),
                             types.MessageActionItem(title="Cancel")],
                )
            )
            if answer is None or answer.title != yes:
                return {"applied": False, "message": "cancelled", "diff": diff}
        if not plan.changes:
            msg = "Already applied: the files hold these changes"
            self._tell(types.MessageType.Info, msg)
            return {"applied": True, "message": msg, "told": True}
        can_edit = ls.client_has("workspace.apply_edit") and (
            ls.client_has("workspace.workspace_edit.document_changes")
            or ls.client_has("workspace.workspace_edit.resource_operations")
        )
        summary = "; ".join(describe_change(ch) for ch in plan.changes)
        if can_edit:
            edit = workspace_edit(ls, plan)
            result = await ls.workspace_apply_edit_async(
                types.ApplyWorkspaceEditParams(edit=edit, label=f"action-lsp: {summary}")
            )
            if not result.applied:
                reason = result.failure_reason or "the editor refused the edit"
                self._tell(types.MessageType.Error, f"Nothing applied: {reason}")
                return {"applied": False, "message": reason, "told": True}
            self._record(plan)
        else:
            try:
                ws = ls.workspace_for(od)
                # In a worker: the journal lock may be held by another process (an apply
                # --write suspended in a terminal), and the event loop must go on answering.
                warnings = await asyncio.to_thread(
                    write_plan, plan, root=ws.root, extra_roots=ws.roots[1:]
                )
            except WriteError as exc:
                said = "Nothing applied" if exc.settled else "Apply failed half-way"
                self._tell(types.MessageType.Error, f"{said}: {exc}")
                return {"applied": False, "message": str(exc), "told": True}
            for warning in warnings:
                self._tell(types.MessageType.Warning, warning)
        for ch in plan.changes:
            ls.emit("files_changed", [ch.path])
        ls.emit("files_changed", [])
        return {"applied": True, "message": summary}

    def _record(self, plan: Plan) -> None:
        """After the editor accepted the edit: remember what its buffers now hold (they are
        saved later, if at all), and create the directories no file of the edit lies in (LSP has
        no "create directory"; a ``CreateFile`` creates the folders of its file)."""
        ledger = self.ls.ledger
        for ch in plan.changes:
            if ch.kind == "mkdir":
                try:
                    ch.path.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    self._tell(types.MessageType.Error, f"cannot create the directory {ch.rel}: {exc.strerror}")
            elif ch.kind == "delete":
                ledger.forget(ch.path)
            else:
                ledger.record(ch.path, ch.new_text)

    async def preview(self, *args: Any) -> dict[str, Any]:
        from ..edit import unified_diff

        ls = self.ls
        a = _args(args)
        od = self._document(a)
        indices = self._indices(od, a.get("action"))
        plan = plan_for(ls, od, indices)
        failed = [o for o in plan.outcomes if not o.ok and not o.skipped]
        diff = unified_diff(plan) if plan.changes else ""
        if failed:
            note = "; ".join(o.reason for o in failed)
            diff = "".join(f"# cannot apply: {line}\n" for line in note.splitlines()) + diff
        elif not diff:
            kind = od.analysis().actions[indices[0]].kind
            diff = (
                "# nothing to change: already applied\n"
                if kind.is_file_action
                else f"# not a file action ({kind.value}); nothing is ever executed\n"
            )
        uri = await self._show_diff(od, indices[0], diff)
        return {"diff": diff, "uri": uri}

    async def _show_diff(self, od: OpenDocument, index: int, diff: str) -> str | None:
        """Show ``diff`` once, from a new private file, when the editor can show documents; its
        URI when the editor showed it, else None (the client then shows the diff its own way)."""
        ls = self.ls
        if not ls.client_has("window.show_document.support"):
            return None
        title = Path(od.analysis().actions[index].path or "action").name
        target = self.previews.write(f"{safe_name(title)}.{index}.diff", diff)
        uri = file_uri(target)
        shown = await ls.window_show_document_async(types.ShowDocumentParams(uri=uri, take_focus=True))
        return uri if shown is not None and shown.success else None

    def _tell(self, kind: types.MessageType, message: str) -> None:
        self.ls.window_show_message(types.ShowMessageParams(type=kind, message=f"action-lsp: {message}"))


def register(ls: ActionLanguageServer) -> Commands:
    from .guard import guard

    cmds = Commands(ls)
    ls.command(APPLY)(guard(ls, APPLY, cmds.apply))
    ls.command(APPLY_ALL)(guard(ls, APPLY_ALL, cmds.apply_all))
    ls.command(PREVIEW)(guard(ls, PREVIEW, cmds.preview))
    ls.command(APPLY_CANDIDATE)(guard(ls, APPLY_CANDIDATE, cmds.apply_candidate))
    ls.command(APPLY_FORCED)(guard(ls, APPLY_FORCED, cmds.apply_forced))
    ls.command(APPLY_MERGE)(guard(ls, APPLY_MERGE, cmds.apply_merge))
    return cmds


__all__ = ["APPLY", "APPLY_ALL", "APPLY_CANDIDATE", "APPLY_FORCED", "APPLY_MERGE", "NEVER_FORCED", "PREVIEW", "ActionKind", "Commands", "blockers_for", "describe_change", "plan_for"]
