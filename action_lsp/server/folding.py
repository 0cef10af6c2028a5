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

        def folding(item: tuple[int, int, str | None, Any]) -> types.FoldingRange:
            first, last, kind, source = item
            text = source.label if kind is not None else source.title  # (a group, an action)
            return types.FoldingRange(start_line=first, end_line=last, kind=kind, collapsed_text=text)

        def items() -> list[Later]:
            # A block or message group (Region), then each action; a span ending at a line
            # start ends on the line before. Lines looked up all at once (100,000 actions).
            region = types.FoldingRangeKind.Region
            sources: list[tuple[Span, str | None, Any]] = [(g.span, region, g) for g in analysis.groups]
            sources.extend((a.span, None, a) for a in analysis.actions)
            firsts = lines.lines_of([span.start for span, _, _ in sources])
            ends = lines.lines_of([span.end for span, _, _ in sources])
            end_starts = lines.line_starts_of(ends)
            seen: set[tuple[int, int]] = set()
            out: list[tuple[int, int, str | None, Any]] = []
            for (span, kind, source), first, last, last_start in zip(sources, firsts, ends, end_starts, strict=True):
                if span.end > span.start and last_start == span.end:
                    last -= 1
                if last > first and (first, last) not in seen:
                    seen.add((first, last))
                    out.append((first, last, kind, source))
            out.sort(key=lambda r: (r[0], -r[1]))
            return [Later(folding, r) for r in out]

        return (yield from in_steps(ls, od, items))
