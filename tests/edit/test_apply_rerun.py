"""A second ``apply --write`` of the same transcript is a no-op that succeeds, as the first
one did: the transcript's errors that kept no selected action from being written (an
unclosed block elsewhere, a refused action left out by ``--select``) do not turn "already
applied" into a failure (found replaying real Aider and Cline histories)."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main

GOOD = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n"
UNCLOSED = "b.py\n```python\n<<<<<<< SEARCH\ny = 1\n```\n"
PROTECTED = ".git/config\n```\n<<<<<<< SEARCH\n=======\n[core]\n>>>>>>> REPLACE\n```\n"


def _setup(tmp_path: Path, transcript: str) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    t = tmp_path / "t.md"
    t.write_text(transcript)
    return root, t


@pytest.mark.parametrize(
    ("transcript", "select"),
    [(GOOD + UNCLOSED, []), (GOOD + PROTECTED, ["--select", "1"])],
    ids=["unclosed-block elsewhere", "refused action not selected"],
)
def test_a_second_write_is_a_successful_no_op(tmp_path: Path, capsys, transcript: str,
                                                select: list[str]) -> None:
    root, t = _setup(tmp_path, transcript)
    argv = ["apply", "--root", str(root), *select, str(t)]
    assert main([*argv, "--write"]) == 0
    assert (root / "a.py").read_text() == "x = 2\n"
    capsys.readouterr()
    assert main([*argv, "--write"]) == 0  # nothing left to do: not a failure
    err = capsys.readouterr().err
    assert "already holds this action's result [applied]" in err
    assert "nothing to apply: the transcript has the errors above" not in err
    assert (root / "a.py").read_text() == "x = 2\n"
    assert not (root / ".git" / "config").exists()
    assert main(argv) == 0  # the dry run agrees
    assert "nothing to apply: the transcript has the errors above" not in capsys.readouterr().err


def test_errors_and_no_file_action_still_fail(tmp_path: Path, capsys) -> None:
    root, t = _setup(tmp_path, UNCLOSED)
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    assert "[unclosed-block]" in capsys.readouterr().err


BROKEN_BESIDE_GOOD = (
    "```\n*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n```\n\n"
    "```\n*** Begin Patch\n*** Frobnicate File: a.py\n*** End Patch\n```\n"
)


@pytest.mark.parametrize("write", [[], ["--write"]], ids=["dry run", "write"])
def test_an_error_that_made_no_action_is_named_when_the_others_are_applied(
        tmp_path: Path, capsys, write: list[str]) -> None:
    root, t = _setup(tmp_path, BROKEN_BESIDE_GOOD)
    assert main(["apply", "--root", str(root), *write, str(t)]) == 0
    err = capsys.readouterr().err
    assert "[bad-patch]" in err and "made no action" in err
    assert (root / "new.txt").exists() == bool(write)
