"""The cline dialect: Cline's and Roo Code's XML tools, written as their system prompts teach."""

from __future__ import annotations

import pytest

from action_lsp.dialects import by_name, file_view
from action_lsp.document import analyze
from action_lsp.model import ActionKind

REPLACE_IN_FILE = """I'll update the component.

<replace_in_file>
<path>src/components/App.tsx</path>
<diff>
------- SEARCH
import React from 'react';
=======
import React, { useState } from 'react';
+++++++ REPLACE

------- SEARCH
  return (
    <div>
=======
  const [n, setN] = useState(0);
  return (
    <div onClick={() => setN(n + 1)}>
+++++++ REPLACE
</diff>
<task_progress>
- [x] Update App
</task_progress>
</replace_in_file>
"""


def test_replace_in_file_blocks_with_exact_ranges() -> None:
    analysis = analyze(REPLACE_IN_FILE)
    assert analysis.diagnostics == []
    (a,) = analysis.actions
    assert (a.dialect, a.type, a.kind, a.path) == ("cline", "replace_in_file", ActionKind.MODIFY_FILE, "src/components/App.tsx")
    assert [(e.search.value, e.replace.value) for e in a.edits] == [
        ("import React from 'react';\n", "import React, { useState } from 'react';\n"),
        ("  return (\n    <div>\n", "  const [n, setN] = useState(0);\n  return (\n    <div onClick={() => setN(n + 1)}>\n"),
    ]
    s = a.edits[1].search
    assert REPLACE_IN_FILE[s.span.start : s.span.end] == "  return (\n    <div>\n"
    view = file_view(a)
    assert view is not None and view.op == "modify" and len(view.edits) == 2


def test_the_legacy_markers_and_any_number_of_marker_characters() -> None:
    text = (
        "<replace_in_file>\n<path>a.py</path>\n<diff>\n"
        "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "---------- SEARCH\ny = 1\n===\ny = 2\n+++ REPLACE\n"
        "</diff>\n</replace_in_file>\n"
    )
    analysis = analyze(text)
    assert analysis.diagnostics == []
    assert [(e.search.value, e.replace.value) for e in analysis.actions[0].edits] == [
        ("x = 1\n", "x = 2\n"),
        ("y = 1\n", "y = 2\n"),
    ]


@pytest.mark.parametrize(
    ("tool", "diff", "marker", "words"),
    [
        ("replace_in_file", "-- SEARCH\na\n=======\nb\n+++++++ REPLACE\n", "-- SEARCH", "wrong number of `-`"),
        ("replace_in_file", "------- SEARCH\na\n+++++++ REPLACE\n", "+++++++ REPLACE", "no `=======`"),
        ("replace_in_file", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n+++++++ REPLACE\n", "+++++++ REPLACE", "doubled REPLACE"),
        ("apply_diff", "<<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "<<<<<<<< SEARCH", "wrong number of `<`"),
        ("apply_diff", "<<<<<<< SEARCH\na\n=======\nb\n>>>>>> REPLACE\n", ">>>>>> REPLACE", "wrong number of `>`"),
        ("apply_diff", "------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n", "------- SEARCH", "not a marker this agent reads"),
    ],
)
def test_malformed_markers(tool: str, diff: str, marker: str, words: str) -> None:
    text = f"<{tool}>\n<path>a.py</path>\n<diff>\n{diff}</diff>\n</{tool}>\n"
    bad = [d for d in analyze(text).diagnostics if d.code == "bad-marker"]
    # Cline's markers in a Roo diff: both the SEARCH and the REPLACE line are reported.
    assert len(bad) == (2 if "not a marker" in words else 1), bad
    assert words in bad[0].message
    assert text[bad[0].span.start : bad[0].span.end] == marker
    if words == "doubled REPLACE":
        assert bad[0].span.start == text.rindex(marker)


def test_a_diff_without_any_block() -> None:
    text = "<replace_in_file>\n<path>a.py</path>\n<diff>\nx = 2\n</diff>\n</replace_in_file>\n"
    (d,) = analyze(text).diagnostics
    assert d.code == "bad-marker" and text[d.span.start : d.span.end] == "diff"


def test_apply_diff_line_hints() -> None:
    text = (
        "<apply_diff>\n<path>src/utils.py</path>\n<diff>\n"
        "<<<<<<< SEARCH\n:start_line:12\n-------\ndef f():\n    return 1\n=======\ndef f():\n    return 2\n>>>>>>> REPLACE\n"
        "\n<<<<<<< SEARCH\n:start_line:40\n-------\ng()\n=======\nh()\n>>>>>>> REPLACE\n"
        "</diff>\n</apply_diff>\n"
    )
    analysis = analyze(text)
    assert analysis.diagnostics == []
    (a,) = analysis.actions
    view = file_view(a)
    assert view is not None and view.to_json()["edits"] == [
        {"search": "def f():\n    return 1\n", "replace": "def f():\n    return 2\n", "line": 12},
        {"search": "g()\n", "replace": "h()\n", "line": 40},
    ]


def test_write_to_file_keeps_a_closing_tag_inside_the_content() -> None:
    text = (
        "<write_to_file>\n<path>docs/tools.md</path>\n<content>\n"
        "Write files with <content>...</content>.\n"
        "</content>\n</write_to_file>\n"
    )
    (a,) = analyze(text).actions
    assert a.kind is ActionKind.WRITE_FILE
    # Cline's parser trims the content; its diff editor ends the file with one line break
    # (tests/dialects/test_write_to_file_bytes.py).
    assert a.get("content") == "Write files with <content>...</content>."
    view = file_view(a)
    assert view is not None and view.to_json() == {"op": "write", "path": "docs/tools.md", "content": a.get("content")}


def test_roo_insert_and_search_and_replace() -> None:
    text = (
        "<insert_content>\n<path>src/a.ts</path>\n<line>5</line>\n<content>\nimport x from 'x';\n</content>\n</insert_content>\n"
        "<search_and_replace>\n<path>src/a.ts</path>\n<search>oldName</search>\n<replace>newName</replace>\n"
        "<use_regex>false</use_regex>\n</search_and_replace>\n"
    )
    analysis = analyze(text)
    assert analysis.diagnostics == []
    insert, sar = analysis.actions
    assert file_view(insert).to_json()["edits"] == [{"search": "", "replace": "import x from 'x';\n", "line": 5}]  # type: ignore[union-attr]
    assert file_view(sar).to_json()["edits"] == [{"search": "oldName", "replace": "newName"}]  # type: ignore[union-attr]


def test_other_tools_with_their_parameters() -> None:
    text = (
        "<list_files>\n<path>src</path>\n<recursive>true</recursive>\n</list_files>\n"
        "<search_files>\n<path>.</path>\n<regex>TODO</regex>\n<file_pattern>*.ts</file_pattern>\n</search_files>\n"
        "<ask_followup_question>\n<question>Which port?</question>\n<options>[\"3000\", \"8080\"]</options>\n</ask_followup_question>\n"
        "<new_task>\n<context>Continue with the tests.</context>\n</new_task>\n"
        "<attempt_completion>\n<result>\nDone.\n</result>\n<command>npm start</command>\n</attempt_completion>\n"
        "<list_files>\n<path>src</path>\n<recursive>maybe</recursive>\n</list_files>\n"
    )
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == [
        "list_files", "search_files", "ask_followup_question", "new_task", "attempt_completion", "list_files",
    ]
    assert analysis.actions[1].get("regex") == "TODO"
    assert analysis.actions[4].get("result") == "Done.\n"
    (d,) = analysis.diagnostics
    assert d.code == "invalid-value" and text[d.span.start : d.span.end] == "maybe"


def test_commands_and_reads_belong_to_the_first_enabled_claimant() -> None:
    text = "<execute_command>\n<command>npm test</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n"
    both = analyze(text)
    assert [a.dialect for a in both.actions] == ["xml-tags"] and both.diagnostics == []
    alone = analyze(text, ["cline"])
    assert [a.dialect for a in alone.actions] == ["cline"] and alone.diagnostics == []


def test_missing_path_and_traversal() -> None:
    text = (
        "<write_to_file>\n<content>x</content>\n</write_to_file>\n"
        "<replace_in_file>\n<path>../../etc/hosts</path>\n<diff>\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n"
    )
    analysis = analyze(text)
    codes = {d.code: d for d in analysis.diagnostics}
    assert codes["missing-field"].data == {"field": "path", "type": "write_to_file"}
    assert text[codes["path-traversal"].span.start :].startswith("../../etc/hosts")
    fix = by_name("cline").insert_field_fix(text, analysis.actions[0], "path")
    assert fix is not None and fix.edits[0].new_text.strip() == "<path></path>"
    assert text[fix.edits[0].span.start :].startswith("</write_to_file>")


def test_unclosed_tool_reports_and_recovers() -> None:
    text = "<write_to_file>\n<path>a.txt</path>\n<content>\nhello\n</content>\n\nNext I will run the tests.\n"
    analysis = analyze(text)
    (d,) = analysis.diagnostics
    assert d.code == "unclosed-tag" and text[d.span.start : d.span.end] == "write_to_file"
    (a,) = analysis.actions
    assert a.get("content") == "hello"


def test_write_to_file_drops_a_markdown_fence_around_the_content() -> None:
    text = "<write_to_file>\n<path>a.py</path>\n<content>\n```python\nx = 1\n```\n</content>\n</write_to_file>\n"
    (a,) = analyze(text).actions
    assert a.get("content") == "x = 1"
    f = a.fields["content"]
    assert text[f.span.start : f.span.end] == "x = 1"
