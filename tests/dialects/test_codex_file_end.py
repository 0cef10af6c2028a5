"""How a Codex update ends its file, as ``apply_patch`` writes it (``codex-rs/apply-patch``,
``derive_new_contents_from_chunks``): the file is a list of lines (split at line feeds, the empty
piece after the final line feed dropped), the chunks replace lines in it, a chunk with no old
line is inserted at the end (before a last empty line when there is one), and the lines are
joined with line feeds, one more only when the last line is not empty. So an empty last `+` line
at the end of the file is that final line feed, not a blank line (found replaying a real Codex
rollout: its go file got a blank line at the end that Codex never wrote). opencode's
``apply_patch`` is a port of the same code."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main


def patch(*body: str) -> str:
    return "*** Begin Patch\n*** Update File: f.txt\n" + "".join(body) + "*** End Patch\n"


def write(tmp_path: Path, before: str, text: str) -> tuple[int, str]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".git").mkdir()
    (root / "f.txt").write_bytes(before.encode())
    doc = root / "t.md"
    doc.write_text(text, encoding="utf-8")
    code = main(["apply", str(doc), "--write"])
    return code, (root / "f.txt").read_bytes().decode()


@pytest.mark.parametrize(
    ("before", "body", "after"),
    [
        # an appended chunk that ends with an empty line: that line is the final line feed
        ("a\n", "@@\n+b\n+\n", "a\nb\n"),
        ("a", "@@\n+b\n+\n", "a\nb\n"),
        # the same for a chunk with old lines at the end of the file
        ("a\n", "@@\n a\n+b\n+\n", "a\nb\n"),
        # in the middle of the file it is a blank line
        ("a\nc\n", "@@\n a\n+b\n+\n", "a\nb\n\nc\n"),
        # a file ending with a blank line: an appended chunk goes before it, and the join keeps
        # no blank line of its own at the end
        ("a\n\n", "@@\n+b\n", "a\nb\n"),
        ("a\n\n", "@@\n+b\n+\n", "a\nb\n\n"),
        # nor does it when the chunk is elsewhere: Codex writes the file without it
        ("x\na\n\n", "@@\n-x\n+y\n", "y\na\n"),
        # what was already right stays so
        ("a\n", "@@\n+b\n", "a\nb\n"),
        ("a\n", "@@\n-a\n+b\n", "b\n"),
    ],
)
def test_the_file_ends_as_codex_writes_it(tmp_path: Path, before: str, body: str, after: str) -> None:
    code, got = write(tmp_path, before, patch(body))
    assert code == 0
    assert got == after


def test_a_block_appended_then_removed_leaves_no_blank_line(tmp_path: Path) -> None:
    """The rollout's two patches: a chunk with no old line (Codex appends it, ending with an
    empty `+` line), then a patch taking those lines away again."""
    src = "func a() {\n}\n"
    first = patch("@@\n-func a() {\n+func b() {\n@@\n+\tif x {\n+\t}\n+\n")
    second = patch("@@\n func b() {\n }\n-\tif x {\n-\t}\n")
    code, got = write(tmp_path, src, "One:\n\n" + first + "\nTwo:\n\n" + second)
    assert code == 0
    assert got == "func b() {\n}\n"
