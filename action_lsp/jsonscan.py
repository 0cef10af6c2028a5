"""A tolerant JSON parser that keeps the source span of every value and key.

LLMs write JSON that strict parsers reject: trailing commas, ``//`` comments, single quotes,
raw newlines inside strings, stray backslashes (``"\\alpha"``). :func:`parse_json` accepts all of
that, reports each problem at the exact offending character, and still builds the value.

Every offset is an index into the whole document ``str`` (code points). The parser never
recurses (an explicit stack holds open containers), skips runs of plain string characters with
compiled regular expressions, and never backtracks, so it runs in linear time.

Three levels of trouble:

* **notes** -- quirks the agents' own parsers accept (``json.loads(strict=False)`` plus the
  original agent's repair): raw control characters inside strings, a backslash before a
  character that is no JSON escape (decoded literally, backslash kept).
* **repairable errors** -- ``json.loads`` rejects them, but the intent is clear and the parser
  recovers: trailing commas, comments, single-quoted strings, a missing comma at a line break,
  unquoted keys, Python's ``True``/``False``/``None``, a malformed ``\\u`` escape.
* **fatal errors** -- unterminated strings, unexpected characters, unexpected end of input.
  Parsing stops at the first one; the partial tree built so far is returned.

Each repairable error and note carries a ``fix`` (a :class:`~action_lsp.model.TextEdit`);
:func:`repair_json` applies them as minimal edits.
"""

from __future__ import annotations

import bisect
import functools
import gc
import json
import json.scanner
import operator
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from action_lsp import model
from action_lsp.model import Breaks, SourceMap, Span, TextEdit
from action_lsp.shared import share

# Keys and short string values are shared (action_lsp.shared): a transcript repeats the same few keys ("path",
# "content") and values (types, languages, paths) tens of thousands of times, and an open
# document keeps every one (a 10 MB dense transcript: 35,000 copies of its keys alone).
SHORT = 64

__all__ = [
    "FenceWalks",
    "JError",
    "JMember",
    "JNode",
    "JResult",
    "find_json_fence_end",
    "parse_json",
    "repair_json",
    "trailing_data_error",
]

JKind = Literal["object", "array", "string", "number", "bool", "null"]


@dataclass(slots=True)
class JNode:
    """One JSON value as written.

    ``span`` covers the whole value (strings: including the quotes). ``value`` is the decoded
    Python value of the whole subtree. Objects list their ``members`` in source order
    (duplicates kept; ``value`` keeps the last, as ``json.loads`` does), arrays their ``items``.
    Strings carry a ``source_map`` from indices in ``value`` to document offsets.
    """

    kind: JKind
    span: Span
    value: Any
    members: list[JMember] | None = None
    items: list[JNode] | None = None
    source_map: SourceMap | None = None

    def get(self, key: str) -> JMember | None:
        """The last member named ``key`` (objects only), else None."""
        if self.kind == "object" and key not in self.value:
            return None  # (the decoded value has every member's key: a tree made as read stays unmade)
        if not self.members:
            return None
        for member in reversed(self.members):
            if member.key == key:
                return member
        return None

    @property
    def inner_span(self) -> Span:
        """For strings the content inside the quotes; for other values ``span``."""
        if self.kind == "string" and self.source_map is not None:
            return Span(self.source_map.base, self.source_map.source_end)
        return self.span


@dataclass(slots=True)
class JMember:
    """``"key": value`` inside an object; ``key_span`` includes the key's quotes."""

    key: str
    key_span: Span
    value: JNode


@dataclass(slots=True)
class JError:
    """A problem at ``[offset, end)``. ``fix``, when present, is the edit that repairs it."""

    offset: int
    end: int
    message: str
    kind: str
    repairable: bool
    fix: TextEdit | None = None

    @property
    def span(self) -> Span:
        return Span(self.offset, self.end)


@dataclass(slots=True)
class JResult:
    """The outcome of :func:`parse_json`.

    ``node`` is None only when nothing usable was parsed. ``errors`` are sorted by offset; at
    most one of them is fatal (``repairable`` False), and parsing stopped there. ``end`` is the
    offset just past the parsed value, or where parsing stopped.
    """

    node: JNode | None
    errors: list[JError]
    notes: list[JError]
    end: int

    @property
    def ok(self) -> bool:
        """True when the value was parsed completely (repairable errors allowed)."""
        return self.node is not None and all(e.repairable for e in self.errors)

    @property
    def fatal(self) -> JError | None:
        for error in self.errors:
            if not error.repairable:
                return error
        return None


# --------------------------------------------------------------------------------------------
# Lexical helpers

_WS = re.compile(r"[ \t\n\r]*")
_EOL = re.compile(r"\r\n?|\n")
_DQ_SPECIAL = re.compile(r'["\\]')
_DQ_SIMPLE = re.compile(r'"[^"\\\x00-\x1f]*+"')
_DQ_BODY = re.compile(r'[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SQ_BODY = re.compile(r"[^'\\]*+(?:\\.[^'\\]*+)*+'", re.DOTALL)
# An escape: \uXXXX (with an optional \uXXXX low surrogate after it) or a backslash + any char.
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?|(.))", re.DOTALL)
_CTRL = re.compile(r"[\x00-\x1f]")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_IDENT = re.compile(r"[^\W0-9]\w*|\$[\w$]*")
_NEWLINE = re.compile(r"[\n\r]")
_WS_CHARS = frozenset(" \t\n\r")
_BLOCK_END = "*/"

# A valid escape, each decoding to one character (a surrogate pair is one escape here).
_VALID_ESCAPE = re.compile(
    r'\\(?:u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|["\\/bfnrt])'
)
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]


# The text in which the C decoder last refused a string, as (id, length): its error counts the
# lines from the start of the text (``JSONDecodeError``), so a text holding many bad escapes (a
# session whose every other record has one) would be read in quadratic time. Once a text has
# had one, its escaped strings are read by the Python path (linear), not offered to the decoder.
# (An id is reused after a text is freed: a new text then takes the Python path, as correct.)
_refused: tuple[int, int] = (0, -1)


def _decoder_refused(text: str) -> bool:
    return _refused == (id(text), len(text))


def _scan_c(text: str, start: int) -> tuple[str, int] | None:
    """The C decoder's reading of the string whose body starts at ``start`` (not strict), or
    None where it refuses it (a bad escape, no closing quote) or refused one in ``text`` before."""
    global _refused
    if _decoder_refused(text):
        return None
    try:
        return _scanstring(text, start, False)
    except ValueError:
        _refused = (id(text), len(text))
        return None


def _decoded_string(text: str, start: int, end: int) -> tuple[str | None, int]:
    """(decoded value, end just past the closing quote) of the double-quoted string whose
    body starts at ``start``, when it closes before ``end``, is longer than 8 characters and
    its escapes are all valid; else (None, -1).

    The C decoder (not strict: a raw control character is read, the caller looks for them)
    finds the closing quote as it decodes, where the tolerant path ran a regular expression over
    the body first (about 100 MB/s). Not strict, it fails only on a bad escape or no closing
    quote at all (it raises then, and the error it makes counts the lines before it: a search
    from the start of the text), as it did when called after that regular expression: a string
    with no quote before ``end`` is not given to it."""
    if text.find('"', start, end) < 0:  # unterminated before the bound: the tolerant path says so
        return None, -1
    read = _scan_c(text, start)
    if read is None:  # a bad escape: the tolerant path says where
        return None, -1
    value, after = read
    return (value, after) if start + 9 < after <= end else (None, -1)


_DQ_ESCAPES = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_SQ_ESCAPES = {**_DQ_ESCAPES, "'": "'"}
_CTRL_NAMES = {"\n": "newline", "\r": "carriage return", "\t": "tab"}
_CTRL_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_CTRL_TABLE = {i: _CTRL_ESCAPES.get(chr(i)) or f"\\u{i:04x}" for i in range(32)}
# A valid escape (kept) or a lone backslash (doubled).
_BACKSLASH_FIX = re.compile(r'(\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))|\\')

# Valid escapes, a lone backslash, a raw control character: what a string repair rewrites.
_DQ_REPAIR = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})|\\|[\x00-\x1f]')
_SQ_REPAIR = re.compile(r'\\(?:["\\/bfnrt\']|u[0-9a-fA-F]{4})|\\|[\x00-\x1f]|"')

_LITERALS: dict[str, tuple[JKind, Any, str | None]] = {
    "true": ("bool", True, None),
    "false": ("bool", False, None),
    "null": ("null", None, None),
    "True": ("bool", True, "true"),
    "False": ("bool", False, "false"),
    "None": ("null", None, "null"),
    "NaN": ("number", float("nan"), None),
    "Infinity": ("number", float("inf"), None),
}
_VALUE_START = frozenset('{["-0123456789' + "'")


_ESCAPED = re.compile('["\\\\\b\f\n\r\t]')  # what a two-character escape other than \\/ decodes to
# A ``\\u`` or ``\\/`` escape (or a backslash escaped before a u or a slash): one search for both
# where two ``str.find`` cost twice as much (a written file's text has a backslash a line).
_U_OR_SLASH = re.compile(r"\\[u/]")


def _escaped_breaks(value: str, start: int) -> tuple[array[int], array[int]]:
    """The breaks of a string whose content starts at ``start`` and decodes to ``value``, when
    every escape in it is a two-character one other than ``\\/`` and no control character is
    written raw: each character of ``value`` that only an escape writes (a quote, a backslash,
    a control character) ends an escape, the k-th (from 0) at value index ``v`` ending at
    ``start + v + k + 2``."""
    if len(value) < _NUMPY_FROM:
        at = [m.start() for m in _ESCAPED.finditer(value)]
        return (
            array("q", [v + 1 for v in at]),
            array("q", map(operator.add, at, range(start + 2, start + 2 + len(at)))),
        )
    import numpy as np

    if value.isascii():  # (a flag of the str: no scan) a byte a character, a quarter of the work
        codes = np.frombuffer(value.encode("ascii"), dtype=np.uint8)
    else:
        codes = np.frombuffer(value.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    # (no other control character can be in it: it would need a \u escape)
    hit = codes < 32
    hit |= codes == 34
    hit |= codes == 92
    found = hit.nonzero()[0].astype(np.int64, copy=False)  # (the method: flatnonzero is Python, two calls)
    idx, src = array("q"), array("q")
    idx.frombytes((found + 1).tobytes())
    found += np.arange(start + 2, start + 2 + len(found), dtype=np.int64)
    src.frombytes(found.tobytes())
    return idx, src


_NUMPY_FROM = 512  # characters from which a string's escapes are found by array operations
_COUNTED = 2048  # characters counted at most to map one index of such a string without its breaks


def _escaped_to_source(value: str, start: int, escapes: int, index: int) -> int:
    """The document offset of ``value[index]`` for :func:`_escaped_breaks`'s string (holding
    ``escapes`` escapes in all): ``start + index`` plus the escapes before it, counted on the
    shorter side of ``index``; -1 when both sides are longer than ``_COUNTED``."""
    n = len(value)
    if index <= n - index:
        return start + index + _count_escaped(value, 0, index) if index <= _COUNTED else -1
    return start + index + escapes - _count_escaped(value, index, n) if n - index <= _COUNTED else -1


def _count_escaped(value: str, a: int, b: int) -> int:
    if b - a <= _FOUND_UP_TO:  # (one search: seven counts cost more over a short stretch)
        return len(_ESCAPED.findall(value, a, b))
    return (value.count("\n", a, b) + value.count('"', a, b) + value.count("\\", a, b) + value.count("\t", a, b)
            + value.count("\r", a, b) + value.count("\b", a, b) + value.count("\f", a, b))


_FOUND_UP_TO = 256  # characters up to which the escaped ones are found by one search, not counted


def strict_string_map(text: str, pos: int, value: str, end: int) -> SourceMap:
    """The source map :meth:`_Parser.string` makes for the strict JSON string (no raw control
    character, every escape valid) whose opening quote is at ``pos``, which decodes to ``value``
    and ends at ``end`` (just past its closing quote): what a tree made as read asks of each
    string read inside, without the parser, its node and its searches."""
    start = pos + 1
    j = end - 1
    n = len(value)
    if n == j - start:  # (every escape writes one character in two or more: none here)
        return SourceMap(start, n, j)
    if model.LAZY and _U_OR_SLASH.search(text, start, j) is None:
        return SourceMap(start, n, j, Breaks.lazy(
            functools.partial(_escaped_breaks, value, start),
            functools.partial(_escaped_to_source, value, start, j - start - n),
        ))
    made = _Parser(text, end).string(pos, value, end).source_map
    assert made is not None
    return made


def _describe(ch: str) -> str:
    if not ch:
        return "end of input"
    if ch in _CTRL_NAMES:
        return _CTRL_NAMES[ch]
    if ch < " " or ch == "\x7f":
        return f"U+{ord(ch):04X}"
    return repr(ch)


def _repair_match(m: re.Match[str]) -> str:
    s = m.group()
    if len(s) > 1:  # a valid escape
        return "'" if s == "\\'" else s
    if s == "\\":
        return "\\\\"
    if s == '"':
        return '\\"'
    return _CTRL_ESCAPES.get(s) or f"\\u{ord(s):04x}"


def _repair_content(raw: str, backslashes: bool) -> str:
    """Strict JSON for the inside of a double-quoted string written as ``raw``."""
    if backslashes:
        raw = _BACKSLASH_FIX.sub(lambda m: m.group(1) or "\\\\", raw)
    return raw.translate(_CTRL_TABLE)


def _repair_string(raw: str, quote: str) -> str:
    """JSON text for a string written between ``quote`` characters as ``raw``."""
    pattern = _DQ_REPAIR if quote == '"' else _SQ_REPAIR
    return '"' + pattern.sub(_repair_match, raw) + '"'


# --------------------------------------------------------------------------------------------
# The parser

# Parser states.
_VALUE = 0  # a value must come next
_FIRST_ITEM = 1  # just after '[': a value or ']'
_KEY = 2  # just after '{' (or after a comma): a key or '}'
_AFTER = 3  # after a value inside a container: ',' or the closer


class _Fatal(Exception):
    """Raised internally to stop at the first unrecoverable error."""


@dataclass(slots=True)
class _Frame:
    node: JNode
    is_object: bool
    comma: int = -1  # offset of the comma just read, or -1
    key: str | None = None
    key_span: Span | None = None
    prev_end: int = 0  # end of the last value read in this container


@dataclass(slots=True)
class _Parser:
    text: str
    end: int
    errors: list[JError] = field(default_factory=list)
    notes: list[JError] = field(default_factory=list)

    # -- reporting --------------------------------------------------------------------------

    def error(
        self,
        offset: int,
        end: int,
        kind: str,
        message: str,
        fix: TextEdit | None = None,
    ) -> None:
        self.errors.append(JError(offset, end, message, kind, True, fix))

    def fatal(self, offset: int, kind: str, message: str, end: int | None = None) -> _Fatal:
        if end is None:
            end = min(offset + 1, self.end)
        self.errors.append(JError(offset, max(offset, end), message, kind, False))
        return _Fatal()

    def unexpected(self, pos: int, expected: str) -> _Fatal:
        if pos >= self.end:
            return self.fatal(
                pos, "unexpected-end", f"unexpected end of input; expected {expected}"
            )
        ch = self.text[pos]
        return self.fatal(
            pos, "unexpected-char", f"unexpected {_describe(ch)}; expected {expected}"
        )

    # -- whitespace and comments ------------------------------------------------------------

    def skip(self, pos: int) -> int:
        """Skip whitespace and comments (each comment is a repairable error)."""
        text = self.text
        end = self.end
        while True:
            m = _WS.match(text, pos, end)
            if m is not None:
                pos = m.end()
            if pos + 1 >= end or text[pos] != "/":
                return pos
            nxt = text[pos + 1]
            if nxt == "/":
                eol = _EOL.search(text, pos, end)
                stop = eol.start() if eol is not None else end
                after = eol.end() if eol is not None else end
                self.comment(pos, stop, after)
                pos = stop
            elif nxt == "*":
                close = text.find(_BLOCK_END, pos + 2, end)
                if close < 0:
                    raise self.fatal(
                        pos,
                        "comment",
                        "unterminated /* comment; JSON has no comments: remove it",
                        pos + 2,
                    )
                self.comment(pos, close + 2, close + 2)
                pos = close + 2
            else:
                return pos

    def comment(self, start: int, stop: int, after: int) -> None:
        """Record the comment ``[start, stop)``; ``after`` is past its line end for ``//``."""
        text = self.text
        # Delete the blanks before it too; a comment alone on its line takes the line with it.
        lead = start
        while lead > 0 and text[lead - 1] in " \t":
            lead -= 1
        del_end = stop
        if lead == 0 or text[lead - 1] in "\r\n":
            if after > stop:
                del_end = after
            else:
                while del_end < self.end and text[del_end] in " \t":
                    del_end += 1
        style = "//" if text.startswith("//", start) else "/* */"
        self.error(
            start,
            stop,
            "comment",
            f"{style} comment: JSON has no comments; remove it",
            TextEdit(Span(lead, del_end), ""),
        )

    # -- scalars ----------------------------------------------------------------------------

    def string(self, pos: int, known: str | None = None, strict_end: int = -1) -> JNode:
        """The string starting at the quote at ``pos``; ``known``, when given, is its decoded
        value (strict JSON decoded by msgspec: kept as the value, and by a lazy map), and
        ``strict_end`` its end (just past the closing quote) when the caller knows it is strict
        JSON (no raw control character, every escape valid)."""
        text = self.text
        end = self.end
        quote = text[pos]
        start = pos + 1
        body: re.Match[str] | None = None
        if quote == '"':
            simple = _DQ_SIMPLE.match(text, pos, end)
            if simple is not None:  # no escapes, no control characters: the common case
                j = simple.end() - 1
                return JNode(
                    "string",
                    Span(pos, j + 1),
                    text[start:j] if j - start > SHORT else share(text[start:j]),
                    source_map=SourceMap(start, j - start, j),
                )
            clean = strict_end >= 0  # (the caller knows: strict JSON, no raw control character, no stray escape)
            if strict_end < 0 and known is None:
                known, strict_end = _decoded_string(text, start, end)
            if strict_end < 0:
                body = _DQ_BODY.match(text, start, end)
            escapes = _DQ_ESCAPES
        else:
            clean = False
            body = _SQ_BODY.match(text, start, end)
            escapes = _SQ_ESCAPES
        if body is None and strict_end < 0:
            raise self.fatal(
                pos,
                "unterminated-string",
                f"unterminated string: no closing {quote} before the end; add it",
            )
        j = strict_end - 1 if body is None else body.end() - 1
        ctrl = None if clean else _CTRL.search(text, start, j)  # (once: it was searched for twice)
        stray = -1
        breaks: list[tuple[int, int]] = []
        fast_breaks: Breaks | None = None
        decoded_fast: str | None = None
        if known is not None:
            decoded_fast = known
        elif quote == '"' and j - start > 8:
            # The C decoder handles strings whose escapes are all valid; only the map is ours.
            read = _scan_c(text, start)
            decoded_fast = read[0] if read is not None else None
        if text.find("\\", start, j) < 0:
            value = text[start:j]
        elif decoded_fast is not None:
            value = decoded_fast
            if model.LAZY and _U_OR_SLASH.search(text, start, j) is None \
                    and ctrl is None:
                # Every escape decodes to a character that is never written raw: the breaks
                # follow from the value alone, worked out when first read.
                fast_breaks = Breaks.lazy(
                    functools.partial(_escaped_breaks, value, start),
                    functools.partial(_escaped_to_source, value, start, j - start - len(value)),
                )
            elif text.find("\\u", start, j) < 0:
                # Only two-character escapes: the k-th (from 0) ends at `after` and the value
                # has shrunk by k + 1 there. Worked out by C loops (a code body has one escape
                # a line).
                ends = [m.end() for m in _VALID_ESCAPE.finditer(text, start, j)]
                fast_breaks = Breaks.from_arrays(
                    array("q", map(operator.sub, ends, range(start + 1, start + 1 + len(ends)))),
                    array("q", ends),
                )
            else:
                shrink = 0
                for m in _VALID_ESCAPE.finditer(text, start, j):
                    after = m.end()
                    shrink += after - m.start() - 1
                    breaks.append((after - start - shrink, after))
        else:
            chunks: list[str] = []
            vlen = 0
            i = start
            for m in _ESCAPE.finditer(text, start, j):
                s = m.start()
                if s > i:
                    chunks.append(text[i:s])
                    vlen += s - i
                i = m.end()
                hex1, hex2, other = m.group(1, 2, 3)
                if other is not None:
                    decoded = escapes.get(other)
                    if decoded is not None:
                        chunks.append(decoded)
                        vlen += 1
                        breaks.append((vlen, i))
                        continue
                    # Not a JSON escape: keep the backslash and the character, as the agent does.
                    if other == "u":
                        self.bad_unicode_escape(s)
                    elif stray < 0:
                        stray = s
                    chunks.append(text[s:i])
                    vlen += 2
                    continue
                cp = int(hex1, 16)
                if hex2 is not None:
                    low = int(hex2, 16)
                    if 0xD800 <= cp <= 0xDBFF:
                        chunks.append(chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)))
                    else:
                        chunks.append(chr(cp))
                        vlen += 1
                        breaks.append((vlen, s + 6))
                        chunks.append(chr(low))
                else:
                    chunks.append(chr(cp))
                vlen += 1
                breaks.append((vlen, i))
            if j > i:
                chunks.append(text[i:j])
            value = "".join(chunks)
        if len(value) <= SHORT:
            value = share(value)
        node = JNode(
            "string",
            Span(pos, j + 1),
            value,
            source_map=SourceMap(start, len(value), j, fast_breaks if fast_breaks is not None else tuple(breaks)),
        )
        fix: TextEdit | None = None
        if quote == "'":
            fix = TextEdit(node.span, _repair_string(text[start:j], quote))
            self.error(
                pos,
                pos + 1,
                "single-quote",
                "single-quoted string: JSON strings use double quotes; replace the quotes",
                fix,
            )
        if ctrl is not None or stray >= 0:
            if fix is None:
                fix = TextEdit(Span(start, j), _repair_content(text[start:j], stray >= 0))
            if ctrl is not None:
                ch = ctrl.group()
                self.notes.append(
                    JError(
                        ctrl.start(),
                        ctrl.start() + 1,
                        f"raw {_describe(ch)} inside a string; strict JSON needs it escaped"
                        f" as {_CTRL_TABLE[ord(ch)]}",
                        "control-char",
                        True,
                        fix,
                    )
                )
            if stray >= 0:
                self.notes.append(
                    JError(
                        stray,
                        stray + 2,
                        f"'\\{text[stray + 1]}' is not a JSON escape; it is read as a literal"
                        " backslash; write '\\\\' to be explicit",
                        "invalid-escape",
                        True,
                        fix,
                    )
                )
        return node

    def bad_unicode_escape(self, j: int) -> None:
        self.error(
            j,
            min(j + 6, self.end),
            "invalid-unicode-escape",
            "invalid \\u escape: it needs 4 hex digits; write '\\\\u' for a literal backslash-u",
            TextEdit(Span(j, j + 1), "\\\\"),
        )

    def scalar(self, pos: int) -> JNode:
        text = self.text
        ch = text[pos]
        if ch == '"' or ch == "'":
            return self.string(pos)
        m = _NUMBER.match(text, pos, self.end)
        if m is not None:
            s = m.group()
            number: int | float
            try:
                number = float(s) if m.group(1) or m.group(2) else int(s)
            except ValueError as exc:  # an integer too long for int()
                raise self.fatal(pos, "unexpected-char", f"number out of range ({exc})") from None
            return JNode("number", Span(pos, m.end()), number)
        if ch == "-" and text.startswith("-Infinity", pos):
            return JNode("number", Span(pos, pos + 9), float("-inf"))
        w = _IDENT.match(text, pos, self.end)
        if w is not None and w.group() in _LITERALS:
            word = w.group()
            kind, value, spelling = _LITERALS[word]
            span = Span(pos, w.end())
            if spelling is not None:
                self.error(
                    pos,
                    w.end(),
                    "python-literal",
                    f"Python literal {word}: JSON spells it {spelling}; replace it",
                    TextEdit(span, spelling),
                )
            return JNode(kind, span, value)
        raise self.unexpected(pos, "a value")

    # -- the main loop ----------------------------------------------------------------------

    def parse(self, pos: int) -> tuple[JNode | None, int]:
        text = self.text
        end = self.end
        stack: list[_Frame] = []
        root: JNode | None = None
        state = _VALUE
        ws_match = _WS.match
        dq_simple = _DQ_SIMPLE.match
        try:
            while True:
                ch = text[pos] if pos < end else ""
                if ch in _WS_CHARS:
                    pos = ws_match(text, pos, end).end()  # type: ignore[union-attr]
                    ch = text[pos] if pos < end else ""
                if ch == "/":
                    pos = self.skip(pos)
                    ch = text[pos] if pos < end else ""
                if not ch and stack:
                    raise self.unclosed(stack[-1], pos)
                if state == _AFTER:
                    frame = stack[-1]
                    closer = "}" if frame.is_object else "]"
                    if ch == ",":
                        frame.comma = pos
                        pos += 1
                        state = _KEY if frame.is_object else _VALUE
                        continue
                    if ch == closer:
                        pos += 1
                        closed = stack.pop().node
                        closed.span = Span(closed.span.start, pos)
                        if not stack:
                            return root, pos
                        stack[-1].prev_end = pos
                        continue
                    if (
                        ch
                        and self.starts_entry(pos, frame.is_object)
                        and _NEWLINE.search(text, frame.prev_end, pos)
                    ):
                        where = "members" if frame.is_object else "items"
                        self.error(
                            pos,
                            pos + 1,
                            "missing-comma",
                            f"missing ',' between {where}; add a comma after the previous one",
                            TextEdit(Span(frame.prev_end, frame.prev_end), ","),
                        )
                        frame.comma = -1
                        state = _KEY if frame.is_object else _VALUE
                        continue
                    raise self.unexpected(pos, f"',' or '{closer}'")
                if state == _KEY:
                    frame = stack[-1]
                    if ch == "}":
                        if frame.comma >= 0:
                            self.trailing_comma(frame.comma, "}")
                        pos += 1
                        closed = stack.pop().node
                        closed.span = Span(closed.span.start, pos)
                        if not stack:
                            return root, pos
                        stack[-1].prev_end = pos
                        state = _AFTER
                        continue
                    simple = dq_simple(text, pos, end) if ch == '"' else None
                    if simple is not None:
                        frame.key = share(text[pos + 1 : simple.end() - 1])
                        pos = simple.end()
                        frame.key_span = Span(simple.start(), pos)
                    else:
                        pos = self.key(frame, pos)
                    if pos >= end or text[pos] != ":":
                        pos = self.skip(pos)
                        if pos >= end or text[pos] != ":":
                            raise self.unexpected(pos, "':' after the key")
                    pos += 1
                    state = _VALUE
                    continue
                if state == _FIRST_ITEM or (state == _VALUE and stack and not stack[-1].is_object):
                    frame = stack[-1]
                    if ch == "]":
                        if state != _FIRST_ITEM:
                            self.trailing_comma(frame.comma, "]")
                        pos += 1
                        closed = stack.pop().node
                        closed.span = Span(closed.span.start, pos)
                        if not stack:
                            return root, pos
                        stack[-1].prev_end = pos
                        state = _AFTER
                        continue
                # A value.
                if not ch:
                    raise self.unexpected(pos, "a value")
                if ch == "{":
                    node = JNode("object", Span(pos, pos), {}, members=[])
                    nxt_state = _KEY
                    pos += 1
                elif ch == "[":
                    node = JNode("array", Span(pos, pos), [], items=[])
                    nxt_state = _FIRST_ITEM
                    pos += 1
                elif ch == '"':
                    node = self.string(pos)
                    pos = node.span.end
                    nxt_state = _AFTER
                else:
                    node = self.scalar(pos)
                    pos = node.span.end
                    nxt_state = _AFTER
                if stack:
                    frame = stack[-1]
                    container = frame.node
                    if frame.is_object:
                        key = frame.key
                        assert key is not None and frame.key_span is not None
                        container.members.append(JMember(key, frame.key_span, node))  # type: ignore[union-attr]
                        container.value[key] = node.value
                    else:
                        container.items.append(node)  # type: ignore[union-attr]
                        container.value.append(node.value)
                    frame.comma = -1
                    frame.prev_end = pos
                else:
                    root = node
                if node.kind == "object" or node.kind == "array":
                    stack.append(_Frame(node, node.kind == "object"))
                elif not stack:
                    return root, pos
                state = nxt_state
        except _Fatal:
            stop = self.errors[-1].offset
            for frame in stack:
                frame.node.span = Span(frame.node.span.start, stop)
            return root, stop

    def unclosed(self, frame: _Frame, pos: int) -> _Fatal:
        what, closer = ("object", "}") if frame.is_object else ("array", "]")
        return self.fatal(
            pos,
            "unexpected-end",
            f"unexpected end of input: an {what} is not closed; add '{closer}'",
        )

    def starts_entry(self, pos: int, is_object: bool) -> bool:
        ch = self.text[pos]
        if is_object:
            return ch == '"' or ch == "'" or _IDENT.match(self.text, pos, self.end) is not None
        if ch in _VALUE_START:
            return True
        w = _IDENT.match(self.text, pos, self.end)
        return w is not None and w.group() in _LITERALS

    def key(self, frame: _Frame, pos: int) -> int:
        text = self.text
        ch = text[pos] if pos < self.end else ""
        if ch == '"' or ch == "'":
            node = self.string(pos)
            frame.key = share(node.value)
            frame.key_span = node.span
            return node.span.end
        w = _IDENT.match(text, pos, self.end) if ch else None
        if w is None:
            if frame.comma >= 0 and ch == ",":
                raise self.unexpected(pos, "a key (two commas in a row?)")
            raise self.unexpected(pos, "a key in double quotes or '}'")
        word = w.group()
        self.error(
            pos,
            w.end(),
            "unquoted-key",
            f"unquoted key {word}: JSON keys are strings; put it in double quotes",
            TextEdit(Span(pos, w.end()), json.dumps(word, ensure_ascii=False)),
        )
        frame.key = share(word)
        frame.key_span = Span(pos, w.end())
        return w.end()

    def trailing_comma(self, comma: int, closer: str) -> None:
        self.error(
            comma,
            comma + 1,
            "trailing-comma",
            f"trailing comma before '{closer}'; remove it",
            TextEdit(Span(comma, comma + 1), ""),
        )


#: Texts this long or longer that are strict JSON get a tree made as it is read (jsonlazy).
LAZY_TREE = 65536


def parse_json(text: str, start: int = 0, end: int | None = None) -> JResult:
    """Parse the first JSON value in ``text[start:end]`` (leading whitespace allowed).

    Parsing stops just after the first complete value; what follows is the caller's business
    (see :func:`trailing_data_error`). All offsets are indices into ``text``.

    A long text that is one strict JSON object or array (and whitespace) gets a tree whose
    containers' members are made when first read (:mod:`action_lsp.jsonlazy`), the same nodes
    as the eager parse's.
    """
    stop = len(text) if end is None else min(end, len(text))
    return _whole_lazy(text, start, stop) or parse_eager(text, start, stop)


def _whole_lazy(text: str, start: int, stop: int) -> JResult | None:
    """The tree made as read (:mod:`action_lsp.jsonlazy`) of ``text[start:stop]`` when it is
    :data:`LAZY_TREE` characters or more and one strict JSON object or array (and whitespace),
    decoded by msgspec at once; else None."""
    if stop - start < LAZY_TREE or not model.LAZY:
        return None
    from .jsonlazy import lazy_tree

    made = lazy_tree(text, start, stop)
    return JResult(made[0], [], [], made[1]) if made is not None else None


# (NaN and Infinity pass the scanner; msgspec, which makes the tree, refuses them)
_FIRST_VALUE: Callable[[str, int], tuple[Any, int]] = json.scanner.make_scanner(
    json.JSONDecoder()  # type: ignore[arg-type]  # (typeshed: the scanner's own class)
)


_SCANNED = (0, 0, 0, 0)  # id and length of a text, start and reach of the last value parse_strict refused
_REFUSALS = (0, 0, 0)  # id and length of a text, and how many values parse_strict refused in it
#: Refusals after which a text is left to the tolerant parser: the scanner's error
#: (``json.JSONDecodeError``) counts the lines from the text's start to say where it stopped, so
#: each refusal costs a read of the text up to there.
MAX_REFUSALS = 8


def parse_strict(text: str, start: int, end: int) -> JResult | None:
    """:func:`parse_json` of ``text[start:end]`` when its first value, at ``start``, is a strict
    JSON object or array that ends before ``end``; else None (ask :func:`parse_json`).

    The value's end is found by the standard library's C scanner, which reads that value alone
    (not what follows it, as a decoder of the whole slice would), so offering value after value
    of a long text stays linear; its tree is then made as it is read (:mod:`action_lsp.jsonlazy`)
    whatever its length. The tolerant parser, given the same strict text, stops at the same end
    and builds the same nodes, with no error or note.
    """
    global _SCANNED, _REFUSALS
    if not model.LAZY or start >= end or text[start] not in "{[":
        return None
    if _SCANNED[0] == id(text) and _SCANNED[1] == len(text) and _SCANNED[2] < start < _SCANNED[3]:
        return None  # inside a value the scanner read and refused: each character is scanned once
    # All the rest one value (a whole JSON document): msgspec decodes it in C at once; the
    # scanner below would first decode it into Python objects just to find its end.
    whole = _whole_lazy(text, start, end)
    if whole is not None:
        return whole
    refused = _REFUSALS[2] if _REFUSALS[0] == id(text) and _REFUSALS[1] == len(text) else 0
    if refused >= MAX_REFUSALS:
        return None
    try:
        _value, stop = _FIRST_VALUE(text, start)
    except StopIteration as e:
        stop = e.value + 1
    except ValueError as e:  # (json.JSONDecodeError: where the scanner stopped)
        stop = getattr(e, "pos", len(text)) + 1
    except RecursionError:
        stop = len(text)
    else:
        if stop <= end:
            from .jsonlazy import _decoders, _tree

            decoders = _decoders()
            made = _tree(text, start, stop, decoders[0]) if decoders is not None else None
            if made is not None:
                return JResult(made[0], [], [], made[1])
    # Refused (not strict JSON, longer than the bound, or refused by msgspec): the values nested in this one, offered
    # next, are not scanned again (a ``{`` nested at every line would be read to its end each time).
    # (A wrong match, an id reused, only sends a value to the tolerant parser.)
    _SCANNED = (id(text), len(text), start, stop)
    _REFUSALS = (id(text), len(text), refused + 1)
    return None


def parse_eager(text: str, start: int = 0, end: int | None = None) -> JResult:
    """:func:`parse_json` building every node at once."""
    stop = len(text) if end is None else min(end, len(text))
    parser = _Parser(text, stop)
    # The tree is acyclic; pausing the cyclic collector while it grows saves about a third.
    paused = stop - start > 65536 and gc.isenabled()
    if paused:
        gc.disable()
    try:
        node, pos = parser.parse(start)
    finally:
        if paused:
            gc.enable()
    errors = parser.errors
    if len(errors) > 1:
        errors.sort(key=lambda e: e.offset)
    if parser.notes and len(parser.notes) > 1:
        parser.notes.sort(key=lambda e: e.offset)
    return JResult(node, errors, parser.notes, pos)


def trailing_data_error(text: str, pos: int, end: int | None = None) -> JError | None:
    """An ``extra-data`` error when ``text[pos:end]`` holds more than whitespace."""
    stop = len(text) if end is None else min(end, len(text))
    m = _WS.match(text, pos, stop)
    after = m.end() if m is not None else pos
    if after >= stop:
        return None
    return JError(
        after,
        stop,
        "extra data after the JSON value; remove it or put it inside the value",
        "extra-data",
        False,
    )


# --------------------------------------------------------------------------------------------
# Closing fence of a ```actions block


@functools.lru_cache(maxsize=16)
def _fence_pattern(fence_char: str, fence_len: int) -> re.Pattern[str]:
    return re.compile(" {0,3}" + re.escape(fence_char) + f"{{{fence_len},}}[ \t]*")


_OUTSIDE_SPECIAL = re.compile(r'"|//')


class FenceWalks:
    """What earlier :func:`find_json_fence` walks over one text found, for later ones.

    A walk's outcome from a line on depends only on that line's start and whether a string is
    open there. Blocks that all run to one far closing fence (``{"actions": []}`` blocks with
    no fences of their own) would each walk to it; with this memo a walk stops where it meets
    a line an earlier walk passed in the same state, and takes that walk's outcome, so every
    line is walked at most twice (once per state) in all.
    """

    __slots__ = ("seen", "walks")

    def __init__(self) -> None:
        # (line start, string open) -> index of the walk that passed there
        self.seen: dict[tuple[int, bool], int] = {}
        # per walk: (close found outside a string, fence lines inside strings, string open at the end)
        self.walks: list[tuple[tuple[int, int] | None, list[tuple[int, int]], bool]] = []


def find_json_fence(
    text: str,
    body_start: int,
    fence_char: str = "`",
    fence_len: int = 3,
    walks: FenceWalks | None = None,
) -> tuple[tuple[int, int] | None, int]:
    """Find the closing fence of a JSON block whose body starts at ``body_start``.

    Walks line by line tracking whether a JSON string is open (raw newlines keep it open), so
    a fence line inside a string does not close the block. Returns ``(line_start, line_end)``
    where ``line_end`` is past the line's end-of-line, or None when nothing closes the block.
    If a string is still open at the end of the text, the first fence line is used regardless
    of strings. ``walks`` (one per text and fence kind) shares the work between blocks.
    """
    fence = _fence_pattern(fence_char, fence_len)
    n = len(text)
    pos = body_start
    in_string = False
    first_fence: tuple[int, int] | None = None
    seen = walks.seen if walks is not None else None
    me = len(walks.walks) if walks is not None else -1
    in_fences: list[tuple[int, int]] = []
    while pos < n:
        if seen is not None:
            key = (pos, in_string)
            other = seen.get(key)
            if other is not None:
                assert walks is not None
                close, fences, open_at_end = walks.walks[other]
                if close is not None:
                    walks.walks.append((close, in_fences, False))
                    return close, close[1]
                k = bisect.bisect_left(fences, (pos, -1))
                if first_fence is None and k < len(fences):
                    first_fence = fences[k]
                in_fences.extend(fences[k:])
                walks.walks.append((None, in_fences, open_at_end))
                return (first_fence if open_at_end else None), n
            seen[key] = me
        eol = _EOL.search(text, pos)
        line_end = eol.start() if eol is not None else n
        after = eol.end() if eol is not None else n
        m = fence.match(text, pos, line_end)
        if m is not None and m.end() == line_end:
            if not in_string:
                if walks is not None:
                    walks.walks.append(((pos, after), in_fences, False))
                return (pos, after), after
            if first_fence is None:
                first_fence = (pos, after)
            if walks is not None:
                in_fences.append((pos, after))
            pos = after
            continue
        i = pos
        while i < line_end:
            if in_string:
                sm = _DQ_SPECIAL.search(text, i, line_end)
                if sm is None:
                    break
                if text[sm.start()] == "\\":
                    i = sm.start() + 2
                    continue
                in_string = False
                i = sm.end()
            else:
                om = _OUTSIDE_SPECIAL.search(text, i, line_end)
                if om is None or om.group() == "//":
                    break
                in_string = True
                i = om.end()
        pos = after
    if walks is not None:
        walks.walks.append((None, in_fences, in_string))
    return (first_fence if in_string else None), n


def find_json_fence_end(
    text: str, body_start: int, fence_char: str = "`", fence_len: int = 3
) -> tuple[int, int] | None:
    """Find the closing fence of a JSON block whose body starts at ``body_start``.

    See :func:`find_json_fence`, which also says how far it read (the end of the text when no
    fence line outside a string was found)."""
    return find_json_fence(text, body_start, fence_char, fence_len)[0]


# --------------------------------------------------------------------------------------------
# Repair


def _loads(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _apply_fixes(text: str, result: JResult) -> str | None:
    edits: dict[tuple[int, int, str], TextEdit] = {}
    for problem in (*result.errors, *result.notes):
        if problem.fix is None:
            return None
        fix = problem.fix
        edits[(fix.span.start, fix.span.end, fix.new_text)] = fix
    ordered = sorted(edits.values(), key=lambda e: (e.span.start, e.span.end))
    out: list[str] = []
    pos = 0
    for edit in ordered:
        if edit.span.start < pos:
            # A fix nested in an earlier one (a \\u fix inside a string rewrite) is covered by it.
            if edit.span.end <= pos:
                continue
            return None
        out.append(text[pos : edit.span.start])
        out.append(edit.new_text)
        pos = edit.span.end
    out.append(text[pos:])
    return "".join(out)


def repair_json(text: str) -> str | None:
    """A repaired JSON text for ``text``, or None when it cannot be repaired.

    Valid JSON comes back unchanged. Otherwise the tolerant parser's fixes are applied as
    minimal edits (layout kept); when they are not enough, ``json_repair`` is tried. The result
    always loads with ``json.loads``.
    """
    ok, _ = _loads(text)
    if ok:
        return text
    result = parse_json(text)
    if result.ok and result.node is not None:
        trailing = trailing_data_error(text, result.end)
        if trailing is None:
            fixed = _apply_fixes(text, result)
            if fixed is not None:
                good, value = _loads(fixed)
                if good and _same(value, result.node.value):
                    return fixed
    try:
        import json_repair
    except ImportError:  # pragma: no cover - it is a dependency
        return None
    try:
        repaired = json_repair.repair_json(text, ensure_ascii=False)
    except Exception:  # json_repair raises on pathological input; treat as "cannot repair"
        return None
    if not isinstance(repaired, str) or not repaired.strip():
        return None
    good, value = _loads(repaired)
    if not good:
        return None
    node = result.node
    if node is not None:
        # json_repair guesses; keep its guess only when it agrees with what we did parse.
        if result.ok and not _same(value, node.value):
            return None
        if not result.ok and not _extends(node.value, value):
            return None
    return repaired


def _extends(partial: Any, full: Any) -> bool:
    """Whether ``full`` completes the partially parsed ``partial`` (same keys, item prefix)."""
    pending = [(partial, full)]
    while pending:
        a, b = pending.pop()
        if isinstance(a, dict):
            if not isinstance(b, dict) or any(k not in b for k in a):
                return False
            pending.extend((v, b[k]) for k, v in a.items())
        elif isinstance(a, list):
            if not isinstance(b, list) or len(b) < len(a):
                return False
            pending.extend(zip(a, b, strict=False))
        elif not _same(a, b):
            return False
    return True


def _same(a: Any, b: Any) -> bool:
    # NaN != NaN; compare through JSON text so that NaN values still count as equal.
    try:
        return bool(a == b) or json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False
