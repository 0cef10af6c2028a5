"""Typing in a session JSONL through the server: a result line that turns into an error makes
its earlier call a ``tool-error`` hint (a line the keystroke did not touch), and back."""

from __future__ import annotations

import json

from .conftest import Session

CWD = "/home/ana/proj"


def _line(kind: str, content: list[dict]) -> str:
    role = "assistant" if kind == "assistant" else "user"
    return json.dumps({"type": kind, "cwd": CWD, "sessionId": "s", "uuid": "u", "message": {"role": role, "content": content}})


async def test_a_result_typed_into_an_error_marks_its_call(session: Session) -> None:
    call = {"type": "tool_use", "id": "toolu_7", "name": "Bash", "input": {"command": "make test"}}
    result = {"tool_use_id": "toolu_7", "type": "tool_result", "content": "exit 2"}
    lines = [_line("user", [{"type": "text", "text": "run the tests"}]), _line("assistant", [call]),
             _line("user", [result])]
    uri = session.open("typing.jsonl", "\n".join(lines) + "\n")
    assert not [d for d in await session.diagnostics(uri) if d.code == "tool-error"]
    at = lines[2].index('"type": "tool_result"')
    flag = '"is_error": true, '
    session.change(uri, (2, at), (2, at), flag)
    hints = [d for d in await session.diagnostics(uri) if d.code == "tool-error"]
    assert len(hints) == 1 and hints[0].range.start.line == 1  # on the call, not the edited line
    assert "exit 2" in hints[0].message
    session.change(uri, (2, at), (2, at + len(flag)), "")
    assert not [d for d in await session.diagnostics(uri) if d.code == "tool-error"]
