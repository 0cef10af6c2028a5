"""Continue's ``single_find_and_replace`` tool call is an edit with Continue's own meaning
(its ``findAndReplaceUtils`` / ``findSearchMatch`` rules), through ``apply --write``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from action_lsp.cli import main


def _run(tmp_path: Path, files: dict[str, str], inp: dict[str, Any]) -> tuple[int, dict[str, str]]:
    root = tmp_path / "ws"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text)
    call = {"type": "tool_use", "id": "t0", "name": "single_find_and_replace", "input": inp}
    t = tmp_path / "t.json"
    t.write_text(json.dumps({"messages": [{"role": "assistant", "content": [call]}]}))
    code = main(["apply", "--root", str(root), "--write", str(t)])
    return code, {p.name: p.read_text() for p in sorted(root.iterdir()) if p.is_file()}


def test_a_continue_find_and_replace_is_applied(tmp_path: Path) -> None:
    code, tree = _run(tmp_path, {"a.py": "x = 1\ny = 2\n"},
                      {"filepath": "a.py", "old_string": "y = 2", "new_string": "y = 3"})
    assert (code, tree) == (0, {"a.py": "x = 1\ny = 3\n"})


def test_replace_all_replaces_every_occurrence(tmp_path: Path) -> None:
    code, tree = _run(tmp_path, {"a.py": "v\nv\n"},
                      {"filepath": "a.py", "old_string": "v", "new_string": "w", "replace_all": True})
    assert (code, tree) == (0, {"a.py": "w\nw\n"})


def test_an_empty_old_string_on_a_file_with_content_writes_nothing(tmp_path: Path, capsys) -> None:
    """Continue inserts at the start of the file; we have no prepend: refused, never appended."""
    code, tree = _run(tmp_path, {"a.py": "x = 1\n"},
                      {"filepath": "a.py", "old_string": "", "new_string": "z = 0\n"})
    assert (code, tree) == (1, {"a.py": "x = 1\n"})
    assert "Continue" in capsys.readouterr().err


def test_an_empty_old_string_writes_an_empty_file(tmp_path: Path) -> None:
    code, tree = _run(tmp_path, {"a.py": ""}, {"filepath": "a.py", "old_string": "", "new_string": "z = 0\n"})
    assert (code, tree) == (0, {"a.py": "z = 0\n"})
