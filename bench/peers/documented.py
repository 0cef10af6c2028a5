"""Write the suites of edit-tool rules that peers document (no test data of theirs is copied):
Claude Code's Edit / MultiEdit, Gemini CLI's replace, GitHub Copilot Chat's replace_string_in_file
and multi_replace_string_in_file, the str_replace editor (Anthropic, OpenHands, SWE-agent),
Continue's single_find_and_replace and multi_edit, avante.nvim's str_replace.

``python bench/peers/documented.py`` rewrites ``bench/peers/{claude-code,gemini,copilot,
str-replace,continue,avante}/*.json``. Each case is our own, written from the rule its source states (the
``source`` field: the documentation or the tool's source file the rule is read from), as an
Anthropic messages export with one assistant turn of tool calls.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

CLAUDE = "Claude Code tools reference (docs.anthropic.com/en/docs/claude-code), Edit / MultiEdit input validation"
GEMINI = "google-gemini/gemini-cli packages/core/src/tools/edit.ts (replace tool)"
COPILOT = "microsoft/vscode-copilot-chat src/extension/tools/node/editFileToolUtils.tsx, multiReplaceStringTool.tsx"
CONTINUE = "continuedev/continue core/tools/definitions/singleFindAndReplace.ts, core/edit/searchAndReplace/findAndReplaceUtils.ts, performReplace.ts, findSearchMatch.ts"
AVANTE = "yetone/avante.nvim lua/avante/llm_tools/str_replace.lua (the str_replace tool of its Claude text-editor mode)"
EDITOR = "Anthropic text editor tool documentation (str_replace_based_edit_tool); OpenHands / SWE-agent str_replace_editor"


def _calls(*calls: tuple[str, dict[str, Any]]) -> str:
    content = [{"type": "tool_use", "id": f"t{k}", "name": n, "input": i} for k, (n, i) in enumerate(calls)]
    return json.dumps({"messages": [{"role": "assistant", "content": content}]}, indent=1) + "\n"


def _edit(path: str, old: str, new: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return ("Edit", {"file_path": path, "old_string": old, "new_string": new, **more})


def _gemini(path: str, old: str, new: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return ("replace", {"file_path": path, "old_string": old, "new_string": new, **more})


def _copilot(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("replace_string_in_file", {"filePath": path, "oldString": old, "newString": new})


def _continue(path: str, old: str, new: str, **more: Any) -> tuple[str, dict[str, Any]]:
    return ("single_find_and_replace", {"filepath": path, "old_string": old, "new_string": new, **more})


def _avante(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("str_replace", {"path": path, "old_str": old, "new_str": new})


def _editor(path: str, old: str, new: str) -> tuple[str, dict[str, Any]]:
    return ("str_replace_editor", {"command": "str_replace", "path": path, "old_str": old, "new_str": new})


A = "x = 1\ny = 2\n"

SUITES: dict[str, tuple[str, list[tuple[str, dict[str, str], list[tuple[str, dict[str, Any]]], str, dict[str, str]]]]] = {
    "claude-code": (CLAUDE, [
        ("replaces the one occurrence", {"a.py": A}, [_edit("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("refuses several occurrences without replace_all", {"a.py": "v\nv\n"}, [_edit("a.py", "v", "w")], "refuse", {}),
        ("replace_all replaces every occurrence", {"a.py": "v\nv\n"}, [_edit("a.py", "v", "w", replace_all=True)],
         "apply", {"a.py": "w\nw\n"}),
        ("empty old_string creates a missing file", {}, [_edit("new.py", "", "z = 0\n")], "apply", {"new.py": "z = 0\n"}),
        ("empty old_string on a file with content is refused", {"a.py": A}, [_edit("a.py", "", "z = 0\n")], "refuse", {}),
        ("empty old_string writes an empty file", {"a.py": ""}, [_edit("a.py", "", "z = 0\n")], "apply", {"a.py": "z = 0\n"}),
        ("old_string equal to new_string is refused", {"a.py": A}, [_edit("a.py", "x = 1", "x = 1")], "refuse", {}),
        ("a missing old_string is refused", {"a.py": A}, [_edit("a.py", "q = 9", "q = 8")], "refuse", {}),
        ("MultiEdit applies its edits in sequence", {"a.py": A},
         [("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 10"},
                                                       {"old_string": "x = 10\ny", "new_string": "x = 10\nyy"}]})],
         "apply", {"a.py": "x = 10\nyy = 2\n"}),
        ("MultiEdit refuses an old_string inside an earlier new_string", {"a.py": A},
         [("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 1\nw = 0"},
                                                       {"old_string": "w = 0", "new_string": "w = 5"}]})],
         "refuse", {}),
        ("MultiEdit is all or nothing", {"a.py": A},
         [("MultiEdit", {"file_path": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 5"},
                                                       {"old_string": "nope", "new_string": "n"}]})],
         "refuse", {}),
    ]),
    "gemini": (GEMINI, [
        ("replaces the one occurrence", {"a.py": A}, [_gemini("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("expected_replacements replaces that many", {"a.py": "v\nv\n"}, [_gemini("a.py", "v", "w", expected_replacements=2)],
         "apply", {"a.py": "w\nw\n"}),
        ("a count other than expected_replacements is refused", {"a.py": "v\nv\nv\n"},
         [_gemini("a.py", "v", "w", expected_replacements=2)], "refuse", {}),
        ("several occurrences with the default of 1 are refused", {"a.py": "v\nv\n"}, [_gemini("a.py", "v", "w")],
         "refuse", {}),
        ("empty old_string creates a missing file", {}, [_gemini("new.py", "", "z = 0\n")], "apply", {"new.py": "z = 0\n"}),
        ("empty old_string on an existing file is refused", {"a.py": A}, [_gemini("a.py", "", "z = 0\n")], "refuse", {}),
        ("empty old_string on an existing empty file is refused", {"a.py": ""}, [_gemini("a.py", "", "z = 0\n")],
         "refuse", {}),
        ("an edit of a missing file is refused", {}, [_gemini("new.py", "x", "y")], "refuse", {}),
    ]),
    "copilot": (COPILOT, [
        ("replaces the one occurrence", {"a.py": A}, [_copilot("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("several matches are refused", {"a.py": "v = 0\nv = 0\n"}, [_copilot("a.py", "v = 0", "v = 1")], "refuse", {}),
        ("empty oldString creates a missing file", {}, [_copilot("new.py", "", "z = 0\n")], "apply", {"new.py": "z = 0\n"}),
        ("empty oldString writes a blank file", {"a.py": "\n"}, [_copilot("a.py", "", "z = 0\n")], "apply", {"a.py": "z = 0\n"}),
        ("empty oldString on a file with content is refused", {"a.py": A}, [_copilot("a.py", "", "z = 0\n")], "refuse", {}),
        ("multi_replace locates every replacement in the original", {"a.py": "alpha\nbeta\n"},
         [("multi_replace_string_in_file", {"replacements": [
             {"filePath": "a.py", "oldString": "alpha", "newString": "beta"},
             {"filePath": "a.py", "oldString": "beta", "newString": "gamma"}]})],
         "apply", {"a.py": "beta\ngamma\n"}),
        ("multi_replace edits several files", {"a.py": "one\n", "b.py": "two\n"},
         [("multi_replace_string_in_file", {"replacements": [
             {"filePath": "a.py", "oldString": "one", "newString": "1"},
             {"filePath": "b.py", "oldString": "two", "newString": "2"}]})],
         "apply", {"a.py": "1\n", "b.py": "2\n"}),
        ("multi_replace refuses replacements that overlap", {"a.py": "ab\ncd\n"},
         [("multi_replace_string_in_file", {"replacements": [
             {"filePath": "a.py", "oldString": "ab\ncd", "newString": "AB\ncd"},
             {"filePath": "a.py", "oldString": "cd", "newString": "CD"}]})],
         "refuse", {}),
    ]),
    "continue": (CONTINUE, [
        ("replaces the one occurrence", {"a.py": A}, [_continue("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("several occurrences without replace_all are refused", {"a.py": "v\nv\n"}, [_continue("a.py", "v", "w")],
         "refuse", {}),
        ("replace_all replaces every occurrence", {"a.py": "v\nv\n"}, [_continue("a.py", "v", "w", replace_all=True)],
         "apply", {"a.py": "w\nw\n"}),
        ("a missing old_string is refused", {"a.py": A}, [_continue("a.py", "q = 9", "q = 8")], "refuse", {}),
        ("old_string equal to new_string is refused", {"a.py": A}, [_continue("a.py", "x = 1", "x = 1")], "refuse", {}),
        ("a new_string that is not a string is refused", {"a.py": A},
         [("single_find_and_replace", {"filepath": "a.py", "old_string": "x = 1", "new_string": 5})], "refuse", {}),
        ("a replace_all that is not a boolean is refused", {"a.py": "v\nv\n"},
         [_continue("a.py", "v", "w", replace_all="yes")], "refuse", {}),
        ("an empty old_string inserts at the start of the file", {"a.py": A}, [_continue("a.py", "", "z = 0\n")],
         "apply", {"a.py": "z = 0\n" + A}),
        ("an indented old_string found unindented keeps the file's indentation", {"a.py": "def f():\n    return 1\n"},
         [_continue("a.py", "  return 1", "  return 2")], "apply", {"a.py": "def f():\n    return 2\n"}),
        ("multi_edit applies its edits in order", {"a.py": A},
         [("multi_edit", {"filepath": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 10"},
                                                       {"old_string": "y = 2", "new_string": "y = 20"}]})],
         "apply", {"a.py": "x = 10\ny = 20\n"}),
        ("multi_edit: an edit may match what an earlier one wrote", {"a.py": A},
         [("multi_edit", {"filepath": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 10"},
                                                       {"old_string": "x = 10\ny", "new_string": "x = 10\nyy"}]})],
         "apply", {"a.py": "x = 10\nyy = 2\n"}),
        ("multi_edit is all or nothing", {"a.py": A},
         [("multi_edit", {"filepath": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 5"},
                                                       {"old_string": "nope", "new_string": "n"}]})],
         "refuse", {}),
    ]),
    "avante": (AVANTE, [
        ("replaces the one occurrence", {"a.py": A}, [_avante("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("an old_str not found is refused", {"a.py": A}, [_avante("a.py", "q = 9", "q = 8")], "refuse", {}),
        ("a missing file is refused", {}, [_avante("new.py", "", "z = 0\n")], "refuse", {}),
        ("a missing new_str is refused", {"a.py": A},
         [("str_replace", {"path": "a.py", "old_str": "y = 2"})], "refuse", {}),
        ("lines are matched with their indentation ignored", {"a.py": "def f():\n    return 1\n"},
         [_avante("a.py", "return 1", "return 2")], "apply", {"a.py": "def f():\n    return 2\n"}),
        ("several lines are replaced", {"a.py": A}, [_avante("a.py", "x = 1\ny = 2", "x = 3\ny = 4")], "apply",
         {"a.py": "x = 3\ny = 4\n"}),
        ("a block found at another indentation is replaced at the file's", {"a.py": "def f():\n    if x:\n        y()\n"},
         [_avante("a.py", "if x:\n    y()", "if x:\n    z()")], "apply", {"a.py": "def f():\n    if x:\n        z()\n"}),
        ("of several matching places, the first is replaced", {"a.py": "v = 1\nv = 1\n"},
         [_avante("a.py", "v = 1", "v = 2")], "apply", {"a.py": "v = 2\nv = 1\n"}),
    ]),
    "str-replace": (EDITOR, [
        ("replaces the one occurrence", {"a.py": A}, [_editor("a.py", "y = 2", "y = 3")], "apply", {"a.py": "x = 1\ny = 3\n"}),
        ("several occurrences are refused", {"a.py": "v\nv\n"}, [_editor("a.py", "v", "w")], "refuse", {}),
        ("no occurrence is refused", {"a.py": A}, [_editor("a.py", "q", "w")], "refuse", {}),
        ("an empty old_str is refused", {"a.py": A}, [_editor("a.py", "", "w\n")], "refuse", {}),
        ("an empty old_str on a missing file is refused", {}, [_editor("new.py", "", "w\n")], "refuse", {}),
        ("new_str omitted deletes the old text", {"a.py": A},
         [("str_replace_editor", {"command": "str_replace", "path": "a.py", "old_str": "y = 2\n"})], "apply", {"a.py": "x = 1\n"}),
        ("create refuses an existing file", {"a.py": A},
         [("str_replace_editor", {"command": "create", "path": "a.py", "file_text": "z\n"})], "refuse", {}),
        ("create without file_text is refused", {"a.py": A},
         [("str_replace_editor", {"command": "create", "path": "a.py"})], "refuse", {}),
        ("insert after a line", {"a.py": A},
         [("str_replace_editor", {"command": "insert", "path": "a.py", "insert_line": 1, "new_str": "w = 0"})],
         "apply", {"a.py": "x = 1\nw = 0\ny = 2\n"}),
        ("insert_line past the end is refused", {"a.py": A},
         [("str_replace_editor", {"command": "insert", "path": "a.py", "insert_line": 1.5, "new_str": "w"})],
         "refuse", {}),
    ]),
}


def main() -> None:
    for suite, (source, cases) in SUITES.items():
        out = HERE / suite
        out.mkdir(exist_ok=True)
        for p in out.glob("*.json"):
            p.unlink()
        for n, (test, files, calls, outcome, result) in enumerate(cases, 1):
            slug = re.sub(r"[^a-z0-9]+", "-", test.lower()).strip("-")
            case = {"id": f"{suite}/{n:03d}-{slug}", "suite": suite, "test": test, "source": source,
                    "files": files, "transcript": _calls(*calls),
                    "peer": {"outcome": outcome, "files": result, "options": {}}, "notes": ["written from the documented rule"]}
            (out / f"{n:03d}-{slug}.json").write_text(json.dumps(case, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
