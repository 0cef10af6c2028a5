"""Session shapes as agents write them in the wild, read by one JSON reader: small fixtures
modelled on real files (escapes, Windows paths, a truncated last line, a failed call, a bare
array). Each gives the edits a person reading the file sees."""

from __future__ import annotations

import json
from typing import Any

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
