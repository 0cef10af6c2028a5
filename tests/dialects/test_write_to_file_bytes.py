"""``write_to_file`` writes what its agent writes, byte for byte at the ends of the file.

Roo Code and Kilo Code (their calls carry ``line_count``): the parser drops one line break after
``<content>`` and one before ``</content>``; ``DiffViewProvider.update`` then adds a final line
break only when the file it replaces ended with one. A new file ends without one (seen in real
Kilo and Roo sessions: aaronvstory/email-management-tool, tgf-between-your-legs/rooport).

Cline (no ``line_count``): the parser trims the content, the handler trims its end again, and the
diff editor ends every line it streams with a line break: the file ends with exactly one.
"""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main


def _run(tmp_path: Path, files: dict[str, bytes], transcript: str) -> dict[str, bytes]:
    root = tmp_path / "ws"
    root.mkdir()
    for rel, data in files.items():
        (root / rel).write_bytes(data)
    t = tmp_path / "t.md"
    t.write_text(transcript)
    assert main(["apply", "--root", str(root), "--write", "--force", str(t)]) == 0
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


def _roo(path: str, body: str) -> str:
    lines = body.count("\n") + 1
    return (f"**Assistant:**\n\n<write_to_file>\n<path>{path}</path>\n<content>\n{body}\n</content>\n"
            f"<line_count>{lines}</line_count>\n</write_to_file>\n\n")


def _cline(path: str, body: str) -> str:
    return f"<write_to_file>\n<path>{path}</path>\n<content>\n{body}\n</content>\n</write_to_file>\n\n"


def test_roo_and_kilo_write_a_new_file_without_a_final_line_break(tmp_path: Path) -> None:
    out = _run(tmp_path, {}, _roo("plan.md", "# Plan\n\n1. one\n2. two"))
    assert out == {"plan.md": b"# Plan\n\n1. one\n2. two"}


def test_roo_keeps_the_final_line_break_of_the_file_it_replaces(tmp_path: Path) -> None:
    files = {"a.py": b"x = 1\n", "b.py": b"x = 1", "c.py": b"x = 1\r\n"}
    transcript = _roo("a.py", "x = 2") + _roo("b.py", "x = 2") + _roo("c.py", "x = 2\ny = 3")
    out = _run(tmp_path, files, transcript)
    assert out == {"a.py": b"x = 2\n", "b.py": b"x = 2", "c.py": b"x = 2\r\ny = 3\r\n"}


def test_roo_drops_only_one_line_break_before_the_closing_tag(tmp_path: Path) -> None:
    # A blank last line the model wrote stays: Roo strips a single "\n" only.
    out = _run(tmp_path, {}, _roo("n.txt", "a\n"))
    assert out == {"n.txt": b"a\n"}


def test_cline_ends_every_file_it_writes_with_one_line_break(tmp_path: Path) -> None:
    files = {"old.py": b"x = 1"}
    transcript = _cline("new.py", "x = 2") + _cline("old.py", "x = 3\n\n\n") + _cline("pad.md", "\n\n# T")
    out = _run(tmp_path, files, transcript)
    assert out == {"new.py": b"x = 2\n", "old.py": b"x = 3\n", "pad.md": b"# T\n"}
