"""`action-lsp apply`: dry run prints one diff, --write is all or none, exit codes."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest
from unidiff import PatchSet

from action_lsp.cli import apply as apply_cli
from action_lsp.cli.common import CliError
from action_lsp.model import Action


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="action-lsp")
    sub = parser.add_subparsers(dest="command")
    apply_cli.add_parser(sub)
    args = parser.parse_args(["apply", *argv])
    try:
        return int(args.run(args))
    except CliError as exc:
        print(f"action-lsp apply: {exc}", file=__import__("sys").stderr)
        return 2


@pytest.fixture
def setup(tmp_path: Path, tx, monkeypatch):
    root = tmp_path / "ws"
    root.mkdir()
    transcript = tmp_path / "t.md"
    transcript.write_text("x" * 2000 + "\n")
    actions: list[Action] = []
    monkeypatch.setattr(apply_cli, "parse_transcript", lambda text: (actions, []))
    return root, transcript, actions, tx()


def test_dry_run_prints_diff_and_writes_nothing(setup, capsys) -> None:
    root, transcript, actions, t = setup
    (root / "a.py").write_bytes(b"x = 1\n")
    actions += [t.create("new.txt", "hello\n"), t.modify("a.py", ("x = 1\n", "x = 2\n")),
                t.other()]
    code = run(["--root", str(root), str(transcript)])
    out, err = capsys.readouterr()
    assert code == 0
    patch = PatchSet(out)
    assert {p.path for p in patch} == {"new.txt", "a.py"}
    assert "--- /dev/null\n+++ b/new.txt\n" in out
    assert "skipped action 3 (create_task)" in err
    assert sorted(os.listdir(root)) == ["a.py"]
    assert (root / "a.py").read_bytes() == b"x = 1\n"


def test_write_all(setup, capsys) -> None:
    root, transcript, actions, t = setup
    (root / "a.py").write_bytes(b"x = 1\n")
    actions += [t.create("d/new.txt", "hello\n"), t.modify("a.py", ("x = 1\n", "x = 2\n"))]
    assert run(["--root", str(root), "--write", str(transcript)]) == 0
    assert (root / "d/new.txt").read_bytes() == b"hello\n"
    assert (root / "a.py").read_bytes() == b"x = 2\n"


def test_write_none_when_one_fails(setup, capsys) -> None:
    root, transcript, actions, t = setup
    (root / "a.py").write_bytes(b"x = 1\n")
    actions += [t.create("new.txt", "hello\n"), t.modify("a.py", ("nope\nnever\n", "y\n"))]
    assert run(["--root", str(root), "--write", str(transcript)]) == 1
    err = capsys.readouterr().err
    assert "[search-not-found]" in err and "nothing written" in err
    assert "t.md:1:" in err and "action 2" in err
    assert sorted(os.listdir(root)) == ["a.py"]
    assert (root / "a.py").read_bytes() == b"x = 1\n"


def test_overwrite_needs_force(setup, capsys) -> None:
    root, transcript, actions, t = setup
    (root / "a.txt").write_bytes(b"old\n")
    actions.append(t.create("a.txt", "new\n"))
    assert run(["--root", str(root), "--write", str(transcript)]) == 1
    assert "[file-exists]" in capsys.readouterr().err
    assert (root / "a.txt").read_bytes() == b"old\n"
    assert run(["--root", str(root), "--write", "--force", str(transcript)]) == 0
    assert (root / "a.txt").read_bytes() == b"new\n"


def test_select(setup, capsys) -> None:
    root, transcript, actions, t = setup
    actions += [t.create("a.txt", "a\n"), t.modify("missing.txt", ("q", "r")),
                t.create("c.txt", "c\n")]
    assert run(["--root", str(root), "--write", "--select", "1,3", str(transcript)]) == 0
    assert sorted(os.listdir(root)) == ["a.txt", "c.txt"]
    assert run(["--root", str(root), "--select", "9", str(transcript)]) == 2
    assert "numbered 1 to 3" in capsys.readouterr().err
    assert run(["--root", str(root), "--select", "x", str(transcript)]) == 2


def test_symlink_escape_refused(setup, tmp_path: Path, capsys) -> None:
    root, transcript, actions, t = setup
    outside = tmp_path / "out"
    outside.mkdir()
    os.symlink(outside, root / "link")
    actions.append(t.create("link/evil.txt", "x"))
    assert run(["--root", str(root), "--write", str(transcript)]) == 1
    assert "[path-traversal]" in capsys.readouterr().err
    assert not os.listdir(outside)


def test_usage_errors(tmp_path: Path, capsys) -> None:
    assert run(["--root", str(tmp_path), str(tmp_path / "missing.md")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "t.md").write_text("hi\n")
    assert run(["--root", str(tmp_path / "nodir"), str(tmp_path / "t.md")]) == 2
    with pytest.raises(SystemExit) as exc:
        run(["--dry-run", "--write", str(tmp_path / "t.md")])
    assert exc.value.code == 2


def test_end_to_end_with_real_dialect(tmp_path: Path, capsys) -> None:
    from action_lsp.dialects import NAMES

    if "xml-tags" not in NAMES:
        pytest.skip("the xml-tags dialect is not there yet")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_bytes(b"def main():\r\n    print('a')\r\n")
    transcript = tmp_path / "t.md"
    transcript.write_text(
        "Here you go.\n\n<create_file>\n<path>pkg/util.py</path>\n<content>X = 1\n</content>\n"
        "</create_file>\n\n<modify_file>\n<path>app.py</path>\n<search>print('a')</search>\n"
        "<replace>print('b')</replace>\n</modify_file>\n"
    )
    assert run(["--root", str(root), "--write", str(transcript)]) == 0
    assert (root / "app.py").read_bytes() == b"def main():\r\n    print('b')\r\n"
    assert (root / "pkg/util.py").read_bytes().strip() == b"X = 1"


def test_write_says_it_waits_for_a_held_journal_lock(setup, capsys) -> None:
    """A second `apply --write` while another holds the journal lock says what it waits for,
    instead of hanging silently, and writes once the lock is free."""
    import threading
    import time

    from action_lsp.edit.journal import locked

    root, transcript, actions, t = setup
    (root / "a.py").write_bytes(b"x = 1\n")
    actions.append(t.modify("a.py", ("x = 1\n", "x = 2\n")))
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with locked(root, create=True):
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    codes: list[int] = []
    applier = threading.Thread(target=lambda: codes.append(run(["--root", str(root), "--write",
                                                                 str(transcript)])))
    applier.start()
    err = ""
    for _ in range(200):
        err += capsys.readouterr().err
        if "waiting" in err:
            break
        time.sleep(0.05)
    assert (root / "a.py").read_bytes() == b"x = 1\n"  # nothing written while it waits
    release.set()
    holder.join(10)
    applier.join(30)
    assert "waiting" in err and "journal lock" in err and str(root) in err
    assert codes == [0]
    assert (root / "a.py").read_bytes() == b"x = 2\n"
