""""Apply the proposed merge" from the editor: a chat answer (read by the chat-answer dialect)
whose merge into its file is not certain is `lazy-ambiguous`; its quick fix shows the proposed
merge as a diff, asks, and only then applies it (the editor's `apply --accept-merge`)."""

from __future__ import annotations

import pytest

from action_lsp.dialects import NAMES

from .conftest import Session
from .test_server_choices import Answers, _quick_fixes, _run, _wait_code

pytestmark = pytest.mark.skipif("chat-answer" not in NAMES, reason="needs the chat-answer dialect")

OLD = "import os\n\n\ndef load(path):\n    return open(path).read()\n\n\ndef main():\n    print(load('a'))\n"
# No placeholder between `load` and `main`, and a new function: where it goes is not certain.
CHAT = ("_**User**_\n\nadd a helper\n\n---\n\n_**Assistant**_\n\n"
        "```python:src/app.py\n# ... existing code ...\n\ndef helper():\n    return 1\n\n"
        "# ... existing code ...\n```\n")


async def test_an_uncertain_merge_is_shown_asked_and_then_applied(session: Session) -> None:
    (session.root / "src").mkdir(exist_ok=True)
    (session.root / "src/app.py").write_text(OLD)
    uri = session.open("chat.md", CHAT)
    diag = await _wait_code(session, uri, "lazy-ambiguous")
    fixes = [f for f in await _quick_fixes(session, uri, diag) if "proposed merge" in f.title]
    assert len(fixes) == 1, [f.title for f in await _quick_fixes(session, uri, diag)]
    command = fixes[0].command
    assert command is not None and command.command == "action-lsp.applyMerge"

    answers = Answers(session)
    answers.reply = "Cancel"
    result = await _run(session, command)
    assert result["applied"] is False and "+def helper():" in result["diff"], result
    (asked,) = answers.asked
    assert "cannot be merged" in asked.message
    assert session.applied_edits == [] and (session.root / "src/app.py").read_text() == OLD

    answers.reply = "Apply"
    result = await _run(session, command)
    assert result["applied"] is True, result
    assert len(session.applied_edits) == 1
    text = (session.root / "src/app.py").read_text()
    assert "def helper():" in text and text.count("def ") == 3  # nothing dropped, nothing doubled
    assert "existing code" not in text
