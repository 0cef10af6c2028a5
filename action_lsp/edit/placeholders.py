"""Placeholder comments: the lines of a chat answer's code that stand for code left out.

Chat assistants answer with *lazy snippets*: the code that changes, with the unchanged code
elided by a comment -- ``// ... existing code ...``, ``# ... rest of the code unchanged ...``,
``<!-- ... -->``, ``/* ... */``, ``{/* ... */}`` in JSX, and the same in other languages
(``// ... 现有代码保持不变 ...``). The edit engine's snippet merge (:mod:`.lazymerge`) reads
each such line as "the unchanged code that stood here".

API:

- :func:`placeholder_text` -- whether one line is a placeholder, and what it says;
- :func:`find_placeholders` -- every placeholder line of a text, as :class:`Placeholder`;
- :func:`has_placeholder` -- whether a text holds one (the cheap test first).

A placeholder is a line holding nothing but a comment (in any of the comment syntaxes above,
``--`` and ``;`` too) whose body is an ellipsis alone (``// ...``), an ellipsis with a word of
omission (``existing``, ``rest``, ``unchanged``, ... or one of the localized words of
:data:`_LOCAL_WORDS`), or an omission said in words without an ellipsis (``# rest of the code
unchanged``, ``// existing methods here``, ``// omitted for brevity``: the phrases of
``rules/truncation.py``). ``// Loading...`` or ``# TODO: handle errors ...`` are not
placeholders: an ellipsis after other words needs a word of omission.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..placeholders import _STRONG  # the phrases that say "code left out" without "..."

__all__ = ["Placeholder", "find_placeholders", "has_placeholder", "placeholder_text"]


@dataclass(frozen=True, slots=True)
class Placeholder:
    """A placeholder line: ``start``/``end`` cover the whole line (no line break), ``line`` is
    0-based, ``indent`` its leading whitespace, ``text`` what the comment says (stripped)."""

    start: int
    end: int
    line: int
    indent: str
    text: str


# One comment on its own line: its opener, body and closer (the closer optional: a model
# writes `/* ... existing code ...` and closes nothing at times).
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
    """What a placeholder comment line says (``... existing code ...``), None when the line is
    not one. The same answer as :func:`action_lsp.placeholders.is_placeholder` (one truth for
    the rules, the plan and the merge)."""
    said = own_placeholder_text(line)
    if said is None:
        from ..placeholders import comment_says

        said = comment_says(line)
    return said


def own_placeholder_text(line: str) -> str | None:
    """:func:`placeholder_text` by this module's patterns only."""
    if "." not in line and "…" not in line and "。" not in line and "⋯" not in line:
        # no ellipsis: only the phrases of _STRONG can make it one
        lowered = line.lower()
        if not any(w in lowered for w in ("rest", "remain", "stay", "existing", "previous",
                                           "unchanged", "original", "brevity", "keep", "leave")):
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


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds a placeholder line."""
    return next(_iter(text), None) is not None


def find_placeholders(text: str) -> list[Placeholder]:
    """Every placeholder line of ``text``, in order."""
    return list(_iter(text))


def _iter(text: str) -> Iterator[Placeholder]:
    pos = 0
    n = len(text)
    line_no = 0
    while pos <= n:
        nl = text.find("\n", pos)
        end = n if nl < 0 else nl
        line = text[pos:end].rstrip("\r")
        said = placeholder_text(line) if line.strip() else None
        if said is not None:
            indent = line[: len(line) - len(line.lstrip())]
            yield Placeholder(pos, pos + len(line), line_no, indent, said)
        if nl < 0:
            break
        pos = nl + 1
        line_no += 1
