"""A Claude Code session JSONL in the server: diagnostics at the exact characters (UTF-16 or
UTF-8 columns inside JSON escapes), and a keystroke in one line updating them."""

from __future__ import annotations

import json
from pathlib import Path

from lsprotocol import types

from .conftest import Session

FIXTURE = Path(__file__).parent.parent / "fixtures" / "dialects" / "claude-code" / "session.jsonl"


def _column(line: str, index: int, encoding: str) -> int:
    if encoding == "utf-8":
        return len(line[:index].encode("utf-8"))
    if encoding == "utf-16":
        return len(line[:index].encode("utf-16-le")) // 2
    return index


async def test_session_diagnostics_and_a_keystroke(session: Session) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    uri = session.open("session.jsonl", text)
    diags = await session.diagnostics(uri)
    by_code = {d.code: d for d in diags}
    assert set(by_code) == {"tool-error", "absolute-path"}
    lines = text.split("\n")
    hosts = by_code["absolute-path"].range
    assert hosts.start.line == 11
    start = lines[11].index("/etc/hosts")
    assert hosts.start.character == _column(lines[11], start, session.encoding)
    # A keystroke that breaks line 4 (the Write): one bad-json there, the rest still read
    # (the edits of the file the Write no longer creates may then miss it in the workspace).
    session.change(uri, (3, 0), (3, 1), "")
    diags = await session.diagnostics(uri)
    codes = [str(d.code) for d in diags]
    assert codes.count("bad-json") == 1 and {"absolute-path", "tool-error"} <= set(codes)
    assert set(codes) <= {"absolute-path", "bad-json", "tool-error", "file-not-found"}
    bad = next(d for d in diags if d.code == "bad-json")
    assert bad.range.start.line == 3
    json.loads(lines[3])  # the fixture line itself is valid JSON


async def test_replace_all_edit_applies_every_occurrence_through_a_workspace_edit(session: Session) -> None:
    """The WorkspaceEdit of a Claude Code ``Edit`` with ``replace_all`` changes every exact
    occurrence, as ``apply --write`` and the diff preview do."""
    app = "total = 0\nfor x in xs:\n    total = total + x\nprint(total)\n"
    (session.root / "calc.py").write_text(app, encoding="utf-8")
    cwd = "/home/ana/proj"
    call = {"type": "tool_use", "id": "toolu_1", "name": "Edit",
            "input": {"file_path": f"{cwd}/calc.py", "old_string": "total", "new_string": "acc", "replace_all": True}}
    line = {"type": "assistant", "cwd": cwd, "sessionId": "s", "uuid": "u1",
            "message": {"role": "assistant", "content": [call]}}
    uri = session.open("replace-all.jsonl", json.dumps(line) + "\n")
    preview = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.previewDiff", arguments=[{"uri": uri, "version": 1, "action": 0}])
    )
    assert preview["diff"].count("+") >= 4 and "+print(acc)" in preview["diff"]
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="action-lsp.apply", arguments=[{"uri": uri, "version": 1, "action": 0}])
    )
    assert result["applied"] is True
    (params,) = session.applied_edits
    (change,) = params.edit.document_changes or []
    assert isinstance(change, types.TextDocumentEdit) and len(change.edits) == 4
    assert (session.root / "calc.py").read_text(encoding="utf-8") == app.replace("total", "acc")


async def test_a_session_of_absolute_paths_is_one_error_in_the_editor(session: Session) -> None:
    """An export whose paths are all absolute, with no working directory recorded: one
    absolute-path error (on the first), not one per action, once the workspace checks have run
    too (they refuse each such path again; those refusals are not repeated)."""
    call = ("🔧 **Tool Use: Write** (ID: toolu_{n})\n```json\n"
            '{{"file_path": "{path}", "content": "x = {n}\\n"}}\n```\n\n')
    text = "# Claude Code Session Export\n\n### 🤖 Assistant\n\n" + "".join(
        call.format(n=n, path=p) for n, p in enumerate(
            ["/Users/dev/shop/a.py", "/Users/dev/shop/b.py", "/Users/dev/shop/src/c.py", "missing/../../out.py"]))
    uri = session.open("export.md", text)
    for _ in range(200):
        diags = await session.diagnostics(uri)
        codes = [str(d.code) for d in diags]
        if "path-traversal" in codes:
            break
    assert codes.count("absolute-path") == 1
    first = next(d for d in diags if d.code == "absolute-path")
    assert "/Users/dev/shop/a.py" in first.message and "not reported again" in first.message
