"""The one path validator (:mod:`action_lsp.paths`), shared by the transcript rule and the
edit engine: both say the same about a path, ``check --root`` shows each problem once, and no
path makes anything raise ``OSError``."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.cli.check import check_text
from action_lsp.edit import PathProblem, Workspace, plan_changes
from action_lsp.paths import check_path, runs_code

LONG = "a" * 256
BAD = [
    ("src/\u202etxt.exe", "invalid-path", "U+202E"),
    ("src/\u2066x\u2069.py", "invalid-path", "U+2066"),
    ("a/\u200fb.txt", "invalid-path", "U+200F"),
    ("a/\x85b.txt", "invalid-path", "U+0085"),
    ("a/\x1b[31mb.txt", "invalid-path", "U+001B"),
    (f"src/{LONG}.py", "invalid-path", "bytes long"),
    ("src/" + "é" * 128 + ".py", "invalid-path", "259 bytes"),
    ("/".join(["abcdefgh"] * 460), "invalid-path", "longer than"),
    ("../x", "path-traversal", ".."),
    ("/etc/passwd", "absolute-path", "absolute"),
    ("aux.c", "invalid-path", "reserved"),
    (".", "invalid-path", "names no file"),
    (".git/config", "protected-path", "`.git`"),
    ("src/../.GIT/hooks/pre-commit", "protected-path", "`.GIT`"),
    ("src\\..\\.git\\config", "protected-path", "`.git`"),
    ("sub/.Git/HEAD", "protected-path", "`.Git`"),
    (".g\u200cit/config", "protected-path", "no action may"),
    ("GIT~1/config", "protected-path", "GIT~1"),
    (".hg/hgrc", "protected-path", "`.hg`"),
    (".svn/entries", "protected-path", "`.svn`"),
    (".jj/repo/store", "protected-path", "`.jj`"),
    (".action-lsp-journal/backup", "protected-path", "journal"),
    (".git", "protected-path", "`.git`"),
]


@pytest.mark.parametrize(("path", "code", "words"), BAD)
def test_bad_paths(path: str, code: str, words: str) -> None:
    problem = check_path(path)
    assert problem is not None and problem.code == code and words in problem.message


@pytest.mark.parametrize("path", ["src/app.py", "a/../b", "é/" + "é" * 126 + ".py", "x/" + "a" * 255,
                                  ".gitignore", "a.git/x", ".github/x.md", "git/x", ".gitkeep"])
def test_good_paths(path: str) -> None:
    assert check_path(path) is None


@pytest.mark.parametrize(("path", "code", "words"), BAD)
def test_workspace_says_the_same(tmp_path: Path, path: str, code: str, words: str) -> None:
    got = Workspace(tmp_path).resolve(path)
    assert isinstance(got, PathProblem)
    assert (got.code, got.message) == (check_path(path).code, check_path(path).message)  # type: ignore[union-attr]


def write(path: str) -> str:
    return f"<create_file>\n<path>{path}</path>\n<content>\nx\n</content>\n</create_file>\n"


@pytest.mark.parametrize(
    "path", ["src/\u202etxt.exe", f"src/{LONG}/x.py", f"{LONG}.py", "../x.py", "/etc/x", "a/\x7f.py"]
)
def test_check_root_reports_each_path_problem_once(tmp_path: Path, path: str) -> None:
    text = write(path)
    found = check_text(text, None, tmp_path)
    path_codes = [d for d in found if d.code in ("invalid-path", "path-traversal", "absolute-path")]
    assert len(path_codes) == 1, found


def test_long_component_never_raises(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    transcript = tmp_path / "t.md"
    transcript.write_text(
        write(f"{LONG}/x.py")
        + '<modify_file><path>' + LONG + '.py</path><search>a</search><replace>b</replace></modify_file>\n',
        encoding="utf-8",
    )
    assert main(["check", "--root", str(tmp_path), str(transcript)]) == 1
    out = capsys.readouterr().out
    assert out.count("[invalid-path]") == 2 and "bytes long" in out
    assert main(["apply", "--root", str(tmp_path), "--write", str(transcript)]) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.md"]


def test_plan_of_a_long_path_is_a_diagnostic(tmp_path: Path) -> None:
    from action_lsp.document import analyze

    actions = analyze(write(f"{LONG}/x.py")).actions
    plan = plan_changes(actions, Workspace(tmp_path))
    assert [d.code for d in plan.diagnostics] == ["invalid-path"]
    assert plan.changes == []


@pytest.mark.parametrize(("path", "why"), [
    (".vscode/tasks.json", ".vscode/"), (".VSCode/settings.json", ".vscode/"),
    ("web/.vscode/launch.json", ".vscode/"), (".github/workflows/ci.yml", "workflows"),
    (".husky/pre-commit", "husky"), (".envrc", "direnv"), ("home/.bashrc", "shell"),
    (".zshrc", "shell"), (".profile", "shell"), (".pre-commit-config.yaml", "commit"),
    ("a.code-workspace", "workspace"), (".idea/workspace.xml", "JetBrains"),
    (".devcontainer/devcontainer.json", "container"), (".nvim.lua", "Neovim"),
])
def test_files_that_run_code(path: str, why: str) -> None:
    found = runs_code(path.split("/"))
    assert found is not None and why in found


@pytest.mark.parametrize("path", ["Makefile", "package.json", ".github/CODEOWNERS", "src/app.py",
                                  ".gitattributes", "vscode/x.json", "docs/bashrc.md"])
def test_files_that_do_not(path: str) -> None:
    assert runs_code(path.split("/")) is None


def test_under_root_maps_posix_and_windows_paths_into_a_recorded_working_directory() -> None:
    from action_lsp.paths import under_root

    assert under_root("/home/u/p/src/a.py", "/home/u/p") == len("/home/u/p/")
    assert under_root("/home/u/p/src/a.py", "/home/u/p/") == len("/home/u/p/")
    assert under_root("/home/u/proj/a.py", "/home/u/p") is None  # a sibling sharing a prefix
    assert under_root("/home/u/P/a.py", "/home/u/p") is None  # POSIX: case matters
    assert under_root("/home/u/p", "/home/u/p") is None  # the root itself names no file
    assert under_root("c:\\Apps\\Shop\\src\\a.ts", "C:/apps/shop") == len("c:\\Apps\\Shop\\")
    assert under_root("C:/Apps/Shop/a.ts", "c:\\Apps\\Shop\\") == len("C:/Apps/Shop/")
    assert under_root("D:\\Apps\\Shop\\a.ts", "C:/Apps/Shop") is None  # another drive
    assert under_root("src/a.ts", "relative/root") is None
