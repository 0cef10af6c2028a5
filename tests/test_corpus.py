"""Real transcripts from ``tests/fixtures`` (Dyad's responses, an excerpt of Aider's chat
history) through ``action-lsp check``: no crash, and no error-severity false positives on a
transcript written in another tool's format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import NAMES

SEED_DIALECTS = ("actions-json", "xml-tags", "aether", "action-plan")
FIXTURES = Path(__file__).resolve().parent / "fixtures"
DYAD = FIXTURES / "dyad"
AIDER = FIXTURES / "aider" / "chat-history-excerpt.md"


def dyad_files() -> list[Path]:
    return sorted(DYAD.glob("*.md"))


def test_dyad_corpus_is_there() -> None:
    assert len(dyad_files()) == 38


@pytest.mark.parametrize("name", [p.name for p in dyad_files()])
def test_dyad_response_checks_without_crashing(name: str, capsys) -> None:  # type: ignore[no-untyped-def]
    path = DYAD / name
    # --no-workspace: the responses belong to Dyad's apps, not to the repository they are kept in
    code = main(["check", "--no-workspace", "--format", "json", str(path)])  # an exception here is the failure
    captured = capsys.readouterr()
    assert code in (0, 1), captured.err
    assert captured.err == ""
    data = json.loads(captured.out)
    assert [f["path"] for f in data["files"]] == [str(path)]


def test_dyad_corpus_as_a_directory(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["check", str(DYAD)])
    out = capsys.readouterr().out.splitlines()
    assert code in (0, 1)
    assert out[-1].endswith("in 38 files.")


def test_aider_transcript_has_no_error_false_positives(capsys) -> None:  # type: ignore[no-untyped-def]
    """The Aider transcript uses only SEARCH/REPLACE blocks (a later dialect); our dialects
    must not mistake any of its code, JSON or XML for broken actions."""
    assert AIDER.read_text(encoding="utf-8").count("<<<<<<< SEARCH") >= 50
    enabled = [n for n in SEED_DIALECTS if n in NAMES]
    assert "actions-json" in enabled and "action-plan" in enabled
    code = main(["check", "--no-workspace", "--format", "json", "--dialect", ",".join(enabled), str(AIDER)])
    captured = capsys.readouterr()
    assert captured.err == ""
    (report,) = json.loads(captured.out)["files"]
    errors = [d for d in report["diagnostics"] if d["severity"] == "error"]
    assert errors == [], errors[:10]
    assert code == 0


def test_aider_transcript_parses_without_crashing(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["parse", "--format", "json", str(AIDER)]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    # No actions of the seed dialects are written in it (its edits are Aider blocks).
    assert [a for a in actions if a["dialect"] in SEED_DIALECTS] == []
