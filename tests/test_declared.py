"""User-declared dialects: ``.action-lsp.toml`` / ``[tool.action-lsp]`` tables become tag and
fenced-JSON dialects on the built-ins' bases; a wrong file is one line and exit code 2."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import DialectSet, set_declared
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import is_in_progress
from action_lsp.project_config import ConfigError, find_config, load, use

FIXTURE = Path(__file__).parent / "fixtures" / "declared"

PYPROJECT = """
[project]
name = "demo"

[tool.action-lsp.dialects.mytools]
description = "attribute tags and a JSON fence"
syntax = "attributes"

[tool.action-lsp.dialects.mytools.actions.put-file]
kind = "write"
path = "file"
content = "text"
body = "text"
required = ["file"]

[tool.action-lsp.dialects.mytools.actions.swap]
kind = "modify"
path = "file"
search = "old"
replace = "new"
required = ["file", "old", "new"]

[tool.action-lsp.dialects.ops]
syntax = "json"
fences = ["ops"]
type-key = "op"
list-key = "ops"

[tool.action-lsp.dialects.ops.actions.mkfile]
kind = "create"
path = "to"
content = "body"
required = ["to", "body"]

[tool.action-lsp.dialects.ops.actions.sh]
kind = "command"
command = "cmd"
required = ["cmd"]
"""


@pytest.fixture(autouse=True)
def no_declared() -> Iterator[None]:
    set_declared(())
    yield
    set_declared(())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    return tmp_path


def test_codecompanion_example_parses_and_applies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    assert main(["parse", "--format", "json", str(root / "chat.md")]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    assert [(a["type"], a["kind"]) for a in actions] == [
        ("create", "create_file"), ("rename", "rename_file"), ("run", "command")
    ]
    assert actions[0]["file"] == {"op": "create", "path": "src/hello.py", "content": '\nprint("Hello World")\n'}
    assert actions[1]["file"] == {"op": "rename", "path": "old.txt", "to": "docs/old.txt"}
    assert "file" not in actions[2]  # a command is never a file action, and never run
    assert main(["check", str(root / "chat.md")]) == 0
    assert main(["apply", "--root", str(root), "--write", str(root / "chat.md")]) == 0
    assert (root / "src" / "hello.py").read_text(encoding="utf-8") == '\nprint("Hello World")\n'
    assert (root / "docs" / "old.txt").read_text(encoding="utf-8") == "old\n"
    assert not (root / "old.txt").exists()


def test_a_fence_without_the_dialects_tags_stays_an_example(tmp_path: Path) -> None:
    use(FIXTURE / ".action-lsp.toml")
    a = analyze("```xml\n<note>hi</note>\n```\n\n```xml\n<action type=\"delete\"><path>a</path></action>\n```\n")
    assert [(x.dialect, x.type) for x in a.actions] == [("codecompanion", "delete")]


def test_without_a_configuration_nothing_is_declared(tmp_path: Path) -> None:
    (tmp_path / ".action-lsp").mkdir()  # a marked root without a configuration stops the search
    assert find_config(tmp_path / "t.md") is None
    assert not analyze((FIXTURE / "chat.md").read_text(encoding="utf-8")).actions


def test_pyproject_attribute_and_json_dialects(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        '<put-file file="b.py">\nprint(2)\n</put-file>\n\n'
        '<swap file="a.py" old="x = 1" new="x = 2"/>\n\n'
        '```ops\n{"ops": [{"op": "mkfile", "to": "c.txt", "body": "hi\\n"}, {"op": "sh", "cmd": "ls"}, {"op": "mkfile", "body": "x"}]}\n```\n'
    )
    t = project / "t.md"
    t.write_text(text, encoding="utf-8")
    assert main(["parse", "--format", "json", str(t)]) == 0
    views = [a.get("file") for a in json.loads(capsys.readouterr().out)["actions"]]
    assert views[:3] == [
        {"op": "write", "path": "b.py", "content": "print(2)\n"},
        {"op": "modify", "path": "a.py", "edits": [{"search": "x = 1", "replace": "x = 2"}]},
        {"op": "create", "path": "c.txt", "content": "hi\n"},
    ]
    assert main(["check", "--format", "json", str(t)]) == 1
    found = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert [(d["code"], d["range"]["start"]["line"]) for d in found] == [("missing-field", 7)]
    assert main(["apply", "--root", str(project), "--write", "--select", "1,2,3", str(t)]) == 0
    assert (project / "a.py").read_text(encoding="utf-8") == "x = 2\n"
    assert (project / "b.py").read_text(encoding="utf-8") == "print(2)\n"
    assert (project / "c.txt").read_text(encoding="utf-8") == "hi\n"


def test_missing_fields_get_fixes_written_the_dialects_way(project: Path) -> None:
    use(find_config(project))
    a = analyze('<put-file>\nx\n</put-file>\n\n```ops\n[{"op": "mkfile", "to": "c"}]\n```\n')
    fixes = {d.message: d for d in a.diagnostics if d.code == "missing-field"}
    assert len(fixes) == 2
    ds = DialectSet()
    got = []
    for d in a.diagnostics:
        action = next(x for x in a.actions if x.span.start <= d.span.start <= x.span.end)
        dialect = ds.get(action.dialect)
        assert dialect is not None
        fix = dialect.insert_field_fix(a.text, action, d.data["field"])  # type: ignore[index]
        assert fix is not None
        got.append(fix.edits[0].new_text)
    assert got == [' file=""', ', "body": ""']


def test_codecompanion_missing_path_fix_inserts_a_child_element() -> None:
    use(FIXTURE / ".action-lsp.toml")
    text = '<action type="create">\n  <contents>x</contents>\n</action>\n'
    a = analyze(text)
    (d,) = [d for d in a.diagnostics if d.code == "missing-field"]
    assert text[d.span.start : d.span.end] == "create"  # the type attribute names the action
    fix = DialectSet().get("codecompanion").insert_field_fix(text, a.actions[0], "path")  # type: ignore[union-attr]
    assert fix is not None and fix.edits[0].new_text == "  <path></path>\n"


def test_declared_dialects_stream_like_the_built_ins() -> None:
    use(FIXTURE / ".action-lsp.toml")
    doc = IncrementalDocument("")
    for chunk in ['```xml\n<tools><tool name="files">\n', '<action type="create">\n<path>a.py</path>\n', "<contents>x"]:
        doc.edit(len(doc.text), len(doc.text), chunk)
    diags = doc.analysis().diagnostics
    assert diags and all(is_in_progress(d) for d in diags if d.code == "unclosed-tag")
    assert [a.in_progress for a in doc.analysis().actions] == [True]


BAD = [
    ("[dialects.x\n", "not valid TOML"),
    ("[dialects.x]\nsyntax = 'yaml'\n[dialects.x.actions.a]\n", "dialects.x.syntax: 'yaml' is not one of"),
    ("[dialects.x.actions.put]\nkind = 'creat'\n", "dialects.x.actions.put.kind: 'creat' is not one of"),
    ("[dialects.x.actions.put]\nkind = 'create'\npath = 'p'\n", "dialects.x.actions.put: a create action needs content"),
    ("[dialects.x]\ndescription = 'no actions'\n", "dialects.x.actions: declare at least one action"),
    ("[dialects.dyad.actions.a]\n", "dialects.dyad: 'dyad' is a built-in dialect"),
    ("[dialects.x.actions.a]\ncolour = 1\n", "dialects.x.actions.a: unknown key 'colour'"),
    ("[dialects.x]\nsyntax = 'json'\n[dialects.x.actions.a]\n", "dialects.x.fences: a JSON dialect is read from fences"),
    ("[dialects.x.actions.a]\ntag = 'b'\n", "several actions share a tag only with dialects.x.type-attribute"),
    ("[dialect.x]\n", "dialect: unknown key"),
    ("dialects = 3\n", "dialects: expected tables"),
    # an action kind that contradicts the action's name is refused
    ("[dialects.x.actions.create]\nkind = 'delete'\npath = 'p'\n",
     "dialects.x.actions.create.kind: 'delete' contradicts the name 'create', which says create"),
    ("[dialects.x.actions.delete_file]\nkind = 'create'\npath = 'p'\ncontent = 'c'\n",
     "dialects.x.actions.delete_file.kind: 'create' contradicts the name 'delete_file', which says delete"),
    ("[dialects.x]\ntype-attribute = 'type'\n[dialects.x.actions.a]\ntag = 'removeFile'\nkind = 'write'\npath = 'p'\ncontent = 'c'\n",
     "dialects.x.actions.a.kind: 'write' contradicts the name 'removeFile', which says delete"),
    ("[dialects.x.actions.edit]\nkind = 'rename'\npath = 'p'\nto = 't'\n",
     "dialects.x.actions.edit.kind: 'rename' contradicts the name 'edit', which says modify"),
    # a ```json fence claimed with a "create" that deletes (the attack of issue 21)
    ("[dialects.x]\nsyntax = 'json'\nfences = ['json']\n[dialects.x.actions.create]\nkind = 'delete'\npath = 'path'\n",
     "dialects.x.actions.create.kind: 'delete' contradicts the name 'create'"),
    # a delete must say so in its name
    ("[dialects.x]\nsyntax = 'json'\nfences = ['json']\n[dialects.x.actions.json]\nkind = 'delete'\npath = 'path'\n",
     "dialects.x.actions.json.kind: a delete action's name must say so (delete, remove, rm, unlink, ...); 'json' does not"),
]


@pytest.mark.parametrize(("config", "message"), BAD)
def test_a_wrong_configuration_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    (tmp_path / ".action-lsp.toml").write_text(config, encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("hello\n", encoding="utf-8")
    assert main(["check", str(t)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and ".action-lsp.toml" in err, err
    with pytest.raises(ConfigError):
        load(tmp_path / ".action-lsp.toml")


def test_names_that_agree_with_their_kinds_are_accepted() -> None:
    accepted = """
[dialects.x]
type-attribute = "type"
[dialects.x.actions.create_directory]
kind = "mkdir"
path = "p"
[dialects.x.actions.remove_lines]
kind = "modify"
path = "p"
search = "s"
replace = "r"
[dialects.x.actions.unlink]
kind = "delete"
path = "p"
[dialects.x.actions.move]
kind = "rename"
path = "p"
to = "t"
[dialects.x.actions.list_dir]
kind = "read"
path = "p"
"""
    import tomllib

    from action_lsp.dialects.declared import build

    dialect = build("x", tomllib.loads(accepted)["dialects"]["x"])
    assert dialect.name == "x"


def test_pyproject_errors_name_the_tool_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.action-lsp.dialects.x.actions.a]\nkind = 1\n", encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("hello\n", encoding="utf-8")
    assert main(["parse", str(t)]) == 2
    assert "pyproject.toml: tool.action-lsp.dialects.x.actions.a.kind: 1 is not one of" in capsys.readouterr().err


def test_root_option_reads_the_roots_configuration(project: Path, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    elsewhere = tmp_path_factory.mktemp("transcripts") / "t.md"
    elsewhere.write_text('<put-file file="z.py">\nz\n</put-file>\n', encoding="utf-8")
    assert main(["check", str(elsewhere)]) == 0  # no configuration there: plain prose
    capsys.readouterr()
    assert main(["apply", "--root", str(project), str(elsewhere)]) == 0
    assert "+++ b/z.py" in capsys.readouterr().out


def test_a_declared_tool_joins_the_tool_registry(tmp_path: Path) -> None:
    """A project whose agent calls its own tool (``save_file`` with ``target`` and ``body``)
    declares it once; every JSON session shape then reads the call as a file action, and a
    mistyped argument is a ``bad-argument``, never an empty write."""
    from action_lsp.dialects import file_view

    (tmp_path / ".action-lsp.toml").write_text(
        '[tools.save_file]\nkind = "write"\npath = ["target", "file"]\ncontent = "body"\n\n'
        '[tools.patch_text]\nkind = "modify"\npath = "target"\nsearch = "find"\nreplace = "with"\n',
        encoding="utf-8",
    )
    try:
        use(tmp_path / ".action-lsp.toml")
        lines = [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "save_file",
                                               "input": {"target": "src/a.py", "body": "a = 1\n"}}]},
            {"type": "tool_use", "tool_name": "patch_text", "tool_id": "t2",
             "parameters": {"target": "src/a.py", "find": "a = 1", "with": "a = 2"}},
            {"type": "tool_use", "tool_name": "save_file", "tool_id": "t3", "parameters": {"file": "b.py", "body": 7}},
        ]
        a = analyze("\n".join(json.dumps(x) for x in lines) + "\n")
        views = [file_view(x) for x in a.actions]
        assert [(v.op, v.path.value) for v in views if v is not None] == [("write", "src/a.py"), ("modify", "src/a.py")]
        assert views[0] is not None and views[0].content is not None and views[0].content.value == "a = 1\n"
        assert views[1] is not None and views[1].edits[0].replace.value == "a = 2"
        assert views[2] is None  # the body is a number: not applied
        assert "bad-argument" in {d.code for d in a.diagnostics}
    finally:
        use(None)
    with pytest.raises(ConfigError, match=r"tools\.save_file\.content"):
        (tmp_path / ".action-lsp.toml").write_text('[tools.save_file]\nkind = "write"\npath = "p"\n', encoding="utf-8")
        load(tmp_path / ".action-lsp.toml")
