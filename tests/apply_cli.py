"""Shared set-up of the tests that apply a transcript with the command line: a workspace of
files, and ``action-lsp apply --root WS --write`` of a transcript written beside it."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main


def workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    """``tmp_path/ws`` holding ``files`` (relative path -> text)."""
    root = tmp_path / "ws"
    root.mkdir()
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body)
    return root


def apply_write(tmp_path: Path, root: Path, transcript: str, *extra: str) -> int:
    """``action-lsp apply --root ROOT --write [EXTRA...] t.md``'s exit code."""
    t = tmp_path / "t.md"
    t.write_text(transcript)
    return main(["apply", "--root", str(root), "--write", *extra, str(t)])
