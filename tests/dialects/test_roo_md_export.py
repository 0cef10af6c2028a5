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
