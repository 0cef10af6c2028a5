"""SEARCH/REPLACE marker blocks inside a body, shared by the dialects that write them (Dyad's
``<dyad-search-replace>``, Cline's ``<replace_in_file>``, Roo's ``<apply_diff>``, and Aider)::

    <<<<<<< SEARCH            ------- SEARCH (Cline; the <<<<<<< form is its legacy one)
    :start_line: 12           (Roo only: optional line hint, then a ------- line)
    lines to find
    =======
    lines that replace them
    >>>>>>> REPLACE           +++++++ REPLACE (Cline)

A :class:`MarkerStyle` says which marker lines a dialect's agent accepts (how many marker
characters, which characters). The parse reads the body line by line once (linear time) and
returns each block's search and replace text as :class:`~action_lsp.model.Field` values with
exact spans, plus ``bad-marker`` diagnostics for what the agent's own parser would reject: a
marker with too few or too many characters, a missing ``=======``, a second ``=======``, a
REPLACE marker with no block open (a doubled REPLACE), a block never closed. Each diagnostic's
range is the marker line as written.

Values are whole lines: ``search``/``replace`` end with the line break of their last line
(an empty section is ``""``), as Cline and Aider read them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..model import Diagnostic, Field, Fix, SourceMap, Span, TextEdit

Decode = Callable[[str, int, int], tuple[str, SourceMap]]

# Any line that looks like a marker: a run of one marker character, then SEARCH / REPLACE or
# nothing. Classified against the style afterwards.
_LOOSE = re.compile(r"([<>=+\-])\1{1,}[ \t]*([A-Za-z]+)?>?[ \t]*$")
_HINT = re.compile(r":(start_line|end_line):[ \t]*(\d+)[ \t]*$")


@dataclass(frozen=True, slots=True)
class MarkerStyle:
    """Which marker lines an agent accepts."""

    search_chars: str = "<"  # characters a SEARCH marker may be made of
    replace_chars: str = ">"
    counts: tuple[int, int] = (7, 7)  # accepted number of marker characters (min, max)
    line_hints: bool = False  # Roo: `:start_line: N` / `:end_line: N` / `-------` after SEARCH
    escapes: bool = False  # a marker line written `\=======` is content

    def search_marker(self) -> str:
        return self.search_chars[0] * max(self.counts[0], 7) + " SEARCH"

    def replace_marker(self) -> str:
        return self.replace_chars[0] * max(self.counts[0], 7) + " REPLACE"


DYAD = MarkerStyle(escapes=True)
ROO = MarkerStyle(line_hints=True, escapes=True)
CLINE = MarkerStyle(search_chars="-<", replace_chars="+>", counts=(3, 1 << 20))


@dataclass(slots=True)
class Block:
    """One SEARCH/REPLACE block: the texts, the whole block's span and the optional hints."""

    search: Field
    replace: Field
    span: Span
    start_line: int | None = None
    hint_span: Span | None = None


@dataclass(slots=True)
class Blocks:
    blocks: list[Block] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    markers: int = 0  # marker lines seen (0: the body holds no block at all)


def _value(text: str, name: str, start: int, end: int, decode: Decode | None) -> Field:
    if decode is not None:
        value, smap = decode(text, start, end)
    else:
        value, smap = text[start:end], SourceMap.verbatim(start, end)
    return Field(name, value, Span(start, end), None, smap)


def parse_blocks(
    text: str, start: int, end: int, style: MarkerStyle, decode: Decode | None = None
) -> Blocks:
    """The blocks of the body ``text[start:end]``."""
    out = Blocks()
    state = "out"  # out | search | replace
    opener: Span | None = None
    search_start = replace_start = divider_at = -1
    hint: tuple[int, Span] | None = None

    def bad(span: Span, message: str, fix: Fix | None = None) -> None:
        out.diagnostics.append(Diagnostic("bad-marker", message, span, fixes=[fix] if fix else []))

    for pos in _marker_lines(text, start, end):
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        next_pos = end if nl < 0 else nl + 1
        content_end = line_end - 1 if line_end > pos and text[line_end - 1] == "\r" else line_end
        line_span = Span(pos, content_end)
        m = _LOOSE.match(text, pos, content_end)
        if m is not None and style.escapes and pos > start and text[pos - 1 : pos] == "\\":
            m = None
        kind = _classify(m, style) if m is not None else None
        if kind is not None and m is not None:
            out.markers += 1
            what, ok = kind
            if state == "out":
                if what == "search":
                    if not ok:
                        bad(line_span, _count_message(text, m, style, "SEARCH"), _fix(line_span, style.search_marker()))
                    state, opener = "search", line_span
                    search_start = next_pos
                    hint = None
                    if style.line_hints:
                        search_start, hint = _hints(text, next_pos, end)
                elif what == "replace":
                    bad(line_span, f"`{text[pos:content_end].strip()}` closes no SEARCH block (a doubled REPLACE marker?); remove it")
                elif what == "divider" and ok:
                    bad(line_span, "`=======` outside a SEARCH/REPLACE block; a block starts with "
                        f"`{style.search_marker()}`")
            elif state == "search":
                if what == "divider":
                    if not ok:
                        bad(line_span, _count_message(text, m, style, ""), _fix(line_span, "======="))
                    state, divider_at = "replace", pos
                    replace_start = next_pos
                elif what == "replace":
                    bad(line_span, "this SEARCH block has no `=======` line between the text to find "
                        "and its replacement")
                    state = "out"
                elif what == "search":
                    assert opener is not None
                    bad(opener, "this SEARCH block never reaches `=======`; another SEARCH starts first")
                    state, opener, search_start, hint = "search", line_span, next_pos, None
                    if style.line_hints:
                        search_start, hint = _hints(text, next_pos, end)
            else:  # replace
                if what == "replace":
                    if not ok:
                        bad(line_span, _count_message(text, m, style, "REPLACE"), _fix(line_span, style.replace_marker()))
                    assert opener is not None
                    out.blocks.append(
                        Block(
                            _value(text, "search", search_start, max(search_start, divider_at), None),
                            _value(text, "replace", replace_start, max(replace_start, pos), None),
                            Span(opener.start, content_end),
                            hint[0] if hint else None,
                            hint[1] if hint else None,
                        )
                    )
                    state = "out"
                elif what == "divider" and ok:
                    bad(line_span, "a second `=======` in one block; end the replacement with "
                        f"`{style.replace_marker()}` first")
                elif what == "search":
                    assert opener is not None
                    bad(opener, f"this block never ends with `{style.replace_marker()}`")
                    state, opener, search_start, hint = "search", line_span, next_pos, None
                    if style.line_hints:
                        search_start, hint = _hints(text, next_pos, end)
    if state != "out" and opener is not None:
        closing = "=======" if state == "search" else style.replace_marker()
        bad(opener, f"this SEARCH block never ends; it needs `{closing}`")
    if decode is not None:
        for b in out.blocks:
            b.search = _value(text, "search", b.search.span.start, b.search.span.end, decode)
            b.replace = _value(text, "replace", b.replace.span.start, b.replace.span.end, decode)
    return out


def _marker_lines(text: str, start: int, end: int) -> Iterator[int]:
    """The starts of the lines of ``text[start:end]`` (``\n`` breaks) that begin with a marker
    character: the only lines :data:`_LOOSE` can match, found without visiting the others (a
    written file's lines between the markers)."""
    if start < end and text[start] in _MARKER_CHARS:
        yield start
    for m in _MARKER_LINE.finditer(text, start, end):
        yield m.end()


_MARKER_CHARS = "<>=+-"
_MARKER_LINE = re.compile(r"\n(?=[<>=+\-])")


def _classify(m: re.Match[str], style: MarkerStyle) -> tuple[str, bool] | None:
    """(``search`` | ``divider`` | ``replace``, whether the style accepts it as written)."""
    char, written = m.group(1), m.group(2)
    run = len(m.group(0)) - len(m.group(0).lstrip(char))
    word = _word(written, run)
    if word is None and written is not None:
        return None  # `--- Summary`: a line of text, not a marker
    if word == "SEARCH" and char in style.search_chars + "<-":
        what = "search"
        ok = char in style.search_chars
    elif word == "REPLACE" and char in style.replace_chars + ">+":
        what = "replace"
        ok = char in style.replace_chars
    elif word is None and char == "=" and m.group(0).strip() == "=" * run:
        what, ok = "divider", True
    else:
        return None
    low, high = style.counts
    if word is None and not low <= run <= high:
        # A short run of `=` is ordinary text (a Markdown underline); a long one a typo.
        if run < 5:
            return None
        ok = False
    elif not low <= run <= high:
        ok = False
    if written is not None and written != word:
        ok = False  # `SERACH`, `search`: misspelt
    return what, ok


def _word(written: str | None, run: int) -> str | None:
    """``SEARCH`` or ``REPLACE`` as meant by ``written`` (a misspelling when the marker run is
    long enough to be meant as one), else None."""
    if written is None or written in ("SEARCH", "REPLACE"):
        return written
    if run < 3 or len(written) < 4:
        return None
    from rapidfuzz.distance import DamerauLevenshtein

    for word in ("SEARCH", "REPLACE"):
        if DamerauLevenshtein.distance(written.upper(), word, score_cutoff=2) <= 2:
            return word
    return None


def _count_message(text: str, m: re.Match[str], style: MarkerStyle, word: str) -> str:
    written = m.group(0).strip()
    low, high = style.counts
    want = f"exactly {low}" if low == high else f"at least {low}"
    char = m.group(1)
    if word and m.group(2) != word:
        expected = style.search_marker() if word == "SEARCH" else style.replace_marker()
        return f"`{written}` is a misspelt marker the agent does not read; write `{expected}`"
    if word and char not in (style.search_chars if word == "SEARCH" else style.replace_chars):
        expected = style.search_marker() if word == "SEARCH" else style.replace_marker()
        return f"`{written}` is not a marker this agent reads; write `{expected}`"
    return f"`{written}` has the wrong number of `{char}` ({want} are read); the agent does not see this marker"


def _fix(span: Span, marker: str) -> Fix:
    return Fix(f"Write `{marker}`", [TextEdit(span, marker)], True)


def _hints(text: str, pos: int, end: int) -> tuple[int, tuple[int, Span] | None]:
    """Roo's optional ``:start_line:``/``:end_line:`` lines and ``-------`` after SEARCH."""
    hint: tuple[int, Span] | None = None
    while pos < end:
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        m = _HINT.match(text, pos, line_end)
        if m is not None:
            if m.group(1) == "start_line":
                hint = (int(m.group(2)), Span(m.start(2), m.end(2)))
            pos = end if nl < 0 else nl + 1
            continue
        if text[pos:line_end].strip() == "-------":
            pos = end if nl < 0 else nl + 1
        break
    return pos, hint
