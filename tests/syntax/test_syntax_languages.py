import threading

import pytest

from action_lsp.syntax import LANGUAGES, language_for, parse, parse_ok


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("python", "python"),
        ("py", "python"),
        ("Python3", "python"),
        ("js", "javascript"),
        ("node", "javascript"),
        ("jsx", "javascript"),
        ("javascript", "javascript"),
        ("ts", "typescript"),
        ("typescript", "typescript"),
        ("tsx", "tsx"),
        ("go", "go"),
        ("golang", "go"),
        ("rs", "rust"),
        ("rust", "rust"),
        ("json", "json"),
        ("jsonc", "jsonc"),
        (" PY ", "python"),
    ],
)
def test_language_from_name(alias: str, name: str) -> None:
    lang = language_for(language=alias)
    assert lang is not None and lang.name == name


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/app.py", "python"),
        ("stubs/x.pyi", "python"),
        ("a/b.js", "javascript"),
        ("a/b.mjs", "javascript"),
        ("a/b.cjs", "javascript"),
        ("a/B.jsx", "javascript"),
        ("a/b.ts", "typescript"),
        ("a/b.mts", "typescript"),
        ("a/b.cts", "typescript"),
        ("a/B.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("src/lib.rs", "rust"),
        ("package.json", "json"),
        ("C:\\proj\\MAIN.PY", "python"),
    ],
)
def test_language_from_path(path: str, name: str) -> None:
    lang = language_for(path)
    assert lang is not None and lang.name == name


def test_unknown_language() -> None:
    assert language_for() is None
    assert language_for("notes.txt") is None
    assert language_for("Makefile") is None
    assert language_for(".py") is None  # a dotfile, not a .py file
    assert language_for(language="cobol") is None


def test_the_path_decides_over_a_declared_language() -> None:
    # A file is read by what its name says: the declared language only helps a path without an
    # extension, and a path with an unknown one (a template, plain text) has no grammar at all,
    # so no syntax check can ever block writing it.
    assert language_for("script.txt", "python") is None
    assert language_for("app.ts.hbs", "typescript") is None
    lang = language_for("bin/run", "python")
    assert lang is not None and lang.name == "python"
    lang = language_for("x.js", "ts")
    assert lang is not None and lang.name == "javascript"
    lang = language_for("tsconfig.json", "json")
    assert lang is not None and lang.name == "jsonc"
    # an unknown name falls back to the path
    lang = language_for("x.rs", "plaintext")
    assert lang is not None and lang.name == "rust"


def test_every_language_parses() -> None:
    for lang in LANGUAGES:
        assert lang.language is lang.language  # cached
        assert lang.parser() is lang.parser()  # cached per thread
        assert parse_ok("", lang)


def test_parser_is_per_thread() -> None:
    lang = language_for(language="py")
    assert lang is not None
    seen = []
    thread = threading.Thread(target=lambda: seen.append(lang.parser()))
    thread.start()
    thread.join()
    assert seen[0] is not lang.parser()


def test_parse_maps_bytes_to_code_points() -> None:
    lang = language_for(language="py")
    assert lang is not None
    code = "s = 'é😀中'\nx = 1\n"
    parsed = parse(code, lang)
    last = parsed.root.named_children[-1]
    assert parsed.text(last) == "x = 1"
    assert parsed.start(last) == code.index("x = 1")
    assert not parse_ok("x = (", lang)
