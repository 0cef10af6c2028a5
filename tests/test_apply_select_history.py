"""``apply --select`` of an action the file is already past: a user who selects an action gets
it applied, or a clear refusal and a non-zero exit -- never a silent success that writes
nothing. Found replaying an Aider history (pocketflow-text2sql-gui): ``--select 36`` said
"superseded by action 44", exited 0 and wrote nothing, 44 not being selected."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main

TWO_EDITS = (
    "<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\ndef f():\n    return 1\n=======\n"
    "def f():\n    return 2\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n\n"
    "<apply_diff>\n<path>m.py</path>\n<diff>\n<<<<<<< SEARCH\ndef f():\n    return 2\n=======\n"
    "def f():\n    return 3\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n"
)


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 3\n")  # the transcript's end state
    t = tmp_path / "t.md"
    t.write_text(TWO_EDITS)
    return root, t


def test_selecting_a_superseded_action_alone_is_refused(tmp_path: Path, capsys) -> None:
    root, t = _setup(tmp_path)
    code = main(["apply", "--root", str(root), "--write", "--select", "1", str(t)])
    err = capsys.readouterr().err
    assert code == 1
    assert "action 2" in err and "not selected" in err and "nothing written" in err
    assert (root / "m.py").read_text() == "def f():\n    return 3\n"


def test_selecting_it_with_the_action_that_superseded_it_is_done(tmp_path: Path, capsys) -> None:
    root, t = _setup(tmp_path)
    assert main(["apply", "--root", str(root), "--write", "--select", "1,2", str(t)]) == 0
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "m.py").read_text() == "def f():\n    return 3\n"


def test_selecting_an_action_already_applied_writes_nothing_and_succeeds(tmp_path: Path, capsys) -> None:
    root, t = _setup(tmp_path)
    (root / "m.py").write_text("def f():\n    return 2\n\n\ndef g():\n    pass\n")
    # action 1 is history (applied), action 2 pending: selecting 1 alone asks for nothing new
    assert main(["apply", "--root", str(root), "--write", "--select", "1", str(t)]) == 0
    assert (root / "m.py").read_text() == "def f():\n    return 2\n\n\ndef g():\n    pass\n"
