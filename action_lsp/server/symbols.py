"""``textDocument/documentSymbol``: the outline, one entry per action under its block or message."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import ActionKind, Span
from .convert import span_range
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

        def action_symbol(i: int) -> types.DocumentSymbol:
            a = actions[i]
            return types.DocumentSymbol(
                name=a.title,
                detail=f"{a.dialect} · {a.kind.value}",
                kind=KINDS[a.kind],
                range=span_range(lines, a.span, enc),
                selection_range=span_range(lines, a.name_span, enc),
            )

        def group_symbol(k: int) -> types.DocumentSymbol:
            g = analysis.groups[k]
            start = min([g.span.start, *(actions[i].span.start for i in g.actions)])
            end = max([g.span.end, *(actions[i].span.end for i in g.actions)])
            first_line_end = lines.line_end(lines.line_of(start))
            return types.DocumentSymbol(
                name=g.label or "block",
                detail=f"{len(g.actions)} action" + ("s" if len(g.actions) != 1 else ""),
                kind=types.SymbolKind.Namespace,
                range=span_range(lines, Span(start, end), enc),
                selection_range=span_range(lines, Span(start, max(start, first_line_end)), enc),
                children=[action_symbol(i) for i in g.actions],
            )

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
