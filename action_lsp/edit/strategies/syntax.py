"""Strategy 4: find a search block by its tree-sitter tokens (``syntax``), or as the one
definition of its kind and name (``definition``).

The search block and the file are tokenised with the file's grammar (comments dropped, a string
literal is one token) and the block is looked up as a token sequence, so layout does not matter:
a call the formatter re-wrapped, other spacing, other indentation. Two formatter habits are
normalised away too: a trailing comma before a closing bracket, and single versus double quotes.

When the token sequence is not found and the block is one whole definition (a function, class,
method, ...), the definition of the same kind and name in the file is the candidate: accepted
when it is the only one of that name and its tokens are at least
``DEFINITION_THRESHOLD`` similar (rapidfuzz ratio).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import replace

from rapidfuzz import fuzz

from ...syntax import Lang, definitions, tokens
from ...syntax.tokens import Token, comments
from .base import (
    FileText,
    Located,
    Refused,
    ReplacementTransform,
    SearchBlock,
    ambiguous,
    indent_width,
)
from .lines import mode_shift, uniform_shift

DEFINITION_THRESHOLD = 70.0  # token similarity a same-named definition needs
MIN_TOKENS = 3
_CLOSERS = frozenset({")", "]", "}"})
_SEP = "\x00"
_FUNCTIONS = frozenset({"function", "method"})


_OPENERS = {")": "(", "]": "[", "}": "{"}
# Languages where 'x' and "x" are the same string (in Go and Rust 'x' is a character).
_QUOTES_EQUAL = frozenset({"python", "javascript", "typescript", "tsx"})


def _keys(toks: Sequence[Token], lang: Lang) -> list[str]:
    """Token texts as compared: a trailing comma that is only layout is dropped (``""``), and
    single quotes become double where the language makes no difference.

    A trailing comma is kept where it changes the meaning: ``(a,)`` (a one-element tuple in
    Python and Rust, not ``(a)``) — a ``(`` that does not follow a name or closing bracket (no
    call) and holds no other comma."""
    out: list[str] = []
    n = len(toks)
    quotes = lang.name in _QUOTES_EQUAL
    # Per open bracket: [its index, commas seen directly inside it].
    stack: list[list[int]] = []
    for k, tok in enumerate(toks):
        text = tok.text
        if text in ("(", "[", "{"):
            stack.append([k, 0])
        elif text in _CLOSERS:
            if stack and toks[stack[-1][0]].text == _OPENERS[text]:
                stack.pop()
        elif text == ",":
            if stack:
                stack[-1][1] += 1
            if k + 1 < n and toks[k + 1].text in _CLOSERS and not _meaningful_comma(toks, stack):
                out.append("")  # dropped below, kept here to keep indices aligned
                continue
        if quotes and tok.kind in lang.strings:
            text = text.replace("'", '"')
        out.append(text.replace(_SEP, " "))
    return out


def _meaningful_comma(toks: Sequence[Token], stack: list[list[int]]) -> bool:
    if not stack:
        return False
    opener, commas = stack[-1]
    if toks[opener].text != "(" or commas > 1:
        return False
    before = toks[opener - 1] if opener > 0 else None
    is_call = before is not None and (
        before.kind in ("identifier", "field_identifier", "property_identifier", "attribute")
        or before.text in (")", "]")
    )
    return not is_call


class Syntax:
    """The ``syntax`` and ``definition`` strategies, where the file's grammar is known."""

    tried = "syntax"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return bool(search.nb_pos) and text.lang is not None

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        return match(text, search, text.lang)


def match(text: FileText, s: SearchBlock, lang: object) -> Located | Refused | None:
    if not isinstance(lang, Lang):
        return None
    try:
        s_toks = tokens(s.norm, lang.for_snippet(s.norm))
        if len(s_toks) < MIN_TOKENS:
            return None
        f_toks = tokens(text.norm, lang)
    except Exception:  # a grammar failure must not break locating
        return None
    if not f_toks:
        return None
    found = _by_tokens(text, s, lang, f_toks, s_toks)
    if found is not None:
        return found
    return _by_definition(text, s, lang, f_toks, s_toks)


def _by_tokens(
    text: FileText, s: SearchBlock, lang: Lang, f_toks: list[Token], s_toks: list[Token]
) -> Located | Refused | None:
    f_keys = _keys(f_toks, lang)
    s_keys = [k for k in _keys(s_toks, lang) if k]
    # Indices of the file tokens that count, and their keys joined for one C-speed find.
    f_idx = [i for i, k in enumerate(f_keys) if k]
    starts: list[int] = []
    pos = 1
    for i in f_idx:
        starts.append(pos)
        pos += len(f_keys[i]) + 1
    haystack = _SEP + _SEP.join(f_keys[i] for i in f_idx) + _SEP
    needle = _SEP + _SEP.join(s_keys) + _SEP
    hits: list[int] = []
    at = haystack.find(needle)
    while at >= 0 and len(hits) < 1000:
        hits.append(at)
        at = haystack.find(needle, at + 1)
    if not hits:
        return None
    spans = []
    for at in hits:
        first = bisect.bisect_left(starts, at + 1)
        last = first + len(s_keys) - 1
        spans.append((f_toks[f_idx[first]].start, f_toks[f_idx[last]].end, f_idx[first]))
    found = [
        _line_by_line(text, s, lang, _region(text, s, f_toks, first_tok, start, end, s_toks, "syntax", None))
        for start, end, first_tok in spans
    ]
    return _unseen_comments(text, s, lang, found[0]) if len(found) == 1 else ambiguous(found, "syntax")


def _unseen_comments(text: FileText, s: SearchBlock, lang: Lang, found: Located) -> Located:
    """A place found by its tokens whose lines hold a comment the search text does not
    (whitespace aside) is a question (strategy ``comments``): the model never saw that comment,
    and its replacement would drop it (or move it after the new code)."""
    if found.strategy != "syntax":
        return found
    norm = text.norm
    start, end = _norm_offset(text, found.start), _norm_offset(text, found.end)
    a = norm.rfind("\n", 0, start) + 1
    b = norm.find("\n", max(start, end - 1))
    b = len(norm) if b < 0 else b
    try:
        spans = comments(norm, lang)
    except Exception:  # a grammar failure must not break locating
        return found
    seen = " ".join(s.norm.split())
    for c_start, c_end in spans:
        if c_end <= a or c_start >= b:
            continue
        words = " ".join(norm[c_start:c_end].split())
        if words and words not in seen:
            shown = words if len(words) <= 60 else words[:57] + "..."
            return replace(found, strategy="comments",
                           note=f"the file holds a comment the search text does not: `{shown}`")
    return found


#: Grammars where indentation is syntax: a block whose indentation differs line by line from
#: the file's is a different block there (a question), however equal its tokens.
_INDENTED = frozenset({"python", "yaml", "make", "haskell", "nim", "fsharp", "coffeescript"})


def _line_by_line(text: FileText, s: SearchBlock, lang: Lang, found: Located) -> Located:
    """A block found by its tokens whose lines are the file's lines indented otherwise, and
    not by one shift: layout only where the grammar ignores indentation (applied, the
    replacement as written, as Roo Code writes it); a question where the grammar reads
    indentation (Python, YAML, Makefiles, ...), however equal the tokens."""
    if lang.name not in _INDENTED:
        return found
    region = text.raw[found.start : found.end].replace("\r\n", "\n")
    f_lines = [ln for ln in region.split("\n") if ln.strip()]
    s_lines = [ln for ln in s.lines if ln.strip()]
    if len(f_lines) != len(s_lines) or any(a.strip() != b.strip() for a, b in zip(f_lines, s_lines, strict=True)):
        return found
    if uniform_shift(list(zip(f_lines, s_lines, strict=True))) is not None:
        return found
    return replace(found, strategy="indentation",
                   note=f"its lines are indented otherwise than the file's, which {lang.name} reads as code")


def _top_level(defs: list, span_start: int, span_end: int) -> list:
    out = []
    for d in defs:
        if any(o is not d and o.start <= d.start and d.end <= o.end for o in defs):
            continue
        out.append(d)
    return out


def _by_definition(
    text: FileText, s: SearchBlock, lang: Lang, f_toks: list[Token], s_toks: list[Token]
) -> Located | Refused | None:
    try:
        s_defs = definitions(s.norm, lang.for_snippet(s.norm))
    except Exception:
        return None
    tops = _top_level(s_defs, 0, len(s.norm))
    if len(tops) != 1:
        return None
    d = tops[0]
    if not (d.start <= s_toks[0].start and s_toks[-1].end <= d.end):
        return None  # the block holds more than the definition
    try:
        f_defs = definitions(text.norm, lang)
    except Exception:
        return None

    def same_kind(a: str, b: str) -> bool:
        return a == b or (a in _FUNCTIONS and b in _FUNCTIONS)

    named = [fd for fd in f_defs if fd.name == d.name and same_kind(fd.kind, d.kind)]
    if not named:
        return None
    target = " ".join(t.text for t in s_toks)
    tok_starts = [t.start for t in f_toks]
    close = []
    for fd in named:
        a = bisect.bisect_left(tok_starts, fd.start)
        b = bisect.bisect_left(tok_starts, fd.end)
        score = fuzz.ratio(target, " ".join(t.text for t in f_toks[a:b]))
        if score >= DEFINITION_THRESHOLD:
            close.append((fd, a, score))
    found = [
        _region(text, s, f_toks, first_tok, fd.start, fd.end, s_toks, "definition", score)
        for fd, first_tok, score in close
    ]
    if len(found) > 1:
        return ambiguous(found, f"definition of {d.name}")
    if len(found) != 1 or len(named) != 1:
        return None
    return found[0]


def _region(
    text: FileText,
    s: SearchBlock,
    f_toks: list[Token],
    first_tok: int,
    start: int,
    end: int,
    s_toks: list[Token],
    strategy: str,
    score: float | None,
) -> Located:
    norm = text.norm
    line_start = norm.rfind("\n", 0, start) + 1
    whole_start = not norm[line_start:start].strip()
    line_end = norm.find("\n", end)
    if line_end < 0:
        line_end = len(norm)
    whole_end = not norm[end:line_end].strip()
    if whole_start:
        start = line_start
        # Comment lines the search block starts with: take as many file lines above, when they
        # hold no tokens (they are comments or blank too), so that they are replaced, not doubled.
        s_head = s.norm[: s_toks[0].start]
        s_head_lines = [ln for ln in s_head.split("\n")[:-1] if ln.strip()]
        if s_head_lines:
            prev_end = f_toks[first_tok - 1].end if first_tok > 0 else 0
            cand = start
            taken = 0
            while taken < len(s_head_lines) and cand > 0:
                above = norm.rfind("\n", 0, cand - 1) + 1
                if above < prev_end or not norm[above : cand - 1].strip():
                    break
                cand = above
                taken += 1
            if taken == len(s_head_lines):
                start = cand
    if whole_end:
        end = line_end + (1 if line_end < len(norm) and (s.ends_nl or s.trailing_blank) else 0)
    reindent = False
    shift = 0
    use_tabs = False
    tab = 4
    widths: tuple[int, int] | None = None
    if whole_start:
        f_line_start = norm.rfind("\n", 0, f_toks[first_tok].start) + 1
        f_line = norm[f_line_start : norm.find("\n", f_line_start) % (len(norm) + 1)]
        s_line_start = s.norm.rfind("\n", 0, s_toks[0].start) + 1
        s_line_end = s.norm.find("\n", s_line_start)
        s_line = s.norm[s_line_start : s_line_end if s_line_end >= 0 else len(s.norm)]
        got = mode_shift([(f_line, s_line)])
        if got is not None:
            reindent, shift, tab, use_tabs = got[0], got[1], got[2], got[3]
            widths = (indent_width(s_line[: len(s_line) - len(s_line.lstrip(" \t"))], tab),
                      indent_width(f_line[: len(f_line) - len(f_line.lstrip(" \t"))], tab))
    has_nl = end > start and norm[end - 1] == "\n"
    transform = ReplacementTransform(
        newline=text.newline_at(start),
        reindent=reindent,
        shift=shift,
        tab_size=tab,
        use_tabs=use_tabs,
        strip_leading_blank=s.leading_blank,
        strip_trailing_blank=s.trailing_blank,
        final_newline=has_nl if whole_end else False,
        widths=widths,
    )
    return Located(
        text.to_raw(start), text.to_raw(end), strategy, transform, text.line_of(start), score
    )


def same_definitions(text: FileText, s: SearchBlock, lang: object,
                     places: Sequence[Located]) -> tuple[list[Located], str | None]:
    """The places that may be the search block's own code: when the block defines names (per
    the file's grammar), a place that defines other names and none of the block's is another
    definition -- ``add`` is never the closest match of ``div`` -- and is dropped. Also the
    block's first defined name (None when it defines none, or the grammar cannot tell)."""
    if not isinstance(lang, Lang):
        return list(places), None
    try:
        wanted = _top_level(definitions(s.norm, lang), 0, len(s.norm))
        if not wanted:
            return list(places), None
        defs = definitions(text.norm, lang)
    except Exception:
        return list(places), None
    names = {d.name for d in wanted}
    kept = []
    for p in places:
        start, end = _norm_offset(text, p.start), _norm_offset(text, p.end)
        inside = {d.name for d in defs if start <= d.start < end}
        if inside and not inside & names:
            continue
        kept.append(p)
    return kept, wanted[0].name


def _norm_offset(text: FileText, raw: int) -> int:
    """A raw offset of the file text in its LF-normalised text."""
    return raw - sum(1 for k, c in enumerate(text.crlf) if c + k < raw) if text.crlf else raw
