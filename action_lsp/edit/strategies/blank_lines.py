"""Strategy 3: as :mod:`.whitespace`, also ignoring blank lines added or removed inside or
around the block."""

from __future__ import annotations

from .base import FileText, Located, Refused, SearchBlock, ambiguous
from .lines import line_located, uniform_shift


class BlankLines:
    tried = "blank-line"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return bool(search.nb_pos)

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        s = search
        nb_idx, nb_text = text.nonblank
        m = len(s.nb_text)
        key = s.nb_text[0]
        hits: list[tuple[int, list[tuple[str, str]]]] = []
        for k in (k for k, t in enumerate(nb_text) if t == key):
            if k + m > len(nb_text) or nb_text[k : k + m] != s.nb_text:
                continue
            pairs = [(text.lines[nb_idx[k + q]], s.lines[s.nb_pos[q]]) for q in range(m)]
            if uniform_shift(pairs) is None:
                continue
            hits.append((k, pairs))
        if not hits:
            return None
        found = [
            line_located(
                text, s, nb_idx[k], nb_idx[k + m - 1], "blank-lines", p, strip_blank=True
            )
            for k, p in hits
        ]
        return found[0] if len(found) == 1 else ambiguous(found, "blank-lines")
