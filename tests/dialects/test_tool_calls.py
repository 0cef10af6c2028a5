"""``tool-calls``: OpenAI chat JSON, Anthropic messages JSON and Codex CLI rollout JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import ActionKind, Severity

FIXTURES = Path(__file__).parent.parent / "fixtures" / "dialects" / "tool-calls"


def _read(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def _twice_decoded(text: str, s: int, e: int) -> str:
    """The characters text[s:e] inside an arguments string, decoded through both levels."""
    once = json.loads(f'"{text[s:e]}"')
    return json.loads(f'"{once}"') if once.startswith("\\") else once


def test_openai_chat_tool_calls_and_arguments_ranges() -> None:
    text = _read("openai-chat.json")
    a = analyze(text)
    assert [(x.type, x.kind) for x in a.actions] == [
        ("str_replace_based_edit_tool", ActionKind.CREATE_FILE),  # create refuses an existing file
        ("str_replace_based_edit_tool", ActionKind.MODIFY_FILE),
        ("str_replace_based_edit_tool", ActionKind.MODIFY_FILE),
        ("shell", ActionKind.COMMAND),
    ]
    assert a.diagnostics == []
    create = a.actions[0]
    content = create.fields["content"]
    assert content.value.startswith("def add(a, b):\n")
    for i, ch in enumerate(content.value):
        s, e = content.source_map.to_source(i), content.source_map.to_source(i + 1)
        assert _twice_decoded(text, s, e) == ch
    path = create.fields["path"]
    assert text[path.span.start : path.span.end] == "calc.py"
    replace = a.actions[1].edits[0].replace
    assert replace.value.endswith("# «sum» ✓")
    insert = file_view(a.actions[2])
    assert insert is not None and insert.edits[0].line == 1 and insert.edits[0].search.value == ""


def test_bad_json_inside_the_arguments_string_points_at_its_character() -> None:
    args = '{"path": "a.py", "content": "x = 1\\n" "y"}'  # a missing comma, inside the string
    doc = json.dumps({"messages": [{"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": args}}]}]})
    a = analyze(doc)
    bad = [d for d in a.diagnostics if d.code == "bad-json"]
    assert len(bad) == 1
    at = bad[0].span.start
    assert doc[at : at + 3] == '\\"y'  # the escaped quote opening "y", where the comma is missing
    assert "arguments" in bad[0].message


def test_anthropic_messages_with_a_failed_call(tmp_path: Path) -> None:
    text = _read("anthropic-messages.json")
    a = analyze(text)
    kinds = [x.kind for x in a.actions]
    # str_replace_based_edit_tool's create refuses an existing file: a create, not a write.
    assert kinds == [ActionKind.CREATE_FILE, ActionKind.OTHER, ActionKind.MODIFY_FILE]
    hint = [d for d in a.diagnostics if d.code == "tool-error"]
    assert len(hint) == 1 and "did not appear verbatim" in hint[0].message
    root = tmp_path / "ws"
    root.mkdir()
    assert main(["apply", "--root", str(root), "--write", str(FIXTURES / "anthropic-messages.json")]) == 0
    assert (root / "notes.md").read_text(encoding="utf-8") == "# Notes\n\nThe first note — ünïcode.\n"


def test_openai_chat_applies_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    assert main(["apply", "--root", str(root), "--write", str(FIXTURES / "openai-chat.json")]) == 0
    assert (root / "calc.py").read_text(encoding="utf-8") == (
        '"""Arithmetic — tiny."""\ndef add(a, b):\n    return a + b  # «sum» ✓\n\n\ndef sub(a, b):\n    return a - b\n'
    )


def test_codex_rollout_records_and_truncated_last_line() -> None:
    text = _read("codex-rollout.jsonl")
    a = analyze(text)
    shell = a.actions[0]
    assert shell.kind is ActionKind.COMMAND and shell.get("command") == "ls -1 && cat README.md"
    s = shell.fields["command"].span
    assert _twice_decoded(text, s.start, s.end) == "ls -1 && cat README.md"
    bad = [d for d in a.diagnostics if d.code == "bad-json"]
    assert len(bad) == 1 and bad[0].severity is Severity.INFORMATION
    names = [x.type for x in a.actions]
    assert names[0] == "shell"
    # apply_patch calls are recognised (as Codex patches when the codex-patch parser is there)
    patched = [x for x in a.actions if x.type == "apply_patch" or x.group_label == "apply_patch"]
    assert patched or any(x.get("path") == "hello.txt" for x in a.actions)


def test_openai_jsonl_one_conversation_per_line() -> None:
    line = json.dumps({"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {
        "name": "bash", "arguments": json.dumps({"command": "echo 'é'"})}}]}]}, ensure_ascii=False)
    a = analyze(line + "\n" + line + "\n" + "{not json}\n")
    assert [x.get("command") for x in a.actions] == ["echo 'é'", "echo 'é'"]
    assert [d.code for d in a.diagnostics] == ["bad-json"]


def test_unrelated_json_is_not_a_tool_call_document() -> None:
    assert analyze('{"name": "pkg", "version": "1.0.0"}\n').actions == []
    assert analyze('```json\n{"messages": []}\n```\n').actions == []
    assert analyze('```json\n{"name": "x"}\n```\n').actions == []


def test_a_json_fence_holding_tool_calls_in_a_markdown_transcript() -> None:
    body = json.dumps({"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "write_file",
                       "input": {"path": "a.txt", "content": "hé\n"}}]}, indent=2, ensure_ascii=False)
    text = f"# Log\n\nThe model answered:\n\n```json\n{body}\n```\n"
    a = analyze(text)
    assert [(x.dialect, x.type, x.path) for x in a.actions] == [("tool-calls", "write_file", "a.txt")]
    content = a.actions[0].fields["content"]
    assert text[content.span.start : content.span.end] == "hé\\n"
    plan = '```json\n{"actions": [{"action": "THINK", "context": "x"}], "can_extend": false, "reasoning": "r"}\n```\n'
    assert [x.dialect for x in analyze(plan).actions] == ["action-plan"]


def test_codex_apply_patch_calls_apply_when_the_codex_patch_parser_is_installed(tmp_path: Path) -> None:
    pytest.importorskip("action_lsp.dialects.codex_patch")
    root = tmp_path / "ws"
    root.mkdir()
    assert main(["apply", "--root", str(root), "--write", str(FIXTURES / "codex-rollout.jsonl")]) == 0
    assert (root / "hello.txt").read_text(encoding="utf-8") == 'Hello, "world"!\n'
    text = _read("codex-rollout.jsonl")
    add = next(x for x in analyze(text).actions if x.get("path") == "hello.txt")
    p = add.fields["path"].span
    assert text[p.start : p.end] == "hello.txt"


def test_apply_patch_without_the_parser_is_shown_and_not_applied(monkeypatch) -> None:
    from action_lsp.dialects import tool_calls

    monkeypatch.setattr(tool_calls, "_patch_parser", lambda: None)
    a = analyze(_read("codex-rollout.jsonl"))
    patches = [x for x in a.actions if x.type == "apply_patch"]
    assert len(patches) == 2 and all(x.kind is ActionKind.OTHER for x in patches)
    assert patches[0].get("patch").startswith("*** Begin Patch\n*** Add File: hello.txt")


def test_codex_call_whose_output_failed_is_a_hint_and_not_applied() -> None:
    def rec(payload: dict) -> str:
        return json.dumps({"timestamp": "2025-10-29T01:00:00.000Z", "type": "response_item", "payload": payload})

    args = json.dumps({"command": "create", "path": "a.txt", "file_text": "é\n"})
    lines = [
        json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}),
        rec({"type": "function_call", "name": "str_replace_editor", "arguments": args, "call_id": "call_1"}),
        rec({"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls"]}), "call_id": "call_2"}),
        rec({"type": "function_call_output", "call_id": "call_2", "output": json.dumps({"output": "a\n", "metadata": {"exit_code": 0}})}),
        rec({"type": "function_call_output", "call_id": "call_1", "output": json.dumps(
            {"output": "permission denied: a.txt", "metadata": {"exit_code": 1}})}),
        rec({"type": "function_call", "name": "str_replace_editor", "arguments": args, "call_id": "call_3"}),
        rec({"type": "function_call_output", "call_id": "call_3", "output": "Exit code: 0\\nWall time: 0.1 seconds"}),
    ]
    text = "\n".join(lines) + "\n"
    a = analyze(text)
    assert [x.kind for x in a.actions] == [ActionKind.OTHER, ActionKind.COMMAND, ActionKind.CREATE_FILE]
    hint = [d for d in a.diagnostics if d.code == "tool-error"]
    assert len(hint) == 1 and "permission denied: a.txt" in hint[0].message
    related = hint[0].related[0][0]
    assert text[related.start : related.end] == "call_1"


ORDINARY_JSON = {
    "package.json": json.dumps(
        {
            "name": "web",
            "version": "1.0.0",
            "scripts": {"build": "vite build", "test": "vitest"},
            "dependencies": {"react": "^18.3.1"},
            "devDependencies": {"typescript": "^5.5.0"},
        },
        indent=2,
    ),
    "tsconfig.json": '{\n  // compiler options\n  "compilerOptions": {"strict": true, "jsx": "react-jsx",},\n'
    '  "include": ["src"]\n}\n',
    "data.jsonl": '{"id": 1, "text": "hello"}\n{"id": 2, "messages_count": 3}\n',
}


def test_ordinary_json_files_get_no_diagnostics(tmp_path: Path, capsys) -> None:
    """A user who adds `**/*.json` to an editor's patterns sees nothing on a normal package.json,
    tsconfig.json or data .jsonl (README, "Editors": why `*.json` is not attached by default)."""
    for name, text in ORDINARY_JSON.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert analyze(text).diagnostics == [], name
    assert main(["check", *(str(tmp_path / n) for n in ORDINARY_JSON)]) == 0
    assert "No problems" in capsys.readouterr().out


def test_codex_call_the_user_interrupted_is_not_shown_failed() -> None:
    """A Codex call with no output, then the user's interrupt (``turn_aborted``): Codex never
    reported it failed -- its own note says an aborted tool "may have partially executed", and in
    the real rollout this is modelled on (a Codex CLI 0.116 session) the patch was in the file
    when the agent read it after the interrupt. So it is not shown failed (never applied): it
    stays an edit, judged against the workspace like any other."""
    def rec(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-25T11:54:54.322Z", "type": kind, "payload": payload})

    patch = "*** Begin Patch\n*** Update File: docker-compose.yml\n@@\n       MAX_UPLOAD_MB: 20\n+      RATE_LIMIT_RPM: 240\n*** End Patch\n"
    note = ("<turn_aborted>\nThe user interrupted the previous turn on purpose. [...] If any tools/commands were "
            "aborted, they may have partially executed; verify current state before retrying.\n</turn_aborted>")
    lines = [
        rec("session_meta", {"id": "s", "cwd": "/w"}),
        rec("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "call_z",
                              "name": "apply_patch", "input": patch}),
        rec("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": note}]}),
        rec("event_msg", {"type": "turn_aborted", "turn_id": "t1", "reason": "interrupted"}),
    ]
    a = analyze("\n".join(lines) + "\n")
    [call] = [x for x in a.actions if x.path == "docker-compose.yml"]
    assert call.failure is None and call.kind is ActionKind.MODIFY_FILE
    assert "tool-error" not in [d.code for d in a.diagnostics]


def _codex_cd_session() -> str:
    """A Codex rollout started in /p whose later turn ran in /p/sub (its ``turn_context``
    records carry the turn's directory: a session resumed from a subdirectory), then patched
    ``sub/b.py`` by its absolute path."""
    def rec(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-24T19:25:50.000Z", "type": kind, "payload": payload})

    patch = "*** Begin Patch\n*** Update File: /p/sub/b.py\n@@\n-y = 1\n+y = 2\n*** End Patch\n"
    return "\n".join([
        rec("session_meta", {"id": "s", "cwd": "/p"}),
        rec("turn_context", {"cwd": "/p", "model": "m"}),
        rec("turn_context", {"cwd": "/p/sub", "model": "m"}),
        rec("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "c1",
                              "name": "apply_patch", "input": patch}),
        rec("response_item", {"type": "custom_tool_call_output", "call_id": "c1",
                              "output": "Success. Updated the following files:\nM /p/sub/b.py\n"}),
    ]) + "\n"


def test_codex_paths_are_read_under_the_sessions_first_cwd_after_a_cd() -> None:
    [edit] = [x for x in analyze(_codex_cd_session()).actions if x.kind is ActionKind.MODIFY_FILE]
    assert edit.path == "sub/b.py"


def test_codex_apply_after_a_cd_edits_the_file_in_the_subdirectory(tmp_path: Path) -> None:
    pytest.importorskip("action_lsp.dialects.codex_patch")
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "b.py").write_text("y = 1\n")  # the same text at the top: the wrong file
    (root / "sub" / "b.py").write_text("y = 1\n")
    t = tmp_path / "rollout.jsonl"
    t.write_text(_codex_cd_session())
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "sub" / "b.py").read_text() == "y = 2\n"
    assert (root / "b.py").read_text() == "y = 1\n"


def _codex_workdir_session(workdir: str) -> str:
    """A Codex rollout in /p whose model ran ``apply_patch`` through ``shell`` with a
    ``workdir`` (as real rollouts run ``npm test`` in ``backend``): the patch's relative paths
    are relative to that directory."""
    def rec(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-24T19:25:50.000Z", "type": kind, "payload": payload})

    patch = "*** Begin Patch\n*** Update File: b.py\n@@\n-y = 1\n+y = 2\n*** End Patch\n"
    args = json.dumps({"command": ["apply_patch", patch], "workdir": workdir})
    return "\n".join([
        rec("session_meta", {"id": "s", "cwd": "/p"}),
        rec("response_item", {"type": "function_call", "name": "shell", "arguments": args, "call_id": "c1"}),
        rec("response_item", {"type": "function_call_output", "call_id": "c1",
                              "output": json.dumps({"output": "Success.", "metadata": {"exit_code": 0}})}),
    ]) + "\n"


def test_codex_patch_paths_are_read_under_the_calls_workdir() -> None:
    [edit] = [x for x in analyze(_codex_workdir_session("/p/sub")).actions if x.kind is ActionKind.MODIFY_FILE]
    assert edit.path == "sub/b.py"
    [same] = [x for x in analyze(_codex_workdir_session("/p")).actions if x.kind is ActionKind.MODIFY_FILE]
    assert same.path == "b.py"
    [relative] = [x for x in analyze(_codex_workdir_session("sub")).actions if x.kind is ActionKind.MODIFY_FILE]
    assert relative.path == "sub/b.py"


def test_codex_patch_under_a_workdir_outside_the_project_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("action_lsp.dialects.codex_patch")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "b.py").write_text("y = 1\n")
    t = tmp_path / "rollout.jsonl"
    t.write_text(_codex_workdir_session("/elsewhere"))
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    assert (root / "b.py").read_text() == "y = 1\n"


def test_codex_apply_under_a_workdir_edits_the_file_there(tmp_path: Path) -> None:
    pytest.importorskip("action_lsp.dialects.codex_patch")
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "b.py").write_text("y = 1\n")  # the same text at the top: the wrong file
    (root / "sub" / "b.py").write_text("y = 1\n")
    t = tmp_path / "rollout.jsonl"
    t.write_text(_codex_workdir_session("/p/sub"))
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "sub" / "b.py").read_text() == "y = 2\n"
    assert (root / "b.py").read_text() == "y = 1\n"


def _codex_turn_session(turn_cwd: str) -> str:
    """A Codex rollout started in /p whose later turn ran in ``turn_cwd`` (its ``turn_context``
    says so), patching ``b.py`` by a relative path: Codex reads it in the turn's directory."""
    def rec(kind: str, payload: dict) -> str:
        return json.dumps({"timestamp": "2026-03-24T19:25:50.000Z", "type": kind, "payload": payload})

    patch = "*** Begin Patch\n*** Update File: b.py\n@@\n-y = 1\n+y = 2\n*** End Patch\n"
    return "\n".join([
        rec("session_meta", {"id": "s", "cwd": "/p"}),
        rec("turn_context", {"cwd": "/p", "model": "m"}),
        rec("turn_context", {"cwd": turn_cwd, "model": "m"}),
        rec("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": "c1",
                              "name": "apply_patch", "input": patch}),
        rec("response_item", {"type": "custom_tool_call_output", "call_id": "c1", "output": "Success."}),
    ]) + "\n"


def test_codex_relative_patch_paths_are_read_in_the_turns_cwd() -> None:
    [edit] = [x for x in analyze(_codex_turn_session("/p/sub")).actions if x.kind is ActionKind.MODIFY_FILE]
    assert edit.path == "sub/b.py"
    [same] = [x for x in analyze(_codex_turn_session("/p")).actions if x.kind is ActionKind.MODIFY_FILE]
    assert same.path == "b.py"


def test_codex_relative_patch_in_a_turn_outside_the_project_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("action_lsp.dialects.codex_patch")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "b.py").write_text("y = 1\n")
    t = tmp_path / "rollout.jsonl"
    t.write_text(_codex_turn_session("/elsewhere"))
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 1
    assert (root / "b.py").read_text() == "y = 1\n"
