"""No action may change, rename or delete the transcript that is being applied: a transcript
kept in its workspace whose actions name its own file (a session that wrote a file of the
same name, a documentation page whose example names itself) would otherwise delete or
overwrite the very document the user is reading -- refused as ``protected-path``, even with
``--force``, by ``check``, ``apply`` and the server alike."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.cli import main

CASES = {
    "delete": '<dyad-delete path="notes.md"></dyad-delete>\n',
    "write": '<dyad-write path="notes.md" description="x">\nsomething else entirely\n</dyad-write>\n',
    "rename": '<dyad-rename from="notes.md" to="old-notes.md"></dyad-rename>\n',
    "rename onto": '<dyad-rename from="a.txt" to="notes.md"></dyad-rename>\n',
}


def _workspace(tmp_path: Path, transcript: str) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "a.txt").write_text("a\n")
    t = root / "notes.md"
    t.write_text(transcript)
    return root, t


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("force", [[], ["--force"]], ids=["", "force"])
def test_apply_never_touches_the_transcript(tmp_path: Path, capsys, case: str, force: list[str]) -> None:
    root, t = _workspace(tmp_path, CASES[case])
    assert main(["apply", "--write", *force, str(t)]) == 1
    err = capsys.readouterr().err
    assert "[protected-path]" in err and "the transcript" in err
    assert t.read_text() == CASES[case]
    assert sorted(os.listdir(root)) == [".git", "a.txt", "notes.md"]


def test_a_hard_link_to_the_transcript_is_the_transcript(tmp_path: Path, capsys) -> None:
    root, t = _workspace(tmp_path, '<dyad-delete path="other.md"></dyad-delete>\n')
    os.link(t, root / "other.md")
    assert main(["apply", "--write", str(t)]) == 1
    assert "[protected-path]" in capsys.readouterr().err
    assert (root / "other.md").exists()


def test_check_reports_it(tmp_path: Path, capsys) -> None:
    _root, t = _workspace(tmp_path, CASES["delete"])
    assert main(["check", "--output-format", "concise", str(t)]) == 1
    out = capsys.readouterr().out
    assert "[protected-path]" in out and "the transcript" in out


def test_the_same_name_elsewhere_is_another_file(tmp_path: Path, capsys) -> None:
    root, _t = _workspace(tmp_path, "")
    (root / "sub").mkdir()
    other = root / "sub" / "notes.md"
    other.write_text("old\n")
    t = root / "chat.md"
    t.write_text('<dyad-delete path="sub/notes.md"></dyad-delete>\n')
    assert main(["apply", "--write", str(t)]) == 0
    assert not other.exists()
