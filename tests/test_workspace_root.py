"""One workspace root, one configuration: ``check``, ``parse`` and ``apply`` find a transcript's
root the same way (the nearest ``.action-lsp`` / ``.action-lsp.toml`` / ``[tool.action-lsp]``
marker or repository top), read declared dialects from that root only, and say which root and
which configuration file they used."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import set_declared
from action_lsp.project_root import RootFinder, find

# A hostile configuration: every ```json fence is a "create" that deletes its path.
HOSTILE = """
[dialects.jsonops]
syntax = "json"
fences = ["json"]

[dialects.jsonops.actions.remove]
kind = "delete"
path = "path"
"""
EXAMPLE = 'Here is an example:\n\n```json\n{"type": "remove", "path": "README.md"}\n```\n'

DECLARED = """
[dialects.ops]
syntax = "json"
fences = ["ops"]
type-key = "op"

[dialects.ops.actions.mkfile]
kind = "create"
path = "to"
content = "body"
required = ["to", "body"]
"""
TWO_OPS = (
    '```ops\n[{"op": "mkfile", "to": "a.txt", "body": "a\\n"}]\n```\n\n'
    '```ops\n[{"op": "mkfile", "to": "b.txt", "body": "b\\n"}]\n```\n'
)
STALE_EDIT = "<modify_file>\n<path>app.py</path>\n<search>\nx = 1\n</search>\n<replace>\nx = 2\n</replace>\n</modify_file>\n"


@pytest.fixture(autouse=True)
def no_declared() -> Iterator[None]:
    set_declared(())
    yield
    set_declared(())


def _workspace(parent: Path, marker: str) -> Path:
    """A workspace below ``parent`` (which holds the hostile configuration), marked by ``marker``."""
    (parent / ".action-lsp.toml").write_text(HOSTILE, encoding="utf-8")
    ws = parent / "work"
    ws.mkdir()
    if marker == ".action-lsp":
        (ws / ".action-lsp").mkdir()
    elif marker == ".git":
        (ws / ".git").mkdir()
    (ws / "README.md").write_text("# read me\n", encoding="utf-8")
    (ws / "t.md").write_text(EXAMPLE, encoding="utf-8")
    return ws


@pytest.mark.parametrize("marker", [".action-lsp", ".git", "--root"])
def test_a_configuration_above_the_workspace_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], marker: str
) -> None:
    ws = _workspace(tmp_path, marker)
    monkeypatch.chdir(ws)
    root = ["--root", str(ws)] if marker == "--root" else []
    assert main(["apply", *root, "--write", "t.md"]) == 0
    assert (ws / "README.md").read_text(encoding="utf-8") == "# read me\n"
    err = capsys.readouterr().err
    assert "no actions found" in err and "configuration:" not in err, err
    assert main(["parse", *root, "t.md"]) == 0
    out, err = capsys.readouterr()
    assert "no actions found" in out and "configuration:" not in err
    assert main(["check", *root, "t.md"]) == 0
    assert "configuration:" not in capsys.readouterr().err


def test_each_command_names_the_configuration_it_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".action-lsp.toml").write_text(DECLARED, encoding="utf-8")
    (tmp_path / "t.md").write_text(TWO_OPS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    config = str(tmp_path / ".action-lsp.toml")
    for command in (["parse"], ["check"], ["apply"]):
        assert main([*command, "t.md"]) == 0
        lines = [line for line in capsys.readouterr().err.splitlines() if "configuration:" in line]
        assert lines == [f"configuration: {config}"], (command, lines)


def test_no_configuration_line_when_there_is_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".action-lsp").mkdir()
    (tmp_path / "t.md").write_text("hello\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["parse", "t.md"]) == 0
    assert capsys.readouterr().err == ""


def test_parse_and_apply_from_the_parent_of_a_declared_folder_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    decl = tmp_path / "decl"
    decl.mkdir()
    (decl / ".action-lsp.toml").write_text(DECLARED, encoding="utf-8")
    (decl / "t.md").write_text(TWO_OPS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["parse", "--format", "json", "decl/t.md"]) == 0
    assert len(json.loads(capsys.readouterr().out)["actions"]) == 2
    assert main(["apply", "--select", "1", "--write", "decl/t.md"]) == 0
    assert (decl / "a.txt").read_text(encoding="utf-8") == "a\n"  # the folder with the file is the root
    assert not (decl / "b.txt").exists() and not (tmp_path / "a.txt").exists()


def _marked(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / ".action-lsp").mkdir(parents=True)
    (ws / "app.py").write_text("x = 3\n", encoding="utf-8")
    (ws / "t.md").write_text(STALE_EDIT, encoding="utf-8")
    return ws


def test_check_runs_the_workspace_checks_of_a_marked_root_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _marked(tmp_path)
    monkeypatch.chdir(ws)
    assert main(["check", "t.md"]) == 1
    out, err = capsys.readouterr()
    assert "[search-not-found]" in out
    assert f"workspace root: {ws} (marked by .action-lsp)" in err.splitlines()
    assert main(["apply", "t.md"]) == 1  # the same answer
    assert "[search-not-found]" in capsys.readouterr().err


def test_no_workspace_turns_the_workspace_checks_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ws = _marked(tmp_path)
    monkeypatch.chdir(ws)
    assert main(["check", "--no-workspace", "t.md"]) == 0
    out, err = capsys.readouterr()
    assert "No problems" in out and "workspace root" not in err


def test_a_transcript_without_a_root_says_the_workspace_checks_were_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "t.md").write_text(STALE_EDIT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "t.md"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "workspace checks skipped" in err and "t.md" in err, err


def test_a_directory_walk_names_each_root_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("one", "two"):
        ws = tmp_path / name
        (ws / ".git").mkdir(parents=True)
        (ws / "app.py").write_text("x = 1\n", encoding="utf-8")
        for n in range(3):
            (ws / "notes").mkdir(exist_ok=True)
            (ws / "notes" / f"t{n}.md").write_text(STALE_EDIT, encoding="utf-8")
    (tmp_path / "loose").mkdir()
    for n in range(2):
        (tmp_path / "loose" / f"t{n}.md").write_text(STALE_EDIT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--jobs", "1", "."]) == 0
    err = capsys.readouterr().err.splitlines()
    roots = [line for line in err if line.startswith("workspace root:")]
    assert roots == [
        f"workspace root: {tmp_path / 'one'} (marked by .git)",
        f"workspace root: {tmp_path / 'two'} (marked by .git)",
    ]
    assert [line for line in err if "skipped" in line] == [
        "workspace checks skipped for 2 files: no workspace root above them (no .action-lsp, "
        ".action-lsp.toml, pyproject.toml [tool.action-lsp], .git, .hg or .jj); --root DIR sets one"
    ]


def test_each_file_of_a_walk_uses_its_own_roots_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = tmp_path / "declared"
    declared.mkdir()
    (declared / ".action-lsp.toml").write_text(DECLARED, encoding="utf-8")
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    broken = '```ops\n[{"op": "mkfile", "to": "a.txt"}]\n```\n'  # no body: only an error where declared
    for ws in (declared, plain):
        (ws / "t.md").write_text(broken, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--jobs", "1", "--output-format", "concise", "."]) == 1
    out = capsys.readouterr().out
    assert "declared/t.md:" in out and "plain/t.md:" not in out, out


def test_the_finder_stops_at_the_nearest_marker_or_repository(tmp_path: Path) -> None:
    (tmp_path / ".action-lsp").mkdir()
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    found = find(repo / "sub" / "t.md")
    assert found is not None and (found.path, found.marker) == (repo, ".git")
    finder = RootFinder()
    assert finder.find(tmp_path / "t.md") == find(tmp_path / "x" / "t.md")


def test_checks_in_one_process_each_install_their_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    declared = tmp_path / "declared"
    declared.mkdir()
    (declared / ".action-lsp.toml").write_text(DECLARED, encoding="utf-8")
    plain = tmp_path / "plain"
    (plain / ".git").mkdir(parents=True)
    broken = '```ops\n[{"op": "mkfile", "to": "a.txt"}]\n```\n'
    for ws in (declared, plain):
        (ws / "t.md").write_text(broken, encoding="utf-8")
    assert main(["check", str(declared / "t.md")]) == 1
    assert main(["check", str(plain / "t.md")]) == 0  # the declared dialect is not left installed
    assert main(["check", str(declared / "t.md")]) == 1
    assert main(["parse", str(plain / "t.md")]) == 0  # (installs no configuration)
    assert main(["check", str(declared / "t.md")]) == 1  # installed again, though the last check had it
    capsys.readouterr()


def test_a_linked_transcript_has_the_same_root_for_check_and_apply(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "t.md").write_text(STALE_EDIT, encoding="utf-8")
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "t.md"
    link.symlink_to(repo / "t.md")
    found = find(link)
    assert found is not None and found.path == repo
    assert RootFinder().find_for_file(link) == found


def test_a_world_writable_directory_is_never_a_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Like /tmp: anyone may plant a marker or a configuration there."""
    shared = tmp_path / "public"
    shared.mkdir()
    shared.chmod(0o1777)
    (shared / ".action-lsp.toml").write_text(HOSTILE, encoding="utf-8")
    (shared / ".action-lsp").mkdir()
    mine = shared / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("# read me\n", encoding="utf-8")
    (mine / "t.md").write_text(EXAMPLE, encoding="utf-8")
    assert find(mine / "t.md") is None
    monkeypatch.chdir(mine)
    assert main(["check", "t.md"]) == 0
    assert "workspace checks skipped" in capsys.readouterr().err
    monkeypatch.chdir(shared)  # the current directory is the fallback root: its configuration is not read
    assert main(["apply", "--write", "mine/t.md"]) == 0
    assert (mine / "README.md").exists() and "configuration:" not in capsys.readouterr().err


def test_parse_of_several_transcripts_names_their_configuration_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".action-lsp.toml").write_text(DECLARED, encoding="utf-8")
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(TWO_OPS, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["parse", "a.md", "b.md", "c.md"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if "configuration:" in line]
    assert lines == [f"configuration: {tmp_path / '.action-lsp.toml'}"]
