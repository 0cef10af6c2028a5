"""Strategy 2: the same lines, ignoring trailing whitespace, tabs versus spaces and one uniform
indentation shift (the replacement is re-indented by the same shift)."""

from __future__ import annotations

from .base import FileText, Located, Refused, SearchBlock, ambiguous
from .lines import line_located, uniform_shift


class Whitespace:
    tried = "whitespace"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return bool(search.nb_pos)

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        s = search
        n = len(s.lines)
        stripped = text.stripped
        j0 = s.nb_pos[0]
        key = s.stripped[j0]
        last_start = len(stripped) - n
        hits: list[tuple[int, list[tuple[str, str]]]] = []
        for i in (k - j0 for k, t in enumerate(stripped) if t == key):
            if i < 0 or i > last_start:
                continue
            if stripped[i : i + n] != s.stripped:
                continue
            pairs = list(zip(text.lines[i : i + n], s.lines, strict=True))
            if uniform_shift(pairs) is None:
                continue
            hits.append((i, pairs))
        if not hits:
            return None
        if len(hits) > 1:
            return ambiguous(
                [line_located(text, s, i, i + n - 1, "whitespace", p) for i, p in hits],
                "whitespace",
            )
        i, pairs = hits[0]
        return line_located(text, s, i, i + n - 1, "whitespace", pairs)
