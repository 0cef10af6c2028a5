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


# -- arguments of the wrong type are errors, never a write ------------------------------------

BAD_ARGUMENTS = {
    "create without file_text": ("str_replace_editor", {"command": "create", "path": "a.txt"}),
    "create with a number": ("str_replace_editor", {"command": "create", "path": "a.txt", "file_text": 5}),
    "Write with null content": ("Write", {"file_path": "a.txt", "content": None}),
    "Edit with null new_string": ("Edit", {"file_path": "a.txt", "old_string": "keep", "new_string": None}),
    "Edit with a number": ("Edit", {"file_path": "a.txt", "old_string": "keep", "new_string": 7}),
    "Edit without new_string": ("Edit", {"file_path": "a.txt", "old_string": "keep"}),
    "Edit with a string replace_all": ("Edit", {"file_path": "a.txt", "old_string": "keep", "new_string": "k",
                                                "replace_all": "yes"}),
    "insert_line 1e308": ("str_replace_editor", {"command": "insert", "path": "a.txt", "insert_line": 1e308,
                                                 "new_str": "x"}),
    "insert_line -1": ("str_replace_editor", {"command": "insert", "path": "a.txt", "insert_line": -1,
                                              "new_str": "x"}),
    "MultiEdit edits as an object": ("MultiEdit", {"file_path": "a.txt",
                                                   "edits": {"old_string": "keep", "new_string": "k"}}),
    "MultiEdit item without new_string": ("MultiEdit", {"file_path": "a.txt", "edits": [{"old_string": "keep"}]}),
    "str_replace with a number": ("str_replace_editor", {"command": "str_replace", "path": "a.txt",
                                                         "old_str": "keep", "new_str": 3}),
}


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_a_mistyped_argument_is_a_bad_argument_error_and_nothing_is_written(
        tmp_path: Path, capsys, case: str) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep me\n"})
    name, inp = BAD_ARGUMENTS[case]
    t = tmp_path / "t.json"
    t.write_text(_calls((name, inp)))
    assert main(["check", str(t)]) == 1
    out = capsys.readouterr().out
    assert "[bad-argument]" in out and "noop-edit" not in out
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    err = capsys.readouterr().err
    assert "[bad-argument]" in err and "noop-edit" not in err and "modified" not in err
    assert _tree(root) == {"a.txt": "keep me\n"}


def test_a_bad_argument_stands_at_the_argument(tmp_path: Path) -> None:
    from action_lsp.document import analyze

    text = _calls(("Edit", {"file_path": "a.txt", "old_string": "keep", "new_string": None}))
    (d,) = [d for d in analyze(text).diagnostics if d.code == "bad-argument"]
    assert text[d.span.start:d.span.end] == "null"
    assert "new_string" in d.message


def test_a_claude_code_session_reports_a_bad_argument(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep me\n"})
    record = {"type": "assistant", "sessionId": "s", "cwd": str(root), "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "Edit",
         "input": {"file_path": str(root / "a.txt"), "old_string": "keep", "new_string": None}}]}}
    t = tmp_path / "s.jsonl"
    t.write_text(json.dumps(record) + "\n")
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    assert "[bad-argument]" in capsys.readouterr().err
    assert _tree(root) == {"a.txt": "keep me\n"}


def test_str_replace_without_new_str_deletes_as_the_tool_documents(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep me\n"})
    call = _calls(("str_replace_editor", {"command": "str_replace", "path": "a.txt", "old_str": "keep "}))
    assert _apply(tmp_path, root, call, "t.json") == 0
    assert _tree(root) == {"a.txt": "me\n"}


@pytest.mark.parametrize("args", [
    {"command": "create", "path": "/workspace/a.txt", "file_text": 5},
    {"command": "str_replace", "path": "/workspace/a.txt", "old_str": "keep", "new_str": 5},
])
def test_an_openhands_event_with_a_mistyped_argument_never_writes(tmp_path: Path, capsys, args: dict[str, Any]) -> None:
    root = _workspace(tmp_path, {"a.txt": "keep me\n"})
    events = [{"id": 1, "source": "agent", "action": "edit", "args": args}]
    assert _apply(tmp_path, root, json.dumps(events, indent=4), "t.json") == 1
    assert "[bad-argument]" in capsys.readouterr().err
    assert _tree(root) == {"a.txt": "keep me\n"}


# -- several edits in one call ------------------------------------------------------------------

DOC = "function a() {}\nfunction b() {}\n"


def _multi(*pairs: tuple[str, str], path: str = "a.js") -> str:
    return _calls(("multi_replace_string_in_file", {"explanation": "docs", "replacements": [
        {"filePath": path, "oldString": s, "newString": r} for s, r in pairs]}))


def test_overlapping_replacements_located_in_the_original_conflict(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.js": DOC})
    call = _multi(("function a() {}\nfunction b() {}", "/** doc */\nfunction a() {}\nfunction b() {}"),
                  ("function b() {}", "/** doc */\nfunction b() {}"))
    assert _apply(tmp_path, root, call, "t.json") == 1
    err = capsys.readouterr().err
    assert "[conflicting-edits]" in err and "edits 1 and 2" in err
    assert _tree(root) == {"a.js": DOC}


def test_replacements_are_located_in_the_original_not_in_sequence(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.txt": "alpha\nbeta\n"})
    # In sequence the second would find two `beta`s; located in the original, each has one place.
    assert _apply(tmp_path, root, _multi(("alpha", "beta"), ("beta", "gamma"), path="a.txt"), "t.json") == 0
    assert _tree(root) == {"a.txt": "beta\ngamma\n"}


def test_a_multi_replace_over_two_files_edits_both(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.txt": "one\n", "b.txt": "two\n"})
    call = _calls(("multi_replace_string_in_file", {"replacements": [
        {"filePath": "a.txt", "oldString": "one", "newString": "1"},
        {"filePath": "b.txt", "oldString": "two", "newString": "2"}]}))
    assert _apply(tmp_path, root, call, "t.json") == 0
    assert _tree(root) == {"a.txt": "1\n", "b.txt": "2\n"}


def test_a_multiedit_may_not_rewrite_what_its_earlier_edit_wrote(tmp_path: Path, capsys) -> None:
    root = _workspace(tmp_path, {"a.py": "x = 1\n"})
    call = _calls(("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": "x = 1", "new_string": "x = 1\ny = 2"},
        {"old_string": "y = 2", "new_string": "y = 3"}]}))
    assert _apply(tmp_path, root, call, "t.json") == 1
    assert "[conflicting-edits]" in capsys.readouterr().err
    assert _tree(root) == {"a.py": "x = 1\n"}


def test_a_multiedit_applies_its_edits_in_sequence(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.py": "x = 1\ny = 1\n"})
    call = _calls(("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": "x = 1", "new_string": "x = 2"},
        {"old_string": "x = 2\ny = 1", "new_string": "x = 2\ny = 2"}]}))
    # The second edit reads the first one's result (MultiEdit's documented order); its
    # old_string is no part of the first one's new_string, which is all Claude Code refuses.
    assert _apply(tmp_path, root, call, "t.json") == 0
    assert _tree(root) == {"a.py": "x = 2\ny = 2\n"}


# -- Gemini CLI's expected_replacements -----------------------------------------------------------


@pytest.mark.parametrize(("count", "ok"), [(2, True), (3, False), (1, False)])
def test_gemini_expected_replacements_counts_the_occurrences(tmp_path: Path, capsys, count: int, ok: bool) -> None:
    root = _workspace(tmp_path, {"a.py": "v = 0\nv = 0\n"})
    call = _calls(("replace", {"file_path": "a.py", "old_string": "v = 0", "new_string": "v = 1",
                               "expected_replacements": count}))
    assert _apply(tmp_path, root, call, "t.json") == (0 if ok else 1)
    assert _tree(root) == {"a.py": "v = 1\nv = 1\n" if ok else "v = 0\nv = 0\n"}
    if not ok:
        assert "expected_replacements" in capsys.readouterr().err or count == 1



# -- indentation with care ------------------------------------------------------------------------


def _modify(path: str, search: str, replace: str) -> str:
    return f"<modify_file>\n<path>{path}</path>\n<search>\n{search}</search>\n<replace>\n{replace}</replace>\n</modify_file>\n"


def test_a_replacement_already_indented_as_the_file_is_not_indented_again(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.js": "  // some comment\n\n  function oldFunc() {}\n"})
    transcript = _modify("a.js", "\nfunction oldFunc() {}", "\n  function newFunc() {}")
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"a.js": "  // some comment\n\n  function newFunc() {}\n"}


def test_a_replacement_indented_as_the_search_text_takes_the_files_indentation(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.py": "class A:\n    def f(self):\n        return 1\n"})
    transcript = _modify("a.py", "def f(self):\n    return 1\n", "def f(self):\n    return 2\n")
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"a.py": "class A:\n    def f(self):\n        return 2\n"}


def test_indentation_differing_line_by_line_is_layout_where_the_grammar_ignores_it(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"a.js": "function f() {\n  if (x) {\n    a();\n  }\n}\n"})
    transcript = _modify("a.js", "  if (x) {\n      a();\n  }\n", "  if (x) {\n      b();\n  }\n")
    # Applied, the replacement as the model wrote it (Roo Code's "mixed indentation" case).
    assert _apply(tmp_path, root, transcript) == 0
    assert _tree(root) == {"a.js": "function f() {\n  if (x) {\n      b();\n  }\n}\n"}


def test_indentation_differing_line_by_line_stays_a_question_in_python(tmp_path: Path, capsys) -> None:
    before = "def f():\n    if x:\n        a()\n"
    root = _workspace(tmp_path, {"a.py": before})
    transcript = _modify("a.py", "    if x:\n            a()\n", "    if x:\n            b()\n")
    assert _apply(tmp_path, root, transcript) == 1
    assert "[search-not-found]" in capsys.readouterr().err
    assert _tree(root) == {"a.py": before}
