"""``textDocument/documentSymbol``: the outline, one entry per action under its block or message."""

from __future__ import annotations

import itertools
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import Action, ActionKind
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
    # Made of actions and groups only: answered once a large document is scanned, while the
    # rules of its last slices still run (their diagnostics are not in it).
    @ls.handle(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, scanned_only=True)
    def document_symbol(params: types.DocumentSymbolParams) -> Generator[Any, Any, list[Any]]:
        od = ls.document(params.text_document.uri)
        analysis = od.doc.actions_analysis()
        actions = analysis.actions
        lines, enc = od.doc.lines, ls.encoding

        def rng(places: list[tuple[int, int]], k: int) -> dict[str, Any]:
            (line0, char0), (line1, char1) = places[k], places[k + 1]
            return {"start": {"line": line0, "character": char0}, "end": {"line": line1, "character": char1}}

        def offsets(a: Action) -> tuple[int, int, int, int]:
            return a.span.start, a.span.end, a.name_span.start, a.name_span.end

        # Written as the JSON of a ``types.DocumentSymbol`` (its keys, in pygls's order), not as
        # the object: building 100,000 of them (their validators) and unstructuring them with
        # cattrs was most of an outline's time once the document was scanned. The places of a
        # symbol (and its children) are converted in one call.
        def action_symbol(i: int, places: list[tuple[int, int]] | None = None, k: int = 0) -> dict[str, Any]:
            a = actions[i]
            if places is None:
                places = lines.positions(offsets(a), enc)
            return {
                "name": a.title,
                "kind": KINDS[a.kind].value,
                "range": rng(places, k),
                "selectionRange": rng(places, k + 2),
                "detail": f"{a.dialect} · {a.kind.value}",
            }

        def group_symbol(k: int) -> dict[str, Any]:
            g = analysis.groups[k]
            start = min([g.span.start, *(actions[i].span.start for i in g.actions)])
            end = max([g.span.end, *(actions[i].span.end for i in g.actions)])
            places = lines.positions([start, end, *itertools.chain.from_iterable(offsets(actions[i]) for i in g.actions)], enc)
            first_line_end = lines.line_end(places[0][0])
            places += [places[0], *lines.positions((max(start, first_line_end),), enc)]
            return {
                "name": g.label or "block",
                "kind": types.SymbolKind.Namespace.value,
                "range": rng(places, 0),
                "selectionRange": rng(places, len(places) - 2),
                "detail": f"{len(g.actions)} action" + ("s" if len(g.actions) != 1 else ""),
                "children": [action_symbol(i, places, 2 + 4 * n) for n, i in enumerate(g.actions)],
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
