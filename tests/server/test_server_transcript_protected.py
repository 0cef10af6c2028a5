"""The server refuses an action that would delete or overwrite the open transcript itself
(``protected-path``), as ``apply`` does (see tests/edit/test_transcript_protected.py)."""

from __future__ import annotations

from lsprotocol import types

from .conftest import Session
from .test_server_choices import _run, _wait_code
from .test_server_force import _apply

DELETE_ME = '<dyad-delete path="self.md"></dyad-delete>\n'


async def test_the_open_transcript_is_never_deleted(session: Session) -> None:
    (session.root / "self.md").write_text(DELETE_ME)
    uri = session.open("self.md")
    diag = await _wait_code(session, uri, "protected-path")
    assert diag.severity == types.DiagnosticSeverity.Error and "the transcript" in diag.message
    result = await _run(session, _apply(uri))
    assert result["applied"] is False, result
    assert (session.root / "self.md").read_text() == DELETE_ME
    assert session.applied_edits == []
