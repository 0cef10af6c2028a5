"""Find where a search block stands in a file.

Strategies (:mod:`action_lsp.edit.strategies`, one module each behind one ``Strategy``
protocol), tried in the order of :data:`~action_lsp.edit.strategies.STRATEGIES`; the first that
finds one place wins, and every strategy refuses (``search-ambiguous``) when it finds more than
one:

1. ``exact`` — the search text verbatim (``str.find``; a file whose only difference is CRLF
   line endings still counts as exact, since transcripts cannot carry ``\\r`` faithfully);
2. ``whitespace`` — the same lines, ignoring trailing whitespace, tabs versus spaces and one
   uniform indentation shift (the replacement is re-indented by the same shift);
3. ``blank-lines`` — as 2, also ignoring blank lines added or removed inside or around the block;
4. ``syntax`` — both texts tokenised with tree-sitter for the file's language, comments and
   layout ignored, the block matched as a token sequence; ``definition`` — a block that is one
   whole definition matches the only definition of the same kind and name, if close enough;
5. ``fuzzy`` — a bounded rapidfuzz match over windows of about the block's line count, accepted
   only above :data:`FUZZY_THRESHOLD` and :data:`FUZZY_MARGIN` points ahead of the runner-up.

An empty search text is located at the end of the file (the ``append`` place); whether an
agent means that, or creating or writing the file, or nothing, is the plan's question
(:class:`~action_lsp.model.EditRules`). A search text of only whitespace is an ordinary one,
found exactly or not at all.

Everything here works on ``str`` offsets (code points) of the text as given.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .strategies import STRATEGIES
from .strategies.base import (
    LAYOUT_STRATEGIES,
    MAX_LISTED,
    FileText,
    Located,
    Refused,
    ReplacementTransform,
    SearchBlock,
    ambiguous,
    indent_width,
    listed,
)
from .strategies.exact import exact_places
from .strategies.fuzzy import FUZZY_MARGIN, FUZZY_MIN_LINES, FUZZY_THRESHOLD

__all__ = [
    "FUZZY_MARGIN",
    "FUZZY_MIN_LINES",
    "FUZZY_THRESHOLD",
    "LAYOUT_STRATEGIES",
    "MAX_LISTED",
    "Located",
    "Refused",
    "ReplacementTransform",
    "exact_places",
    "find_anchor",
    "has_line_numbers",
    "indent_width",
    "locate",
    "locate_by_layout",
    "strip_line_numbers",
]

# Roo Code's read_file output: ``  12 | code`` (right-aligned number, `` | ``).
_LINE_NUMBER_RE = re.compile(r"[ \t]*(\d+)[ \t]*\|(?!\|)[ ]?")


def strip_line_numbers(search: str, *, counting: bool = True) -> tuple[str, int] | None:
    """``(text, first line number)`` when *every* line of ``search`` starts with a ``N | ``
    prefix (Roo Code's read_file output, which models copy into search blocks) and, when
    ``counting``, the numbers count up by one; None otherwise (a Markdown table, code that
    holds ``|``)."""
    body = search.replace("\r\n", "\n")
    ends_nl = body.endswith("\n")
    lines = (body[:-1] if ends_nl else body).split("\n")
    if not lines or not body.strip():
        return None
    out: list[str] = []
    first = expected = -1
    for line in lines:
        m = _LINE_NUMBER_RE.match(line)
        if m is None:
            return None
        n = int(m.group(1))
        if counting and expected >= 0 and n != expected:
            return None
        if first < 0:
            first = n
        expected = n + 1
        out.append(line[m.end() :])
    return "\n".join(out) + ("\n" if ends_nl else ""), first


def has_line_numbers(text: str) -> bool:
    """Whether any line of ``text`` starts with a ``N | `` prefix."""
    return any(_LINE_NUMBER_RE.match(line) for line in text.split("\n"))


def locate(
    file_text: str,
    search: str,
    *,
    path: str | None = None,
    line_hint: int | None = None,
    start: int = 0,
) -> Located | Refused:
    """Locate ``search`` in ``file_text`` (see the module docstring for the strategies).

    ``line_hint`` (the 1-based line the search text is believed to start at, from line-number
    prefixes) picks one of several places that all match with only layout differences.
    ``start`` (a line start) restricts the search to ``file_text[start:]`` (after a Codex
    chunk's ``@@`` context line); offsets and lines of the result are the whole text's.
    """
    if start > 0:
        lines_before = file_text.count("\n", 0, start)
        hint = line_hint - lines_before if line_hint is not None else None
        return _moved(locate(file_text[start:], search, path=path, line_hint=hint), start,
                      lines_before)
    found = _locate(file_text, search, path)
    if line_hint is not None and isinstance(found, Refused) and found.code == "search-ambiguous":
        at = [c for c in found.candidates if c.line == line_hint and c.certain]
        if len(at) == 1:
            return replace(
                at[0], note=f"chosen among lines {listed(found.lines)} by its line numbers"
            )
    return found


def _moved(found: Located | Refused, offset: int, lines: int) -> Located | Refused:
    """A result found in a suffix of the text, in the whole text's offsets and lines."""
    if isinstance(found, Located):
        return replace(found, start=found.start + offset, end=found.end + offset,
                       line=found.line + lines)
    moved = [replace(c, start=c.start + offset, end=c.end + offset, line=c.line + lines)
             for c in found.candidates]
    if found.code == "search-ambiguous" and found.strategy is not None:
        return ambiguous(moved, found.strategy)
    message = found.message
    if len(found.lines) == 2 and lines:  # the two close places of a fuzzy refusal
        a, b = found.lines
        message = message.replace(f"lines {a} (", f"lines {a + lines} (", 1).replace(
            f"and {b} (", f"and {b + lines} (", 1)
    return replace(found, lines=[n + lines for n in found.lines], candidates=moved,
                   message=message)


#: Codex's ``seek_sequence`` passes for a context line, in order (the first pass that finds a
#: line at or after the start wins): exact, trailing whitespace ignored, both ends ignored, and
#: typographic dashes, quotes and spaces read as their ASCII forms.
_PUNCT = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                    "\u202f\u205f\u3000", " "),
})
_ANCHOR_PASSES = (
    lambda t: t,
    str.rstrip,
    str.strip,
    lambda t: t.strip().translate(_PUNCT),
)


def find_anchor(file_text: str, anchor: str, start: int = 0) -> tuple[int, int] | None:
    """The first line at or after offset ``start`` (a line start) that is the context line
    ``anchor``, read as Codex's ``apply_patch`` seeks it: ``(line start, next line start)``,
    or None when no line is. Its line break (``\r\n`` too) is not part of the line.

    An ``anchor`` that ends with a line break is a run of lines (a patch chunk of context
    lines only): the first place where they stand one after the other, each read by the same
    pass (Codex's ``seek_sequence``), from the first line's start to after the last."""
    n = len(file_text)
    lines: list[tuple[int, int, str]] = []
    pos = start
    while pos < n:
        nl = file_text.find("\n", pos)
        stop = n if nl < 0 else nl
        body = file_text[pos:stop]
        lines.append((pos, n if nl < 0 else nl + 1, body[:-1] if body.endswith("\r") else body))
        pos = n if nl < 0 else nl + 1
    if anchor.endswith("\n"):
        wanted = [w[:-1] if w.endswith("\r") else w for w in anchor[:-1].split("\n")]
    else:
        wanted = [anchor]
    m = len(wanted)
    for norm in _ANCHOR_PASSES:
        want = [norm(w) for w in wanted]
        for i in range(len(lines) - m + 1):
            if norm(lines[i][2]) == want[0] and all(norm(lines[i + j][2]) == want[j] for j in range(1, m)):
                return lines[i][0], lines[i + m - 1][1]
    return None


#: The strategies that find a block only where the file holds its lines, layout aside.
_BY_LAYOUT = tuple(s for s in STRATEGIES if s.tried in ("exact", "whitespace", "blank-line"))


def locate_by_layout(file_text: str, search: str) -> Located | Refused | None:
    """What :func:`locate` answers (without a path) when the exact, whitespace or
    blank-lines strategy decides; None when none of them does (the later ones are not
    tried: their answer is never a place that holds the block as written, layout aside)."""
    if not search:
        return _append(file_text)
    text, block = FileText(file_text, None), SearchBlock(search)
    for strategy in _BY_LAYOUT:
        if strategy.applies(text, block):
            found = strategy.find(text, block)
            if found is not None:
                return found
    return None


def _locate(file_text: str, search: str, path: str | None) -> Located | Refused:
    if not search:
        return _append(file_text)
    text, block = FileText(file_text, path), SearchBlock(search)
    tried: list[str] = []
    for strategy in STRATEGIES:
        if not strategy.applies(text, block):
            continue
        tried.append(strategy.tried)
        found = strategy.find(text, block)
        if found is not None:
            return found
    if not block.nb_pos:  # only whitespace: found as written or not at all (no layout to ignore)
        return Refused("search-not-found", "search text (only whitespace) not found as written")
    return Refused(
        "search-not-found", f"search text not found (tried {', '.join(tried[:-1])} and {tried[-1]} "
        "matching)"
    )


def _append(file_text: str) -> Located:
    end = len(file_text)
    newline = "\r\n" if "\r\n" in file_text else "\n"
    sep = newline if file_text and not file_text.endswith(("\n", "\r")) else ""
    transform = ReplacementTransform(newline=newline, separator=sep.replace("\r\n", "\n"))
    return Located(end, end, "append", transform, file_text.count("\n") + 1)
