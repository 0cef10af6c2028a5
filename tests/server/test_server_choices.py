"""A match whose content differs is a question, end to end: Apply refuses it, the quick fix
"Apply to the closest match" shows the diff and asks first; "Apply at line N" picks one of
several matches; the transcript's own errors block Apply."""

from __future__ import annotations

import asyncio
from typing import Any, Union

import pytest
from lsprotocol import types

from action_lsp.dialects import NAMES

from .conftest import Session

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

# A close match that is plausibly the same code (never another definition: issue 19).
ADD = "total = add(a, b)\nprint(total)\n"
SUB = (
    "<modify_file>\n<path>src/m.py</path>\n<search>\ntotal = add(a, c)\nprint(total)\n</search>\n"
    "<replace>\ntotal = add(a, c)\nprint(-total)\n</replace>\n</modify_file>\n"
)
AMBIGUOUS = (
    "<modify_file>\n<path>src/x.py</path>\n<search>\nx = 1\n</search>\n"
    "<replace>\nx = 9\n</replace>\n</modify_file>\n"
)


async def _wait_code(session: Session, uri: str, code: str, timeout: float = 10.0) -> types.Diagnostic:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        if session.pull:
            diags = await session.diagnostics(uri)
        else:
            diags = list(session.client.diagnostics.get(uri, []))
        found = [d for d in diags if d.code == code]
        if found:
            return found[0]
        assert loop.time() < deadline, f"no {code} in {[d.code for d in diags]}"
        await asyncio.sleep(0.1)


def _read_code_actions_right(session: Session) -> None:
    """lsprotocol's client side takes every code action that has a ``command`` for a bare
    ``Command`` (its union hook only looks for the key); tell them apart by its type."""
    conv = session.client.protocol._converter

    def hook(obj: Any, _: Any) -> types.Command | types.CodeAction:
        if isinstance(obj.get("command"), str):
            return conv.structure(obj, types.Command)  # type: ignore[no-any-return]
        return conv.structure(obj, types.CodeAction)  # type: ignore[no-any-return]

    conv.register_structure_hook(Union[types.Command, types.CodeAction], hook)  # noqa: UP007


async def _quick_fixes(session: Session, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    _read_code_actions_right(session)
    result = await session.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diag.range,
            context=types.CodeActionContext(diagnostics=[diag], only=[types.CodeActionKind.QuickFix]),
        )
    )
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


class Answers:
    """The user's side of ``window/showMessageRequest``: records the questions, answers
    ``reply``."""

    def __init__(self, session: Session) -> None:
        self.asked: list[types.ShowMessageRequestParams] = []
        self.reply: str | None = None

        @session.client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
        def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
            self.asked.append(params)
            return types.MessageActionItem(title=self.reply) if self.reply else None


async def _run(session: Session, command: types.Command) -> Any:
    return await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command.command, arguments=command.arguments)
    )


async def test_closest_match_is_refused_by_apply_and_offered_as_a_quick_fix(session: Session) -> None:
    (session.root / "src/m.py").write_text(ADD)
    uri = session.open("sub.md", SUB)
    diag = await _wait_code(session, uri, "search-not-found")
    assert diag.severity == types.DiagnosticSeverity.Error
    assert isinstance(diag.data, dict)
    assert diag.data["candidate"] == {"line": 1, "endLine": 2, "score": 96.7, "strategy": "fuzzy"}
    assert diag.data["action"] == 0 and diag.data["edit"] == 0
    # The lens's Apply never writes it.
    result = await _run(session, types.Command(title="Apply", command="action-lsp.apply",
                                               arguments=[{"uri": uri, "version": 1, "action": 0}]))
    assert result["applied"] is False and "closest match" in result["message"]
    assert session.applied_edits == []

    (fix,) = await _quick_fixes(session, uri, diag)
    assert fix.title == "Apply to the closest match (line 1, score 97)"
    assert fix.command is not None and fix.command.command == "action-lsp.applyCandidate"
    # Cancelled: the diff was shown, nothing applied.
    answers = Answers(session)
    answers.reply = "Cancel"
    result = await _run(session, fix.command)
    assert result["applied"] is False and "+print(-total)" in result["diff"]
    (asked,) = answers.asked
    assert [a.title for a in asked.actions or []] == ["Apply", "Cancel"]
    assert session.applied_edits == [] and (session.root / "src/m.py").read_text() == ADD
    shown = session.client.shown_documents
    assert len(shown) == 1 and shown[0].uri.endswith(".diff")
    # Confirmed: one workspace edit, the closest match replaced.
    answers.reply = "Apply"
    result = await _run(session, fix.command)
    assert result["applied"] is True
    assert len(session.applied_edits) == 1
    assert (session.root / "src/m.py").read_text() == "total = add(a, c)\nprint(-total)\n"


async def test_a_quick_fix_per_candidate_of_an_ambiguous_search(session: Session) -> None:
    (session.root / "src/x.py").write_text("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n")
    uri = session.open("amb.md", AMBIGUOUS)
    diag = await _wait_code(session, uri, "search-ambiguous")
    assert isinstance(diag.data, dict)
    assert [c["line"] for c in diag.data["candidates"]] == [1, 3, 5]
    assert "lines 1, 3, 5" in diag.message
    fixes = await _quick_fixes(session, uri, diag)
    assert [f.title for f in fixes] == [
        "Apply at line 1 (match 1 of 3)", "Apply at line 3 (match 2 of 3)",
        "Apply at line 5 (match 3 of 3)",
    ]
    Answers(session).reply = "Apply"
    command = fixes[1].command
    assert command is not None
    result = await _run(session, command)
    assert result["applied"] is True
    assert (session.root / "src/x.py").read_text() == "x = 1\ny = 2\nx = 9\nz = 3\nx = 1\n"


async def test_transcript_errors_block_apply(session: Session) -> None:
    uri = session.open("broken.md", "<create_file>\n<path>src/y.py</path>\n<content>\ny = 1\n</content>\n\nbye\n")
    result = await _run(session, types.Command(title="Apply", command="action-lsp.apply",
                                               arguments=[{"uri": uri, "version": 1, "action": 0}]))
    assert result["applied"] is False and "unclosed-tag" in result["message"]
    assert session.applied_edits == [] and not (session.root / "src/y.py").exists()
