"""The language registry: which tree-sitter grammar parses which code.

``LANGUAGES`` is the one list of supported languages; adding one is one entry there. A file's
language comes from its name (``Lang.names``: ``tsconfig.json`` is JSON with comments) or its
extension; a file whose extension is unknown (a template such as ``app.ts.hbs``) has none, so no
syntax check ever judges it. Grammars are loaded on first use and cached. A tree-sitter ``Parser`` is not thread-safe, so each thread gets
its own parser per language (:meth:`Lang.parser`).
"""

from __future__ import annotations

import fnmatch
import importlib
import re
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
    names: tuple[str, ...] = ()
    """File-name globs (lower case, matched against as many trailing path components as they
    have) that are this language whatever their extension says; they win over extensions."""
    prepare: Callable[[str], str] | None = field(default=None, repr=False, compare=False)
    """Rewrites code before the grammar parses it, keeping every character's offset (byte and
    code point): what the language allows beyond its grammar (JSONC's trailing commas)."""

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


# A JSON token, comment or run of other text; whitespace is skipped by not matching. Each
# alternative consumes what it matches, so one pass over the text is linear.
_JSONC_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"?|//[^\n]*|/\*(?:[^*]|\*(?!/))*(?:\*/)?|[,}\]]|[^\s"/,}\]]+|/'
)


def _jsonc_blank_trailing_commas(code: str) -> str:
    """``code`` with each trailing comma (before a ``}`` or ``]``, across whitespace and comments)
    replaced by a space: JSONC allows them, tree-sitter-json does not. Only one comma before a
    bracket is blanked, so ``[1,,]`` stays an error."""
    if "," not in code:
        return code
    blanks: list[int] = []
    pending = -1
    for m in _JSONC_TOKEN.finditer(code):
        token = m.group()
        if token == ",":
            pending = m.start()
        elif token in ("}", "]"):
            if pending >= 0:
                blanks.append(pending)
            pending = -1
        elif not token.startswith(("//", "/*")):
            pending = -1
    if not blanks:
        return code
    parts: list[str] = []
    last = 0
    for at in blanks:
        parts.append(code[last:at])
        parts.append(" ")
        last = at + 1
    parts.append(code[last:])
    return "".join(parts)


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
        (),
        _grammar("tree_sitter_json"),
        strings=frozenset({"string"}),
    ),
    # JSON with comments and trailing commas: the configuration files of TypeScript, VS Code,
    # ESLint, Babel, dev containers, ... (the grammar takes comments; trailing commas are
    # blanked before parsing).
    Lang(
        "jsonc",
        (".jsonc", ".code-workspace", ".code-snippets"),
        ("json-with-comments", "jsonwithcomments"),
        _grammar("tree_sitter_json"),
        strings=frozenset({"string"}),
        names=(
            "tsconfig.json", "tsconfig.*.json", "tsconfig-*.json",
            "jsconfig.json", "jsconfig.*.json", "jsconfig-*.json",
            ".vscode/*.json", "devcontainer.json", ".devcontainer.json",
            "devcontainer-feature.json", "language-configuration.json",
            ".eslintrc", ".eslintrc.json", ".babelrc", ".babelrc.json", ".swcrc", ".jshintrc",
            "tslint.json", "deno.json", "turbo.json", "wrangler.json", "biome.json",
            "api-extractor.json", "typedoc.json",
        ),
        prepare=_jsonc_blank_trailing_commas,
    ),
)

_BY_NAME: dict[str, Lang] = {key: lang for lang in LANGUAGES for key in (lang.name, *lang.aliases)}
_BY_EXTENSION: dict[str, Lang] = {ext: lang for lang in LANGUAGES for ext in lang.extensions}
_BY_FILE_NAME: tuple[tuple[int, str, Lang], ...] = tuple(
    (glob.count("/") + 1, glob, lang) for lang in LANGUAGES for glob in lang.names
)


# The globs of _BY_FILE_NAME as one regex per component count, each glob a group named by its
# index: the alternation tries them in order, so the first that matches wins, as in the list.
_NAME_PATTERNS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (
        count,
        re.compile(
            "|".join(
                f"(?P<g{i}>{fnmatch.translate(glob)})"
                for i, (c, glob, _) in enumerate(_BY_FILE_NAME)
                if c == count
            )
        ),
    )
    for count in sorted({c for c, _, _ in _BY_FILE_NAME})
)
_KNOWN: dict[tuple[str | None, str | None], Lang | None] = {}


def forget_languages() -> None:
    _KNOWN.clear()


def language_for(path: str | None = None, language: str | None = None) -> Lang | None:
    """The language of the file at ``path``, else the one named by ``language`` (a name or alias).

    The path decides when it can: a known file name (``tsconfig.json`` is JSONC) or extension
    wins over a declared language, and a path with an unknown extension (``app.ts.hbs``,
    ``x.py.j2``) has no language at all, whatever is declared: a template is never judged by
    the grammar of what it renders. The declared language counts for a path without an
    extension (``bin/run``, ``Makefile``) and for code that is no file. None when neither
    identifies a supported language.
    """
    key = (path, language)
    try:
        return _KNOWN[key]
    except KeyError:
        pass
    if len(_KNOWN) > 4096:
        _KNOWN.clear()
    found = _KNOWN[key] = _language_for(path, language)
    return found


def _language_for(path: str | None, language: str | None) -> Lang | None:
    if path:
        parts = path.replace("\\", "/").lower().rsplit("/", 3)
        name = parts[-1]
        first = -1  # the first glob of _BY_FILE_NAME that matches, as the loop over them found
        for count, pattern in _NAME_PATTERNS:
            m = pattern.match("/".join(parts[-count:]))
            if m is not None and m.lastgroup is not None:
                index = int(m.lastgroup[1:])
                first = index if first < 0 else min(first, index)
        if first >= 0:
            return _BY_FILE_NAME[first][2]
        dot = name.rfind(".")
        if dot > 0:
            return _BY_EXTENSION.get(name[dot:])
    if language:
        return _BY_NAME.get(language.strip().lower())
    return None
