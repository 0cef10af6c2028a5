"""Session shapes as agents write them in the wild, read by one JSON reader: small fixtures
modelled on real files (escapes, Windows paths, a truncated last line, a failed call, a bare
array). Each gives the edits a person reading the file sees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import Action, ActionKind, Severity


def _line(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _views(actions: list[Action]) -> list[tuple[str, str, str]]:
    """(op, path, content or first replacement) of each file action."""
    out = []
    for a in actions:
        view = file_view(a)
        if view is None or not a.kind.is_file_action:
            continue
        if view.content is not None:
            body = view.content.value
        elif view.edits:
            body = view.edits[0].replace.value
        else:
            body = ""
        out.append((view.op, view.path.value, body))
    return out


# -- Claude Code 2.x ------------------------------------------------------------------------------

CWD = "/home/dev/proj"


def _claude(kind: str, content: Any, **extra: Any) -> str:
    role = "assistant" if kind == "assistant" else "user"
    rec = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": CWD, "sessionId": "9f1c",
           "version": "2.0.14", "gitBranch": "main", "type": kind, "message": {"role": role, "content": content},
           "uuid": "u", "timestamp": "2025-10-10T09:00:00.000Z", **extra}
    return _line(rec)


def claude_2x_session(truncate: bool = True) -> str:
    lines = [
        _line({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": "9f1c"}),
        _line({"type": "file-history-snapshot", "messageId": "m1",
               "snapshot": {"messageId": "m1", "trackedFileBackups": {}, "timestamp": "2025-10-10T09:00:00.000Z"},
               "isSnapshotUpdate": False}),
        _line({"type": "summary", "summary": "Greeting script", "leafUuid": "l1"}),
        _claude("user", "write greet.py"),
        _claude("assistant", [
            {"type": "text", "text": "I'll create it."},
            {"type": "tool_use", "id": "toolu_01", "name": "Write",
             "input": {"file_path": f"{CWD}/src/greet.py", "content": 'print("hi \\u263a ✓")\n\tdone\n'}},
        ]),
        _claude("user", [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "File created"}]),
        _claude("assistant", [
            {"type": "tool_use", "id": "toolu_02", "name": "Edit",
             "input": {"file_path": f"{CWD}/src/greet.py", "old_string": "nope", "new_string": "x"}},
        ]),
        _claude("user", [{"type": "tool_result", "tool_use_id": "toolu_02", "is_error": True,
                          "content": "<tool_use_error>String to replace not found in file.</tool_use_error>"}]),
    ]
    text = "\n".join(lines) + "\n"
    if truncate:
        last = _claude("assistant", [{"type": "text", "text": "done"}])
        text += last[: last.index('"done"') + 3]  # cut off inside a string, as a crash leaves it
    return text


def test_a_claude_code_2x_session_opening_with_bookkeeping_records_gives_its_edits() -> None:
    """A real 2.x session opens with permission-mode, file-history-snapshot and summary records;
    the first line decided how the file was read, and it gave "no actions found"."""
    a = analyze(claude_2x_session())
    assert [(x.type, x.kind) for x in a.actions] == [("Write", ActionKind.WRITE_FILE), ("Edit", ActionKind.OTHER)]
    assert _views(a.actions) == [("write", "src/greet.py", 'print("hi \\u263a ✓")\n\tdone\n')]
    codes = {d.code: d for d in a.diagnostics}
    assert "String to replace not found" in codes["tool-error"].message
    assert codes["bad-json"].severity == Severity.INFORMATION  # the unfinished last line
    assert "absolute-path" not in codes


def test_an_open_claude_code_2x_session_is_read_the_same_after_edits() -> None:
    text = claude_2x_session(truncate=False)
    doc = IncrementalDocument(text)
    assert len(doc.analysis().actions) == 2
    doc.edit(0, 0, _line({"type": "permission-mode", "permissionMode": "plan"}) + "\n")
    assert [a.type for a in doc.analysis().actions] == [a.type for a in analyze(doc.text).actions] == ["Write", "Edit"]


# -- Cline / Roo Code / Kilo Code: api_conversation_history.json -----------------------------------


def cline_history() -> str:
    """A bare JSON array on one line, as Cline writes it (``JSON.stringify``)."""
    env = ("<environment_details>\n# VSCode Visible Files\nsrc/app.ts\n\n"
           "# Current Working Directory (/home/dev/shop) Files\nsrc/app.ts\n</environment_details>")
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nfix the total\n</task>"},
                                     {"type": "text", "text": env}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "<thinking>one helper</thinking>"},
            {"type": "tool_use", "id": "toolu_01", "name": "write_to_file",
             "input": {"absolutePath": "/home/dev/shop/src/util.ts",
                       "content": 'export const q = "\\"";\n\tlet t = 1;\n'}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                      "content": [{"type": "text", "text": "The content was saved"}]}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_02", "name": "replace_in_file",
             "input": {"path": "src/app.ts",
                       "diff": "------- SEARCH\nconst total = 1;\n=======\nconst total = 2;\n+++++++ REPLACE\n"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_02", "content": "ok"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_03", "name": "apply_diff",
             "input": {"path": "src/b.py",
                       "diff": "<<<<<<< SEARCH\n:start_line:1\n-------\nold = 1\n=======\nnew = 1\n>>>>>>> REPLACE"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_03", "is_error": True,
                                      "content": "No sufficiently similar match found"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_04", "name": "execute_command",
             "input": {"command": "npm test", "requires_approval": False}}]},
    ]
    return _line(messages)


def test_cline_api_conversation_history_a_bare_array_gives_its_edits() -> None:
    a = analyze(cline_history())
    assert [(x.type, x.kind) for x in a.actions] == [
        ("write_to_file", ActionKind.WRITE_FILE),
        ("replace_in_file", ActionKind.MODIFY_FILE),
        ("apply_diff", ActionKind.OTHER),  # its result was an error
        ("execute_command", ActionKind.COMMAND),
    ]
    assert _views(a.actions) == [
        ("write", "src/util.ts", 'export const q = "\\"";\n\tlet t = 1;\n'),
        ("modify", "src/app.ts", "const total = 2;\n"),
    ]
    edit = file_view(a.actions[1])
    assert edit is not None and edit.edits[0].search.value == "const total = 1;\n"
    assert edit.rules is not None and "Cline" in edit.rules.agent
    text = cline_history()
    s = edit.edits[0].search.span  # a range through the JSON escapes
    assert text[s.start : s.end] == "const total = 1;\\n"
    assert "No sufficiently similar match" in next(d.message for d in a.diagnostics if d.code == "tool-error")
    assert not [d for d in a.diagnostics if d.code == "absolute-path"]


def test_a_cline_diff_with_a_broken_marker_is_a_diagnostic_never_an_empty_edit() -> None:
    text = _line([{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "replace_in_file",
         "input": {"path": "a.ts", "diff": "------- SEARCH\nx\n+++++++ REPLACE\n"}}]}])
    a = analyze(text)
    view = file_view(a.actions[0])
    assert view is None or not view.edits
    assert {d.code for d in a.diagnostics} & {"bad-marker", "bad-argument"}


def test_cline_tool_with_a_mistyped_argument_is_a_bad_argument() -> None:
    text = _line([{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "write_to_file", "input": {"path": "a.ts", "content": 12}}]}])
    a = analyze(text)
    assert "bad-argument" in {d.code for d in a.diagnostics}
    assert _views(a.actions) == [] or all(v[2] for v in _views(a.actions))


# -- Cline: ui_messages.json -----------------------------------------------------------------------


def test_cline_ui_messages_give_the_edits_they_show() -> None:
    entries = [
        {"ts": 1, "type": "say", "say": "text", "text": "Let me add it."},
        {"ts": 2, "type": "ask", "ask": "tool",
         "text": _line({"tool": "newFileCreated", "path": "src/new.ts", "content": "export {};\n"})},
        {"ts": 3, "type": "say", "say": "tool",
         "text": _line({"tool": "editedExistingFile", "path": "src/app.ts",
                        "diff": "------- SEARCH\nconst a = 1;\n=======\nconst a = 2;\n+++++++ REPLACE"})},
        {"ts": 4, "type": "say", "say": "tool", "text": _line({"tool": "readFile", "path": "src/x.ts"})},
    ]
    for text in (_line(entries), json.dumps(entries, indent=4)):  # as Cline saves it; re-saved indented
        a = analyze(text)
        assert _views(a.actions) == [("write", "src/new.ts", "export {};\n"), ("modify", "src/app.ts", "const a = 2;\n")]
        path = a.actions[0].fields["path"]
        assert text[path.span.start : path.span.end] == "src/new.ts"


# -- Claude Code re-saved one content block per line -----------------------------------------------


def test_claude_code_session_resaved_one_block_per_line() -> None:
    lines = [
        {"timestamp": "2025-07-01T10:00:00Z", "role": "user", "content": {"type": "text", "text": "go"}},
        {"timestamp": "2025-07-01T10:00:01Z", "role": "assistant",
         "content": {"type": "tool_use", "tool_name": "Write", "tool_id": "t1",
                     "input": {"file_path": "src/a.py", "content": "x = 1\n"}}},
        {"timestamp": "2025-07-01T10:00:02Z", "role": "user",
         "content": {"type": "tool_result", "tool_id": "t1", "content": "ok"}},
        {"timestamp": "2025-07-01T10:00:03Z", "role": "assistant",
         "content": {"type": "tool_use", "tool_name": "Edit", "tool_id": "t2",
                     "input": {"file_path": "src/a.py", "old_string": "y", "new_string": "z"}}},
        {"timestamp": "2025-07-01T10:00:04Z", "role": "user",
         "content": {"type": "tool_result", "tool_id": "t2", "is_error": True,
                     "content": "String to replace not found in file."}},
    ]
    a = analyze("\n".join(_line(x) for x in lines) + "\n")
    assert [(x.type, x.kind) for x in a.actions] == [("Write", ActionKind.WRITE_FILE), ("Edit", ActionKind.OTHER)]
    assert _views(a.actions) == [("write", "src/a.py", "x = 1\n")]


# -- Gemini CLI ------------------------------------------------------------------------------------


def gemini_stream() -> str:
    lines = [
        {"type": "init", "timestamp": "2025-10-01T00:00:00.000Z", "session_id": "abc", "model": "gemini-2.5-pro"},
        {"type": "message", "timestamp": "2025-10-01T00:00:00.100Z", "role": "user", "content": "make hello.py"},
        {"type": "tool_use", "timestamp": "2025-10-01T00:00:01.000Z", "tool_name": "write_file",
         "tool_id": "write_file-1", "parameters": {"file_path": "hello.py", "content": "print('hi')\n"}},
        {"type": "tool_result", "timestamp": "2025-10-01T00:00:01.100Z", "tool_id": "write_file-1",
         "status": "success", "output": ""},
        {"type": "tool_use", "timestamp": "2025-10-01T00:00:02.000Z", "tool_name": "replace", "tool_id": "replace-2",
         "parameters": {"file_path": "hello.py", "old_string": "bye", "new_string": "ciao"}},
        {"type": "tool_result", "timestamp": "2025-10-01T00:00:02.100Z", "tool_id": "replace-2", "status": "error",
         "error": {"type": "edit_no_occurrence_found", "message": "Failed to edit, 0 occurrences found"}},
        {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "run-3",
         "parameters": {"command": "python hello.py"}},
        {"type": "result", "timestamp": "2025-10-01T00:00:03.000Z", "status": "success", "stats": {"total_tokens": 9}},
    ]
    return "\n".join(_line(x) for x in lines) + "\n"


def test_gemini_cli_stream_json_gives_its_edits_and_failed_calls() -> None:
    a = analyze(gemini_stream())
    assert [(x.type, x.kind) for x in a.actions] == [
        ("write_file", ActionKind.WRITE_FILE), ("replace", ActionKind.OTHER), ("run_shell_command", ActionKind.COMMAND),
    ]
    assert _views(a.actions) == [("write", "hello.py", "print('hi')\n")]
    assert "0 occurrences" in next(d.message for d in a.diagnostics if d.code == "tool-error")


def test_gemini_saved_chat_parts_with_function_calls() -> None:
    history = [
        {"role": "user", "parts": [{"text": "add notes"}]},
        {"role": "model", "parts": [{"text": "Writing it."},
                                    {"functionCall": {"name": "write_file",
                                                      "args": {"file_path": "notes.md", "content": "# Notes\n"}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}]},
    ]
    a = analyze(json.dumps(history, indent=2))
    assert _views(a.actions) == [("write", "notes.md", "# Notes\n")]


def test_gemini_chat_recording_marks_a_call_that_recorded_an_error() -> None:
    chat = {"sessionId": "s", "projectHash": "h", "startTime": "2025-10-01T00:00:00Z", "messages": [
        {"id": "1", "type": "user", "content": "fix"},
        {"id": "2", "type": "gemini", "content": "", "toolCalls": [
            {"id": "write_file-1", "name": "write_file", "args": {"file_path": "a.py", "content": "a = 1\n"},
             "status": "success"},
            {"id": "replace-2", "name": "replace", "args": {"file_path": "a.py", "old_string": "b", "new_string": "c"},
             "status": "error", "resultDisplay": "Failed to edit, could not find the string to replace."}]}]}
    a = analyze(json.dumps(chat, indent=2))
    assert [(x.type, x.kind) for x in a.actions] == [("write_file", ActionKind.WRITE_FILE), ("replace", ActionKind.OTHER)]
    assert "could not find" in next(d.message for d in a.diagnostics if d.code == "tool-error")


# -- Codex rollouts as current Codex writes them --------------------------------------------------


def test_codex_rollout_shell_apply_patch_and_a_failed_patch() -> None:
    patch = "*** Begin Patch\n*** Add File: hello.txt\n+hi \"there\"\n*** End Patch\n"
    bad = "*** Begin Patch\n*** Update File: gone.txt\n@@\n-a\n+b\n*** End Patch\n"
    lines = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/home/u/p", "originator": "codex_cli_rs"}},
        {"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/home/u/p", "approval_policy": "on-request"}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call", "name": "shell", "call_id": "call_1",
            "arguments": _line({"command": ["apply_patch", patch], "workdir": "/home/u/p"})}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": "call_1",
            "output": _line({"output": "Success. Updated the following files:\nA hello.txt\n", "metadata": {"exit_code": 0}})}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "custom_tool_call", "status": "completed", "call_id": "call_2", "name": "apply_patch", "input": bad}},
        {"timestamp": "t", "type": "event_msg", "payload": {
            "type": "patch_apply_end", "call_id": "call_2", "stdout": "", "stderr": "Failed to find gone.txt", "success": False}},
    ]
    a = analyze("\n".join(_line(x) for x in lines) + "\n")
    views = _views(a.actions)
    assert views[0][:2] in (("create", "hello.txt"), ("write", "hello.txt"))
    assert views[0][2] == 'hi "there"\n'
    assert len(views) == 1  # the patch Codex reported failed is shown, not applied
    assert "Failed to find gone.txt" in next(d.message for d in a.diagnostics if d.code == "tool-error")


def test_cline_windows_paths_map_into_the_recorded_working_directory() -> None:
    """Cline writes ``absolutePath`` as Windows gives it, under the working directory its
    environment details name (with forward slashes, the drive letter in either case); a denied
    call, answered only by text, is failed; a path outside the directory stays absolute."""
    env = "<environment_details>\n# Current Working Directory (c:/Apps/Shop) Files\nsrc/a.ts\n</environment_details>"
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "<task>go</task>"}, {"type": "text", "text": env}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tooluse_1", "name": "write_to_file",
             "input": {"absolutePath": "C:\\Apps\\shop\\src\\util.ts", "content": "export {};\n"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[write_to_file for 'src/util.ts'] Result:\nThe content was successfully saved"}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tooluse_2", "name": "replace_in_file",
             "input": {"absolutePath": "c:\\Apps\\Shop\\.env",
                       "diff": "------- SEARCH\nKEY=1\n=======\nKEY=2\n+++++++ REPLACE\n"}}]},
        {"role": "user", "content": [{"type": "text", "text": "[replace_in_file for 'c:\\Apps\\Shop\\.env'] Result:\n"
                                      "The user denied this operation. The file was not updated."}]},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "tooluse_3", "name": "write_to_file",
             "input": {"absolutePath": "D:\\Other\\x.ts", "content": "x\n"}}]},
    ]
    text = _line(messages)
    a = analyze(text)
    assert [x.kind for x in a.actions] == [ActionKind.WRITE_FILE, ActionKind.OTHER, ActionKind.WRITE_FILE]
    assert [v[:2] for v in _views(a.actions)] == [("write", "src\\util.ts"), ("write", "D:\\Other\\x.ts")]
    path = a.actions[0].fields["path"]
    assert text[path.span.start : path.span.end] == "src\\\\util.ts"  # the JSON-escaped backslash
    codes = [d.code for d in a.diagnostics]
    assert "tool-error" in codes
    assert next(d.message for d in a.diagnostics if d.code == "absolute-path").startswith("`D:\\Other")


def test_roo_and_kilo_apply_diff_failures_answered_by_text_are_failed() -> None:
    """Roo Code and Kilo Code answer a refused ``apply_diff`` with text that names no denial:
    ``Unable to apply diff to file: ...`` then ``<error_details>``, a bare ``<error_details>``
    (the multi-file form), or ``Failed to parse apply_diff XML``; each such call is shown
    failed, never offered. The shapes are the ones of a real Kilo Code task
    (aaronvstory/email-management-tool, ``kilo_code_task_oct-11-2025_12-48-17-pm.md``)."""
    diff = "<<<<<<< SEARCH\n:start_line:1\n-------\nimport os\n=======\nimport os\nimport re\n>>>>>>> REPLACE"
    answers = [
        "Unable to apply diff to file: c:\\claude\\app\\tests\\conftest.py\n\n<error_details>\n"
        "No sufficiently similar match found at line: 1 (99% similar, needs 100%)\n</error_details>",
        "<error_details>\nDiff 1 failed for file: tests/conftest.py\nError: No sufficiently similar match "
        "found at line: 1 (99% similar, needs 100%)\n</error_details>",
        "Failed to parse apply_diff XML. This usually means:\n1. The XML structure is malformed or incomplete",
        "<file_write_result>\n<path>tests/conftest.py</path>\n<operation>modified</operation>\n</file_write_result>",
    ]
    messages: list[dict[str, Any]] = [{"role": "user", "content": [{"type": "text", "text": "<task>fix</task>"}]}]
    for n, answer in enumerate(answers, 1):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"toolu_{n}", "name": "apply_diff",
             "input": {"path": "tests/conftest.py", "diff": diff}}]})
        messages.append({"role": "user", "content": [
            {"type": "text", "text": f"[apply_diff for 'tests/conftest.py'] Result:\n{answer}"}]})
    a = analyze(_line(messages))
    assert [x.kind for x in a.actions] == [ActionKind.OTHER] * 3 + [ActionKind.MODIFY_FILE]
    assert [x.failure is not None for x in a.actions] == [True, True, True, False]
    assert [v[:2] for v in _views(a.actions)] == [("modify", "tests/conftest.py")]


def test_copilot_chat_export_calls_refused_in_tool_call_results_are_failed() -> None:
    """VS Code Copilot Chat's "Export Chat" JSON keeps each request's calls in
    ``result.metadata.toolCallRounds`` and their answers in ``toolCallResults`` (call id ->
    ``{"content": [{"value": ...}]}``); an answer ``ERROR while calling tool: ...`` is a call
    that did nothing, shown failed. The shape of a real export (bunty1981/AI-copilot-vibe-app,
    ``copilot-chat.json``): a create_file refused for its relative path, then retried."""
    root = "/Users/me/code/app"

    def call(n: int, path: str) -> dict[str, Any]:
        args = json.dumps({"content": "# User Journey\n", "filePath": path})
        return {"response": "", "toolCalls": [{"name": "create_file", "arguments": args, "id": f"call_{n}__vscode-1"}]}

    def answer(text: str) -> dict[str, Any]:
        return {"$mid": 20, "content": [{"$mid": 21, "value": text}]}

    export = {"responderUsername": "GitHub Copilot", "requests": [{
        "message": {"text": "write the user journey"},
        "response": [{"kind": "toolInvocationSerialized", "toolId": "copilot_createFile",
                      "invocationMessage": {"value": "Using \"Create File\""}, "isComplete": True}],
        "result": {"metadata": {
            "toolCallRounds": [call(1, "User-journey.md"), call(2, f"{root}/User-journey.md")],
            "toolCallResults": {
                "call_1__vscode-1": answer("ERROR while calling tool: Invalid input path: User-journey.md. "
                                           "Be sure to use an absolute path.\nPlease check your input and try again."),
                "call_2__vscode-1": answer(""),
            },
        }},
    }]}
    a = analyze(json.dumps(export, indent=2))
    assert [x.failure is not None for x in a.actions] == [True, False]
    assert [v[:2] for v in _views(a.actions)] == [("write", f"{root}/User-journey.md")]
    assert "Invalid input path" in next(d.message for d in a.diagnostics if d.code == "tool-error")


def test_older_cline_and_roo_write_their_xml_tools_inside_text_blocks() -> None:
    """Before native tool calls, Cline and Roo Code wrote the XML tools in the assistant's text:
    they are read by the markdown dialects, their ranges mapped through the JSON escapes."""
    said = ("<thinking>the greeting</thinking>\n\n<write_to_file>\n<path>src/hi.ts</path>\n<content>\n"
            'export const hi = "\\"hi\\"";\n\tconsole.log(hi);\n</content>\n</write_to_file>')
    diff = ("<replace_in_file>\n<path>src/app.ts</path>\n<diff>\n------- SEARCH\nconst a = 1;\n=======\n"
            "const a = 2;\n+++++++ REPLACE\n</diff>\n</replace_in_file>")
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nsay <write_to_file> hi\n</task>"}]},
        {"role": "assistant", "content": [{"type": "text", "text": said}]},
        {"role": "user", "content": [{"type": "text", "text": "[write_to_file for 'src/hi.ts'] Result:\nok"}]},
        {"role": "assistant", "content": diff},
    ]
    text = _line(messages)
    a = analyze(text)
    assert _views(a.actions) == [
        # Cline's parser trims the content (its diff editor then ends the file with a line break)
        ("write", "src/hi.ts", 'export const hi = "\\"hi\\"";\n\tconsole.log(hi);'),
        ("modify", "src/app.ts", "const a = 2;\n"),
    ]
    content = a.actions[0].fields["content"]
    i = content.value.index('"\\"hi')
    s = content.value_span(i, i + 3)
    assert text[s.start : s.end] == '\\"\\\\\\"'  # three characters written with their escapes
    path = a.actions[1].fields["path"]
    assert text[path.span.start : path.span.end] == "src/app.ts"


def test_codex_absolute_patch_paths_read_under_the_session_cwd_recorded_before() -> None:
    patch = "*** Begin Patch\n*** Add File: /home/u/p/src/a.py\n+a = 1\n*** End Patch\n"
    lines = [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/home/u/p"}},
        {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "go"}},
        {"timestamp": "t", "type": "response_item", "payload": {
            "type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": patch}},
    ]
    text = "\n".join(_line(x) for x in lines) + "\n"
    a = analyze(text)
    assert [v[:2] for v in _views(a.actions)] == [("create", "src/a.py")] or \
        [v[:2] for v in _views(a.actions)] == [("write", "src/a.py")]
    doc = IncrementalDocument(text)
    at = text.index("/home/u/p") + len("/home/u/")
    doc.edit(at, at + 1, "q")  # the session's cwd now is /home/u/q: the path is outside it
    assert [d.code for d in doc.analysis().diagnostics] == [d.code for d in analyze(doc.text).diagnostics]
    assert "absolute-path" in [d.code for d in doc.analysis().diagnostics]


# -- OpenHands: edits whose arguments stand only in tool_call_metadata ------------------------------


def test_openhands_edit_read_from_its_tool_call_metadata() -> None:
    """Early-2025 OpenHands saved an edit's arguments only as ``translated_ipython_code`` (a
    Python call); the model's own call, with JSON arguments, stands in ``tool_call_metadata``."""
    arguments = _line({"command": "str_replace", "path": "/workspace/app.py",
                       "old_str": "print('hi')", "new_str": "print(\"bonjour\")\n"})
    events = [
        {"id": 1, "timestamp": "t", "source": "agent", "message": "Running edit", "action": "edit",
         "tool_call_metadata": {"function_name": "str_replace_editor", "tool_call_id": "toolu_01",
                                "model_response": {"id": "r", "choices": [{"message": {"role": "assistant", "tool_calls": [
                                    {"id": "toolu_01", "type": "function",
                                     "function": {"name": "str_replace_editor", "arguments": arguments}}]}}]},
                                "total_calls_in_response": 1},
         "args": {"path": "/workspace/app.py", "content": "", "start": 1, "end": -1, "thought": "",
                  "impl_source": "oh_aci",
                  "translated_ipython_code": "print(file_editor(**{'command': 'str_replace', 'path': '/workspace/app.py'}))"}},
        {"id": 2, "timestamp": "t", "source": "agent", "message": "", "cause": 1, "observation": "edit",
         "content": "The file /workspace/app.py has been edited.", "extras": {"path": "/workspace/app.py"}},
    ]
    text = json.dumps(events, indent=4)
    a = analyze(text)
    assert [(x.type, x.kind) for x in a.actions] == [("edit", ActionKind.MODIFY_FILE)]
    view = file_view(a.actions[0])
    assert view is not None and view.path.value == "app.py"
    assert [(e.search.value, e.replace.value) for e in view.edits] == [("print('hi')", 'print("bonjour")\n')]
    s = view.edits[0].replace.span
    assert text[s.start : s.end] == 'print(\\\\\\"bonjour\\\\\\")\\\\n'  # through both levels of escapes


# -- opencode session exports, converted sessions ---------------------------------------------------


def test_opencode_session_export_patches_under_its_directory_and_failed_calls() -> None:
    root = "/Users/dev/audit/full-stack"
    added = f"*** Begin Patch\n*** Add File: {root}/docs/design.md\n+# Design \"v1\"\n*** End Patch"
    stale = f"*** Begin Patch\n*** Update File: {root}/src/app.ts\n@@\n-old\n+new\n*** End Patch"
    export = {"info": {"id": "ses_1", "directory": root, "version": "1.3.0"}, "messages": [
        {"info": {"id": "msg_1", "role": "assistant"}, "parts": [
            {"type": "text", "text": "Writing the design."},
            {"type": "tool", "callID": "call_1", "tool": "apply_patch",
             "state": {"status": "completed", "input": {"patchText": added}, "output": "Success"}},
            {"type": "tool", "callID": "call_2", "tool": "apply_patch",
             "state": {"status": "error", "input": {"patchText": stale},
                       "error": "apply_patch verification failed: Error: Failed to find expected lines in src/app.ts"}},
            {"type": "tool", "callID": "call_3", "tool": "write",
             "state": {"status": "completed", "input": {"filePath": f"{root}/notes.txt", "content": "n\n"}}},
        ]}]}
    a = analyze(json.dumps(export, indent=2))
    views = [v for v in _views(a.actions)]
    assert [v[:2] for v in views] in (
        [("create", "docs/design.md"), ("write", "notes.txt")], [("write", "docs/design.md"), ("write", "notes.txt")])
    assert "Failed to find expected lines" in next(d.message for d in a.diagnostics if d.code == "tool-error")
    assert "absolute-path" not in {d.code for d in a.diagnostics}


def test_an_opencode_export_written_on_one_line_gives_what_the_indented_one_gives() -> None:
    """A compact export (re-saved by a tool, or ``JSON.stringify`` without indent) is one line:
    it is read as a session record, whose calls must be found as the whole document's are."""
    export = {"info": {"id": "ses_1", "directory": "/home/dev/proj"}, "messages": [
        {"info": {"id": "msg_1", "role": "assistant"}, "parts": [
            {"type": "tool", "callID": "call_1", "tool": "write",
             "state": {"status": "completed", "input": {"filePath": "/home/dev/proj/notes.txt", "content": "n\n"}}},
            {"type": "tool", "callID": "call_2", "tool": "edit",
             "state": {"status": "error", "error": "oldString not found",
                       "input": {"filePath": "/home/dev/proj/app.ts", "oldString": "a", "newString": "b"}}}]}]}
    indented = analyze(json.dumps(export, indent=2))
    compact = analyze(json.dumps(export))
    assert _views(indented.actions) and _views(compact.actions) == _views(indented.actions)
    assert [d.code for d in compact.diagnostics if d.code == "tool-error"] == ["tool-error"]


def test_a_call_written_twice_in_one_message_is_one_edit_and_a_tool_use_error_fails_it() -> None:
    """A Claude Code session converted to OpenAI chat writes each call as a content block and
    again in ``tool_calls`` (one edit); a tool message ``<tool_use_error>...`` fails its call."""
    args = _line({"file_path": "src/a.py", "old_string": "a", "new_string": "b"})
    doc = {"messages": [
        {"role": "assistant", "content": [{"type": "tool_call", "tool_call_id": "toolu_1", "name": "Edit", "arguments": args}],
         "tool_calls": [{"id": "toolu_1", "type": "function", "function": {"name": "Edit", "arguments": args}}]},
        {"role": "tool", "tool_call_id": "toolu_1",
         "content": "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"},
        {"role": "assistant", "tool_calls": [{"id": "toolu_2", "type": "function", "function": {
            "name": "Write", "arguments": _line({"file_path": "src/b.py", "content": "b\n"})}}]},
        {"role": "tool", "tool_call_id": "toolu_2", "content": "File created successfully"},
    ]}
    a = analyze(json.dumps(doc, indent=2))
    assert [(x.type, x.kind) for x in a.actions] == [("Edit", ActionKind.OTHER), ("Write", ActionKind.WRITE_FILE)]
    assert "has not been read yet" in next(d.message for d in a.diagnostics if d.code == "tool-error")


REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, "
            "the new_string was NOT written to the file). STOP what you are doing and wait for the user.")


def test_a_call_the_user_rejected_is_failed_whatever_carries_the_answer() -> None:
    """Claude Code's answer to a call the user refused ("The tool use was rejected ... NOT written
    to the file") fails the call: in an OpenAI tool message, and in a tool_result without
    ``is_error``."""
    write = _line({"file_path": "web/package.json", "content": "{}\n"})
    chat = {"messages": [
        {"role": "assistant", "tool_calls": [{"id": "toolu_9", "type": "function",
                                              "function": {"name": "Write", "arguments": write}}]},
        {"role": "tool", "tool_call_id": "toolu_9", "content": REJECTED},
    ]}
    anthropic = {"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_9", "name": "Write",
                                           "input": {"file_path": "web/package.json", "content": "{}\n"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_9",
                                      "content": [{"type": "text", "text": REJECTED}]}]},
    ]}
    for doc in (chat, anthropic):
        for text in (json.dumps(doc, indent=2), json.dumps(doc)):
            a = analyze(text)
            (call,) = [x for x in a.actions if x.type == "Write"]
            assert call.failure is not None and "rejected" in call.failure, text
            assert file_view(call) is None, text
    accepted = json.dumps(chat).replace("The user doesn't want", "File created; the user doesn't mind")
    (call,) = [x for x in analyze(accepted).actions if x.type == "Write"]
    assert call.failure is None

# -- round trips: replayed on a checkout -----------------------------------------------------------


def _apply(tmp_path: Path, name: str, text: str, files: dict[str, str]) -> dict[str, str]:
    from action_lsp.cli import main

    root = tmp_path / "ws"
    root.mkdir()
    for rel, body in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(body, encoding="utf-8")
    session = tmp_path / name
    session.write_text(text, encoding="utf-8")
    main(["apply", "--root", str(root), "--write", str(session)])
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
            for p in root.rglob("*") if p.is_file() and ".action-lsp" not in p.parts}


def test_a_cline_task_replays_on_a_checkout(tmp_path: Path) -> None:
    """The Cline task's write and replace_in_file land; the apply_diff its result says failed
    does not."""
    got = _apply(tmp_path, "api_conversation_history.json", cline_history(),
                 {"src/app.ts": "const total = 1;\nexport {};\n", "src/b.py": "old = 1\n"})
    assert got["src/util.ts"] == 'export const q = "\\"";\n\tlet t = 1;\n'
    assert got["src/app.ts"] == "const total = 2;\nexport {};\n"
    assert got["src/b.py"] == "old = 1\n"


def test_a_claude_code_2x_session_replays_on_a_checkout(tmp_path: Path) -> None:
    got = _apply(tmp_path, "session.jsonl", claude_2x_session(), {})
    assert got == {"src/greet.py": 'print("hi \\u263a ✓")\n\tdone\n'}


def test_an_opencode_add_file_ending_in_an_empty_line_writes_what_opencode_wrote(tmp_path: Path) -> None:
    """opencode's apply_patch joins an added file's ``+`` lines with newlines and ends the text
    with one newline: a last ``+`` line that is empty adds no blank line, and a lone ``+`` (a
    ``.gitkeep``) makes an empty file. Its own record says so (``metadata.files[].after``; in a
    real export 11 of 88 added files, all as here). Codex's apply_patch would keep the blank line."""
    root = "/Users/dev/proj"

    def add(path: str, lines: str, after: str) -> dict:
        patch = f"*** Begin Patch\n*** Add File: {root}/{path}\n{lines}\n*** End Patch"
        return {"type": "tool", "callID": f"call_{path}", "tool": "apply_patch",
                "state": {"status": "completed", "input": {"patchText": patch},
                          "output": f"Success. Updated the following files:\nA {root[1:]}/{path}",
                          "metadata": {"files": [{"filePath": f"{root}/{path}", "type": "add", "before": "",
                                                  "after": after}]}}}

    export = {"info": {"id": "ses_1", "directory": root}, "messages": [
        {"info": {"id": "msg_1", "role": "assistant"}, "parts": [
            add("docs/design.md", "+# Design\n+\n+Text.\n+", "# Design\n\nText.\n"),
            add("app/__init__.py", "+", ""),
            add("app/main.py", "+x = 1\n+y = 2", "x = 1\ny = 2\n"),
        ]}]}
    t = tmp_path / "session.json"
    t.write_text(json.dumps(export, indent=2), encoding="utf-8")
    ws = tmp_path / "ws"
    ws.mkdir()
    assert main(["apply", "--root", str(ws), "--write", str(t)]) == 0
    assert (ws / "docs" / "design.md").read_bytes() == b"# Design\n\nText.\n"
    assert (ws / "app" / "__init__.py").read_bytes() == b""
    assert (ws / "app" / "main.py").read_bytes() == b"x = 1\ny = 2\n"
