"""The editor shows an agent's edit with its own agent's meaning (issue 20): a mistyped
argument is a ``bad-argument`` error at the argument, an empty search a file with content holds
is ``empty-search``, and the lens's Apply writes neither."""

from __future__ import annotations

import json

from lsprotocol import types

from .conftest import Session
from .test_server_choices import _run, _wait_code


def _calls(name: str, inp: dict[str, object]) -> str:
    return json.dumps({"messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": name, "input": inp}]}]})


async def test_a_null_new_string_is_a_bad_argument_and_never_applied(session: Session) -> None:
    (session.root / "a.txt").write_text("keep me\n")
    text = _calls("Edit", {"file_path": "a.txt", "old_string": "keep", "new_string": None})
    uri = session.open("t.json", text)
    diag = await _wait_code(session, uri, "bad-argument")
    assert diag.severity == types.DiagnosticSeverity.Error and "new_string" in diag.message
    result = await _run(session, types.Command(title="Apply", command="action-lsp.apply",
                                               arguments=[{"uri": uri, "version": 1, "action": 0}]))
    assert result["applied"] is False
    assert session.applied_edits == [] and (session.root / "a.txt").read_text() == "keep me\n"


async def test_an_empty_old_string_on_a_file_with_content_is_refused(session: Session) -> None:
    (session.root / "a.txt").write_text("keep me\n")
    uri = session.open("t.json", _calls("Edit", {"file_path": "a.txt", "old_string": "", "new_string": "x\n"}))
    diag = await _wait_code(session, uri, "empty-search")
    assert "Claude Code's Edit" in diag.message
    result = await _run(session, types.Command(title="Apply", command="action-lsp.apply",
                                               arguments=[{"uri": uri, "version": 1, "action": 0}]))
    assert result["applied"] is False and session.applied_edits == []
