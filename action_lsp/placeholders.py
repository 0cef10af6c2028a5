"""Placeholder comments: the lines of a lazy snippet that stand for code left out.

Chat assistants answer with *lazy snippets*: the file's changed parts, with the unchanged code
elided by a comment such as ``// ... existing code ...``, ``# ... rest of the code unchanged
...``, ``<!-- ... -->``, ``{/* ... */}`` or the same in another language (``// ...
现有代码保持不变 ...``). Written as a whole file, each such comment replaces the code it stands
for. This module is the one place that *recognises* them, for the ``truncated-content`` rule,
the plan, the ``chat-answer`` dialect and the snippet merge (:mod:`.edit.lazymerge`) alike:

- :func:`placeholder_text` -- whether one line is a placeholder, and what it says;
- :func:`is_placeholder` -- whether one line (a comment, with its comment marker) is one;
- :func:`find_placeholders` -- every placeholder line of a text, as :class:`Placeholder`;
- :func:`placeholder_lines` -- ``(start, end)`` in a text of each placeholder line (its text,
  without indentation or trailing blanks), in order;
- :func:`has_placeholder` -- whether a text holds one.

A placeholder is a line holding nothing but a comment (``//``, ``#``, ``/*``, ``{/*``, ``<!--``,
``--``, ``;``, ``*``, ``%``, ``'``) whose text is an ellipsis alone (``...``, ``…``, ``。。。``);
or an ellipsis with a word of omission (``rest``, ``existing``, ``unchanged``, ``other``,
``same``, ``omitted`` ..., or one of the localized words of :data:`_LOCAL_WORDS`); or an
omission said in words without an ellipsis (``rest of the code``, ``code remains the same``,
``existing methods here``, ``omitted for brevity``: :data:`_STRONG`); or, in any language,
words between two ellipses (``... 其余代码不变 ...``, ``… остальной код …``) with none of the
punctuation code is made of. A comment holding code (``// foo(...)``), ``// Loading...``, ``#
TODO: handle errors ...`` or a sentence that merely mentions the rest (``# the rest is tested
below``) is none. Each line is looked at once, with anchored matches (linear in the text).

Two readings of a comment are tried, and a line is a placeholder when either takes it: the
*closed* reading (:data:`_LINE`: the whole line one comment, its closer optional) and the
*open* one (:data:`_COMMENT`: a comment marker, then text to the end of the line).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Placeholder", "find_placeholders", "has_placeholder", "is_placeholder",
           "placeholder_lines", "placeholder_text"]


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A placeholder line: ``start``/``end`` cover the whole line (no line break), ``line`` is
    0-based, ``indent`` its leading whitespace, ``text`` what the comment says (stripped)."""

    start: int
    end: int
    line: int
    indent: str
    text: str


_CODE = r"(?:code|file|implementation|content|contents|methods?|functions?|logic|components?|styles?|imports?|props|lines?|body|class|properties|fields|cases|routes?|handlers?|tests?|config(?:uration)?)"
# Said without an ellipsis, only these phrases mean "code left out here".
_STRONG = re.compile(
    rf"(?:the[ \t]+)?(?:rest|remainder)[ \t]+of[ \t]+(?:the[ \t]+|your[ \t]+|this[ \t]+)?{_CODE}\b"
    rf"|{_CODE}[ \t]+(?:remains?|stays?)[ \t]+(?:the[ \t]+same|unchanged|as[ \t]+(?:is|before))"
    rf"|(?:existing|previous|remaining|unchanged|original)[ \t]+{_CODE}[ \t]+(?:here|goes[ \t]+here|unchanged|as[ \t]+before)\b"
    rf"|(?:keep|leave)[ \t]+(?:the[ \t]+)?(?:rest|existing)(?:[ \t]+of[ \t]+(?:the[ \t]+)?{_CODE}\b|[ \t]+{_CODE}\b|[ \t]+as[ \t]+is|[ \t]+unchanged)"
    r"|(?:omitted|elided|truncated)[ \t]+for[ \t]+brevity",
    re.IGNORECASE,
)
#: Every match of _STRONG holds one of these (case aside): a text without an ellipsis and
#: without any of them holds no placeholder (the cheap test, before any pattern).
_STRONG_WORDS = ("rest", "remain", "stay", "existing", "previous", "unchanged", "original", "brevity",
                 "keep", "leave")
#: The first characters of a comment, by either reading (``'``: Visual Basic).
_OPENERS = frozenset("/#{<-;*%'")

# -- the open reading: a comment marker, then its text to the end of the line ------------------
_COMMENT = re.compile(r"[ \t]*(?://+|#+|/\*+|\{/\*+|<!--|--|;+|\*|%+)[ \t]*(.*)")
_OPEN_ELLIPSIS = re.compile(r"\.\.\.|…")
_OPEN_WORD = re.compile(
    r"\b(?:rest|remaining|remainder|existing|other|previous|unchanged|same|omitted|elided|etc)\b",
    re.IGNORECASE,
)
_OPEN_ELLIPSIS_ONLY = re.compile(r"(?:\.\.\.|…)[ \t]*(?:\*/|-->|\*/\})?[ \t]*$")
# Words (any script) between two ellipses, nothing code is made of: `... 现有代码保持不变 ...`.
_BETWEEN = re.compile(r"(?:\.\.\.|…)[^\S\r\n]*[^\W\d_][^(){}\[\];=<>\"'`$\r\n]*?(?:\.\.\.|…)[ \t]*(?:\*/|-->|\*/\})?[ \t]*$")

# -- the closed reading: one comment on its own line: its opener, body and closer (the closer
# optional: a model writes `/* ... existing code ...` and closes nothing at times) -------------
_LINE = re.compile(
    r"""^(?P<indent>[ \t]*)
        (?:
            \{/\*+(?P<jsx>.*?)\*+/\}            # JSX: {/* ... */}
          | /\*+(?P<block>.*?)(?:\*+/)?         # /* ... */
          | <!--(?P<html>.*?)(?:-->)?           # <!-- ... -->
          | (?://+|\#+|--|;+|%+|')(?P<line>.*)  # // # -- ; % (LaTeX) ' (VB)
        )[ \t]*$""",
    re.VERBOSE,
)
_ELLIPSIS = re.compile(r"\.\.\.+|…+|。。。|⋯")
_ELLIPSIS_ONLY = re.compile(r"^[ \t]*(?:\.\.\.+|…+|。。。|⋯)[ \t]*$")
_WORDS = re.compile(
    r"\b(?:rest|remaining|remainder|existing|other|others|previous|unchanged|same|omitted|"
    r"elided|etc|keep|kept|as[ \t]+before|as[ \t]+is|code)\b",
    re.IGNORECASE,
)
#: Words of omission in the languages chat answers are written in besides English.
_LOCAL_WORDS = re.compile(
    "现有|现存|已有|原有|其余|其他|保持不变|不变|省略|略|同上|"  # Chinese
    "既存|残り|その他|変更なし|省略|"  # Japanese
    "기존|나머지|생략|"  # Korean
    r"existente|resto\b|restante|sin[ \t]+cambios|igual|"  # Spanish, Portuguese
    r"existant|reste\b|inchangé|"  # French
    r"bestehende|vorhandene|restliche|unverändert|"  # German
    "существующ|остальн|без[ \t]+изменений",  # Russian
    re.IGNORECASE,
)


def placeholder_text(line: str) -> str | None:
    """What a placeholder comment ``line`` says (``... existing code ...``), None when the line
    is not one: the one answer for the rules, the plan and the merge, so that a block the merge
    takes for a lazy snippet is never written whole, and the other way round."""
    line = line.rstrip("\r\n")
    body = line.lstrip(" \t")
    if not body or body[0] not in _OPENERS:
        return None  # no comment: most lines of code (a cheap test, before either pattern)
    said = _closed_says(line)
    return said if said is not None else _open_says(line)


def is_placeholder(line: str) -> bool:
    """Is ``line`` (one line, comment marker included) a placeholder comment?"""
    return placeholder_text(line) is not None


def _open_says(line: str) -> str | None:
    """The text of ``line`` when it is a placeholder by the open reading, else None."""
    m = _COMMENT.match(line)
    if m is None:
        return None
    start, stop = m.start(1), len(line)
    if not (_OPEN_ELLIPSIS_ONLY.match(line, start, stop) or _BETWEEN.match(line, start, stop)
            or (_OPEN_ELLIPSIS.search(line, start, stop) and _OPEN_WORD.search(line, start, stop))
            or _STRONG.search(line, start, stop)):
        return None
    return line[start:stop].strip()


def _closed_says(line: str) -> str | None:
    """The body of ``line`` when it is a placeholder by the closed reading, else None."""
    if "." not in line and "…" not in line and "。" not in line and "⋯" not in line:
        # no ellipsis: only the phrases of _STRONG can make it one
        lowered = line.lower()
        if not any(w in lowered for w in _STRONG_WORDS):
            return None
    m = _LINE.match(line)
    if m is None:
        return None
    body = next(g for g in (m.group("jsx"), m.group("block"), m.group("html"), m.group("line"), "")
                if g is not None)
    body = body.strip()
    if not body:
        return None
    if _ELLIPSIS_ONLY.match(body):
        return body
    if _ELLIPSIS.search(body) and (_WORDS.search(body) or _LOCAL_WORDS.search(body)):
        return body
    if _STRONG.search(body):
        return body
    return None


def find_placeholders(text: str) -> list[Placeholder]:
    """Every placeholder line of ``text``, in order."""
    return list(_iter(text))


def placeholder_lines(value: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` in ``value`` of each comment line that stands for elided code (without
    its indentation and trailing blanks)."""
    for p in _iter(value):
        said = value[p.start:p.end]
        yield p.start + len(p.indent), p.start + len(said.rstrip())


def has_placeholder(text: str) -> bool:
    """Does ``text`` hold a placeholder comment line?"""
    return next(_iter(text), None) is not None


def _iter(text: str) -> Iterator[Placeholder]:
    # A placeholder line holds an ellipsis or a match of _STRONG: an ASCII text without "..."
    # and without any of _STRONG_WORDS -- most contents -- is not read line by line. (_STRONG
    # itself, searched over a whole text, is slow: its alternatives start with no fixed character.)
    if text.isascii() and "..." not in text:
        lowered = text.lower()
        if not any(w in lowered for w in _STRONG_WORDS):
            return
    pos = 0
    n = len(text)
    line_no = 0
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end].rstrip("\r")
        said = placeholder_text(line)
        if said is not None:
            indent = line[: len(line) - len(line.lstrip())]
            yield Placeholder(pos, pos + len(line), line_no, indent, said)
        if nl < 0:
            break
        pos = nl + 1
        line_no += 1
