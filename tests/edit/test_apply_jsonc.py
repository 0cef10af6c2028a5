"""Config files that are JSON with comments (tsconfig.json, .vscode/settings.json, ...) are not
strict JSON: comments and trailing commas in them are fine, and since a syntax error in created
content blocks the write, reading them as strict JSON would refuse a perfectly normal tsconfig.
Files whose grammar action-lsp does not know (templates, unknown extensions) are never blocked
by a syntax check."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import NAMES
from action_lsp.syntax import language_for, syntax_errors

TSCONFIG = """{
  // Vite's template ships this file with comments and trailing commas
  "compilerOptions": {
    "target": "ES2020",
    "lib": ["ES2020", "DOM", "DOM.Iterable",],
    /* Bundler mode */
    "moduleResolution": "bundler",
    "strict": true,
  },
  "include": ["src"],
}
"""

BROKEN = '{\n  "name": "app",\n  "version": "1.0.0"\n  "private": true\n}\n'


def xml_create(path: str, content: str) -> str:
    return f"<create_file>\n<path>{path}</path>\n<content>\n{content}</content>\n</create_file>\n\n"


def dyad_write(path: str, content: str) -> str:
    return f'<dyad-write path="{path}" description="config">\n{content}</dyad-write>\n\n'


def run(ws: Path, transcript: str, *flags: str) -> int:
    t = ws.parent / "t.md"
    t.write_text(transcript, encoding="utf-8")
    return main(["apply", "--root", str(ws), *flags, str(t)])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


JSONC_PATHS = [
    "tsconfig.json", "tsconfig.app.json", "web/jsconfig.json", ".vscode/settings.json",
    ".vscode/launch.json", ".devcontainer/devcontainer.json", ".devcontainer.json",
    ".eslintrc.json", ".eslintrc", ".babelrc", "a.jsonc", "proj.code-workspace", "TSConfig.Node.json",
]


@pytest.mark.parametrize("path", JSONC_PATHS)
def test_config_files_are_jsonc(path: str) -> None:
    lang = language_for(path=path)
    assert lang is not None and lang.name == "jsonc"
    assert syntax_errors(TSCONFIG, lang) == []
    # A declared `json` does not make a JSONC file strict.
    assert language_for(path=path, language="json") is lang


@pytest.mark.parametrize("path", ["package.json", "src/data.json", "settings.json", "vscode/a.json"])
def test_other_json_stays_strict(path: str) -> None:
    lang = language_for(path=path)
    assert lang is not None and lang.name == "json"
    assert syntax_errors('{"a": [1,],}', lang)


def test_jsonc_still_finds_real_errors() -> None:
    lang = language_for(path="tsconfig.json")
    assert lang is not None
    assert syntax_errors(BROKEN, lang)
    assert syntax_errors('{"a": 1,, "b": 2}', lang)
    assert syntax_errors('[1, 2,,]', lang)
    # A comma inside a string or a comment is not a trailing comma.
    assert syntax_errors('{"a": ",}" // ,}\n}', lang) == []


def test_unknown_and_template_extensions_have_no_grammar() -> None:
    for path in ("tsconfig.json.hbs", "src/app.ts.tmpl", "x.py.j2", "Dockerfile", "a.json5"):
        assert language_for(path=path) is None, path
    # A declared language does not lend a grammar to a file whose extension says otherwise.
    assert language_for(path="index.ts.hbs", language="typescript") is None


needs = pytest.mark.skipif(
    not {"xml-tags", "dyad"} <= set(NAMES), reason="needs the xml-tags and dyad dialects"
)


@needs
@pytest.mark.parametrize("make", [xml_create, dyad_write], ids=["xml-tags", "dyad"])
@pytest.mark.parametrize("path", ["tsconfig.json", ".vscode/settings.json", "tsconfig.node.json"])
def test_apply_writes_a_tsconfig_with_comments_and_trailing_commas(
    ws: Path, make, path: str, capsys
) -> None:
    # (.vscode/ makes VS Code run code: written only when allowed, see test_protected_paths.py)
    allow = ("--allow-code-paths",) if path.startswith(".vscode/") else ()
    assert run(ws, make(path, TSCONFIG), "--write", *allow) == 0, capsys.readouterr()
    # (Dyad's view of a write drops the final newline, as Dyad does)
    assert (ws / path).read_text(encoding="utf-8").rstrip("\n") == TSCONFIG.rstrip("\n")
    assert main(["check", str(ws.parent / "t.md")]) == 0, capsys.readouterr().out


@needs
@pytest.mark.parametrize("make", [xml_create, dyad_write], ids=["xml-tags", "dyad"])
def test_a_broken_json_still_blocks(ws: Path, make, capsys) -> None:
    capsys.readouterr()
    assert run(ws, make("package.json", BROKEN), "--write") != 0
    out = capsys.readouterr()
    assert "syntax-error" in out.out + out.err
    assert not (ws / "package.json").exists()
    # The same trailing commas that JSONC allows are an error in a strict JSON file.
    assert run(ws, make("package.json", TSCONFIG), "--write") != 0
    assert not (ws / "package.json").exists()
    assert run(ws, make("package.json", BROKEN), "--write", "--force") == 0
    assert (ws / "package.json").read_text(encoding="utf-8").rstrip("\n") == BROKEN.rstrip("\n")


@needs
def test_a_template_file_is_never_blocked(ws: Path, capsys) -> None:
    content = '{\n  "name": "{{ name }}",\n  {% if x %}"x": 1,{% endif %}\n}\n'
    assert run(ws, xml_create("package.json.hbs", content), "--write") == 0, capsys.readouterr()
    assert (ws / "package.json.hbs").read_text(encoding="utf-8") == content


@needs
def test_modify_of_a_tsconfig_adding_a_trailing_comma_applies(ws: Path, capsys) -> None:
    (ws / "tsconfig.json").write_text('{\n  "include": ["src"]\n}\n', encoding="utf-8")
    transcript = (
        "<modify_file>\n<path>tsconfig.json</path>\n<search>\n  \"include\": [\"src\"]\n</search>\n"
        "<replace>\n  // sources\n  \"include\": [\"src\",],\n</replace>\n</modify_file>\n"
    )
    assert run(ws, transcript, "--write") == 0, capsys.readouterr()
    assert (ws / "tsconfig.json").read_text(encoding="utf-8") == (
        '{\n  // sources\n  "include": ["src",],\n}\n'
    )
