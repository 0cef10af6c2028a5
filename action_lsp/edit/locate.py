"""Find where a search block stands in a file.

Strategies, tried in order; the first that finds one place wins, and every strategy refuses
(``search-ambiguous``) when it finds more than one:

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

import bisect
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate
from typing import Literal

FUZZY_THRESHOLD = 80.0  # rapidfuzz ratio (0-100) a fuzzy window must reach
FUZZY_MARGIN = 6.0  # points the best window must lead the best non-overlapping runner-up by
FUZZY_MIN_LINES = 2  # non-blank lines a search block needs before fuzzy matching is tried
FUZZY_SAMPLE_ROWS = 16  # search lines used for the cheap prefilter
FUZZY_CANDIDATES = 12  # window starts kept after the prefilter
DEFINITION_THRESHOLD = 70.0  # token similarity a same-named definition needs
MAX_LISTED = 20  # lines listed in an ambiguity message

#: Strategies that find the search text itself, differing only in layout (line endings,
#: indentation, blank lines, token spacing, comments). Any other strategy (``definition``,
#: ``fuzzy``, or one added later) finds text whose *content* differs: a question for the user.
LAYOUT_STRATEGIES = frozenset({"exact", "append", "whitespace", "blank-lines", "syntax"})

# Roo Code's read_file output: ``  12 | code`` (right-aligned number, `` | ``).
_LINE_NUMBER_RE = re.compile(r"[ \t]*(\d+)[ \t]*\|(?!\|)[ ]?")

_NL_RE = re.compile(r"\r\n|\n")


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class ReplacementTransform:
    """How to adapt the replacement text to the place found.

    ``newline`` is the line ending written (the one used by the file around the place).
    ``shift`` columns are added to (or, negative, removed from) every replacement line's
    indentation when ``reindent`` is set, rendered with tabs when ``use_tabs``.
    ``strip_leading_blank`` / ``strip_trailing_blank`` drop blank lines that stood around the
    search block but have no counterpart in the file. ``final_newline`` (when not None) forces
    whether the replacement ends with a line break, to match the region replaced.
    ``separator`` is put before the replacement (appending to a file without a final newline).
    """

    newline: str = "\n"
    reindent: bool = False
    shift: int = 0
    tab_size: int = 4
    use_tabs: bool = False
    strip_leading_blank: int = 0
    strip_trailing_blank: int = 0
    final_newline: bool | None = None
    separator: str = ""
    #: (indentation width of the search text's first non-blank line, of the file line it was
    #: found at): a replacement whose first non-blank line is already indented as the file's
    #: is not shifted again (the model wrote the search text unindented, the replacement not).
    widths: tuple[int, int] | None = None

    def apply(self, replacement: str) -> str:
        text = replacement.replace("\r\n", "\n")
        if self.reindent and self.widths is not None and self._indented_as_file(text):
            return replace(self, reindent=False, widths=None).apply(replacement)
        if self.strip_leading_blank or self.strip_trailing_blank or self.reindent:
            ends_nl = text.endswith("\n")
            lines = (text[:-1] if ends_nl else text).split("\n") if text else []
            lead = 0
            while lead < self.strip_leading_blank and lead < len(lines) and not lines[lead].strip():
                lead += 1
            lines = lines[lead:]
            trail = 0
            while (
                trail < self.strip_trailing_blank
                and trail < len(lines)
                and not lines[len(lines) - 1 - trail].strip()
            ):
                trail += 1
            if trail:
                lines = lines[: len(lines) - trail]
            if self.reindent:
                lines = [self._reindent(line) for line in lines]
            text = "\n".join(lines) + ("\n" if ends_nl and lines else "")
        if self.final_newline is not None and text:
            if self.final_newline and not text.endswith("\n"):
                text += "\n"
            elif not self.final_newline and text.endswith("\n"):
                text = text[:-1]
        if text:
            text = self.separator + text
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return text

    def _indented_as_file(self, text: str) -> bool:
        assert self.widths is not None
        searched, found = self.widths
        first = next((ln for ln in text.split("\n") if ln.strip()), None)
        if first is None or searched == found:
            return False
        return indent_width(_leading_ws(first), self.tab_size) == found

    def _reindent(self, line: str) -> str:
        if not line.strip():
            return line
        body = line.lstrip(" \t")
        width = max(0, indent_width(line[: len(line) - len(body)], self.tab_size) + self.shift)
        if self.use_tabs:
            return "\t" * (width // self.tab_size) + " " * (width % self.tab_size) + body
        return " " * width + body


@dataclass(frozen=True, slots=True)
class Located:
    """The region ``[start, end)`` of the file text to replace, and how it was found."""

    start: int
    end: int
    strategy: str  # exact, whitespace, blank-lines, syntax, definition, fuzzy, append
    replacement_transform: ReplacementTransform = field(default_factory=ReplacementTransform)
    line: int = 1  # 1-based line of ``start``
    score: float | None = None  # fuzzy / definition similarity (0-100)
    note: str = ""  # how it was chosen, when that is worth saying (line numbers, ...)

    @property
    def exact(self) -> bool:
        return self.strategy in ("exact", "append")

    @property
    def certain(self) -> bool:
        """Whether only layout differs between the search text and the place found."""
        return self.strategy in LAYOUT_STRATEGIES

    def end_line(self, file_text: str) -> int:
        """1-based line of the last character of the region (``line`` when it is empty)."""
        if self.end <= self.start:
            return self.line
        return self.line + file_text.count("\n", self.start, self.end - 1)

    def describe(self) -> str:
        if self.score is not None:
            return f"{self.strategy} (score {self.score:.0f})"
        return self.strategy

    def replacement(self, replace: str) -> str:
        return self.replacement_transform.apply(replace)


@dataclass(frozen=True, slots=True)
class Refused:
    code: Literal["search-not-found", "search-ambiguous"]
    message: str
    lines: list[int] = field(default_factory=list)  # 1-based lines of the candidates
    strategy: str | None = None  # the strategy that found several places
    #: The places found: every match when ambiguous; for ``search-not-found``, the closest
    #: places whose content differs (best first), when a content strategy found any.
    candidates: list[Located] = field(default_factory=list)


# --------------------------------------------------------------------------- helpers


def indent_width(indent: str, tab_size: int = 4) -> int:
    width = 0
    for ch in indent:
        width = (width // tab_size + 1) * tab_size if ch == "\t" else width + 1
    return width


def _leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _ambiguous(candidates: Sequence[Located], strategy: str) -> Refused:
    lines = [c.line for c in candidates]
    how = "" if strategy == "exact" else f" (by the {strategy} strategy)"
    return Refused(
        "search-ambiguous",
        f"search text matches {len(lines)} places{how}, at lines {_listed(lines)}; "
        "add surrounding lines to make it unique, or choose one",
        lines,
        strategy,
        list(candidates),
    )


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


class _Text:
    """The file text with line endings normalised to LF, split into lines, with a map back."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.norm = raw.replace("\r\n", "\n") if "\r\n" in raw else raw
        # Positions in ``norm`` of each "\n" that was "\r\n" in ``raw``.
        if self.norm is raw:
            self.crlf: list[int] = []
        else:
            self.crlf = [m.start() - i for i, m in enumerate(re.finditer("\r\n", raw))]
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None
        self._stripped: list[str] | None = None
        self._nb: tuple[list[int], list[str]] | None = None

    def to_raw(self, offset: int) -> int:
        return offset + bisect.bisect_left(self.crlf, offset) if self.crlf else offset

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.norm.split("\n")
        return self._lines

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = [0, *accumulate(len(line) + 1 for line in self.lines[:-1])]
        return self._starts

    @property
    def stripped(self) -> list[str]:
        if self._stripped is None:
            self._stripped = [line.strip() for line in self.lines]
        return self._stripped

    @property
    def nonblank(self) -> tuple[list[int], list[str]]:
        if self._nb is None:
            stripped = self.stripped
            idx = [i for i, t in enumerate(stripped) if t]
            self._nb = (idx, [stripped[i] for i in idx])
        return self._nb

    def line_of(self, norm_offset: int) -> int:
        return self.norm.count("\n", 0, norm_offset) + 1

    def newline_at(self, norm_offset: int) -> str:
        """The line ending the file uses at (or after, or before) a position."""
        if not self.crlf:
            return "\n"
        nl = self.norm.find("\n", norm_offset)
        if nl < 0:
            nl = self.norm.rfind("\n", 0, norm_offset)
        if nl < 0:
            return "\n"
        i = bisect.bisect_left(self.crlf, nl)
        return "\r\n" if i < len(self.crlf) and self.crlf[i] == nl else "\n"

    def line_region(self, first: int, last: int, with_newline: bool) -> tuple[int, int]:
        """Norm offsets covering lines ``first..last`` (0-based, inclusive)."""
        start = self.starts[first]
        end = self.starts[last] + len(self.lines[last])
        if with_newline and last < len(self.lines) - 1:
            end += 1
        return start, end


class _Search:
    def __init__(self, text: str) -> None:
        self.norm = text.replace("\r\n", "\n")
        self.ends_nl = self.norm.endswith("\n")
        body = self.norm[:-1] if self.ends_nl else self.norm
        self.lines = body.split("\n")
        self.stripped = [line.strip() for line in self.lines]
        self.nb_pos = [j for j, t in enumerate(self.stripped) if t]
        self.nb_text = [self.stripped[j] for j in self.nb_pos]
        self.leading_blank = self.nb_pos[0] if self.nb_pos else 0
        self.trailing_blank = len(self.lines) - 1 - self.nb_pos[-1] if self.nb_pos else 0


def _uniform_shift(
    pairs: Sequence[tuple[str, str]],
) -> tuple[bool, int, int, bool, bool] | None:
    """For (file line, search line) pairs: (reindent?, shift, tab size, use tabs, any change).

    None when the indentation differs by more than one uniform shift.
    """
    file_ind = [_leading_ws(f) for f, s in pairs if s.strip()]
    search_ind = [_leading_ws(s) for f, s in pairs if s.strip()]
    if not file_ind:
        return (False, 0, 4, False, False)
    if file_ind == search_ind:
        return (False, 0, 4, False, False)
    uses_tabs = any(ind.startswith("\t") for ind in file_ind)
    for tab in (4, 8, 2):
        shifts = {
            indent_width(f, tab) - indent_width(s, tab)
            for f, s in zip(file_ind, search_ind, strict=True)
        }
        if len(shifts) == 1:
            return (True, shifts.pop(), tab, uses_tabs, True)
    return None


def _mode_shift(pairs: Sequence[tuple[str, str]]) -> tuple[bool, int, int, bool, bool] | None:
    """The most common indentation shift of the pairs (for blocks that are not uniform)."""
    uniform = _uniform_shift(pairs)
    if uniform is not None:
        return uniform
    file_ind = [_leading_ws(f) for f, s in pairs if s.strip() and f.strip()]
    search_ind = [_leading_ws(s) for f, s in pairs if s.strip() and f.strip()]
    shifts = Counter(
        indent_width(f) - indent_width(s) for f, s in zip(file_ind, search_ind, strict=True)
    )
    if not shifts:
        return None
    shift = shifts.most_common(1)[0][0]
    uses_tabs = any(ind.startswith("\t") for ind in file_ind)
    return (shift != 0 or uses_tabs, shift, 4, uses_tabs, True)


# --------------------------------------------------------------------------- strategies


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
                at[0], note=f"chosen among lines {_listed(found.lines)} by its line numbers"
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
        return _ambiguous(moved, found.strategy)
    message = found.message
    if len(found.lines) == 2 and lines:  # the two close places of a fuzzy refusal
        a, b = found.lines
        message = message.replace(f"lines {a} (", f"lines {a + lines} (", 1).replace(
            f"and {b} (", f"and {b + lines} (", 1)
    return replace(found, lines=[n + lines for n in found.lines], candidates=moved,
                   message=message)


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
        text = _Text(file_text)
    out: list[Located] = []
    line, counted = 1, 0
    pos = haystack.find(needle)
    while pos >= 0:
        line += haystack.count("\n", counted, pos)
        counted = pos
        out.append(_exact_at(file_text, len(needle), pos, line, text))
        pos = haystack.find(needle, pos + len(needle))
    return out


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
    or None when no line is. Its line break (``\r\n`` too) is not part of the line."""
    n = len(file_text)
    lines: list[tuple[int, int, str]] = []
    pos = start
    while pos < n:
        nl = file_text.find("\n", pos)
        stop = n if nl < 0 else nl
        body = file_text[pos:stop]
        lines.append((pos, n if nl < 0 else nl + 1, body[:-1] if body.endswith("\r") else body))
        pos = n if nl < 0 else nl + 1
    for norm in _ANCHOR_PASSES:
        want = norm(anchor)
        for a, b, body in lines:
            if norm(body) == want:
                return a, b
    return None


def _listed(lines: Sequence[int]) -> str:
    listed = ", ".join(str(n) for n in lines[:MAX_LISTED])
    return listed + (f" and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else "")


def _locate(file_text: str, search: str, path: str | None) -> Located | Refused:
    if not search:
        return _append(file_text)
    found = _exact(file_text, search)
    if found is not None:
        return found
    text = _Text(file_text)
    s = _Search(search)
    if not s.nb_pos:  # only whitespace: found as written or not at all (no layout to ignore)
        return Refused("search-not-found", "search text (only whitespace) not found as written")
    for strategy in (_whitespace, _blank_lines):
        found = strategy(text, s)
        if found is not None:
            return found
    lang = _language(path)
    if lang is not None:
        found = _syntax(text, s, lang)
        if found is not None:
            return found
    found = _fuzzy(text, s)
    if found is not None and lang is not None:
        found, name = _same_definitions(text, s, lang, found)
        if found is None and name is not None:
            return Refused("search-not-found", f"search text not found: `{name}` is not defined in "
                           f"{path}; nothing close")
    if found is not None:
        return found
    return Refused(
        "search-not-found",
        "search text not found"
        + (" (tried exact, whitespace, blank-line, syntax and fuzzy matching)" if lang is not None
           else " (tried exact, whitespace, blank-line and fuzzy matching)"),
    )


def _append(file_text: str) -> Located:
    end = len(file_text)
    newline = "\r\n" if "\r\n" in file_text else "\n"
    sep = newline if file_text and not file_text.endswith(("\n", "\r")) else ""
    transform = ReplacementTransform(newline=newline, separator=sep.replace("\r\n", "\n"))
    return Located(end, end, "append", transform, file_text.count("\n") + 1)


def _find_all(haystack: str, needle: str, limit: int = 1000) -> list[int]:
    hits: list[int] = []
    pos = haystack.find(needle)
    while pos >= 0 and len(hits) < limit:
        hits.append(pos)
        pos = haystack.find(needle, pos + 1)
    return hits


def _exact(file_text: str, search: str) -> Located | Refused | None:
    """Verbatim, then with line endings normalised on both sides."""
    newline_only = False
    pos = file_text.find(search)
    haystack, needle = file_text, search
    if pos < 0:
        if "\r\n" not in file_text and "\r\n" not in search:
            return None
        newline_only = True
        haystack = file_text.replace("\r\n", "\n")
        needle = search.replace("\r\n", "\n")
        pos = haystack.find(needle)
        if pos < 0:
            return None
    text = _Text(file_text) if newline_only else None
    if haystack.find(needle, pos + 1) >= 0:
        places = []
        line, counted = 1, 0
        for h in _find_all(haystack, needle):
            line += haystack.count("\n", counted, h)  # counted on from the previous hit
            counted = h
            places.append(_exact_at(file_text, len(needle), h, line, text))
        return _ambiguous(places, "exact")
    return _exact_at(file_text, len(needle), pos, haystack.count("\n", 0, pos) + 1, text)


def _exact_at(file_text: str, size: int, pos: int, line: int, text: _Text | None) -> Located:
    if text is None:
        newline = _newline_near(file_text, pos, pos + size)
        return Located(pos, pos + size, "exact", ReplacementTransform(newline=newline), line)
    start, end = text.to_raw(pos), text.to_raw(pos + size)
    return Located(start, end, "exact", ReplacementTransform(newline=text.newline_at(pos)), line)


def _newline_near(text: str, start: int, end: int) -> str:
    nl = text.find("\n", start)
    if nl < 0:
        nl = text.rfind("\n", 0, start)
    if nl < 0:
        return "\n"
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def _line_located(
    text: _Text,
    s: _Search,
    first: int,
    last: int,
    strategy: str,
    pairs: Sequence[tuple[str, str]] | None,
    *,
    strip_blank: bool = False,
    score: float | None = None,
    mode: bool = False,
) -> Located:
    with_nl = s.ends_nl or (strip_blank and s.trailing_blank > 0)
    start, end = text.line_region(first, last, with_nl)
    has_nl = end > start and text.norm[end - 1] == "\n"
    shift = None
    if pairs is not None:
        shift = _mode_shift(pairs) if mode else _uniform_shift(pairs)
    reindent, delta, tab, tabs = (shift[0], shift[1], shift[2], shift[3]) if shift else (
        False, 0, 4, False)
    pair = next(((f, q) for f, q in pairs or () if q.strip() and f.strip()), None)
    transform = ReplacementTransform(
        widths=(indent_width(_leading_ws(pair[1]), tab), indent_width(_leading_ws(pair[0]), tab))
        if pair is not None else None,
        newline=text.newline_at(start),
        reindent=reindent,
        shift=delta,
        tab_size=tab,
        use_tabs=tabs,
        strip_leading_blank=s.leading_blank if strip_blank else 0,
        strip_trailing_blank=s.trailing_blank if strip_blank else 0,
        final_newline=has_nl,
    )
    return Located(
        text.to_raw(start), text.to_raw(end), strategy, transform, first + 1, score
    )


def _whitespace(text: _Text, s: _Search) -> Located | Refused | None:
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
        if _uniform_shift(pairs) is None:
            continue
        hits.append((i, pairs))
    if not hits:
        return None
    if len(hits) > 1:
        return _ambiguous(
            [_line_located(text, s, i, i + n - 1, "whitespace", p) for i, p in hits], "whitespace"
        )
    i, pairs = hits[0]
    return _line_located(text, s, i, i + n - 1, "whitespace", pairs)


def _blank_lines(text: _Text, s: _Search) -> Located | Refused | None:
    nb_idx, nb_text = text.nonblank
    m = len(s.nb_text)
    key = s.nb_text[0]
    hits: list[tuple[int, list[tuple[str, str]]]] = []
    for k in (k for k, t in enumerate(nb_text) if t == key):
        if k + m > len(nb_text) or nb_text[k : k + m] != s.nb_text:
            continue
        pairs = [
            (text.lines[nb_idx[k + q]], s.lines[s.nb_pos[q]]) for q in range(m)
        ]
        if _uniform_shift(pairs) is None:
            continue
        hits.append((k, pairs))
    if not hits:
        return None
    found = [
        _line_located(text, s, nb_idx[k], nb_idx[k + m - 1], "blank-lines", p, strip_blank=True)
        for k, p in hits
    ]
    return found[0] if len(found) == 1 else _ambiguous(found, "blank-lines")


# --------------------------------------------------------------------------- syntax


def _language(path: str | None) -> object | None:
    if not path:
        return None
    try:
        from ..syntax import languages
    except ImportError:  # the syntax package is optional at this layer
        return None
    try:
        lang = languages.language_for(path=path)
    except Exception:  # a grammar that fails to load: fall back to the other strategies
        return None
    # Tokens drop layout, which is the structure of YAML and Markdown: no token matching there.
    return lang if lang is not None and lang.layout_tokens else None


def _syntax(text: _Text, s: _Search, lang: object) -> Located | Refused | None:
    from . import syntaxmatch

    return syntaxmatch.match(text, s, lang)


def _same_definitions(text: _Text, s: _Search, lang: object,
                      found: Located | Refused) -> tuple[Located | Refused | None, str | None]:
    """``found`` (a fuzzy place, or two) without the places that are another definition than
    the search block's (see :func:`syntaxmatch.same_definitions`); None when none is left."""
    from . import syntaxmatch

    places = [found] if isinstance(found, Located) else found.candidates
    kept, name = syntaxmatch.same_definitions(text, s, lang, places)
    if len(kept) == len(places):
        return found, name
    if not kept:
        return None, name
    return kept[0], name


# --------------------------------------------------------------------------- fuzzy


def _fuzzy(text: _Text, s: _Search) -> Located | Refused | None:
    import numpy as np
    from rapidfuzz import fuzz, process

    m = len(s.nb_text)
    nb_idx, nb_text = text.nonblank
    n_file = len(nb_text)
    if m < FUZZY_MIN_LINES or n_file == 0:
        return None
    slack = min(3, max(1, m // 8))
    target = "\n".join(s.nb_text)

    # Cheap prefilter: per-line similarity of a sample of search lines against every file line
    # (vectorised in rapidfuzz), summed along the diagonals = windows of the block's length.
    if n_file <= m + slack:
        starts = [0]
    else:
        rows = sorted(
            range(m), key=lambda j: -len(s.nb_text[j])
        )[:FUZZY_SAMPLE_ROWS]
        sim = process.cdist(
            [s.nb_text[j] for j in rows], nb_text, scorer=fuzz.ratio, dtype=np.uint8,
            workers=-1,
        )
        width = max(1, n_file - m + 1)
        acc = np.zeros(width, dtype=np.int64)
        for r, j in enumerate(rows):
            row = sim[r, j : j + width]
            acc[: len(row)] += row
        starts = []
        for x in np.argsort(-acc, kind="stable")[: 64 * FUZZY_CANDIDATES]:
            st = int(x)
            if all(abs(st - o) >= m for o in starts):
                starts.append(st)
                if len(starts) >= FUZZY_CANDIDATES:
                    break

    scored: dict[tuple[int, int], float] = {}
    for st in starts:
        for a in range(max(0, st - slack), min(n_file, st + slack + 1)):
            for size in range(max(1, m - slack), m + slack + 1):
                if a + size > n_file or (a, size) in scored:
                    continue
                scored[(a, size)] = fuzz.ratio(target, "\n".join(nb_text[a : a + size]))
    if not scored:
        return None
    (best_a, best_size), best = max(scored.items(), key=lambda kv: (kv[1], -abs(kv[0][1] - m)))
    if best < FUZZY_THRESHOLD:
        return None
    best_end = best_a + best_size
    runner = [
        (key, sc) for key, sc in scored.items()
        if key[0] >= best_end or key[0] + key[1] <= best_a
    ]
    def window(a: int, size: int, score: float) -> Located:
        pairs = [(text.lines[nb_idx[a + q]], s.lines[s.nb_pos[q]]) for q in range(min(m, size))]
        return _line_located(
            text, s, nb_idx[a], nb_idx[a + size - 1], "fuzzy", pairs, strip_blank=True,
            score=float(score), mode=True,
        )

    found = window(best_a, best_size, best)
    if runner:
        (r_a, r_size), r_score = max(runner, key=lambda kv: kv[1])
        if r_score > best - FUZZY_MARGIN:
            # Two places about as close: neither is "the closest match". Both are offered.
            other = window(r_a, r_size, r_score)
            return Refused(
                "search-not-found",
                f"search text not found; the closest places, lines {found.line} (score "
                f"{best:.0f}) and {other.line} (score {r_score:.0f}), differ from it and are "
                "too close to each other to choose",
                [found.line, other.line],
                "fuzzy",
                [found, other],
            )
    return found
