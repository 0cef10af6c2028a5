"""What every locate strategy shares: the texts it reads and the results it returns.

A strategy (:class:`Strategy`) reads a :class:`FileText` (the file, lines and line endings
worked out on demand) and a :class:`SearchBlock` (the search text, likewise) and answers a
:class:`Located` place, a :class:`Refused` (several places, or a close place that is a
question), or None (not found this way: the next strategy is tried). The strategies import
this module and nothing of :mod:`action_lsp.edit.locate`, which lists them.

``FileText`` here is the text searched, not :class:`action_lsp.edit.workspace.FileText` (the
decoded file with what it takes to write it back).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import accumulate
from typing import Literal, Protocol

MAX_LISTED = 20  # lines listed in an ambiguity message

#: Strategies that find the search text itself, differing only in layout (line endings,
#: indentation, blank lines, token spacing, comments). Any other strategy (``definition``,
#: ``fuzzy``, or one added later) finds text whose *content* differs: a question for the user.
LAYOUT_STRATEGIES = frozenset({"exact", "append", "whitespace", "blank-lines", "syntax"})


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
        return indent_width(leading_ws(first), self.tab_size) == found

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


def indent_width(indent: str, tab_size: int = 4) -> int:
    width = 0
    for ch in indent:
        width = (width // tab_size + 1) * tab_size if ch == "\t" else width + 1
    return width


def leading_ws(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def listed(lines: Sequence[int]) -> str:
    shown = ", ".join(str(n) for n in lines[:MAX_LISTED])
    return shown + (f" and {len(lines) - MAX_LISTED} more" if len(lines) > MAX_LISTED else "")


def ambiguous(candidates: Sequence[Located], strategy: str) -> Refused:
    """The refusal of a strategy that found several places."""
    lines = [c.line for c in candidates]
    how = "" if strategy == "exact" else f" (by the {strategy} strategy)"
    return Refused(
        "search-ambiguous",
        f"search text matches {len(lines)} places{how}, at lines {listed(lines)}; "
        "add surrounding lines to make it unique, or choose one",
        lines,
        strategy,
        list(candidates),
    )


# --------------------------------------------------------------------------- the texts


class FileText:
    """The file text searched: line endings normalised to LF (``norm``), split into lines,
    with a map back to offsets of the text as given (``raw``). Everything is worked out when
    a strategy first asks for it (the exact strategy reads only ``raw``)."""

    def __init__(self, raw: str, path: str | None = None) -> None:
        self.raw = raw
        self.path = path

    @cached_property
    def norm(self) -> str:
        return self.raw.replace("\r\n", "\n") if "\r\n" in self.raw else self.raw

    @cached_property
    def crlf(self) -> list[int]:
        """Positions in ``norm`` of each ``\\n`` that was ``\\r\\n`` in ``raw``."""
        if self.norm is self.raw:
            return []
        return [m.start() - i for i, m in enumerate(re.finditer("\r\n", self.raw))]

    @cached_property
    def lang(self) -> object | None:
        """The file's tree-sitter language where tokens can match (see :func:`token_language`)."""
        return token_language(self.path)

    def to_raw(self, offset: int) -> int:
        return offset + bisect.bisect_left(self.crlf, offset) if self.crlf else offset

    @cached_property
    def lines(self) -> list[str]:
        return self.norm.split("\n")

    @cached_property
    def starts(self) -> list[int]:
        return [0, *accumulate(len(line) + 1 for line in self.lines[:-1])]

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @cached_property
    def nonblank(self) -> tuple[list[int], list[str]]:
        stripped = self.stripped
        idx = [i for i, t in enumerate(stripped) if t]
        return idx, [stripped[i] for i in idx]

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


class SearchBlock:
    """The search text: as given (``raw``), LF-normalised (``norm``), its lines without the
    final line break, and where its non-blank lines stand."""

    def __init__(self, raw: str) -> None:
        self.raw = raw

    @cached_property
    def norm(self) -> str:
        return self.raw.replace("\r\n", "\n")

    @cached_property
    def ends_nl(self) -> bool:
        return self.norm.endswith("\n")

    @cached_property
    def lines(self) -> list[str]:
        return (self.norm[:-1] if self.ends_nl else self.norm).split("\n")

    @cached_property
    def stripped(self) -> list[str]:
        return [line.strip() for line in self.lines]

    @cached_property
    def nb_pos(self) -> list[int]:
        """Indices of the non-blank lines (empty for a block of only whitespace)."""
        return [j for j, t in enumerate(self.stripped) if t]

    @cached_property
    def nb_text(self) -> list[str]:
        return [self.stripped[j] for j in self.nb_pos]

    @property
    def leading_blank(self) -> int:
        return self.nb_pos[0] if self.nb_pos else 0

    @property
    def trailing_blank(self) -> int:
        return len(self.lines) - 1 - self.nb_pos[-1] if self.nb_pos else 0


def token_language(path: str | None) -> object | None:
    """The tree-sitter language of ``path`` when its tokens keep its structure (not YAML or
    Markdown, where layout is the structure); None without a path, grammar or syntax package."""
    if not path:
        return None
    try:
        from ...syntax import languages
    except ImportError:  # the syntax package is optional at this layer
        return None
    try:
        lang = languages.language_for(path=path)
    except Exception:  # a grammar that fails to load: fall back to the other strategies
        return None
    return lang if lang is not None and lang.layout_tokens else None


# --------------------------------------------------------------------------- the protocol


class Strategy(Protocol):
    """One way of finding a search block in a file, tried in the order the locator lists."""

    #: How the strategy is named in the "search text not found (tried ...)" message.
    tried: str

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        """Whether the strategy can say anything here (a grammar, non-blank lines, ...)."""
        ...

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        """The one place found, a refusal (several places, or close places that are a
        question), or None: not found this way."""
        ...
