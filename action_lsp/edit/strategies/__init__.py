"""The locate strategies, one module each, behind one :class:`~.base.Strategy` protocol.

:mod:`action_lsp.edit.locate` tries them in the order of :data:`STRATEGIES`; none of them
imports the locator. :mod:`.syntax` (tree-sitter) is imported only when a file's grammar is
known, so the list names it by a stand-in that imports it on first use.
"""

from __future__ import annotations

from .base import FileText, Located, Refused, SearchBlock, Strategy
from .blank_lines import BlankLines
from .exact import Exact
from .fuzzy import Fuzzy
from .whitespace import Whitespace


class _LazySyntax:
    """:class:`.syntax.Syntax`, imported when a file first has a grammar."""

    tried = "syntax"

    def applies(self, text: FileText, search: SearchBlock) -> bool:
        return bool(search.nb_pos) and text.lang is not None

    def find(self, text: FileText, search: SearchBlock) -> Located | Refused | None:
        from .syntax import Syntax

        return Syntax().find(text, search)


#: The strategies, in the order tried; the first that finds one place (or refuses) wins.
STRATEGIES: tuple[Strategy, ...] = (Exact(), Whitespace(), BlankLines(), _LazySyntax(), Fuzzy())
