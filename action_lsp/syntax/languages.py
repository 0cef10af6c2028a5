"""The language registry: which tree-sitter grammar parses which code.

``LANGUAGES`` is the one list of supported languages; adding one is one entry there. A file's
language comes from its name (``Lang.names``: ``tsconfig.json`` is JSON with comments) or its
extension; a file whose extension is unknown (a template such as ``app.ts.hbs``) or whose name no
grammar describes (``Dockerfile``, ``Makefile``, ``*.blade.php``: ``_NO_GRAMMAR``) has none, so no
syntax check ever judges it. How far a grammar's syntax errors are trusted is ``Lang.judged``,
measured on real files (docs/languages.md). Grammars are loaded on first use and cached. A tree-sitter ``Parser`` is not thread-safe, so each thread gets
its own parser per language (:meth:`Lang.parser`).
"""

from __future__ import annotations

import fnmatch
import importlib
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import tree_sitter
    from tree_sitter import Language, Parser
else:
    from ..deferred import tree_sitter  # (imported after the server's start: deferred.py)

Verdict = Literal["error", "warning", "off"]


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
    judged: Verdict = "error"
    """What a syntax error this grammar reports is: a finding at error severity
    (``syntax-error`` and ``new-syntax-error`` block a write), a warning (shown, never blocking),
    or nothing ("off"). Set from the grammar's rate of false alarms on real, valid files (the
    numbers are in docs/languages.md); a grammar that is not judged still serves tokens and
    definitions."""
    bare: str = ""
    """The language that reads a piece of this language's code that lacks ``<?`` (PHP's
    ``<?php``): a search block taken from the middle of a PHP file is code, not HTML text."""
    template: re.Pattern[str] | None = field(default=None, repr=False, compare=False)
    """Text that makes a file a template of this language rather than this language (``{{`` of
    a Helm chart, ``<%`` of ERB): such a file is never judged."""
    layout_tokens: bool = True
    """Whether the locator may match a search block by this grammar's tokens, which drop layout:
    False where indentation or line breaks are the structure (YAML, Markdown)."""

    def verdict(self, code: str) -> Verdict:
        """What a syntax error in ``code`` is (see ``judged``): "off" for a template."""
        if self.judged != "off" and self.template is not None and self.template.search(code):
            return "off"
        return self.judged

    def for_snippet(self, code: str) -> Lang:
        """The language that reads ``code``, a piece of a file of this language (see ``bare``)."""
        if self.bare and "<?" not in code:
            return _BY_NAME[self.bare]
        return self

    @property
    def language(self) -> Language:
        """The tree-sitter ``Language``, loaded once per process."""
        cached = _languages.get(self.name)
        if cached is None:
            with _lock:
                cached = _languages.get(self.name)
                if cached is None:
                    cached = tree_sitter.Language(self.loader())
                    _languages[self.name] = cached
        return cached

    def parser(self) -> Parser:
        """This thread's parser for the language (parsers must not be shared between threads)."""
        parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
        if parsers is None:
            parsers = _local.parsers = {}
        parser = parsers.get(self.name)
        if parser is None:
            parser = parsers[self.name] = tree_sitter.Parser(self.language)
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
_C_COMMENTS = frozenset({"line_comment", "block_comment"})
_C_STRINGS = frozenset({"string_literal", "char_literal", "system_lib_string"})
_C_DEFINITIONS = {
    "function_definition": "function",
    "struct_specifier": "struct",  # only with a body: `struct s *p` names a type, defines none
    "union_specifier": "union",
    "enum_specifier": "enum",
    "preproc_function_def": "macro",
}
_PHP_STRINGS = frozenset({"string", "encapsed_string", "heredoc", "nowdoc"})
_PHP_DEFINITIONS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "trait_declaration": "trait",
    "enum_declaration": "enum",
    "function_definition": "function",
    "method_declaration": "method",
}
_JAVA_DEFINITIONS = {
    "class_declaration": "class",
    "interface_declaration": "interface",
    "annotation_type_declaration": "interface",
    "enum_declaration": "enum",
    "record_declaration": "class",
    "method_declaration": "method",
    "constructor_declaration": "method",
}

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
    Lang(
        "java",
        (".java",),
        (),
        _grammar("tree_sitter_java"),
        strings=frozenset({"string_literal", "character_literal"}),
        comments=_C_COMMENTS,
        definitions=_JAVA_DEFINITIONS,
    ),
    # `.h` is C++: tree-sitter-cpp extends tree-sitter-c, so it reads C headers too, while the
    # C grammar rejects every class, template and namespace of a C++ header (docs/languages.md).
    Lang(
        "c",
        (".c",),
        (),
        _grammar("tree_sitter_c"),
        strings=_C_STRINGS,
        definitions=_C_DEFINITIONS,
        judged="off",  # macros and #if split the code the grammar sees: 27-51% of valid files
    ),
    Lang(
        "cpp",
        (".cpp", ".cc", ".cxx", ".c++", ".h", ".hpp", ".hh", ".hxx", ".h++", ".ipp", ".tpp",
         ".inl"),
        ("c++", "cxx", "hpp"),
        _grammar("tree_sitter_cpp"),
        strings=_C_STRINGS | {"raw_string_literal"},
        definitions={
            **_C_DEFINITIONS,
            "class_specifier": "class",
            "namespace_definition": "namespace",
        },
        judged="off",  # as C: 6-33% of valid files (namespace macros, #if)
    ),
    Lang(
        "csharp",
        (".cs",),
        ("c#", "cs", "c-sharp", "c_sharp"),
        _grammar("tree_sitter_c_sharp"),
        strings=frozenset({
            "string_literal", "verbatim_string_literal", "raw_string_literal",
            "interpolated_string_expression", "character_literal",
        }),
        definitions={
            **_JAVA_DEFINITIONS,
            "struct_declaration": "struct",
            "record_declaration": "class",
            "property_declaration": "property",
        },
        judged="warning",  # 0-4.4% of valid files (mostly code split by #if)
    ),
    Lang(
        "ruby",
        (".rb", ".rake", ".gemspec", ".ru", ".rbw", ".jbuilder"),
        ("rb", "jruby"),
        _grammar("tree_sitter_ruby"),
        strings=frozenset({
            "string", "regex", "character", "subshell", "delimited_symbol", "heredoc_body",
            "string_array", "symbol_array",
        }),
        definitions={
            "class": "class",
            "module": "module",
            "method": "method",
            "singleton_method": "method",
        },
        names=(
            "gemfile", "rakefile", "guardfile", "capfile", "vagrantfile", "podfile", "fastfile",
            "appfile", "brewfile", "dangerfile", "berksfile", "thorfile", "steepfile",
            ".irbrc", ".pryrc",
        ),
    ),
    Lang(
        "php",
        (".php", ".phtml"),
        (),
        _grammar("tree_sitter_php", "language_php"),  # PHP inside HTML, from `<?php`
        strings=_PHP_STRINGS,
        definitions=_PHP_DEFINITIONS,
        bare="php-only",
    ),
    # PHP code without the `<?php` that opens it: how a piece of a PHP file is read.
    Lang(
        "php-only",
        (),
        (),
        _grammar("tree_sitter_php", "language_php_only"),
        strings=_PHP_STRINGS,
        definitions=_PHP_DEFINITIONS,
    ),
    Lang(
        "kotlin",
        (".kt", ".kts"),
        ("kt", "kts"),
        _grammar("tree_sitter_kotlin"),
        strings=frozenset({"string_literal", "multiline_string_literal", "character_literal"}),
        comments=_C_COMMENTS,
        definitions={
            "class_declaration": "class",
            "object_declaration": "class",
            "function_declaration": "function",
            "type_alias": "type",
        },
        judged="warning",  # 1.3% of valid files
    ),
    Lang(
        "swift",
        (".swift",),
        (),
        _grammar("tree_sitter_swift"),
        strings=frozenset({
            "line_string_literal", "multi_line_string_literal", "raw_string_literal",
            "regex_literal",
        }),
        comments=frozenset({"comment", "multiline_comment"}),
        definitions={
            "class_declaration": "class",  # class, struct, enum, extension
            "protocol_declaration": "interface",
            "function_declaration": "function",
            "protocol_function_declaration": "function",
            "init_declaration": "method",
            "typealias_declaration": "type",
        },
        judged="warning",  # 2.5% of valid files (#warning, #error, some `!`)
    ),
    # POSIX sh and Bash; not zsh, not a Dockerfile or Makefile (see _NO_GRAMMAR).
    Lang(
        "bash",
        (".sh", ".bash"),
        ("sh", "shell", "shellscript", "shell-script"),
        _grammar("tree_sitter_bash"),
        strings=frozenset({
            "string", "raw_string", "ansi_c_string", "translated_string", "heredoc_body",
        }),
        definitions={"function_definition": "function"},
        names=(
            ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases",
            ".profile", "pkgbuild", ".envrc",
        ),
    ),
    Lang(
        "html",
        (".html", ".htm"),
        ("htm", "xhtml"),
        _grammar("tree_sitter_html"),
        strings=frozenset({"quoted_attribute_value"}),
        judged="warning",  # 0.3%: what a browser recovers from (text of <textarea>, <pre>)
    ),
    Lang(
        "css",
        (".css",),
        (),
        _grammar("tree_sitter_css"),
        strings=frozenset({"string_value"}),
        comments=frozenset({"comment", "js_comment"}),
        judged="warning",  # 6%: hacks and syntax newer than the grammar
    ),
    Lang(
        "yaml",
        (".yaml", ".yml"),
        ("yml",),
        _grammar("tree_sitter_yaml"),
        strings=frozenset({"double_quote_scalar", "single_quote_scalar", "block_scalar"}),
        names=(".clang-format", ".clang-tidy", ".yamllint"),
        # Helm, Jinja/Ansible, ERB (Rails fixtures); not GitHub's `${{ expression }}`
        template=re.compile(r"(?<!\$)\{\{|\{%|<%"),
        layout_tokens=False,
    ),
    Lang(
        "toml",
        (".toml",),
        (),
        _grammar("tree_sitter_toml"),
        strings=frozenset({"string"}),
        names=("cargo.lock", "pipfile", "poetry.lock", "uv.lock"),
    ),
    # The block grammar: headings, sections, lists, fences (the inline one is not needed).
    Lang(
        "markdown",
        (".md", ".markdown", ".mdown", ".mkd", ".mkdn"),
        ("md",),
        _grammar("tree_sitter_markdown"),
        comments=frozenset(),
        definitions={"section": "section"},
        judged="off",  # every text is a Markdown document: an ERROR is the grammar's
        layout_tokens=False,
    ),
)

# Files that no grammar describes, whatever their extension or declared language says: a
# Dockerfile or Makefile is not a shell script, a zsh start-up file not Bash, a Blade template
# not PHP.
_NO_GRAMMAR: tuple[str, ...] = (
    "dockerfile", "containerfile", "*.dockerfile", "dockerfile.*", "makefile", "gnumakefile",
    "*.mk", "jenkinsfile", "procfile", "justfile", "*.blade.php",
    ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout",  # zsh, not Bash
)

_BY_NAME: dict[str, Lang] = {key: lang for lang in LANGUAGES for key in (lang.name, *lang.aliases)}
_BY_EXTENSION: dict[str, Lang] = {ext: lang for lang in LANGUAGES for ext in lang.extensions}
_BY_FILE_NAME: tuple[tuple[int, str, Lang | None], ...] = tuple(
    (glob.count("/") + 1, glob, lang)
    for glob, lang in (
        *((glob, None) for glob in _NO_GRAMMAR),
        *((glob, lang) for lang in LANGUAGES for glob in lang.names),
    )
)


# A name without wildcards is looked up (component count, name) -> its first index; the globs
# with wildcards make one regex per component count, each glob a group named by its index: the
# alternation tries them in order, so the first that matches wins, as in the list. (Compiling
# every name into the regex made it the slowest part of importing the package.)
_EXACT_NAMES: dict[tuple[int, str], int] = {}
for _i, (_count, _glob, _) in enumerate(_BY_FILE_NAME):
    if not any(ch in _glob for ch in "*?["):
        _EXACT_NAMES.setdefault((_count, _glob), _i)
_NAME_PATTERNS: tuple[tuple[int, re.Pattern[str]], ...] = tuple(
    (
        count,
        re.compile(
            "|".join(
                f"(?P<g{i}>{fnmatch.translate(glob)})"
                for i, (c, glob, _) in enumerate(_BY_FILE_NAME)
                if c == count and any(ch in glob for ch in "*?[")
            )
        ),
    )
    for count in sorted({c for c, g, _ in _BY_FILE_NAME if any(ch in g for ch in "*?[")})
)
_COUNTS = sorted({c for c, _, _ in _BY_FILE_NAME})
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
        for count in _COUNTS:
            index = _EXACT_NAMES.get((count, "/".join(parts[-count:])), -1)
            if index >= 0:
                first = index if first < 0 else min(first, index)
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
