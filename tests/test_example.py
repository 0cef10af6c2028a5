"""The bundled example behaves: ``examples/workspace`` is a marked workspace holding its
transcript, so the transcript is applied to that workspace, never to the enclosing repository."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.project_root import MARKER, MARKERS, find, find_root, is_root

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "workspace"


def snapshot(top: Path) -> dict[str, str]:
    return {
        str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(top.rglob("*"))
        if p.is_file()
    }


def changed_example(example: Path) -> str | None:
    """What tells a user that ``example`` is no longer as shipped, and how to restore it."""
    app = (example / "src" / "app.py").read_text(encoding="utf-8")
    written = [rel for rel, done in (("src/app.py", "def farewell" in app),
                                     ("tests/test_app.py", (example / "tests" / "test_app.py").exists())) if done]
    if not written:
        return None
    return (f"examples/workspace was changed by an apply --write ({', '.join(written)}); restore it "
            "with `git checkout examples/ && git clean -fd examples/` (make demo writes into a copy)")


@pytest.fixture(autouse=True)
def example_as_shipped() -> None:
    """These tests apply the example's actions to a copy: they need examples/ as shipped. A
    user who ran `apply --write` on it (as its messages suggest) is told how to restore it,
    not left with `assert set() == {...}`."""
    said = changed_example(EXAMPLE)
    if said:
        pytest.fail(said, pytrace=False)


def test_a_changed_example_says_how_to_restore_it(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "workspace")
    assert changed_example(tmp_path / "workspace") is None
    assert main(["apply", "--write", "--select", "1-2", str(tmp_path / "workspace" / "transcript.md")]) == 0
    said = changed_example(tmp_path / "workspace")
    assert said is not None and "git checkout examples/ && git clean -fd examples/" in said


def test_the_example_is_a_marked_workspace_with_its_transcript() -> None:
    assert (EXAMPLE / MARKER).is_dir()
    assert (EXAMPLE / "transcript.md").is_file() and (EXAMPLE / "src" / "app.py").is_file()
    assert find_root(EXAMPLE / "transcript.md") == EXAMPLE
    # the repository itself is a root only as a repository (a clone's .git), never by a marker
    found = find(REPO / "README.md")
    assert found is None or (found.path, found.marker) == (REPO, ".git")


def test_neovim_looks_for_the_same_markers_in_the_same_order() -> None:
    lua = (REPO / "editors" / "nvim" / "lua" / "action_lsp" / "init.lua").read_text(encoding="utf-8")
    listed = lua.split("M.root_markers = {", 1)[1].split("}", 1)[0]
    assert [m.strip().strip("'") for m in listed.split(",")] == list(MARKERS)
    marker_of = lua.split("function M.marker_of", 1)[1].split("\nend\n", 1)[0]
    assert marker_of.index(f"'/{MARKER}'") < marker_of.index("'/.action-lsp.toml'") < marker_of.index("'.git'")
    assert "[tool.action-lsp]" in marker_of


def test_pyproject_table_marks_a_root(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.action-lsp]\n', encoding="utf-8")
    (tmp_path / "sub").mkdir()
    assert is_root(tmp_path) and find_root(tmp_path / "sub" / "t.md") == tmp_path
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "action-lsp"\n', encoding="utf-8")
    assert not is_root(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.action-lsp\n", encoding="utf-8")  # broken TOML
    assert not is_root(tmp_path)


def test_applying_the_example_changes_only_the_example_workspace(tmp_path: Path) -> None:
    # A stand-in for the repository: a git checkout with its own src/ and tests/.
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo / "examples" / "workspace")
    (repo / ".git").mkdir()
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("# the repository's own file\n", encoding="utf-8")
    (repo / "tests").mkdir()
    before = snapshot(repo)
    proc = subprocess.run(
        [sys.executable, "-m", "action_lsp", "apply", "--write", "--select", "1,2",
         "examples/workspace/transcript.md"],
        cwd=repo, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "workspace root: " in proc.stderr and "examples/workspace" in proc.stderr
    after = snapshot(repo)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert changed == {"examples/workspace/src/app.py", "examples/workspace/tests/test_app.py"}
    assert "def farewell" in (repo / "examples/workspace/src/app.py").read_text(encoding="utf-8")


def test_the_whole_example_is_refused_for_its_escaping_action(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ws = tmp_path / "workspace"
    shutil.copytree(EXAMPLE, ws)
    before = snapshot(tmp_path)
    assert main(["apply", "--write", str(ws / "transcript.md")]) == 1
    err = capsys.readouterr().err
    assert "[path-traversal]" in err
    assert snapshot(tmp_path) == before
    # ... and says how to write the others alone (a new user was left with "nothing written").
    assert "nothing written: 1 action cannot be applied; a write is all or none, so `--select 1-2` writes the 2 others." in err
    # full sentences: no "(fix it)", no "other(s)"
    assert "(fix it)" not in err and "(s)" not in err
    assert "nothing is ever written outside the workspace" in err
    assert main(["apply", "--write", "--select", "1-2", str(ws / "transcript.md")]) == 0
    assert "def farewell" in (ws / "src" / "app.py").read_text(encoding="utf-8")


def test_demo_commands_work_on_the_example(capsys) -> None:  # type: ignore[no-untyped-def]
    """What `make demo` runs (see the Makefile)."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    demo = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0]
    assert "examples/workspace/transcript.md" in demo
    assert main(["check", str(REPO / "examples")]) == 1  # its deliberate mistakes
    assert "[path-traversal]" in capsys.readouterr().out
    assert main(["parse", str(EXAMPLE / "transcript.md")]) == 0
    assert "7 actions." in capsys.readouterr().out
    assert main(["apply", "--dry-run", str(EXAMPLE / "transcript.md")]) == 1
    captured = capsys.readouterr()
    assert "+def farewell(name):" in captured.out and "+++ b/tests/test_app.py" in captured.out


def test_without_a_marker_the_root_used_is_named_when_the_transcript_is_elsewhere(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    """A new user ran `apply /tmp/proj/chat.md` from /tmp and got `src/app.py does not exist`
    for a file beside the transcript: the current directory was the root, and nothing said so."""
    proj = tmp_path / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    chat = proj / "chat.md"
    chat.write_text("src/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["apply", str(chat)]) == 1
    err = capsys.readouterr().err
    assert f"workspace root: {tmp_path.resolve()} (the current directory" in err and "--root" in err
    monkeypatch.chdir(proj)  # beside the transcript: the usual case, nothing more to say
    assert main(["apply", "chat.md"]) == 0
    assert "workspace root" not in capsys.readouterr().err


def test_the_readme_explains_each_diagnostic_of_the_demo(capsys) -> None:  # type: ignore[no-untyped-def]
    """The demo's errors and warning are there on purpose: README.md's "The demo" table lists
    each, and must list exactly what `check examples/` reports; its action count too."""
    import json
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### The demo", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| (\d+) \| `([a-z-]+)` \| (\w+) \|", section, flags=re.M)
    assert main(["check", "--output-format", "json", str(REPO / "examples")]) == 1
    (report,) = json.loads(capsys.readouterr().out)["files"]
    found = sorted((str(d["range"]["start"]["line"] + 1), d["code"], d["severity"]) for d in report["diagnostics"])
    assert sorted(rows) == found
    assert main(["parse", "--output-format", "json", str(EXAMPLE / "transcript.md")]) == 0
    count = len(json.loads(capsys.readouterr().out)["actions"])
    assert f"`parse` lists its {count} actions" in section
