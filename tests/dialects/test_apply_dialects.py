"""Round trips: a transcript of each new dialect applied to a workspace by `action-lsp apply`,
through the one normalized file view (write, rename, delete, modify)."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    root.mkdir(exist_ok=True)
    return root


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*")) if p.is_file()}


def _apply(tmp_path: Path, root: Path, transcript: str, *extra: str) -> int:
    t = tmp_path / "t.md"
    t.write_text(transcript)
    return main(["apply", "--root", str(root), "--write", *extra, str(t)])


def test_dyad_delete_rename_write_and_search_replace(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {
        "src/main.tsx": "old main\n",
        "src/App.tsx": "const App = 1;\n",
        "package.json": '{\n  "scripts": {\n    "dev": "vite",\n    "build": "vite build"\n  }\n}\n',
        "README.md": "readme\n",
    })
    transcript = (
        "Reorganising.\n\n"
        '<dyad-delete path="src/main.tsx"></dyad-delete>\n'
        '<dyad-rename from="src/App.tsx" to="src/Main.tsx"></dyad-rename>\n'
        '<dyad-write path="README.md" description="replace it">\n# New readme\n</dyad-write>\n'
        '<dyad-search-replace path="package.json">\n'
        '<<<<<<< SEARCH\n    "dev": "vite",\n=======\n    "dev": "vite --port 3000",\n>>>>>>> REPLACE\n'
        "</dyad-search-replace>\n"
    )
    # A dyad-write replaces an existing file without --force: that is what it means.
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {
        "README.md": "# New readme",
        "package.json": '{\n  "scripts": {\n    "dev": "vite --port 3000",\n    "build": "vite build"\n  }\n}\n',
        "src/Main.tsx": "const App = 1;\n",
    }


def test_a_rename_onto_an_existing_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.ts": "a\n", "b.ts": "b\n"})
    transcript = (
        '<dyad-write path="c.ts">\nc\n</dyad-write>\n'
        '<dyad-rename from="a.ts" to="b.ts"></dyad-rename>\n'
    )
    assert _apply(tmp_path, root, transcript) != 0
    assert _tree(root) == {"a.ts": "a\n", "b.ts": "b\n"}


def test_bolt_artifact(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"index.js": "console.log(0);\n"})
    transcript = (
        '<boltArtifact id="demo" title="Demo">\n'
        '  <boltAction type="file" filePath="index.js">\n    console.log(1);\n  </boltAction>\n'
        '  <boltAction type="file" filePath="src/util.js">\n    export const x = 1;\n  </boltAction>\n'
        '  <boltAction type="shell">\n    node index.js\n  </boltAction>\n'
        "</boltArtifact>\n"
    )
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"index.js": "console.log(1);\n", "src/util.js": "export const x = 1;\n"}


def test_cline_tools(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {
        "app.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n",
        "notes.md": "old\n",
    })
    transcript = (
        "<replace_in_file>\n<path>app.py</path>\n<diff>\n"
        "------- SEARCH\ndef g():\n    return 2\n=======\ndef g():\n    return 3\n+++++++ REPLACE\n"
        "</diff>\n</replace_in_file>\n\n"
        "<write_to_file>\n<path>notes.md</path>\n<content>\nnew notes\n</content>\n</write_to_file>\n\n"
        "<apply_diff>\n<path>app.py</path>\n<diff>\n"
        "<<<<<<< SEARCH\n:start_line:1\n-------\ndef f():\n    return 1\n=======\ndef f():\n    return 10\n>>>>>>> REPLACE\n"
        "</diff>\n</apply_diff>\n"
    )
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {
        "app.py": "def f():\n    return 10\n\n\ndef g():\n    return 3\n",
        "notes.md": "new notes\n",
    }


def test_a_write_shows_as_a_whole_file_diff(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.txt": "one\ntwo\n"})
    t = tmp_path / "t.md"
    t.write_text("<write_to_file>\n<path>a.txt</path>\n<content>\none\nthree\n</content>\n</write_to_file>\n")
    assert main(["apply", "--root", str(root), str(t)]) == 0
    out = capsys.readouterr().out
    assert "--- a/a.txt\n+++ b/a.txt\n" in out and "-two\n+three\n" in out
    assert (root / "a.txt").read_text() == "one\ntwo\n"


def test_roo_insert_content(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"f.txt": "a\nb\n", "g.txt": "a"})
    transcript = (
        "<insert_content>\n<path>f.txt</path>\n<line>2</line>\n<content>\nX\n</content>\n</insert_content>\n"
        "<insert_content>\n<path>g.txt</path>\n<line>0</line>\n<content>\nZ\n</content>\n</insert_content>\n"
    )
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"f.txt": "a\nX\nb\n", "g.txt": "a\nZ\n"}


def test_a_truncated_write_is_refused_unless_forced(tmp_path: Path, capsys) -> None:
    old = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(6))
    root = _workspace(tmp_path, {"m.py": old, "n.py": old})
    lazy = '<dyad-write path="m.py">\ndef f0():\n    return 0\n\n# ... rest of the code unchanged ...\n</dyad-write>\n'
    assert _apply(tmp_path, root, lazy) != 0
    out, err = capsys.readouterr()
    assert "rest of the code unchanged" in out + err
    assert (root / "m.py").read_text() == old
    dropped = '<dyad-write path="n.py">\ndef f0():\n    return 0\n</dyad-write>\n'
    assert _apply(tmp_path, root, dropped) != 0
    assert (root / "n.py").read_text() == old
    assert _apply(tmp_path, root, dropped, "--force") == 0
    assert (root / "n.py").read_text() == "def f0():\n    return 0"


def test_roo_line_hint_chooses_among_several_matches(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"r.py": "x = 1\ny = 0\nx = 1\n"})
    transcript = (
        "<apply_diff>\n<path>r.py</path>\n<diff>\n"
        "<<<<<<< SEARCH\n:start_line:3\n-------\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "</diff>\n</apply_diff>\n"
    )
    assert _apply(tmp_path, root, transcript) == 0
    assert (root / "r.py").read_text() == "x = 1\ny = 0\nx = 2\n"
    # Without the hint the same search text is ambiguous and nothing is written.
    root2 = _workspace(tmp_path / "two", {"r.py": "x = 1\ny = 0\nx = 1\n"})
    assert _apply(tmp_path, root2, transcript.replace(":start_line:3\n-------\n", "")) != 0
    assert (root2 / "r.py").read_text() == "x = 1\ny = 0\nx = 1\n"


def test_a_rename_outcome_is_its_target(tmp_path: Path) -> None:
    from action_lsp.document import analyze
    from action_lsp.edit import Workspace, plan_changes

    root = _workspace(tmp_path, {"src/App.tsx": "x\n"})
    text = '<dyad-rename from="src/App.tsx" to="src/Main.tsx"></dyad-rename>\n'
    plan = plan_changes(analyze(text).actions, Workspace(root))
    change = plan.outcomes[0].change
    assert change is not None and change.rel == "src/Main.tsx" and change.renamed_from == root / "src" / "App.tsx"
    assert sorted((c.kind, c.rel) for c in plan.changes) == [("create", "src/Main.tsx"), ("delete", "src/App.tsx")]
