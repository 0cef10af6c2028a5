"""``textDocument/documentSymbol``: the outline, one entry per action under its block or message."""

from __future__ import annotations

import itertools
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import Action, ActionKind
from .wire import Later, in_steps

if TYPE_CHECKING:
    from ..document import Group
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


KIND_VALUES = {kind: symbol.value for kind, symbol in KINDS.items()}  # (an enum's .value is a call)
GROUP_KIND = types.SymbolKind.Namespace.value

CHUNK = 256  # symbols whose places are converted by one call


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

        def group_bounds(g: Group) -> tuple[int, int]:
            start, end = g.span.start, g.span.end
            for i in g.actions:
                span = actions[i].span
                if span.start < start:
                    start = span.start
                if span.end > end:
                    end = span.end
            return start, end

        bounds: list[tuple[int, int]] = []  # each group's (see group_bounds), found once
        details: dict[tuple[str, ActionKind], str] = {}  # an action's detail, by dialect and kind

        # The symbols in document order (by where each one's range starts): ``(True, k)`` is
        # group k, ``(False, i)`` action i outside every group.
        order: list[tuple[bool, int]] = []
        # The places of the symbols of one run of ``CHUNK`` of them, converted in one call (a
        # call costs more than a place: one per symbol was most of a long history's outline):
        # ``chunk -> (per symbol: (index of its first place, of its selection's end), places)``.
        converted: dict[int, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {}

        def places_of(n: int) -> tuple[list[tuple[int, int]], int, int]:
            """The places of the ``n``-th symbol's ranges (see ``symbol``): where they begin in
            the list, and where its selection's end is (a group's: its first line's end)."""
            chunk = n // CHUNK
            hit = converted.get(chunk)
            if hit is None:
                converted.clear()  # (written in order: the chunk before is done with)
                run = order[chunk * CHUNK : (chunk + 1) * CHUNK]
                firsts: list[int] = []
                flat: list[int] = []
                for grouped, j in run:
                    firsts.append(len(flat))
                    if grouped:
                        g = analysis.groups[j]
                        flat += bounds[j]
                        flat += itertools.chain.from_iterable(offsets(actions[i]) for i in g.actions)
                    else:
                        flat += offsets(actions[j])
                places = lines.positions(flat, enc)
                ends: list[int] = []
                at: list[tuple[int, int]] = []
                for (grouped, _), first in zip(run, firsts, strict=True):
                    if grouped:
                        at.append((first, len(flat) + len(ends)))
                        ends.append(max(flat[first], lines.line_end(places[first][0])))
                    else:
                        at.append((first, -1))
                hit = converted[chunk] = (at, places + lines.positions(ends, enc))
            at, places = hit
            first, end = at[n % CHUNK]
            return places, first, end

        # Written as the JSON of a ``types.DocumentSymbol`` (its keys, in pygls's order), not as
        # the object: building 100,000 of them (their validators) and unstructuring them with
        # cattrs was most of an outline's time once the document was scanned.
        def action_symbol(i: int, places: list[tuple[int, int]], k: int) -> dict[str, Any]:
            a = actions[i]
            detail = details.get((a.dialect, a.kind))
            if detail is None:
                detail = details[(a.dialect, a.kind)] = f"{a.dialect} · {a.kind.value}"
            return {
                "name": a.title,
                "kind": KIND_VALUES[a.kind],
                "range": rng(places, k),
                "selectionRange": rng(places, k + 2),
                "detail": detail,
            }

        def symbol(n: int) -> dict[str, Any]:
            grouped, j = order[n]
            places, k, end = places_of(n)
            if not grouped:
                return action_symbol(j, places, k)
            g = analysis.groups[j]
            return {
                "name": g.label or "block",
                "kind": GROUP_KIND,
                "range": rng(places, k),
                "selectionRange": rng([places[k], places[end]], 0),
                "detail": f"{len(g.actions)} action" + ("s" if len(g.actions) != 1 else ""),
                "children": [action_symbol(i, places, k + 2 + 4 * m) for m, i in enumerate(g.actions)],
            }

        # Each symbol is made as it is written (wire.Later), between other requests (in_steps):
        # a large transcript's outline is 100,000 of them.
        def items() -> list[Later]:
            out: list[tuple[int, bool, int]] = []
            grouped: set[int] = set()
            for k, g in enumerate(analysis.groups):
                grouped.update(g.actions)
                bounds.append(group_bounds(g))
                out.append((bounds[k][0], True, k))
            out.extend((a.span.start, False, i) for i, a in enumerate(actions) if i not in grouped)
            out.sort(key=lambda item: item[0])
            order.extend((is_group, j) for _, is_group, j in out)
            return [Later(symbol, n) for n in range(len(order))]

        return (yield from in_steps(ls, od, items, values=True))  # (dicts: written by msgspec)
