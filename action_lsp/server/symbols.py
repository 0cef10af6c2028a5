"""``textDocument/documentSymbol``: the outline, one entry per action under its block or message."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import ActionKind, Span
from .wire import Later, in_steps

if TYPE_CHECKING:
    from .server import ActionLanguageServer

KINDS = {
    ActionKind.CREATE_FILE: types.SymbolKind.File,
    ActionKind.WRITE_FILE: types.SymbolKind.File,
    ActionKind.MODIFY_FILE: types.SymbolKind.File,
    ActionKind.DELETE_FILE: types.SymbolKind.File,
    ActionKind.RENAME_FILE: types.SymbolKind.File,
    ActionKind.READ_FILE: types.SymbolKind.File,
    ActionKind.CREATE_DIRECTORY: types.SymbolKind.Package,
    ActionKind.COMMAND: types.SymbolKind.Function,
    ActionKind.CODE: types.SymbolKind.Function,
    ActionKind.OTHER: types.SymbolKind.Event,
}


def register(ls: ActionLanguageServer) -> None:
    @ls.handle(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(params: types.DocumentSymbolParams) -> Generator[Any, Any, list[Any]]:
        od = ls.document(params.text_document.uri)
        analysis = od.analysis()
        actions = analysis.actions
        lines, enc = od.doc.lines, ls.encoding

        def rng(span: Span) -> dict[str, Any]:
            r = lines.range(span, enc)
            return {
                "start": {"line": r.start.line, "character": r.start.character},
                "end": {"line": r.end.line, "character": r.end.character},
            }

        # Written as the JSON of a ``types.DocumentSymbol`` (its keys, in pygls's order), not as
        # the object: building 100,000 of them (their validators) and unstructuring them with
        # cattrs was most of an outline's time once the document was scanned.
        def action_symbol(i: int) -> dict[str, Any]:
            a = actions[i]
            return {
                "name": a.title,
                "kind": KINDS[a.kind].value,
                "range": rng(a.span),
                "selectionRange": rng(a.name_span),
                "detail": f"{a.dialect} · {a.kind.value}",
            }

        def group_symbol(k: int) -> dict[str, Any]:
            g = analysis.groups[k]
            start = min([g.span.start, *(actions[i].span.start for i in g.actions)])
            end = max([g.span.end, *(actions[i].span.end for i in g.actions)])
            first_line_end = lines.line_end(lines.line_of(start))
            return {
                "name": g.label or "block",
                "kind": types.SymbolKind.Namespace.value,
                "range": rng(Span(start, end)),
                "selectionRange": rng(Span(start, max(start, first_line_end))),
                "detail": f"{len(g.actions)} action" + ("s" if len(g.actions) != 1 else ""),
                "children": [action_symbol(i) for i in g.actions],
            }

        # Each symbol is made as it is written (wire.Later), between other requests (in_steps):
        # a large transcript's outline is 100,000 of them. In document order, by where each
        # one's range starts.
        def items() -> list[Later]:
            out: list[tuple[int, Later]] = []
            grouped: set[int] = set()
            for k, g in enumerate(analysis.groups):
                grouped.update(g.actions)
                start = min([g.span.start, *(actions[i].span.start for i in g.actions)])
                out.append((start, Later(group_symbol, k)))
            out.extend((a.span.start, Later(action_symbol, i)) for i, a in enumerate(actions) if i not in grouped)
            out.sort(key=lambda item: item[0])
            return [later for _, later in out]

        return (yield from in_steps(ls, od, items))
