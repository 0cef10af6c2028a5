"""Markdown exports of Claude Code sessions, in the shapes found in public repositories: each
tool call read through the one tool registry with exact ranges, and a call whose result in the
export is an error shown failed (never pending, never applied)."""

from __future__ import annotations

from pathlib import Path

from apply_cli import workspace as _workspace

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import Action, ActionKind

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_answer"


def _actions(text: str) -> list[Action]:
    return [a for a in analyze(text).actions if a.dialect == "chat-answer"]


def _at(text: str, action: Action, name: str) -> str:
    f = action.fields[name]
    return text[f.span.start : f.span.end]


# -- "Claude Conversation Log": `🔧 Using tool: NAME` then `Input: {pretty JSON}` ---------------


def test_conversation_log_tool_calls_are_read_as_their_tools() -> None:
    text = (FIXTURES / "conversation-log.md").read_text()
    read, edit, write, bash = _actions(text)
    assert (read.type, read.kind, read.path) == ("Read", ActionKind.READ_FILE, "/Users/dev/shop/README.md")
    assert (edit.type, edit.kind, edit.path) == ("Edit", ActionKind.MODIFY_FILE, "/Users/dev/shop/README.md")
    [e] = edit.edits
    assert (e.search.value, e.replace.value) == ("# Shop\n\nSee `docs/`.", '# Shop\n\nSee "docs".')
    # Exact ranges inside the JSON strings, escapes and all.
    assert text[e.replace.span.start : e.replace.span.end] == '# Shop\\n\\nSee \\"docs\\".'
    assert text[edit.name_span.start : edit.name_span.end] == "Edit"
    assert (write.type, write.kind, write.get("content")) == ("Write", ActionKind.WRITE_FILE, '[shop]\nname = "shop"\n')
    assert _at(text, write, "path") == "/Users/dev/shop/config.toml"
    assert (bash.kind, bash.get("command")) == (ActionKind.COMMAND, "git status")
    view = file_view(write)
    assert view is not None and view.op == "write" and not view.rules.snippet  # Claude Code's Write
    # (the log records no working directory: its absolute paths are not mapped into a workspace)
    assert {d.code for d in analyze(text).diagnostics} == {"absolute-path"}


def test_using_tool_without_its_input_is_no_action() -> None:
    assert _actions("## 🤖 Claude\n\n🔧 Using tool: Edit\n\nIt did not run.\n") == []
    assert _actions("🔧 Using tool: Edit\nInput: not json\n") == []


def test_conversation_log_replays_on_a_checkout(tmp_path: Path) -> None:
    text = (FIXTURES / "conversation-log.md").read_text().replace("/Users/dev/shop/", "")
    root = _workspace(tmp_path, {"README.md": "# Shop\n\nSee `docs/`.\n"})
    (tmp_path / "t.md").write_text(text)
    assert main(["apply", "--root", str(root), "--write", str(tmp_path / "t.md")]) == 0
    assert (root / "README.md").read_text() == '# Shop\n\nSee "docs".\n'
    assert (root / "config.toml").read_text() == '[shop]\nname = "shop"\n'


# -- "# Transcript": `**Tool: Edit**`, File:, Old: / New: backtick spans over several lines -----


def test_transcript_export_edit_with_old_and_new_spans() -> None:
    text = (FIXTURES / "transcript-export-edit.md").read_text()
    edit, cut = _actions(text)
    assert (edit.type, edit.kind, edit.path) == ("Edit", ActionKind.MODIFY_FILE, "src/math_utils.py")
    assert _at(text, edit, "path") == "src/math_utils.py"  # `$CLAUDE_PROJECT_DIR/` is the root
    [e] = edit.edits
    # Backticks inside the spans are text: a span ends at the backtick that ends its last line.
    assert e.search.value == 'def add(a, b):\n    """Add `a` and `b`."""\n    return a + b'
    assert e.replace.value.endswith("\n\n\ndef multiply(a, b):\n    return a * b")
    assert text[e.replace.span.start : e.replace.span.end] == e.replace.value
    view = file_view(edit)
    assert view is not None and view.op == "modify" and view.rules.agent == "Claude Code's Edit"
    # An export that cut the texts short: listed, never applied.
    assert (cut.kind, cut.path) == (ActionKind.MODIFY_FILE, "tests/test_math_utils.py")
    codes = [(d.code, text[d.span.start : d.span.end]) for d in analyze(text).diagnostics]
    assert codes == [("truncated-content", "... (truncated)"), ("truncated-content", "... (truncated)")]


def test_transcript_export_edit_replays_on_a_checkout(tmp_path: Path) -> None:
    old = 'def add(a, b):\n    """Add `a` and `b`."""\n    return a + b\n'
    test = "from src.math_utils import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
    root = _workspace(tmp_path, {"src/math_utils.py": old, "tests/test_math_utils.py": test})
    transcript = str(FIXTURES / "transcript-export-edit.md")
    # The truncated edit cannot be applied: a write is all or none, so nothing is written ...
    assert main(["apply", "--root", str(root), "--write", transcript]) != 0
    assert (root / "src/math_utils.py").read_text() == old
    # ... and the other one alone applies.
    assert main(["apply", "--root", str(root), "--write", "--select", "1", transcript]) == 0
    assert (root / "src/math_utils.py").read_text() == old + "\n\ndef multiply(a, b):\n    return a * b\n"
    assert (root / "tests/test_math_utils.py").read_text() == test


def test_transcript_export_write_cut_short_is_never_applied(tmp_path: Path) -> None:
    text = ("# Transcript\n\n**Tool: Write**\nFile: `$CLAUDE_PROJECT_DIR/lib.py`\n```\ndef f():\n"
            "    r\n... (truncated)\n```\n\n**Output:**\n```\nFile created successfully\n```\n")
    [a] = _actions(text)
    assert a.kind == ActionKind.WRITE_FILE
    [d] = analyze(text).diagnostics
    assert (d.code, text[d.span.start : d.span.end]) == ("truncated-content", "... (truncated)")
    root = _workspace(tmp_path, {})
    (tmp_path / "t.md").write_text(text)
    main(["apply", "--root", str(root), "--write", str(tmp_path / "t.md")])
    assert not (root / "lib.py").exists()


# -- results matched to their calls: a failed call is shown failed ---------------------------


def test_a_call_whose_result_is_an_error_is_shown_failed() -> None:
    """Results are matched to calls in order (the export shows no id on them): two calls, then
    their two results; the first is `String to replace not found in file.`"""
    text = (FIXTURES / "claude-session-export-failed.md").read_text()
    gitignore, app, write = _actions(text)
    assert gitignore.failure is not None and gitignore.failure.startswith("String to replace not found")
    assert gitignore.kind == ActionKind.OTHER and file_view(gitignore) is None  # never applied
    assert (app.failure, app.kind) == (None, ActionKind.MODIFY_FILE)
    assert write.failure == "File has not been read yet. Read it first before writing to it."
    hints = [d for d in analyze(text).diagnostics if d.code == "tool-error"]
    assert [text[d.span.start : d.span.end] for d in hints] == ["Edit", "Write"]


def test_results_with_ids_are_matched_by_id() -> None:
    call = ("🔧 **Tool Use: Edit** (ID: toolu_{n})\n```json\n"
            '{{"file_path": "/w/{n}.py", "old_string": "a", "new_string": "b"}}\n```\n\n')
    result = "📊 **Tool Result:** (ID: toolu_{n})\n```\n{body}\n```\n\n"
    text = ("# Claude Code Session Export\n\n### 🤖 Assistant\n\n" + call.format(n=1) + call.format(n=2)
            + "### 👤 User\n\n" + result.format(n=2, body="The file /w/2.py has been updated.")
            + result.format(n=1, body="String to replace not found in file."))
    one, two = _actions(text)
    assert one.failure is not None and two.failure is None


def test_a_call_with_no_result_yet_is_pending() -> None:
    text = (FIXTURES / "claude-session-export-failed.md").read_text()
    text = text[: text.index("### 👤 User")]
    assert [a.failure for a in _actions(text)] == [None, None]


def test_a_failed_export_call_is_not_applied(tmp_path: Path) -> None:
    text = (FIXTURES / "claude-session-export-failed.md").read_text().replace("/home/dev/shop/", "")
    root = _workspace(tmp_path, {".gitignore": "exports/\n*.jsonl\n", "app.py": "routes = []\n"})
    (tmp_path / "t.md").write_text(text)
    main(["apply", "--root", str(root), "--write", str(tmp_path / "t.md")])
    assert (root / ".gitignore").read_text() == "exports/\n*.jsonl\n"
    assert (root / "app.py").read_text() == "routes = [health]\n"


def test_a_log_of_absolute_paths_is_one_error_and_nothing_is_written(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """The log records no working directory: its three absolute paths are one error in `check`
    (not one per action), and `apply` writes none of them."""
    log = FIXTURES / "conversation-log.md"
    root = _workspace(tmp_path, {"README.md": "# Shop\n\nSee `docs/`.\n"})
    assert main(["check", "--root", str(root), "--output-format", "concise", str(log)]) == 1
    out = capsys.readouterr().out
    assert out.count("[absolute-path]") == 1 and "not reported again" in out
    assert main(["apply", "--root", str(root), "--write", str(log)]) == 1
    err = capsys.readouterr().err
    assert err.count("[absolute-path]") == 1  # the others are counted, not listed one by one
    assert "1 action more with an absolute path under a place named above: not applied, not listed" in err
    assert (root / "README.md").read_text() == "# Shop\n\nSee `docs/`.\n"
    assert sorted(p.name for p in root.iterdir()) == ["README.md"]


# -- a Write in a "# Transcript" export: the content is the fence's body less one line break --
# The exporter (claude-reliability's compile_transcript.py) writes the lines "```", the content,
# "```" joined by line breaks: a content ending in a line break shows a blank line before the
# closing fence. Replayed on its project, every file written from such an export had one blank
# line more at its end than the session wrote (its directory snapshot and its JSONL say so).

REALWORLD = Path(__file__).resolve().parents[1] / "fixtures" / "realworld"


def _session_writes(jsonl: Path) -> dict[str, str]:
    """The ``Write`` calls' contents of a Claude Code JSONL session, by file name."""
    import json

    out: dict[str, str] = {}
    for line in jsonl.read_text().splitlines():
        content = (json.loads(line).get("message") or {}).get("content")
        for block in content if isinstance(content, list) else []:
            if block.get("type") == "tool_use" and block.get("name") == "Write":
                out[Path(block["input"]["file_path"]).name] = block["input"]["content"]
    return out


def test_transcript_export_write_is_the_sessions_content(tmp_path: Path) -> None:
    wrote = _session_writes(REALWORLD / "claude-code-jsonl" / "claude-reliability-hello-world-script.jsonl")
    assert wrote["hello.sh"].endswith('echo "Hello world"\n')
    root = _workspace(tmp_path, {})
    md = REALWORLD / "claude-md-export" / "claude-reliability-hello-world-script.md"
    assert main(["apply", "--root", str(root), "--write", str(md)]) == 0
    assert (root / "hello.sh").read_text() == wrote["hello.sh"]


def test_transcript_export_write_of_no_final_line_break(tmp_path: Path) -> None:
    """A content without a final line break shows none before the fence: written as it is."""
    text = ("# Transcript\n\n**Tool: Write**\nFile: `$CLAUDE_PROJECT_DIR/a.txt`\n```\none\ntwo\n```\n\n"
            "**Output:**\n```\nFile created successfully at: $CLAUDE_PROJECT_DIR/a.txt\n```\n")
    [a] = _actions(text)
    assert a.text("content") == "one\ntwo"
    root = _workspace(tmp_path, {})
    (tmp_path / "t.md").write_text(text)
    assert main(["apply", "--root", str(root), "--write", str(tmp_path / "t.md")]) == 0
    assert (root / "a.txt").read_text() == "one\ntwo"
