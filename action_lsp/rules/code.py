"""``syntax-error`` and ``unsafe-code``: file content and code checked with tree-sitter.

The grammar comes from the action's ``language`` field or its path's extension; code to execute
(``execute_code``, ``aether-sandbox``) defaults to Python. A language's ``judged`` (see
docs/languages.md) makes its syntax errors errors, warnings, or nothing. Ranges map through the field's
:class:`~action_lsp.model.SourceMap`, so an error inside a JSON-escaped string points at the
exact characters in the transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from ..dialects import file_view
from ..model import Action, ActionKind, Diagnostic, Field, Severity
from ..syntax import Lang, SyntaxProblem, language_for, syntax_errors, unsafe_code
from . import RuleContext

MAX_SYNTAX_ERRORS = 3  # per field: the first few say enough, more is noise


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if action.kind in (ActionKind.CREATE_FILE, ActionKind.WRITE_FILE):
            f = action.fields.get("content")
            lang = language_for(path=action.path, language=action.text("language"))
            if f is not None and isinstance(f.value, str) and lang is not None:
                # A chat answer's code may be a piece of the file it names (a method given
                # alone): the edit engine merges it and refuses a merge that does not parse,
                # so its own syntax errors only warn.
                view = file_view(action) if action.kind is ActionKind.WRITE_FILE else None
                piece = view is not None and view.rules.snippet
                yield from _syntax(f, lang, f"{action.path}", piece=piece)
        elif action.kind is ActionKind.CODE:
            f = action.fields.get("code")
            if f is None or not isinstance(f.value, str) or not f.value.strip():
                continue
            lang = language_for(language=action.text("language") or "python")
            if lang is None:
                continue
            # PHP to run has no `<?php`: it is code, not HTML text (named as declared).
            yield from _syntax(f, lang.for_snippet(f.value), f"{action.type} code", lang.name)
            for use in unsafe_code(f.value, lang):
                yield Diagnostic(
                    "unsafe-code",
                    use.message,
                    f.value_span(use.start, use.end),
                    data={"name": use.name},
                )


def _syntax(f: Field, lang: Lang, what: str, name: str = "", *, piece: bool = False) -> Iterable[Diagnostic]:
    for problem, message, warns in judged_syntax_errors(f.value, lang, what, name):
        unsure = warns or piece
        yield Diagnostic(
            "syntax-error",
            message
            + (" (a warning: a chat answer may be a piece of its file; the merge is checked)"
               if piece else
               f" (a warning: the {name or lang.name} grammar rejects some valid code)" if unsure else ""),
            f.value_span(problem.start, max(problem.end, problem.start + 1)),
            severity=Severity.WARNING if unsure else None,
        )


def judged_syntax_errors(code: str, lang: Lang, what: str, name: str = "") -> Iterator[tuple[SyntaxProblem, str, bool]]:
    """The syntax errors of ``code`` as ``lang`` judges them (the first MAX_SYNTAX_ERRORS), each
    with its message (``<name> syntax error in <what>: ...``) and whether it only warns: none
    for a language judged "off" or a template; a warning where the grammar rejects some valid
    files (docs/languages.md). The one rule for this ``syntax-error`` check and the plan's for
    a file a chat answer creates."""
    verdict = lang.verdict(code)
    if verdict == "off":
        return
    for problem in syntax_errors(code, lang, limit=MAX_SYNTAX_ERRORS):
        yield problem, f"{name or lang.name} syntax error in {what}: {problem.message}", verdict == "warning"
