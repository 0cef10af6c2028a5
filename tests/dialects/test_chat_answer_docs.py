"""Documentation captions its examples with file names ("**config.yaml**" above a block,
`// vite.config.js` as its first line): the chat-answer dialect must find no action in it.
Checked on this project's own README.md and docs/, and on documentation modelled on real
public READMEs (tests/fixtures/chat_answer/docs/NOTES.md says which)."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.document import analyze

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "editors").glob("*.md")])
MODELLED = sorted((ROOT / "tests" / "fixtures" / "chat_answer" / "docs").glob("*.md"))


def _chat_actions(path: Path) -> list[tuple[str, str | None]]:
    analysis = analyze(path.read_text(encoding="utf-8"))
    return [(a.type, a.path) for a in analysis.actions if a.dialect == "chat-answer"]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_projects_own_documentation_has_no_chat_answer_action(path: Path) -> None:
    assert _chat_actions(path) == []


@pytest.mark.parametrize("path", MODELLED, ids=lambda p: p.name)
def test_documentation_like_real_readmes_has_no_chat_answer_action(path: Path) -> None:
    assert _chat_actions(path) == []


def test_the_same_captions_in_an_assistant_turn_are_actions() -> None:
    """The other side of the rule: what documentation writes is an action in a chat."""
    text = (ROOT / "tests" / "fixtures" / "chat_answer" / "docs" / "kubernetes.md").read_text()
    chat = "_**User**_\n\ndeploy nginx\n\n---\n\n_**Assistant**_\n\n" + text
    assert [(a.type, a.path) for a in analyze(chat).actions if a.dialect == "chat-answer"] == [
        ("path-line", "application/deployment.yaml"),
        ("path-line", "service.yaml"),
    ]
