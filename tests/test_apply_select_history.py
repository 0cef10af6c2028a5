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


def _diff(path: str, search: str, replace: str) -> str:
    return (f"<apply_diff>\n<path>{path}</path>\n<diff>\n<<<<<<< SEARCH\n{search}=======\n{replace}"
            ">>>>>>> REPLACE\n</diff>\n</apply_diff>\n\n")


def test_the_suggested_selection_leaves_out_a_file_that_matches_no_point(tmp_path: Path, capsys) -> None:
    """metadata-aider at dbb3868: the user changed ``ui.ts`` by hand, deleting two lines an
    earlier edit inserted; the file matches no point of its chain. A later edit's search text
    is found only because the hand edit left it: suggesting it would put the deleted lines
    back. The suggestion names only the actions on other files."""
    root = tmp_path / "ws"
    root.mkdir()
    ui = ("export function draw(canvas: HTMLCanvasElement) {\n"
          "    const context = canvas.getContext('2d') as CanvasRenderingContext2D;\n"
          "    context.fillStyle = 'navy';\n}\n")
    (root / "ui.ts").write_text(ui)
    (root / "main.ts").write_text("console.log('start');\n")
    transcript = (
        _diff("ui.ts", "    context.fillStyle = 'black';\n", "    context.fillStyle = 'white';\n")
        + _diff("ui.ts", "    const context = canvas.getContext('2d') as CanvasRenderingContext2D;\n",
                "    canvas.width = window.innerWidth;\n    canvas.height = window.innerHeight;\n"
                "    const context = canvas.getContext('2d') as CanvasRenderingContext2D;\n")
        + _diff("main.ts", "console.log('start');\n", "console.log('started');\n")
    )
    t = tmp_path / "t.md"
    t.write_text(transcript)
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    err = capsys.readouterr().err
    assert "`--select 3` writes the other one" in err, err
    assert (root / "ui.ts").read_text() == ui
