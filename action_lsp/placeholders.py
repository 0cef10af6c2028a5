"""Placeholder comments: the lines of a lazy snippet that stand for code left out.

Chat assistants answer with *lazy snippets*: the file's changed parts, with the unchanged code
elided by a comment such as ``// ... existing code ...``, ``# ... rest of the code unchanged
...``, ``<!-- ... -->``, ``{/* ... */}`` or the same in another language (``// ...
现有代码保持不变 ...``). Written as a whole file, each such comment replaces the code it stands
for. This module only *recognises* them, for the ``truncated-content`` rule, the ``chat-answer``
dialect and the snippet merge alike:

- :func:`placeholder_lines` -- ``(start, end)`` in a text of each placeholder line (its text,
  without indentation or trailing blanks), in order;
- :func:`has_placeholder` -- whether a text holds one;
- :func:`is_placeholder` -- whether one line (a comment, with its comment marker) is one.

A placeholder is a comment line (``//``, ``#``, ``/*``, ``{/*``, ``<!--``, ``--``, ``;``, ``*``,
``%``) whose text is only an ellipsis (``...``, ``…``); or holds an ellipsis and an omission word
(``rest``, ``existing``, ``unchanged``, ``other``, ``same``, ``omitted`` ...); or says so without
one (``rest of the code``, ``code remains the same``, ``existing code here``, ``omitted for
brevity``); or, in any language, is words between two ellipses (``... 其余代码不变 ...``, ``…
остальной код …``) with none of the punctuation code is made of. A comment holding code
(``// foo(...)``) or a sentence that merely mentions the rest (``# the rest is tested below``)
is none. Each line is looked at once, with anchored matches (linear in the text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["has_placeholder", "is_placeholder", "placeholder_lines"]

_COMMENT = re.compile(r"[ \t]*(?://+|#+|/\*+|\{/\*+|<!--|--|;+|\*|%+)[ \t]*(.*)")
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
_STRONG_WORDS = ("rest", "remain", "stay", "existing", "previous", "unchanged", "original", "brevity")
# With an ellipsis, an omission word is enough (`// ... existing code ...`, `{/* ... */}`).
_ELLIPSIS = re.compile(r"\.\.\.|…")
_WORD = re.compile(
    r"\b(?:rest|remaining|remainder|existing|other|previous|unchanged|same|omitted|elided|etc)\b",
    re.IGNORECASE,
)
_ELLIPSIS_ONLY = re.compile(r"(?:\.\.\.|…)[ \t]*(?:\*/|-->|\*/\})?[ \t]*$")
# Words (any script) between two ellipses, nothing code is made of: `... 现有代码保持不变 ...`.
_BETWEEN = re.compile(r"(?:\.\.\.|…)[^\S\r\n]*[^\W\d_][^(){}\[\];=<>\"'`$\r\n]*?(?:\.\.\.|…)[ \t]*(?:\*/|-->|\*/\})?[ \t]*$")


def _said(value: str, start: int, end: int) -> bool:
    """Does the comment text ``value[start:end]`` stand for elided code?"""
    if _ELLIPSIS_ONLY.match(value, start, end) or _BETWEEN.match(value, start, end):
        return True
    if _ELLIPSIS.search(value, start, end) and _WORD.search(value, start, end):
        return True
    return _STRONG.search(value, start, end) is not None


def comment_says(line: str) -> str | None:
    """The text of ``line`` (one line, comment marker included) when it is a placeholder comment
    by this module's patterns, else None (see :func:`is_placeholder` for the one answer)."""
    m = _COMMENT.match(line)
    stop = len(line.rstrip("\r\n"))
    if m is None or not _said(line, m.start(1), stop):
        return None
    return line[m.start(1):stop].strip()


def is_placeholder(line: str) -> bool:
    """Is ``line`` (one line, comment marker included) a placeholder comment? The one answer
    for the rules, the plan and the merge: by these patterns or by the merge's
    (:func:`action_lsp.edit.placeholders.placeholder_text`), so that a block the merge takes for
    a lazy snippet is never written whole, and the other way round."""
    body = line.lstrip(" \t")
    if not body or body[0] not in _OPENERS:
        return False  # no comment: most lines of code (a cheap test, before either pattern)
    from .edit.placeholders import own_placeholder_text

    return comment_says(line) is not None or own_placeholder_text(line.rstrip("\r\n")) is not None


#: The first characters of a comment, by either module's patterns (``'``: Visual Basic).
_OPENERS = frozenset("/#{<-;*%'")


def placeholder_lines(value: str) -> Iterator[tuple[int, int]]:
    """``(start, end)`` in ``value`` of each comment line that stands for elided code."""
    # A placeholder line holds an ellipsis or a match of _STRONG, and every match of _STRONG
    # holds one of _STRONG_WORDS (case aside): an ASCII content without any of them -- most
    # contents -- has no placeholder and is not read line by line. (_STRONG itself, searched
    # over a whole content, is slow: its alternatives start with no fixed character.)
    if value.isascii() and "..." not in value:
        lowered = value.lower()
        if not any(w in lowered for w in (*_STRONG_WORDS, "keep", "leave")):
            return
    pos = 0
    n = len(value)
    while pos < n:
        nl = value.find("\n", pos)
        end = n if nl < 0 else nl
        stop = end - 1 if end > pos and value[end - 1] == "\r" else end
        if is_placeholder(value[pos:stop]):
            line = value[pos:stop]
            start = pos + len(line) - len(line.lstrip())
            yield start, pos + len(line.rstrip())
        pos = end + 1


def has_placeholder(value: str) -> bool:
    """Does ``value`` hold a placeholder comment line?"""
    return next(placeholder_lines(value), None) is not None
