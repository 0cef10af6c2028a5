"""The bolt dialect: bolt.new's artifacts and actions, as its streaming parser reads them."""

from __future__ import annotations

from pathlib import Path

from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import ActionKind

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dialects" / "bolt"


def test_the_documented_example() -> None:
    text = (FIXTURES / "snake-game.md").read_text()
    analysis = analyze(text)
    assert analysis.diagnostics == []
    assert [(a.dialect, a.type, a.kind) for a in analysis.actions] == [
        ("bolt", "file", ActionKind.WRITE_FILE),
        ("bolt", "shell", ActionKind.COMMAND),
        ("bolt", "file", ActionKind.WRITE_FILE),
        ("bolt", "shell", ActionKind.COMMAND),
    ]
    pkg, install, html, dev = analysis.actions
    # bolt trims the body and ends a file with one line break.
    assert pkg.get("content") == '{\n      "name": "snake",\n      "scripts": {\n        "dev": "vite"\n      }\n    }\n'
    assert install.get("command") == "npm install --save-dev vite"
    assert dev.get("command") == "npm run dev"
    assert html.get("content").startswith("<!doctype html>")
    # The action's type names it: its range is the type's value.
    assert text[pkg.name_span.start : pkg.name_span.end] == "file"
    f = pkg.fields["filePath"]
    assert text[f.span.start : f.span.end] == "package.json"
    # One artifact groups them, labelled by its title.
    assert {a.group for a in analysis.actions} == {analysis.actions[0].group}
    assert pkg.group_label == "Snake Game in HTML and JavaScript"
    assert len(analysis.groups) == 1
    view = file_view(pkg)
    assert view is not None and view.to_json() == {
        "op": "write", "path": "package.json", "content": pkg.get("content"),
    }
    assert file_view(install) is None


def test_missing_path_traversal_and_unknown_type() -> None:
    text = (
        '<boltArtifact id="x" title="X">\n'
        '<boltAction type="file">\nabc\n</boltAction>\n'
        '<boltAction type="file" filePath="../../outside.js">\nabc\n</boltAction>\n'
        '<boltAction type="shel">\nls\n</boltAction>\n'
        "</boltArtifact>\n"
    )
    analysis = analyze(text)
    codes = {d.code: d for d in analysis.diagnostics}
    assert codes["missing-field"].data == {"field": "filePath", "type": "file"}
    assert text[codes["path-traversal"].span.start :].startswith("../../outside.js")
    unknown = codes["unknown-action"]
    assert text[unknown.span.start : unknown.span.end] == "shel"
    assert unknown.fixes and unknown.fixes[0].edits[0].new_text == "shell"


def test_unclosed_action_and_artifact() -> None:
    text = (
        '<boltArtifact id="x" title="X">\n'
        '<boltAction type="file" filePath="a.js">\nconst a = 1;\n'
        '<boltAction type="shell">\nnode a.js\n</boltAction>\n'
    )
    analysis = analyze(text)
    unclosed = [d for d in analysis.diagnostics if d.code == "unclosed-tag"]
    assert [text[d.span.start : d.span.end] for d in unclosed] == ["boltArtifact", "boltAction"]
    file_action, shell = analysis.actions
    assert file_action.get("content") == "const a = 1;\n" and shell.get("command") == "node a.js"


def test_missing_artifact_attributes_and_actions_outside() -> None:
    text = '<boltArtifact>\n</boltArtifact>\n<boltAction type="shell">ls</boltAction>\n'
    analysis = analyze(text)
    assert analysis.actions == []
    assert sorted((d.code, (d.data or {}).get("field")) for d in analysis.diagnostics) == [
        ("action-outside-block", None),
        ("missing-field", "id"),
        ("missing-field", "title"),
    ]


def test_insert_missing_attribute_after_the_tag_name() -> None:
    from action_lsp.dialects import by_name

    text = '<boltArtifact id="x" title="X">\n<boltAction type="file">\nabc\n</boltAction>\n</boltArtifact>\n'
    (a,) = analyze(text).actions
    fix = by_name("bolt").insert_field_fix(text, a, "filePath")
    assert fix is not None
    (edit,) = fix.edits
    assert edit.new_text == ' filePath=""' and text[: edit.span.start].endswith("<boltAction")
