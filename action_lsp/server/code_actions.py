"""``textDocument/codeAction``: the core's quick fixes, a ``missing-field`` placeholder, and
"Apply" for the file actions under the cursor.

Each quick fix is an edit of the transcript (``isPreferred`` where the core says so), attached
to the diagnostic it fixes. Apply is offered as a ``source`` action that runs the
``action-lsp.apply`` / ``action-lsp.applyAll`` command. A ``search-not-found`` with a close
candidate offers "Apply to the closest match (line N, score S)", a ``search-ambiguous`` one
"Apply at line N" per candidate: both run ``action-lsp.applyCandidate``, which shows the diff
and asks before applying. A finding that refuses its action until forced (a transcript error,
``new-syntax-error``, ``file-readonly``, ``truncated-content``, an overwrite) offers "Apply
anyway (code)": ``action-lsp.applyForced``, the same diff and question, then ``apply --force``
for that action; never for an action whose path leaves the workspace or is invalid. A chat
answer whose merge is not certain (``lazy-ambiguous``) offers "Apply the proposed merge":
``action-lsp.applyMerge``, the proposal's diff and the question, then ``apply --accept-merge``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..codes import SHOWN_ONLY
from ..dialects import file_view
from ..model import Diagnostic, Fix
from ..text import Encoding
from .commands import (
    APPLY,
    APPLY_ALL,
    APPLY_CANDIDATE,
    APPLY_FORCED,
    APPLY_MERGE,
    action_at,
    blockers_for,
    forcible,
    never_forced,
)
from .convert import diagnostic, span_of, span_range
from .documents import OpenDocument

if TYPE_CHECKING:
    from .server import ActionLanguageServer


def placeholder_fix(od: OpenDocument, d: Diagnostic) -> Fix | None:
    """Insert the missing field the way the action's dialect writes it (an attribute, a child
    element or a JSON key): the dialect's ``insert_field_fix`` hook."""
    if d.code != "missing-field" or not d.data or d.data.get("empty"):
        return None
    name = d.data.get("field")
    if not isinstance(name, str):
        return None
    action = next(
        (a for a in od.analysis().actions if a.span.start <= d.span.start and d.span.end <= a.span.end),
        None,
    )
    dialect = od.doc.dialects.get(action.dialect) if action is not None else None
    if action is None or dialect is None:
        return None
    return dialect.insert_field_fix(od.text, action, name)


MAX_CHOICES = 20  # candidate quick fixes offered for one search-ambiguous


def choice_commands(od: OpenDocument, d: Diagnostic) -> list[tuple[str, dict[str, object], str]]:
    """(title, applyCandidate arguments, command) for the candidates a search finding gives."""
    data = d.data or {}
    edit = data.get("edit")
    if d.code not in ("search-not-found", "search-ambiguous") or not isinstance(edit, int):
        return []
    actions = od.analysis().actions
    # The action under the finding now (the transcript may have moved since the check).
    index = next((i for i, a in enumerate(actions)
                  if a.span.start <= d.span.start < max(a.span.end, a.span.start + 1)), None)
    if index is None:
        return []

    def args(line: int) -> dict[str, object]:
        return {"uri": od.uri, "version": od.version, "action": index, "edit": edit, "line": line}

    out: list[tuple[str, dict[str, object], str]] = []
    if d.code == "search-not-found":
        c = data.get("candidate")
        if isinstance(c, dict) and isinstance(c.get("line"), int):
            score = c.get("score")
            how = f", score {score:.0f}" if isinstance(score, (int, float)) else ""
            out.append((f"Apply to the closest match (line {c['line']}{how})", args(c["line"]),
                        APPLY_CANDIDATE))
        return out
    cands = [c for c in data.get("candidates") or [] if isinstance(c, dict)]
    for n, c in enumerate(cands[:MAX_CHOICES], 1):
        if isinstance(c.get("line"), int):
            out.append((f"Apply at line {c['line']} (match {n} of {len(cands)})", args(c["line"]),
                        APPLY_CANDIDATE))
    return out


def merge_command(od: OpenDocument, d: Diagnostic) -> tuple[str, dict[str, object]] | None:
    """(title, applyMerge arguments) for a ``lazy-ambiguous`` finding that has a proposal."""
    if d.code != "lazy-ambiguous" or not (d.data or {}).get("proposal"):
        return None
    index = action_at(od, d.span.start)
    if index is None:
        return None
    return ("Apply the proposed merge", {"uri": od.uri, "version": od.version, "action": index})


def force_command(
    ls: ActionLanguageServer, od: OpenDocument, d: Diagnostic, blockers: list[Diagnostic]
) -> tuple[str, dict[str, object]] | None:
    """(title, applyForced arguments) when ``d`` refuses a file action that forcing would let
    through (and nothing on that action is beyond forcing)."""
    if not forcible(d, blockers):
        return None
    index = action_at(od, d.span.start)
    if index is None or not od.analysis().actions[index].kind.is_file_action:
        return None
    if d.code == SHOWN_ONLY and file_view(od.analysis().actions[index]) is None:
        return None  # shown without a file or an edit: nothing forcing could write
    if never_forced(ls, od, index) is not None:
        return None
    return (f"Apply anyway ({d.code})",
            {"uri": od.uri, "version": od.version, "action": index})


def register(ls: ActionLanguageServer) -> None:
    kinds = [types.CodeActionKind.QuickFix, types.CodeActionKind.Source]

    options = types.CodeActionOptions(code_action_kinds=kinds, resolve_provider=True)

    @ls.handle(types.TEXT_DOCUMENT_CODE_ACTION, options)
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        od = ls.document(params.text_document.uri)
        lines, enc = od.doc.lines, ls.encoding
        span = span_of(lines, params.range, enc)
        only = params.context.only
        # ``only`` holds CodeActionKind members (str() of which is "CodeActionKind.QuickFix")
        # or plain strings for kinds lsprotocol does not know: compare their values.
        kinds_asked = [str(getattr(k, "value", k)) for k in only or []]
        want_fix = not only or any(k.startswith("quickfix") for k in kinds_asked)
        want_source = not only or any(k.startswith("source") for k in kinds_asked)
        analysis = od.analysis()
        out: list[types.CodeAction] = []
        if want_fix:
            given = {
                (d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character): d
                for d in params.context.diagnostics
            }
            blockers: list[Diagnostic] | None = None
            for d in [*analysis.diagnostics, *od.workspace.diagnostics]:
                if d.span.start > span.end or d.span.end < span.start:
                    continue
                fixes = list(d.fixes)
                extra = placeholder_fix(od, d) if not fixes else None
                if extra is not None:
                    fixes.append(extra)
                choices = choice_commands(od, d)
                if blockers is None:
                    blockers = blockers_for(ls, od)
                forced = force_command(ls, od, d, blockers)
                if forced is not None:
                    choices.append((forced[0], forced[1], APPLY_FORCED))
                merge = merge_command(od, d)
                if merge is not None:
                    choices.append((merge[0], merge[1], APPLY_MERGE))
                if not fixes and not choices:
                    continue
                converted = diagnostic(d, lines, enc, ls.settings, od.uri)
                if converted is None:
                    continue
                r = converted.range
                attached = given.get(
                    (d.code, r.start.line, r.start.character, r.end.line, r.end.character), converted
                )
                for title, args, command in choices:
                    out.append(
                        types.CodeAction(
                            title=title,
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[attached],
                            command=types.Command(title=title, command=command, arguments=[args]),
                        )
                    )
                for k, fix in enumerate(fixes):
                    if fix.lazy and resolvable(ls):
                        # Worked out in codeAction/resolve, when the user picks it.
                        out.append(
                            types.CodeAction(
                                title=fix.title,
                                kind=types.CodeActionKind.QuickFix,
                                diagnostics=[attached],
                                is_preferred=fix.preferred or None,
                                data=_fix_key(od, d, k, fix),
                            )
                        )
                        continue
                    if not fix.edits:
                        continue  # a lazy fix that found nothing to offer
                    out.append(
                        types.CodeAction(
                            title=fix.title,
                            kind=types.CodeActionKind.QuickFix,
                            diagnostics=[attached],
                            is_preferred=fix.preferred or None,
                            edit=_workspace_edit(od, fix, enc),
                        )
                    )
        if want_source:
            seen_groups: set[int] = set()
            for i, a in enumerate(analysis.actions):
                if not a.kind.is_file_action or a.span.start > span.end or a.span.end < span.start:
                    continue
                args = {"uri": od.uri, "version": od.version, "action": i}
                out.append(
                    types.CodeAction(
                        title=f"Apply {a.title}",
                        kind=types.CodeActionKind.Source,
                        command=types.Command(title=f"Apply {a.title}", command=APPLY, arguments=[args]),
                    )
                )
                for gi, g in enumerate(analysis.groups):
                    if i in g.actions and gi not in seen_groups:
                        seen_groups.add(gi)
                        group_files = [j for j in g.actions if analysis.actions[j].kind.is_file_action]
                        if len(group_files) > 1:
                            title = f"Apply all {len(group_files)} file actions of {g.label}"
                            out.append(
                                types.CodeAction(
                                    title=title,
                                    kind=types.CodeActionKind.Source,
                                    command=types.Command(
                                        title=title,
                                        command=APPLY_ALL,
                                        arguments=[{"uri": od.uri, "version": od.version, "actions": group_files}],
                                    ),
                                )
                            )
        return out

    @ls.handle(types.CODE_ACTION_RESOLVE)
    def resolve(action: types.CodeAction) -> types.CodeAction:
        """The edits of a lazy quick fix (a JSON repair), computed now that the user picked it.
        When the document changed since it was offered, nothing is resolved: the client asks
        for the code actions of the new text."""
        key = action.data if isinstance(action.data, dict) else None
        if key is None or action.edit is not None:
            return action
        od = ls.documents.get(str(key.get("uri")))
        if od is None:
            return action
        fix = _find_fix(od, key)
        if fix is not None and fix.edits:
            action.edit = _workspace_edit(od, fix, ls.encoding)
        return action

    return None


def resolvable(ls: ActionLanguageServer) -> bool:
    """Does the client resolve code actions' edits (``codeAction/resolve``)?"""
    try:
        caps = ls.client_capabilities
    except AttributeError:
        return False
    from .server import capability

    support = capability(caps, "text_document.code_action.resolve_support")
    return support is not None and "edit" in (support.properties or ())


def _workspace_edit(od: OpenDocument, fix: Fix, enc: Encoding) -> types.WorkspaceEdit:
    lines = od.doc.lines
    edits = [types.TextEdit(range=span_range(lines, e.span, enc), new_text=e.new_text) for e in fix.edits]
    return types.WorkspaceEdit(changes={od.uri: edits})


def _fix_key(od: OpenDocument, d: Diagnostic, index: int, fix: Fix) -> dict[str, Any]:
    return {
        "uri": od.uri,
        "revision": od.revision,
        "code": d.code,
        "start": d.span.start,
        "end": d.span.end,
        "index": index,
        "title": fix.title,
    }


def _find_fix(od: OpenDocument, key: dict[str, Any]) -> Fix | None:
    """The fix ``key`` names, in the document as it is now (None when it is gone)."""
    if key.get("revision") != od.revision:
        return None  # the text changed: the client asks for code actions again
    for d in [*od.analysis().diagnostics, *od.workspace.diagnostics]:
        if d.code == key.get("code") and d.span.start == key.get("start") and d.span.end == key.get("end"):
            fixes = d.fixes
            index = key.get("index")
            if isinstance(index, int) and 0 <= index < len(fixes) and fixes[index].title == key.get("title"):
                return fixes[index]
    return None
