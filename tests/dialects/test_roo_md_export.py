"""Roo Code's and Kilo Code's "Export task" markdown: ``**User:**`` / ``**Assistant:**`` turns,
the assistant's XML tool calls, the user's ``[tool for 'path'] Result:`` answers. Shapes modelled
on real exports (aaronvstory/email-management-tool's Kilo tasks; tgf-between-your-legs/rooport,
MIT, Roo Code with gemini-2.5-pro)."""

from __future__ import annotations

from action_lsp.document import analyze
from action_lsp.model import ActionKind

MULTI_FILE_DIFF = """<apply_diff>
<args>
<file>
<path>templates/base.html</path>
<diff>
<content><![CDATA[
<<<<<<< SEARCH
<title>Old</title>
=======
<title>New</title>
>>>>>>> REPLACE
]]></content>
<start_line>2</start_line>
</diff>
</file>
</args>
</apply_diff>
"""


def test_kilo_multi_file_search_block_is_no_aider_block_in_a_runaway_fence() -> None:
    """A Kilo multi-file ``apply_diff`` inside a fence that never closes: its SEARCH block is
    no Aider block, whose path would be the line before it (``<content><![CDATA[``)."""
    text = "**Assistant:**\n\nThe plan:\n\n```mermaid\ngraph TD\n  A --> B\n\n" + MULTI_FILE_DIFF
    a = analyze(text)
    assert [x for x in a.actions if x.dialect == "aider"] == []
    assert all("CDATA" not in (x.text("path") or "") for x in a.actions)


def test_call_glued_to_a_closing_fence_closes_it_and_is_read() -> None:
    """Kilo writes the next call right after a fence's closing backticks (```` ```<update_todo_list> ````):
    the fence closes there and the calls after it are read."""
    text = (
        "**Assistant:**\n\nThe flow:\n\n```mermaid\ngraph TD\n  A --> B\n"
        "```<update_todo_list>\n<todos>\n[x] plan\n[ ] edit\n</todos>\n</update_todo_list>\n\n---\n\n"
        "**User:**\n\n[update_todo_list] Result:\nTodo list updated successfully.\n\n---\n\n"
        "**Assistant:**\n\n" + MULTI_FILE_DIFF
    )
    a = analyze(text)
    assert [(x.type, x.text("path")) for x in a.actions if x.kind is ActionKind.MODIFY_FILE] == [
        ("apply_diff", "templates/base.html")
    ]
    assert [x.type for x in a.actions if x.dialect == "aider"] == []


def test_backticks_then_text_stay_no_closing_fence() -> None:
    """CommonMark: ```` ```<b> ```` inside a fence closes nothing when ``<b>`` is no tool tag."""
    text = "```html\n<p>x</p>\n```<b>\n<write_to_file>\n<path>a.txt</path>\n<content>\nx\n</content>\n</write_to_file>\n```\n"
    assert analyze(text).actions == []


def _turns(*turns: tuple[str, str]) -> str:
    return "\n\n---\n\n".join(f"**{who}:**\n\n{body}" for who, body in turns) + "\n"


SINGLE_DIFF = """<apply_diff>
<path>tests/conftest.py</path>
<diff>
<<<<<<< SEARCH
:start_line:1
-------
import os
=======
import os
import re
>>>>>>> REPLACE
</diff>
</apply_diff>"""


def test_results_in_the_next_user_turn_mark_refused_calls_failed() -> None:
    """Each call is answered by the next ``[tool for 'path'] Result:``: Roo's and Kilo's refusals
    (``<error_details>``, ``Failed to parse apply_diff XML``, ``The tool execution failed ...``)
    make it failed (shown, never applied); a success leaves it an edit."""
    text = _turns(
        ("User", "<task>add re</task>"),
        ("Assistant", "I'll add the import.\n\n" + SINGLE_DIFF),
        ("User", "[apply_diff for 'tests/conftest.py'] Result:\n<error_details>\nDiff 1 failed for file: "
                 "tests/conftest.py\nError: No sufficiently similar match found at line: 1 (99% similar, needs 100%)\n"
                 "</error_details>"),
        ("Assistant", "Again.\n\n" + SINGLE_DIFF),
        ("User", "[apply_diff for 'tests/conftest.py'] Result:\nFailed to parse apply_diff XML. This usually means:\n"
                 "1. The XML structure is malformed or incomplete"),
        ("Assistant", MULTI_FILE_DIFF),
        ("User", "[apply_diff for 'templates/base.html'] Result:\nThe tool execution failed with the following "
                 "error:\n<error>\nTool 'apply_diff' in mode 'Architect' can only edit files matching pattern: \\.md$\n</error>"),
        ("Assistant", "Once more.\n\n" + SINGLE_DIFF),
        ("User", "[apply_diff for 'tests/conftest.py'] Result:\n<file_write_result>\n<path>tests/conftest.py</path>\n"
                 "<operation>modified</operation>\n</file_write_result>"),
    )
    a = analyze(text)
    diffs = [x for x in a.actions if x.type == "apply_diff"]
    assert [(x.text("path"), x.kind, x.failure is not None) for x in diffs] == [
        ("tests/conftest.py", ActionKind.OTHER, True),
        ("tests/conftest.py", ActionKind.OTHER, True),
        ("templates/base.html", ActionKind.OTHER, True),
        ("tests/conftest.py", ActionKind.MODIFY_FILE, False),
    ]
    assert [d.code for d in a.diagnostics].count("tool-error") == 3


def test_a_result_for_another_file_or_tool_answers_nothing() -> None:
    """The next result names another path or tool: the call's outcome is unknown, it stays an edit."""
    text = _turns(
        ("Assistant", SINGLE_DIFF),
        ("User", "[apply_diff for 'other.py'] Result:\n<error_details>\nDiff 1 failed\n</error_details>"),
        ("Assistant", SINGLE_DIFF),
        ("User", "[write_to_file for 'tests/conftest.py'] Result:\nThe tool execution failed with the following error:"),
    )
    assert [x.kind for x in analyze(text).actions] == [ActionKind.MODIFY_FILE, ActionKind.MODIFY_FILE]


FENCED_DIFF = """<apply_diff>
<path>.ruru/tasks/TASK-1.md</path>
<diff>
<<<<<<< SEARCH
:start_line:3
-------
status: todo
=======
status: done
>>>>>>> REPLACE
</diff>
</apply_diff>"""


def test_a_fenced_call_answered_by_its_result_is_a_call() -> None:
    """gemini-2.5-pro wraps each Roo call in ```` ```xml ```` or ```` ```tool_code ````; Roo runs it,
    and its result follows: such a fence is a call (failed when the result says so)."""
    text = _turns(
        ("Assistant", "Updating the task.\n\n```xml\n" + FENCED_DIFF + "\n```"),
        ("User", "[apply_diff for '.ruru/tasks/TASK-1.md'] Result:\nChanges successfully applied to .ruru/tasks/TASK-1.md:"),
        ("Assistant", "Again.\n\n```tool_code\n" + FENCED_DIFF + "\n```"),
        ("User", "[apply_diff for '.ruru/tasks/TASK-1.md'] Result:\n<error_details>\nNo sufficiently similar match\n</error_details>"),
    )
    a = analyze(text)
    assert [(x.type, x.text("path"), x.kind) for x in a.actions] == [
        ("apply_diff", ".ruru/tasks/TASK-1.md", ActionKind.MODIFY_FILE),
        ("apply_diff", ".ruru/tasks/TASK-1.md", ActionKind.OTHER),
    ]
    assert a.actions[0].edits and a.actions[1].failure is not None


def test_a_fenced_call_no_result_answers_stays_an_example() -> None:
    """Documentation shows the same fence with no result after it: no action."""
    text = "# Roo tools\n\nTo change a file Roo writes:\n\n```xml\n" + FENCED_DIFF + "\n```\n\nThen Roo answers.\n"
    assert analyze(text).actions == []
    answered_elsewhere = _turns(
        ("Assistant", "```xml\n" + FENCED_DIFF + "\n```\n\nand some prose"),
        ("User", "[apply_diff for 'other.md'] Result:\nChanges successfully applied to other.md:"),
    )
    assert analyze(answered_elsewhere).actions == []


def test_an_unclosed_fence_in_the_users_rules_ends_at_the_next_turn() -> None:
    """Roo pastes the user's rules into the first turn, an unclosed ```` ```xml ```` example
    and all: the next turn is read, its fenced call answered by its result is found."""
    text = _turns(
        ("User", "<task>go</task>\n\n# Rules\n\nThe correct structure:\n\n```xml\n<tool_name>\n"
                 "  <parameter1_name>value1</parameter1_name>\n</tool_name>\n\n# More rules\n+++"),
        ("Assistant", "Updating the task.\n\n```tool_code\n" + FENCED_DIFF + "\n```"),
        ("User", "[apply_diff for '.ruru/tasks/TASK-1.md'] Result:\nChanges successfully applied to .ruru/tasks/TASK-1.md:"),
    )
    assert [(x.type, x.kind) for x in analyze(text).actions] == [("apply_diff", ActionKind.MODIFY_FILE)]


TWO_FILES_DIFF = """<apply_diff>
<args>
<file>
<path>templates/base.html</path>
<diff>
<content><![CDATA[
<<<<<<< SEARCH
<title>Old</title>
=======
<title>New</title>
>>>>>>> REPLACE
]]></content>
<start_line>2</start_line>
</diff>
<diff>
<content><![CDATA[
<<<<<<< SEARCH
<body>
=======
<body class="dark">
>>>>>>> REPLACE
]]></content>
<start_line>5</start_line>
</diff>
</file>
<file>
<path>static/css/main.css</path>
<diff>
<content>
<<<<<<< SEARCH
body { color: red; }
=======
body { color: blue; }
>>>>>>> REPLACE
</content>
</diff>
</file>
</args>
</apply_diff>"""


def test_kilo_multi_file_apply_diff_is_one_modify_per_diff_with_exact_ranges() -> None:
    """Kilo's (and Roo's multi-file) ``apply_diff`` puts its files in ``<args>``: each ``<file>``
    has a ``<path>`` and one or more ``<diff>`` (``<content>``, often CDATA, and a
    ``<start_line>``), as Roo's multiApplyDiffTool reads them: one modify per diff."""
    text = _turns(("Assistant", "Restyling.\n\n" + TWO_FILES_DIFF))
    a = analyze(text)
    assert [d.code for d in a.diagnostics] == []
    mods = [x for x in a.actions if x.kind is ActionKind.MODIFY_FILE]
    assert [(x.text("path"), [(e.search.value, e.replace.value, e.line) for e in x.edits]) for x in mods] == [
        ("templates/base.html", [("<title>Old</title>\n", "<title>New</title>\n", 2)]),
        ("templates/base.html", [("<body>\n", '<body class="dark">\n', 5)]),
        ("static/css/main.css", [("body { color: red; }\n", "body { color: blue; }\n", None)]),
    ]
    for x in mods:
        p = x.fields["path"]
        assert text[p.span.start : p.span.end] == x.text("path")
        for e in x.edits:
            assert text[e.search.span.start : e.search.span.end] == e.search.value
            assert text[e.replace.span.start : e.replace.span.end] == e.replace.value


def test_kilo_multi_file_read_is_one_read_per_file() -> None:
    text = _turns(("Assistant", "<read_file>\n<args>\n<file>\n<path>templates/base.html</path>\n</file>\n"
                                "<file>\n<path>app.py</path>\n</file>\n</args>\n</read_file>"))
    a = analyze(text)
    assert [d.code for d in a.diagnostics] == []
    assert [(x.type, x.kind, x.text("path")) for x in a.actions] == [
        ("read_file", ActionKind.READ_FILE, "templates/base.html"),
        ("read_file", ActionKind.READ_FILE, "app.py"),
    ]


def test_a_refused_multi_file_apply_diff_is_failed_for_its_file() -> None:
    text = _turns(
        ("Assistant", MULTI_FILE_DIFF),
        ("User", "[apply_diff for 'templates/base.html'] Result:\n<error_details>\nDiff 1 failed for file: "
                 "templates/base.html\n</error_details>"),
    )
    (x,) = [x for x in analyze(text).actions if x.type == "apply_diff"]
    assert x.failure is not None and x.kind is ActionKind.OTHER


def test_kilo_multi_file_apply_diff_applies(tmp_path) -> None:
    from action_lsp.cli import main

    root = tmp_path / "ws"
    (root / "templates").mkdir(parents=True)
    (root / "static/css").mkdir(parents=True)
    (root / "templates/base.html").write_text("<html>\n<title>Old</title>\n<head>\n</head>\n<body>\n</body>\n")
    (root / "static/css/main.css").write_text("body { color: red; }\n")
    t = tmp_path / "t.md"
    t.write_text(_turns(("Assistant", TWO_FILES_DIFF)))
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "templates/base.html").read_text() == (
        '<html>\n<title>New</title>\n<head>\n</head>\n<body class="dark">\n</body>\n')
    assert (root / "static/css/main.css").read_text() == "body { color: blue; }\n"


def test_a_diff_without_a_whole_content_changes_nothing() -> None:
    """Kilo's model wrote the blocks straight in ``<diff>``, or opened ``<![CDATA[`` and never
    closed it: Roo's parser reads no edit from it (``Failed to parse apply_diff XML``)."""
    bare = MULTI_FILE_DIFF.replace("<content><![CDATA[\n", "").replace("]]></content>\n", "")
    unclosed = MULTI_FILE_DIFF.replace("]]></content>\n", "")
    for call in (bare, unclosed):
        a = analyze(_turns(("Assistant", call)))
        assert [d.code for d in a.diagnostics] == ["bad-argument"]
        (x,) = a.actions
        assert x.text("path") == "templates/base.html" and x.edits == []
