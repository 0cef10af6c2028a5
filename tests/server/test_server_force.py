""""Apply anyway" from the editor: what `apply --force` is on the command line. An action that a
transcript error, a new syntax error, a read-only file or truncated content blocks gets a quick
fix that shows the diff, asks, and only then applies with force. Never for a path that leaves
the workspace, and never for a place whose content differs from the search text."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from action_lsp.dialects import NAMES

from .conftest import Session
from .test_server_choices import ADD, SUB, Answers, _quick_fixes, _run, _wait_code

DEFINED = "def add(a, b):\n    return a + b\n"

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

FORCED = "action-lsp.applyForced"
UNCLOSED = "<create_file>\n<path>src/y.py</path>\n<content>\ny = 1\n</content>\n\nbye\n"
BREAKS = (
    "<modify_file>\n<path>src/m.py</path>\n<search>\n    return a + b\n</search>\n"
    "<replace>\n    return (a + b\n</replace>\n</modify_file>\n"
)
TRUNCATED = (
    "<create_file>\n<path>src/t.py</path>\n<content>\ndef a():\n    return 1\n\n"
    "# ... rest of the code unchanged ...\n</content>\n</create_file>\n"
)


def _apply(uri: str, index: int = 0) -> types.Command:
    return types.Command(title="Apply", command="action-lsp.apply",
                         arguments=[{"uri": uri, "version": 1, "action": index}])


def _forced(uri: str, index: int = 0, **extra: Any) -> types.Command:
    return types.Command(title="Apply anyway", command=FORCED,
                         arguments=[{"uri": uri, "version": 1, "action": index, **extra}])


async def _anyway(session: Session, uri: str, diag: types.Diagnostic) -> list[types.CodeAction]:
    return [f for f in await _quick_fixes(session, uri, diag) if f.title.startswith("Apply anyway")]


async def test_a_transcript_error_can_be_overridden_after_the_diff(session: Session) -> None:
    uri = session.open("broken.md", UNCLOSED)
    diag = await _wait_code(session, uri, "unclosed-tag")
    result = await _run(session, _apply(uri))
    assert result["applied"] is False and "unclosed-tag" in result["message"]

    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (unclosed-tag)"
    assert fix.command is not None and fix.command.command == FORCED
    answers = Answers(session)
    answers.reply = "Cancel"
    result = await _run(session, fix.command)
    assert result["applied"] is False and "+y = 1" in result["diff"]
    (asked,) = answers.asked
    assert "unclosed-tag" in asked.message
    assert [a.title for a in asked.actions or []] == ["Apply anyway", "Cancel"]
    assert session.applied_edits == [] and not (session.root / "src/y.py").exists()
    shown = session.client.shown_documents
    assert len(shown) == 1 and shown[0].uri.endswith(".diff")

    answers.reply = "Apply anyway"
    result = await _run(session, fix.command)
    assert result["applied"] is True, result
    assert len(session.applied_edits) == 1
    assert (session.root / "src/y.py").read_text() == "y = 1\n"


async def test_a_new_syntax_error_can_be_overridden(session: Session) -> None:
    (session.root / "src/m.py").write_text(DEFINED)
    uri = session.open("breaks.md", BREAKS)
    diag = await _wait_code(session, uri, "new-syntax-error")
    assert (await _run(session, _apply(uri)))["applied"] is False
    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (new-syntax-error)"
    assert fix.command is not None
    Answers(session).reply = "Apply anyway"
    assert (await _run(session, fix.command))["applied"] is True
    assert (session.root / "src/m.py").read_text() == "def add(a, b):\n    return (a + b\n"


async def test_a_read_only_file_can_be_overridden(session: Session) -> None:
    target = session.root / "src/m.py"
    target.write_text(DEFINED)
    target.chmod(0o444)
    uri = session.open("ro.md", BREAKS.replace("(a + b", "a + b + 0"))
    diag = await _wait_code(session, uri, "file-readonly")
    assert (await _run(session, _apply(uri)))["applied"] is False
    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (file-readonly)"
    # A client that showed the diff itself confirms in the arguments.
    assert fix.command is not None and fix.command.arguments
    args = {**fix.command.arguments[0], "confirmed": True}
    result = await _run(session, types.Command(title="x", command=FORCED, arguments=[args]))
    assert result["applied"] is True, result
    target.chmod(0o644)
    assert target.read_text() == "def add(a, b):\n    return a + b + 0\n"


async def test_truncated_content_can_be_overridden(session: Session) -> None:
    uri = session.open("trunc.md", TRUNCATED)
    diag = await _wait_code(session, uri, "truncated-content")
    assert (await _run(session, _apply(uri)))["applied"] is False
    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (truncated-content)"
    assert fix.command is not None
    Answers(session).reply = "Apply anyway"
    assert (await _run(session, fix.command))["applied"] is True
    assert "rest of the code" in (session.root / "src/t.py").read_text()


@pytest.mark.parametrize("path", ["../outside.txt", "/tmp/action-lsp-forced-abs.txt", "link/x.txt"])
async def test_never_outside_the_workspace_even_forced(session: Session, path: str, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, session.root / "link")
    before = sorted(os.listdir(session.root.parent)), sorted(os.listdir(outside))
    # Unclosed, so that a transcript error blocks it too: the one thing force could lift.
    uri = session.open("out.md", f"<create_file>\n<path>{path}</path>\n<content>\nx\n</content>\n")
    if not path.startswith("link/"):  # (the workspace checks skip an action already blocked)
        code = "absolute-path" if path.startswith("/") else "path-traversal"
        diag = await _wait_code(session, uri, code)
        assert await _anyway(session, uri, diag) == []
    unclosed = await _wait_code(session, uri, "unclosed-tag")
    assert await _anyway(session, uri, unclosed) == []
    Answers(session).reply = "Apply anyway"
    result = await _run(session, _forced(uri, confirmed=True))
    assert result["applied"] is False and "outside the workspace" in result["message"]
    result = await _run(session, _forced(uri))
    assert result["applied"] is False
    assert session.applied_edits == []
    assert (sorted(os.listdir(session.root.parent)), sorted(os.listdir(outside))) == before
    assert not os.path.exists("/tmp/action-lsp-forced-abs.txt")  # the absolute target the transcript names


async def test_forced_never_takes_a_place_whose_content_differs(session: Session) -> None:
    (session.root / "src/m.py").write_text(ADD)
    # Unclosed too: force lifts the transcript error, never the question of the close match.
    uri = session.open("sub.md", SUB.replace("</modify_file>\n", ""))
    await _wait_code(session, uri, "unclosed-tag")
    Answers(session).reply = "Apply anyway"
    result = await _run(session, _forced(uri, confirmed=True))
    assert result["applied"] is False and "closest match" in result["message"]
    result = await _run(session, _forced(uri))
    assert result["applied"] is False
    assert session.applied_edits == [] and (session.root / "src/m.py").read_text() == ADD


GREET = "def greet(name):\n    print(\"hello\", name)\n    return name\n"
DEFINITION = (
    "<modify_file>\n<path>src/m.py</path>\n<search>\ndef greet(name):\n    print(\"wrong\", name)\n"
    "    return name\n</search>\n<replace>\ndef greet(name):\n    print(\"hi\", name)\n"
    "    return name\n</replace>\n</modify_file>\n"
)
OTHER = "<modify_file>\n<path>src/o.py</path>\n<search>\no = 1\n</search>\n<replace>\no = 2\n</replace>\n</modify_file>\n"


@pytest.mark.parametrize("strategy", ["fuzzy", "definition"])
async def test_no_apply_path_writes_a_close_match_unasked(session: Session, strategy: str) -> None:
    """The audit matrix of the server's apply paths: Apply, Apply all, Apply anyway, and the
    candidate command the user dismissed or cancelled."""
    text, transcript = (ADD, SUB) if strategy == "fuzzy" else (GREET, DEFINITION)
    (session.root / "src/m.py").write_text(text)
    (session.root / "src/o.py").write_text("o = 1\n")
    uri = session.open("close.md", OTHER + "\n" + transcript)
    diag = await _wait_code(session, uri, "search-not-found")
    assert isinstance(diag.data, dict) and diag.data["candidate"]["strategy"] == strategy
    answers = Answers(session)
    answers.reply = "Apply anyway"
    commands = [
        _apply(uri, 1),
        types.Command(title="all", command="action-lsp.applyAll",
                      arguments=[{"uri": uri, "version": 1, "actions": [0, 1]}]),
        _forced(uri, 1), _forced(uri, 1, confirmed=True),
    ]
    for command in commands:
        result = await _run(session, command)
        assert result["applied"] is False, (command.command, result)
    # The candidate command asks first: dismissed or cancelled, nothing is written.
    candidate = types.Command(title="c", command="action-lsp.applyCandidate", arguments=[
        {"uri": uri, "version": 1, "action": 1, "edit": 0, "line": 1}])
    for reply in (None, "Cancel", "Apply anyway"):
        answers.reply = reply
        assert (await _run(session, candidate))["applied"] is False
    assert session.applied_edits == []
    assert (session.root / "src/m.py").read_text() == text
    assert (session.root / "src/o.py").read_text() == "o = 1\n"
    # No "Apply anyway" is offered for the question itself: its answer is the candidate fix.
    assert await _anyway(session, uri, diag) == []


async def test_no_apply_path_writes_through_a_symlink_out(session: Session, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, session.root / "link")
    uri = session.open("out.md", "<create_file>\n<path>link/x.txt</path>\n<content>\nx\n</content>\n"
                       "</create_file>\n")
    await _wait_code(session, uri, "path-traversal")
    Answers(session).reply = "Apply anyway"
    for command in [_apply(uri), _forced(uri), _forced(uri, confirmed=True),
                    types.Command(title="all", command="action-lsp.applyAll",
                                  arguments=[{"uri": uri, "version": 1, "actions": [0]}])]:
        result = await _run(session, command)
        assert result["applied"] is False, (command.command, result)
    assert session.applied_edits == [] and os.listdir(outside) == []


SPECSTORY = (
    "<!-- Generated by SpecStory -->\n\n_**User**_\n\nfix it\n\n---\n\n_**Assistant**_\n\n"
    "{prose}\n\n---\n\n```diff\n  def add(a, b):\n-     return a + b\n+     return b + a\n```\n\n---\n"
)


async def test_a_specstory_diff_whose_file_prose_names_is_applied_only_after_the_user_confirms(
    session: Session,
) -> None:
    """SpecStory's 2025 Cursor diff names no file: the file comes from the prose (`shown-only`,
    information). Apply refuses it; "Apply anyway" shows the diff and applies once confirmed."""
    (session.root / "src/m.py").write_text(DEFINED)
    uri = session.open("spec.md", SPECSTORY.format(prose="Read file: src/m.py"))
    diag = await _wait_code(session, uri, "shown-only")
    assert diag.severity == types.DiagnosticSeverity.Information
    result = await _run(session, _apply(uri))
    assert result["applied"] is False and "shown-only" in result["message"]
    assert (session.root / "src/m.py").read_text() == DEFINED
    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (shown-only)" and fix.command is not None
    Answers(session).reply = "Apply anyway"
    assert (await _run(session, fix.command))["applied"] is True
    assert (session.root / "src/m.py").read_text() == "def add(a, b):\n    return b + a\n"


async def test_a_specstory_diff_of_no_named_file_offers_nothing_to_force(session: Session) -> None:
    uri = session.open("spec2.md", SPECSTORY.format(prose="Here's the change:"))
    diag = await _wait_code(session, uri, "shown-only")
    assert await _anyway(session, uri, diag) == []
