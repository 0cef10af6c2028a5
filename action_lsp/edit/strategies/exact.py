"""Strategy 1: the search text verbatim (``str.find``); a file whose only difference is CRLF
line endings still counts as exact, since transcripts cannot carry ``\\r`` faithfully."""

from __future__ import annotations

from .base import FileText, Located, Refused, ReplacementTransform, SearchBlock, ambiguous


class Exact:
    tried = "exact"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return True

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        """Verbatim, then with line endings normalised on both sides."""
        file_text = text.raw
        newline_only = False
        pos = file_text.find(search.raw)
        haystack, needle = file_text, search.raw
        if pos < 0:
            if "\r\n" not in file_text and "\r\n" not in search.raw:
                return None
            newline_only = True
            haystack = text.norm
            needle = search.norm
            pos = haystack.find(needle)
            if pos < 0:
                return None
        mapped = text if newline_only else None
        if haystack.find(needle, pos + 1) >= 0:
            places = []
            line, counted = 1, 0
            for h in _find_all(haystack, needle):
                line += haystack.count("\n", counted, h)  # counted on from the previous hit
                counted = h
                places.append(exact_at(file_text, len(needle), h, line, mapped))
            return ambiguous(places, "exact")
        return exact_at(file_text, len(needle), pos, haystack.count("\n", 0, pos) + 1, mapped)


def exact_places(file_text: str, search: str) -> list[Located]:
    """Every exact, non-overlapping occurrence of ``search`` in order (as ``str.replace``
    counts them; a file whose only difference is CRLF line endings still counts): the places
    of a ``replace_all`` edit. Empty for an empty search."""
    if not search:
        return []
    haystack, needle, text = file_text, search, None
    if file_text.find(search) < 0 and ("\r\n" in file_text or "\r\n" in search):
        haystack = file_text.replace("\r\n", "\n")
        needle = search.replace("\r\n", "\n")
        text = FileText(file_text)
    out: list[Located] = []
    line, counted = 1, 0
    pos = haystack.find(needle)
    while pos >= 0:
        line += haystack.count("\n", counted, pos)
        counted = pos
        out.append(exact_at(file_text, len(needle), pos, line, text))
        pos = haystack.find(needle, pos + len(needle))
    return out


def exact_at(file_text: str, size: int, pos: int, line: int, text: FileText | None) -> Located:
    """The exact place of ``size`` characters at ``pos`` (an offset of ``text.norm`` when
    ``text`` is given: the match ignored CRLF line endings)."""
    if text is None:
        newline = _newline_near(file_text, pos, pos + size)
        return Located(pos, pos + size, "exact", ReplacementTransform(newline=newline), line)
    start, end = text.to_raw(pos), text.to_raw(pos + size)
    return Located(start, end, "exact", ReplacementTransform(newline=text.newline_at(pos)), line)


def _find_all(haystack: str, needle: str, limit: int = 1000) -> list[int]:
    hits: list[int] = []
    pos = haystack.find(needle)
    while pos >= 0 and len(hits) < limit:
        hits.append(pos)
        pos = haystack.find(needle, pos + 1)
    return hits


def _newline_near(text: str, start: int, end: int) -> str:
    nl = text.find("\n", start)
    if nl < 0:
        nl = text.rfind("\n", 0, start)
    if nl < 0:
        return "\n"
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"
