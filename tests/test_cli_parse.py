"""``action-lsp parse`` as a newcomer reads it: several paths, aligned columns, each action
named by what it does (create, write, modify, rename, delete, command, ...), and a call that
failed in its agent session marked failed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from action_lsp.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "dialects"
AIDER_NEW_FILE = 'new.py\n```python\n<<<<<<< SEARCH\n=======\nprint("hi")\n>>>>>>> REPLACE\n```\n'
AIDER_EDIT = "old.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
TAGS = (
    '<dyad-write path="a.py">\nprint(1)\n</dyad-write>\n'
    '<dyad-rename from="a.py" to="b.py"></dyad-rename>\n'
    '<dyad-delete path="c.py"></dyad-delete>\n'
)
ROW = re.compile(r"^\s*(\d+)\. (\S+) +(\S+) +(\S+) +(.*)$")


def _rows(out: str) -> list[tuple[str, str, str]]:
    """(dialect, kind, detail) of each action row."""
    rows = []
    for line in out.splitlines():
        m = ROW.match(line)
        if m:
            rows.append((m[3], m[4], m[5]))
    return rows


def test_actions_are_named_by_what_they_do(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = tmp_path / "t.md"
    t.write_text(AIDER_NEW_FILE + "\n" + AIDER_EDIT + "\n" + TAGS, encoding="utf-8")
    assert main(["parse", str(t)]) == 0
    kinds = [kind for _, kind, _ in _rows(capsys.readouterr().out)]
    assert kinds == ["create", "modify", "write", "rename", "delete"]


def test_an_appending_codex_update_is_a_modify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A Codex update whose chunk only adds lines appends to a file that must exist (Codex
    refuses an update of a missing file): no `create`, which only an agent creating a missing
    file from an empty search text (Aider's empty SEARCH) makes."""
    t = tmp_path / "t.md"
    t.write_text("*** Begin Patch\n*** Update File: f.txt\n@@\n+b\n*** End Patch\n", encoding="utf-8")
    assert main(["parse", str(t)]) == 0
    assert [kind for _, kind, _ in _rows(capsys.readouterr().out)] == ["modify"]


def test_commands_and_failed_calls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse", str(FIXTURES / "claude-code" / "session.jsonl")]) == 0
    rows = _rows(capsys.readouterr().out)
    assert [kind for _, kind, _ in rows] == ["write", "modify", "failed", "modify", "command", "read"]
    assert "String to replace not found in file." in rows[2][2]
    assert main(["parse", "--format", "json", str(FIXTURES / "claude-code" / "session.jsonl")]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    assert [a.get("failed") for a in actions] == [None, None, "String to replace not found in file.", None, None, None]


def test_columns_are_aligned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    t = tmp_path / "t.md"
    # ten actions (two-digit numbers), locations of different widths, dialects of different names
    t.write_text((AIDER_EDIT + "\n") * 8 + "\n" * 100 + TAGS, encoding="utf-8")
    assert main(["parse", "--color", "never", str(t)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if ROW.match(line)]
    assert len(lines) == 11
    for m in (ROW.match(line) for line in lines):
        assert m is not None
    starts = {
        tuple(line.index(part, len(line.split(".", 1)[0]) + 1) for part in ROW.match(line).groups()[1:4])  # type: ignore[union-attr]
        for line in lines
    }
    assert len(starts) == 1, "\n".join(lines)


def test_several_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.md"
    a.write_text(AIDER_EDIT, encoding="utf-8")
    b = tmp_path / "b.md"
    b.write_text(TAGS, encoding="utf-8")
    empty = tmp_path / "prose.md"
    empty.write_text("Nothing here.\n", encoding="utf-8")
    assert main(["parse", str(a), str(b), str(empty)]) == 0
    out = capsys.readouterr().out
    assert [kind for _, kind, _ in _rows(out)] == ["modify", "write", "rename", "delete"]
    assert f"{empty}: no actions found" in out
    assert out.rstrip().endswith("4 actions in 3 files.")
    # numbers are per transcript, as `apply --select` takes them
    assert [line.split(".")[0].strip() for line in out.splitlines() if ROW.match(line)] == ["1", "1", "2", "3"]
    assert main(["parse", "--format", "json", str(a), str(b)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(f["path"], len(f["actions"])) for f in data["files"]] == [(str(a), 1), (str(b), 3)]


def test_a_missing_path_among_several(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = tmp_path / "a.md"
    a.write_text(AIDER_EDIT, encoding="utf-8")
    assert main(["parse", str(tmp_path / "missing.md"), str(a)]) == 2
    captured = capsys.readouterr()
    assert [kind for _, kind, _ in _rows(captured.out)] == ["modify"]
    err = captured.err.strip().splitlines()
    assert len(err) == 1 and "missing.md" in err[0]
