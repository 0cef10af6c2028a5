"""A lone surrogate (a JSON escape such as ``"\\udfff"``) in text a file action would write can
never be written as UTF-8: ``check`` reports it as ``invalid-value`` at the escape itself, and
``apply`` (dry run or ``--write``, forced or not) refuses the action with that one line and exit
1, never a traceback, never a file (issue 21)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main

SESSION = "5c1f7d3e-9a2b-4c41-8e0f-2b6d1a7c9e10"


def claude_write(path: str, content: str) -> str:
    """One Claude Code session record calling ``Write`` (``json.dumps`` escapes the surrogate
    as ``\\udfff``, as the agent's JSON does)."""
    record = {
        "parentUuid": None, "sessionId": SESSION, "version": "1.0.98", "type": "assistant",
        "uuid": "00000003-aaaa-4bbb-8ccc-000000000003",
        "message": {"id": "m", "type": "message", "role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Write",
             "input": {"file_path": path, "content": content}}]},
    }
    return json.dumps(record) + "\n"


def gemini_write(path: str, content: str) -> str:
    """An OpenAI-style chat whose tool call is Gemini CLI's ``write_file`` (arguments: JSON in a
    JSON string, so the escape is written twice)."""
    args = json.dumps({"file_path": path, "content": content})
    chat = {"messages": [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": args}}]}]}
    return json.dumps(chat, indent=1)


def claude_edit(path: str, old: str, new: str) -> str:
    record = json.loads(claude_write(path, ""))
    record["message"]["content"][0].update(
        name="Edit", input={"file_path": path, "old_string": old, "new_string": new})
    return json.dumps(record) + "\n"


CASES = {
    "claude-write": ("s.jsonl", claude_write("a.txt", "hi \udfff there\n"), "\\udfff"),
    "gemini-write": ("chat.json", gemini_write("a.txt", "hi \ud800 there\n"), "\\\\ud800"),
}


def _workspace(tmp_path: Path) -> Path:
    (tmp_path / ".action-lsp").mkdir()
    return tmp_path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_reports_the_surrogate_at_its_escape(tmp_path: Path, capsys, case: str) -> None:  # type: ignore[no-untyped-def]
    name, text, escape = CASES[case]
    ws = _workspace(tmp_path)
    (ws / name).write_text(text, encoding="utf-8")
    code, out, err = _run(["check", "--format", "json", str(ws / name)], capsys)
    assert code == 1, err
    found = [d for f in json.loads(out)["files"] for d in f["diagnostics"]
             if d["code"] == "invalid-value"]
    assert len(found) == 1, out
    start = found[0]["range"]["start"]
    line = text.splitlines()[start["line"]]
    assert line[start["character"]:].startswith(escape), (line, start)
    assert "surrogate" in found[0]["message"]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("mode", [[], ["--write"], ["--write", "--force"]])
def test_apply_refuses_the_action_and_writes_nothing(tmp_path: Path, capsys, case: str, mode: list[str]) -> None:  # type: ignore[no-untyped-def]
    name, text, _ = CASES[case]
    ws = _workspace(tmp_path)
    (ws / name).write_text(text, encoding="utf-8")
    code, _, err = _run(["apply", "--root", str(ws), *mode, str(ws / name)], capsys)
    assert code == 1, err
    assert "Traceback" not in err and "UnicodeEncodeError" not in err
    assert "[invalid-value]" in err and "surrogate" in err
    assert not (ws / "a.txt").exists()
    assert not (ws / ".action-lsp-journal").exists()


def test_a_surrogate_in_an_edit_replacement_is_refused_too(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ws = _workspace(tmp_path)
    (ws / "a.txt").write_text("hello\n", encoding="utf-8")
    (ws / "s.jsonl").write_text(claude_edit("a.txt", "hello", "bye \udc00"), encoding="utf-8")
    code, _, err = _run(["apply", "--root", str(ws), "--write", "--force", str(ws / "s.jsonl")], capsys)
    assert code == 1, err
    assert "[invalid-value]" in err
    assert (ws / "a.txt").read_text(encoding="utf-8") == "hello\n"


def test_the_other_actions_of_the_transcript_stay_applicable(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    ws = _workspace(tmp_path)
    text = claude_write("a.txt", "bad \udfff\n") + claude_write("b.txt", "good\n")
    (ws / "s.jsonl").write_text(text, encoding="utf-8")
    code, _, err = _run(["apply", "--root", str(ws), "--write", "--select", "2", str(ws / "s.jsonl")], capsys)
    assert code == 0, err
    assert (ws / "b.txt").read_text(encoding="utf-8") == "good\n"
    assert not (ws / "a.txt").exists()
