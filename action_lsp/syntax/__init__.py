"""tree-sitter based syntax support: languages, parsing, syntax errors, tokens, definitions and
the static check of code an agent wants executed."""

from action_lsp.syntax.errors import SyntaxProblem, syntax_errors
from action_lsp.syntax.languages import LANGUAGES, Lang, language_for
from action_lsp.syntax.parse import Parsed, forget, parse, parse_ok
from action_lsp.syntax.tokens import Definition, Token, definitions, tokens
from action_lsp.syntax.unsafe import UnsafeUse, unsafe_code

__all__ = [
    "LANGUAGES",
    "Definition",
    "Lang",
    "Parsed",
    "SyntaxProblem",
    "Token",
    "UnsafeUse",
    "definitions",
    "forget",
    "language_for",
    "parse",
    "parse_ok",
    "syntax_errors",
    "tokens",
    "unsafe_code",
]
