"""``textDocument/documentSymbol``: the outline, one entry per action under its block or message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from ..model import ActionKind, Span
from .convert import span_range

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
    def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        od = ls.document(params.text_document.uri)
        analysis = od.analysis()
        lines, enc = od.doc.lines, ls.encoding

        def action_symbol(i: int) -> types.DocumentSymbol:
            a = analysis.actions[i]
            return types.DocumentSymbol(
                name=a.title,
                detail=f"{a.dialect} · {a.kind.value}",
                kind=KINDS[a.kind],
                range=span_range(lines, a.span, enc),
                selection_range=span_range(lines, a.name_span, enc),
            )

        out: list[types.DocumentSymbol] = []
        grouped: set[int] = set()
        for g in analysis.groups:
            children = [action_symbol(i) for i in g.actions]
            grouped.update(g.actions)
            start = min([g.span.start, *(analysis.actions[i].span.start for i in g.actions)])
            end = max([g.span.end, *(analysis.actions[i].span.end for i in g.actions)])
            span = Span(start, end)
            first_line_end = lines.line_end(lines.line_of(start))
            out.append(
                types.DocumentSymbol(
                    name=g.label or "block",
                    detail=f"{len(g.actions)} action" + ("s" if len(g.actions) != 1 else ""),
                    kind=types.SymbolKind.Namespace,
                    range=span_range(lines, span, enc),
                    selection_range=span_range(lines, Span(start, max(start, first_line_end)), enc),
                    children=children,
                )
            )
        for i in range(len(analysis.actions)):
            if i not in grouped:
                out.append(action_symbol(i))
        out.sort(key=lambda s: (s.range.start.line, s.range.start.character))
        return out
