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


# -- a whitespace-only search text is an ordinary search text ---------------------------------


def test_a_search_of_one_tab_replaces_that_tab(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"f.txt": "before\tafter"})
    transcript = "<modify_file>\n<path>f.txt</path>\n<search>\t</search>\n<replace>    </replace>\n</modify_file>\n"
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"f.txt": "before    after"}


def test_a_whitespace_only_old_string_is_searched_not_appended(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"f.txt": "a\tb\tc\n"})
    # Two tabs: the agent's Edit refuses (not unique); so do we, and nothing is appended.
    code = _apply(tmp_path, root, _calls(("Edit", {"file_path": "f.txt", "old_string": "\t", "new_string": " "})),
                  "t.json")
    assert code == 1
    assert "[search-ambiguous]" in capsys.readouterr().err
    assert _tree(root) == {"f.txt": "a\tb\tc\n"}


# -- an empty search text means what its agent says -------------------------------------------

EMPTY_ON_TEXT_REFUSED = {
    "modify_file": "<modify_file>\n<path>a.py</path>\n<search></search>\n<replace>y = 2\n</replace>\n</modify_file>\n",
    "Edit": _calls(("Edit", {"file_path": "a.py", "old_string": "", "new_string": "y = 2\n"})),
    "MultiEdit": _calls(("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "", "new_string": "y = 2\n"}]})),
    "str_replace": _calls(("str_replace_editor", {"command": "str_replace", "path": "a.py", "old_str": "",
                                                  "new_str": "y = 2\n"})),
    "replace_string_in_file": _calls(("replace_string_in_file", {"filePath": "a.py", "oldString": "",
                                                                 "newString": "y = 2\n"})),
    "replace": _calls(("replace", {"file_path": "a.py", "old_string": "", "new_string": "y = 2\n"})),
    "replace_in_file": "<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\n=======\ny = 2\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n",
    "dyad-search-replace": '<dyad-search-replace path="a.py">\n<<<<<<< SEARCH\n=======\ny = 2\n>>>>>>> REPLACE\n</dyad-search-replace>\n',
}


@pytest.mark.parametrize("case", sorted(EMPTY_ON_TEXT_REFUSED))
def test_an_empty_search_on_a_file_with_content_is_refused(tmp_path: Path, capsys, case: str) -> None:
    root = _workspace(tmp_path, {"a.py": "x = 1\n"})
    transcript = EMPTY_ON_TEXT_REFUSED[case]
    code = _apply(tmp_path, root, transcript, "t.json" if transcript.startswith("{") else "t.md")
    err = capsys.readouterr().err
    assert code == 1, err
    assert "[empty-search]" in err and "a.py" in err
    assert _tree(root) == {"a.py": "x = 1\n"}


def test_aider_appends_an_empty_search_to_a_file_with_content(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.py": "x = 1\n"})
    transcript = "a.py\n```python\n<<<<<<< SEARCH\n=======\ny = 2\n>>>>>>> REPLACE\n```\n"
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"a.py": "x = 1\ny = 2\n"}


@pytest.mark.parametrize("tool", ["Edit", "replace_string_in_file", "replace"])
def test_an_empty_search_creates_a_missing_file_where_its_agent_says_so(tmp_path: Path, tool: str) -> None:
    root = _workspace(tmp_path, {})
    keys = ("filePath", "oldString", "newString") if tool == "replace_string_in_file" else (
        "file_path", "old_string", "new_string")
    inp = dict(zip(keys, ("new.py", "", "y = 2\n"), strict=True))
    assert _apply(tmp_path, root, _calls((tool, inp)), "t.json") == 0
    assert _tree(root) == {"new.py": "y = 2\n"}


def test_claude_code_edit_writes_an_empty_file_gemini_refuses_it(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.py": "\n", "b.py": ""})
    edit = _calls(("Edit", {"file_path": "a.py", "old_string": "", "new_string": "y = 2\n"}))
    assert _apply(tmp_path, root, edit, "t.json") == 0
    assert _tree(root)["a.py"] == "y = 2\n"
    gemini = _calls(("replace", {"file_path": "b.py", "old_string": "", "new_string": "y = 2\n"}))
    assert _apply(tmp_path, root, gemini, "t2.json") == 1
    assert "[empty-search]" in capsys.readouterr().err
    assert _tree(root)["b.py"] == ""


@pytest.mark.parametrize("tag", ["modify_file", "str_replace"])
def test_an_empty_search_on_a_missing_file_is_refused_where_it_means_nothing(
        tmp_path: Path, capsys, tag: str) -> None:
    root = _workspace(tmp_path, {})
    transcript = (EMPTY_ON_TEXT_REFUSED[tag]).replace("a.py", "new.py")
    code = _apply(tmp_path, root, transcript, "t.json" if transcript.startswith("{") else "t.md")
    err = capsys.readouterr().err
    assert code == 1 and "new.py" in err
    assert _tree(root) == {}
