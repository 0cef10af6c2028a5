"""The server and the protected paths: nothing is written inside `.git` (`protected-path`, no
"Apply anyway", not even called directly), and a file that runs code (`runs-code`) is written only
after the user's "Apply anyway (runs-code)" on the diff. Both are published as diagnostics."""

from __future__ import annotations

import os

import pytest
from lsprotocol import types

from action_lsp.dialects import NAMES

from .conftest import Session
from .test_server_choices import Answers, _quick_fixes, _run, _wait_code
from .test_server_force import _anyway, _apply, _forced

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

CONFIG = "[core]\n\tbare = false\n"
FSMONITOR = (
    "<modify_file>\n<path>.git/config</path>\n<search>\n[core]\n</search>\n"
    "<replace>\n[core]\n\tfsmonitor = sh -c 'id > /tmp/pwned'\n</replace>\n</modify_file>\n"
)
HOOK_THROUGH_LINK = (
    "<create_file>\n<path>meta/hooks/pre-commit</path>\n<content>\nid\n</content>\n</create_file>\n"
)
ENVRC = "<create_file>\n<path>.envrc</path>\n<content>\nexport A=1\n</content>\n</create_file>\n"


def _git(session: Session) -> None:
    (session.root / ".git" / "hooks").mkdir(parents=True)
    (session.root / ".git" / "config").write_text(CONFIG)


def _git_untouched(session: Session) -> None:
    assert (session.root / ".git" / "config").read_text() == CONFIG
    assert os.listdir(session.root / ".git" / "hooks") == []
    assert session.applied_edits == []


@pytest.mark.parametrize("transcript", [FSMONITOR, HOOK_THROUGH_LINK], ids=["git-config", "symlink"])
async def test_nothing_is_written_inside_git(session: Session, transcript: str) -> None:
    _git(session)
    os.symlink(".git", session.root / "meta")
    uri = session.open("git.md", transcript)
    diag = await _wait_code(session, uri, "protected-path")
    assert diag.severity == types.DiagnosticSeverity.Error
    assert await _anyway(session, uri, diag) == []
    result = await _run(session, _apply(uri))
    assert result["applied"] is False and ".git" in result["message"], result
    Answers(session).reply = "Apply anyway"
    for command in (_forced(uri), _forced(uri, confirmed=True)):
        result = await _run(session, command)
        assert result["applied"] is False and ".git" in result["message"], result
    _git_untouched(session)


async def test_a_file_that_runs_code_is_written_after_apply_anyway(session: Session) -> None:
    uri = session.open("envrc.md", ENVRC)
    diag = await _wait_code(session, uri, "runs-code")
    assert diag.severity == types.DiagnosticSeverity.Warning
    assert "direnv" in diag.message
    result = await _run(session, _apply(uri))
    assert result["applied"] is False and "--allow-code-paths" in result["message"], result
    assert not (session.root / ".envrc").exists()

    (fix,) = await _anyway(session, uri, diag)
    assert fix.title == "Apply anyway (runs-code)" and fix.command is not None
    answers = Answers(session)
    answers.reply = "Cancel"
    assert (await _run(session, fix.command))["applied"] is False
    (asked,) = answers.asked
    assert "runs-code" in asked.message
    assert not (session.root / ".envrc").exists()
    answers.reply = "Apply anyway"
    result = await _run(session, fix.command)
    assert result["applied"] is True, result
    assert (session.root / ".envrc").read_text() == "export A=1\n"


async def test_the_quick_fixes_of_a_protected_path_hold_no_apply(session: Session) -> None:
    _git(session)
    uri = session.open("git2.md", FSMONITOR)
    diag = await _wait_code(session, uri, "protected-path")
    titles = [f.title for f in await _quick_fixes(session, uri, diag)]
    assert not any(t.startswith("Apply") for t in titles), titles
