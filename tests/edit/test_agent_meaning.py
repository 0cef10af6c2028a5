"""Each agent's edit keeps its own agent's meaning (issue 20), through ``action-lsp apply
--write``: what an empty or whitespace-only search text means, several edits in one call,
argument types, and what ``apply`` says when the transcript is broken and nothing can run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from action_lsp.cli import main


def _workspace(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(text.encode())
    return root


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_bytes().decode()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _apply(tmp_path: Path, root: Path, transcript: str, name: str = "t.md", *extra: str) -> int:
    t = tmp_path / name
    t.write_text(transcript)
    return main(["apply", "--root", str(root), "--write", *extra, str(t)])


def _calls(*calls: tuple[str, dict[str, Any]]) -> str:
    """An Anthropic messages export: one assistant message with these tool_use calls."""
    content = [{"type": "tool_use", "id": f"t{k}", "name": name, "input": inp}
               for k, (name, inp) in enumerate(calls)]
    return json.dumps({"messages": [{"role": "assistant", "content": content}]})


# -- apply shows a broken transcript's errors and fails ---------------------------------------

BROKEN_PATCHES = {
    "no operation": "*** Begin Patch\n*** End Patch\n",
    "update with no hunk": "*** Begin Patch\n*** Update File: a.txt\n*** End Patch\n",
    "unknown operation": "*** Begin Patch\n*** Frobnicate File: a.txt\n*** End Patch\n",
}


@pytest.mark.parametrize("case", sorted(BROKEN_PATCHES))
def test_apply_fails_and_shows_the_error_of_a_broken_patch(tmp_path: Path, capsys, case: str) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep\n"})
    code = _apply(tmp_path, root, f"```\n{BROKEN_PATCHES[case]}```\n")
    err = capsys.readouterr().err
    assert code == 1
    assert "[bad-patch]" in err and "t.md:" in err
    assert "nothing to apply." not in err
    assert _tree(root) == {"a.txt": "keep\n"}


def test_a_dry_run_of_a_broken_patch_fails_too(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep\n"})
    t = tmp_path / "t.md"
    t.write_text(f"```\n{BROKEN_PATCHES['unknown operation']}```\n")
    assert main(["apply", "--root", str(root), str(t)]) == 1
    assert "[bad-patch]" in capsys.readouterr().err


def test_a_transcript_with_no_actions_and_no_errors_still_applies_nothing_cleanly(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep\n"})
    assert _apply(tmp_path, root, "Just prose.\n") == 0
    assert "no actions found; nothing to apply." in capsys.readouterr().err
