"""``textDocument/foldingRange``: fold action bodies and whole blocks or messages."""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..model import Span
from .wire import Later, in_steps

if TYPE_CHECKING:
    from .server import ActionLanguageServer


def register(ls: ActionLanguageServer) -> None:
    @ls.handle(types.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding_range(params: types.FoldingRangeParams) -> Generator[Any, Any, list[Any]]:
        od = ls.document(params.text_document.uri)
        analysis = od.analysis()
        lines = od.doc.lines
        seen: set[tuple[int, int]] = set()
        out: list[tuple[int, int, str | None, str]] = []

        def add(span: Span, kind: str | None, text: str) -> None:
            first = lines.line_of(span.start)
            end = span.end
            if end > span.start and lines.line_start(lines.line_of(end)) == end:
                end -= 1  # a span ending at a line start ends on the line before
            last = lines.line_of(end)
            if last > first and (first, last) not in seen:
                seen.add((first, last))
                out.append((first, last, kind, text))

        def folding(item: tuple[int, int, str | None, str]) -> types.FoldingRange:
            first, last, kind, text = item
            return types.FoldingRange(start_line=first, end_line=last, kind=kind, collapsed_text=text)

        def items() -> list[Later]:
            for g in analysis.groups:
                add(g.span, types.FoldingRangeKind.Region, g.label)
            for a in analysis.actions:
                add(a.span, None, a.title)
            out.sort(key=lambda r: (r[0], -r[1]))
            return [Later(folding, r) for r in out]

        return (yield from in_steps(ls, od, items))
