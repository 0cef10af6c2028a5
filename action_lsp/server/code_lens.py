"""``textDocument/codeLens``: ``Apply`` and ``Preview diff`` above every file action,
``Apply all N`` above each block or message, ``Applied ✓`` once the files hold an action's
result (the edit engine's ``applied`` finding), ``Superseded by action N`` (no command) on
history a later action rewrote (see ``edit/timeline.py``)."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import Span
from .commands import APPLY, APPLY_ALL, PREVIEW
from .convert import span_range
from .documents import DEFER_CHARS
from .wire import Later, in_steps

if TYPE_CHECKING:
    from .server import ActionLanguageServer

APPLIED = "Applied ✓"
SUPERSEDED = "Superseded"


def register(ls: ActionLanguageServer) -> None:
    @ls.handle(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(params: types.CodeLensParams) -> Generator[Any, Any, list[Any]]:
        od = ls.document(params.text_document.uri)
        analysis = od.analysis()
        actions = analysis.actions
        if not any(a.kind.is_file_action for a in actions):
            return []
        diagnostics = ls.features["diagnostics"]
        if len(od.doc.lines) > DEFER_CHARS and not diagnostics.plan_fresh(od):
            # A large transcript's plan (100,000 actions: a minute) is made off the event loop,
            # by the workspace checks; a small one's at once, as the lenses are asked.
            yield ls.in_request, (diagnostics.checked, od), None
            if ls.documents.get(od.uri) is not od:
                return []  # closed meanwhile
            analysis = od.analysis()
            actions = analysis.actions
        summary = diagnostics.plan_now(od)
        found_applied, superseded = summary.applied, summary.superseded
        lines, enc, uri, version = od.doc.lines, ls.encoding, od.uri, od.version

        def lens(item: tuple[int, str, str, int | list[int]]) -> types.CodeLens:
            at, title, command, which = item
            args: dict[str, Any] = {"uri": uri, "version": version}
            args["actions" if isinstance(which, list) else "action"] = which
            return types.CodeLens(
                range=span_range(lines, Span(at, at), enc),
                command=types.Command(title=title, command=command, arguments=[args] if command else None),
            )

        # Each lens is made as it is written (wire.Later), between other requests (in_steps): a
        # large transcript has 100,000.
        def items() -> list[Later]:
            out: list[tuple[int, Later]] = []
            pending: dict[int, bool] = {}
            streaming = ls.features["diagnostics"].streaming(od)
            for i, a in enumerate(actions):
                if not a.kind.is_file_action or (streaming and a.in_progress):
                    continue  # no Apply for an action still being written
                applied = i in found_applied
                by = superseded.get(i)
                pending[i] = not applied and by is None
                at = a.name_span.start
                if applied:
                    out.append((at, Later(lens, (at, APPLIED, "", i))))
                elif by is not None:  # history: never an Apply lens
                    title = SUPERSEDED if by < 0 else f"{SUPERSEDED} by action {by + 1}"
                    out.append((at, Later(lens, (at, title, "", i))))
                else:
                    out.append((at, Later(lens, (at, "Apply", APPLY, i))))
                    out.append((at, Later(lens, (at, "Preview diff", PREVIEW, i))))
            for g in analysis.groups:
                todo = [i for i in g.actions if pending.get(i)]
                if len([i for i in g.actions if i in pending]) < 2 or not todo:
                    continue
                start = min(g.span.start, *(actions[i].span.start for i in g.actions))
                out.append((start, Later(lens, (start, f"Apply all {len(todo)}", APPLY_ALL, todo))))
            out.sort(key=lambda item: item[0])
            return [later for _, later in out]

        return (yield from in_steps(ls, od, items))

    def refresh() -> None:
        if ls.client_has("workspace.code_lens.refresh_support"):
            ls.workspace_code_lens_refresh(None)

    ls.on("workspace_checked", refresh)
