"""``check`` over several paths as a newcomer runs it: a missing path among good ones, the
severities ``--statistics`` counts, the dialects named, and ``exclude`` / ``extend-exclude``
globs (on the command line and in the project's configuration, as ruff takes them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main

# Aider accepts a second `=======` as the end of a replacement: bad-marker, reported as a
# warning although the code's default severity is error.
DOUBLED = "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n```\n"
MISSING_FIELD = '```actions\n{"actions": [{"type": "create_task"}]}\n```\n'


def test_statistics_counts_the_severity_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = tmp_path / "t.md"
    t.write_text(DOUBLED, encoding="utf-8")
    assert main(["check", str(t)]) == 0
    assert ": warning: " in capsys.readouterr().out
    assert main(["check", "--statistics", str(t)]) == 0
    assert capsys.readouterr().out.split()[:3] == ["1", "bad-marker", "warning"]
    assert main(["check", "--statistics", "--output-format", "json", str(t)]) == 0
    assert [(d["code"], d["severity"], d["count"]) for d in json.loads(capsys.readouterr().out)] == [
        ("bad-marker", "warning", 1)
    ]


def test_statistics_splits_a_code_reported_at_two_severities(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "w.md").write_text(DOUBLED, encoding="utf-8")
    (tmp_path / "e.md").write_text("a.py\n```python\n<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n", encoding="utf-8")
    assert main(["check", "--statistics", str(tmp_path)]) == 1
    rows = sorted(line.split()[:3] for line in capsys.readouterr().out.splitlines())
    assert rows == [["1", "bad-marker", "error"], ["1", "bad-marker", "warning"]]


def test_a_missing_path_is_one_line_and_the_others_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ok = tmp_path / "ok.md"
    ok.write_text(MISSING_FIELD, encoding="utf-8")
    assert main(["check", str(ok), str(tmp_path / "missing.md")]) == 2
    captured = capsys.readouterr()
    assert "[missing-field]" in captured.out and "in 1 file" in captured.out
    err = [line for line in captured.err.strip().splitlines()
           if not line.startswith("workspace checks skipped")]  # (no root above tmp_path)
    assert len(err) == 1 and "missing.md" in err[0] and "no such file" in err[0]
    # the missing path first: the order does not matter
    assert main(["check", str(tmp_path / "missing.md"), str(ok)]) == 2
    assert "[missing-field]" in capsys.readouterr().out


def test_no_actions_names_only_the_dialects_in_effect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from action_lsp.dialects import ALL

    t = tmp_path / "prose.md"
    t.write_text("Just prose.\n", encoding="utf-8")
    assert main(["parse", str(t)]) == 0
    named = capsys.readouterr().out.split("(dialects: ", 1)[1].rstrip(").\n").split(", ")
    assert named == [d.name for d in ALL if d.default_enabled]
    assert "aider-shell" not in named


def test_help_gives_the_real_default_of_dialect(capsys: pytest.CaptureFixture[str]) -> None:
    from action_lsp.dialects import ALL

    off = [d.name for d in ALL if not d.default_enabled]
    assert off, "the help text below names the dialects that are off by default"
    for command in ("check", "parse"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "the default is all" not in text
        for name in off:
            assert f"except {name}" in text or f"but {name}" in text, text


def _tree(tmp_path: Path) -> Path:
    for rel in ("chats/a.md", "docs/guide.md", "docs/api/ref.md", "site/_posts/x.md", "notes.txt"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(MISSING_FIELD, encoding="utf-8")
    return tmp_path


def _checked(capsys: pytest.CaptureFixture[str], root: Path) -> set[str]:
    out = capsys.readouterr().out
    return {Path(line.split(":", 1)[0]).relative_to(root).as_posix() for line in out.splitlines() if "[" in line}


def test_documentation_is_checked_unless_excluded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path)
    monkeypatch.chdir(root)  # a command-line GLOB with / is relative to the current directory
    assert main(["check", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "docs/guide.md", "docs/api/ref.md", "site/_posts/x.md", "notes.txt"}
    assert main(["check", "--extend-exclude", "docs,_posts", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "notes.txt"}
    assert main(["check", "--extend-exclude", "*.txt", "--extend-exclude", "docs/api", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "docs/guide.md", "site/_posts/x.md"}


def test_exclude_replaces_the_default_skips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path)
    venv = root / "venv" / "log.md"
    venv.parent.mkdir()
    venv.write_text(MISSING_FIELD, encoding="utf-8")
    assert main(["check", str(root)]) == 1
    assert "venv/log.md" not in _checked(capsys, root)
    assert main(["check", "--exclude", "docs", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "site/_posts/x.md", "notes.txt", "venv/log.md"}


def test_a_file_named_on_the_command_line_is_checked_even_if_excluded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path)
    assert main(["check", "--extend-exclude", "docs", str(root / "docs" / "guide.md")]) == 1
    assert _checked(capsys, root) == {"docs/guide.md"}


@pytest.mark.parametrize("config", [".action-lsp.toml", "pyproject.toml"])
def test_the_configuration_takes_exclude_and_extend_exclude(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str
) -> None:
    root = _tree(tmp_path)
    prefix = "[tool.action-lsp]\n" if config == "pyproject.toml" else ""
    (root / config).write_text(prefix + 'extend-exclude = ["docs", "site/_posts"]\n', encoding="utf-8")
    assert main(["check", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "notes.txt"}
    (root / config).write_text(prefix + 'exclude = ["chats"]\n', encoding="utf-8")
    assert main(["check", str(root)]) == 1
    assert _checked(capsys, root) == {"docs/guide.md", "docs/api/ref.md", "site/_posts/x.md", "notes.txt"}
    # patterns in the configuration are relative to its directory, wherever check runs from
    (root / config).write_text(prefix + 'extend-exclude = ["docs/api"]\n', encoding="utf-8")
    assert main(["check", str(root / "docs")]) == 1
    assert _checked(capsys, root) == {"docs/guide.md"}


def test_a_wrong_exclude_in_the_configuration_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _tree(tmp_path)
    (root / ".action-lsp.toml").write_text('exclude = "docs"\n', encoding="utf-8")
    assert main(["check", str(root)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "exclude" in err[0] and "list" in err[0]


def test_check_reads_the_configuration_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first root's configuration gives the walk its globs, the files their dialects and
    the check its dialects in use: one reading serves them all (a file read again could have
    changed between readings)."""
    import action_lsp.project_config as project_config

    root = _tree(tmp_path)
    (root / ".action-lsp.toml").write_text('extend-exclude = ["docs"]\n', encoding="utf-8")
    reads: list[Path] = []
    table_of = project_config._table_of

    def counted(path: Path) -> object:
        reads.append(path)
        return table_of(path)

    monkeypatch.setattr(project_config, "_table_of", counted)
    assert main(["check", "--jobs", "1", str(root)]) == 1
    assert _checked(capsys, root) == {"chats/a.md", "site/_posts/x.md", "notes.txt"}
    assert [p.name for p in reads] == [".action-lsp.toml"]
