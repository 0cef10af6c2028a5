"""The language registry: which tree-sitter grammar parses which code.

``LANGUAGES`` is the one list of supported languages; adding one is one entry there. Grammars are
loaded on first use and cached. A tree-sitter ``Parser`` is not thread-safe, so each thread gets
its own parser per language (:meth:`Lang.parser`).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from tree_sitter import Language, Parser


def _grammar(module: str, attr: str = "language") -> Callable[[], object]:
    """A loader for a grammar wheel's language capsule, imported only when first needed."""

    def load() -> object:
        return getattr(importlib.import_module(module), attr)()

    return load


@dataclass(frozen=True, slots=True)
class Lang:
    """One supported language: its name, file extensions, aliases and tree-sitter grammar."""

    name: str
    extensions: tuple[str, ...]
    aliases: tuple[str, ...]
    loader: Callable[[], object] = field(repr=False, compare=False)
    strings: frozenset[str] = frozenset()
    """Node types kept whole as one token (string, template and regex literals)."""
    comments: frozenset[str] = frozenset({"comment"})
    """Node types that are comments (left out of tokens)."""
    definitions: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Node type → definition kind (``function``, ``class``, ...), read by ``definitions()``."""

    @property
    def language(self) -> Language:
        """The tree-sitter ``Language``, loaded once per process."""
        cached = _languages.get(self.name)
        if cached is None:
            with _lock:
                cached = _languages.get(self.name)
                if cached is None:
                    cached = Language(self.loader())
                    _languages[self.name] = cached
        return cached

    def parser(self) -> Parser:
        """This thread's parser for the language (parsers must not be shared between threads)."""
        parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
        if parsers is None:
            parsers = _local.parsers = {}
        parser = parsers.get(self.name)
        if parser is None:
            parser = parsers[self.name] = Parser(self.language)
        return parser


_languages: dict[str, Language] = {}
_lock = threading.Lock()
_local = threading.local()

_JS_STRINGS = frozenset({"string", "template_string", "regex"})
_JS_DEFINITIONS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "variable_declarator": "function",  # only when its value is a function or class
}
_TS_DEFINITIONS = {
    **_JS_DEFINITIONS,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
}
_TS_GRAMMAR = "tree_sitter_typescript"

LANGUAGES: tuple[Lang, ...] = (
    Lang(
        "python",
        (".py", ".pyi", ".pyw"),
        ("py", "python3", "py3"),
        _grammar("tree_sitter_python"),
        strings=frozenset({"string"}),
        definitions={"function_definition": "function", "class_definition": "class"},
    ),
    Lang(
        "javascript",
        (".js", ".mjs", ".cjs", ".jsx"),
        ("js", "node", "nodejs", "jsx", "javascriptreact", "ecmascript"),
        _grammar("tree_sitter_javascript"),
        strings=_JS_STRINGS,
        definitions=_JS_DEFINITIONS,
    ),
    Lang(
        "typescript",
        (".ts", ".mts", ".cts"),
        ("ts",),
        _grammar(_TS_GRAMMAR, "language_typescript"),
        strings=_JS_STRINGS,
        definitions=_TS_DEFINITIONS,
    ),
    Lang(
        "tsx",
        (".tsx",),
        ("typescriptreact",),
        _grammar(_TS_GRAMMAR, "language_tsx"),
        strings=_JS_STRINGS,
        definitions=_TS_DEFINITIONS,
    ),
    Lang(
        "go",
        (".go",),
        ("golang",),
        _grammar("tree_sitter_go"),
        strings=frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"}),
        definitions={
            "function_declaration": "function",
            "method_declaration": "method",
            "type_spec": "type",
            "type_alias": "type",
        },
    ),
    Lang(
        "rust",
        (".rs",),
        ("rs",),
        _grammar("tree_sitter_rust"),
        strings=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
        comments=frozenset({"line_comment", "block_comment"}),
        definitions={
            "function_item": "function",
            "function_signature_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "union",
            "impl_item": "impl",
            "trait_item": "trait",
            "mod_item": "module",
            "type_item": "type",
            "macro_definition": "macro",
        },
    ),
    Lang(
        "json",
        (".json",),
        ("jsonc",),
        _grammar("tree_sitter_json"),
        strings=frozenset({"string"}),
    ),
)

_BY_NAME: dict[str, Lang] = {key: lang for lang in LANGUAGES for key in (lang.name, *lang.aliases)}
_BY_EXTENSION: dict[str, Lang] = {ext: lang for lang in LANGUAGES for ext in lang.extensions}


def language_for(path: str | None = None, language: str | None = None) -> Lang | None:
    """The language named by ``language`` (a name or alias), else the one of ``path``'s extension.

    An explicit name wins when it is known; an unknown name falls back to the path. Returns None
    when neither identifies a supported language.
    """
    if language:
        found = _BY_NAME.get(language.strip().lower())
        if found is not None:
            return found
    if path:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        dot = name.rfind(".")
        if dot > 0:
            return _BY_EXTENSION.get(name[dot:].lower())
    return None
