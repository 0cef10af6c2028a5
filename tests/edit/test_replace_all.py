"""Claude Code's ``replace_all``: every exact occurrence is replaced, in the file view, the plan,
the diff preview and ``apply --write``; a place found only up to layout is never written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.edit import Workspace, plan_changes, unified_diff

CWD = "/home/ana/proj"


def _line(kind: str, content: object, n: int) -> str:
    role = "assistant" if kind == "assistant" else "user"
    return json.dumps({"type": kind, "cwd": CWD, "sessionId": "s", "uuid": f"u{n}",
                       "message": {"role": role, "content": content}}, ensure_ascii=False)


def session(*calls: tuple[str, dict]) -> str:
    """A Claude Code session: each call on its own line, answered by a successful result."""
    lines = []
    for n, (name, inp) in enumerate(calls):
        tid = f"toolu_{n:02d}"
        lines.append(_line("assistant", [{"type": "tool_use", "id": tid, "name": name, "input": inp}], 2 * n))
        lines.append(_line("user", [{"type": "tool_result", "tool_use_id": tid, "content": "ok"}], 2 * n + 1))
    return "\n".join(lines) + "\n"


def edit(old: str, new: str, *, replace_all: bool = True, path: str = "app.py") -> tuple[str, dict]:
    inp: dict = {"file_path": f"{CWD}/{path}", "old_string": old, "new_string": new}
    if replace_all:
        inp["replace_all"] = True
    return ("Edit", inp)


APP = "def f(count):\n    count = count + 1\n    return count\n\n\nprint(f(count=2))\n"


def _apply(tmp_path: Path, text: str, files: dict[str, str], *args: str) -> tuple[int, dict[str, str]]:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    for rel, content in files.items():
        (root / rel).write_bytes(content.encode("utf-8"))
    doc = tmp_path / "session.jsonl"
    doc.write_text(text, encoding="utf-8")
    code = main(["apply", "--root", str(root), str(doc), *args])
    return code, {p.name: p.read_bytes().decode("utf-8") for p in root.iterdir() if p.is_file()}


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    got = capsys.readouterr()
    return got.out + got.err


def test_the_file_view_carries_replace_all_for_edit_and_multiedit() -> None:
    text = session(edit("count", "n"), ("MultiEdit", {"file_path": f"{CWD}/app.py", "edits": [
        {"old_string": "a", "new_string": "b", "replace_all": True},
        {"old_string": "c", "new_string": "d"},
    ]}), edit("x", "y", replace_all=False))
    a = analyze(text)
    views = [file_view(x) for x in a.actions]
    assert [[e.replace_all for e in v.edits] for v in views if v] == [[True], [True, False], [False]]
    assert views[0] is not None and views[0].to_json()["edits"] == [{"search": "count", "replace": "n", "replace_all": True}]
    # `"replace_all": "yes"` (not the JSON true) is not a request to replace every occurrence
    odd = analyze(session(("Edit", {"file_path": f"{CWD}/a.py", "old_string": "a", "new_string": "b", "replace_all": "yes"})))
    v = file_view(odd.actions[0])
    assert v is not None and not v.edits[0].replace_all


def test_apply_write_replaces_every_occurrence_as_claude_code_does(tmp_path: Path) -> None:
    code, files = _apply(tmp_path, session(edit("count", "n")), {"app.py": APP}, "--write")
    assert code == 0
    assert files["app.py"] == APP.replace("count", "n")


def test_diff_preview_plan_and_write_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = session(edit("count", "n"))
    code, files = _apply(tmp_path, text, {"app.py": APP})  # dry run: the diff
    assert code == 0 and files["app.py"] == APP  # nothing written
    out = _said(capsys)
    assert "+def f(n):" in out and "+print(f(n=2))" in out
    ws = Workspace(tmp_path / "ws")
    plan = plan_changes(analyze(text).actions, ws)
    (change,) = plan.changes
    assert change.new_text == APP.replace("count", "n")
    # the composed edits, applied to the old text, give the new text (what the WorkspaceEdit sends)
    got = change.old_text or ""
    for s, e, t in sorted(change.edits, reverse=True):
        got = got[:s] + t + got[e:]
    assert got == change.new_text
    assert [(s, e) for s, e, _ in change.edits] == [(m, m + 5) for m in _finds(APP, "count")]
    assert plan.outcomes[0].strategies == ["exact (replace_all: 5 places)"]
    from action_lsp.server.commands import describe_change  # what hover says it would do

    assert describe_change(change) == "replace line 1, line 2, line 3, line 6 of `app.py`"
    assert "+def f(n):" in unified_diff(plan)


def _finds(text: str, needle: str) -> list[int]:
    out, pos = [], text.find(needle)
    while pos >= 0:
        out.append(pos)
        pos = text.find(needle, pos + 1)
    return out


def test_multiedit_where_a_later_edit_needs_an_earlier_replace_all(tmp_path: Path) -> None:
    text = session(("MultiEdit", {"file_path": f"{CWD}/app.py", "edits": [
        {"old_string": "count", "new_string": "n", "replace_all": True},
        {"old_string": "    n = n + 1\n", "new_string": "    n += 1\n"},  # only after the first
    ]}))
    code, files = _apply(tmp_path, text, {"app.py": APP}, "--write")
    assert code == 0
    assert files["app.py"] == APP.replace("count", "n").replace("n = n + 1", "n += 1")


def test_without_replace_all_several_occurrences_stay_a_question(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, files = _apply(tmp_path, session(edit("count", "n", replace_all=False)), {"app.py": APP}, "--write")
    assert code == 1 and files["app.py"] == APP
    assert "search-ambiguous" in _said(capsys)


def test_only_layout_drifted_copies_are_never_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No exact occurrence, one copy indented differently: search-not-found naming it."""
    old = "count = count + 1\nreturn count\n"  # the file has them indented
    text = session(edit(old, "return count + 1\n"))
    code, files = _apply(tmp_path, text, {"app.py": APP}, "--write")
    assert code == 1 and files["app.py"] == APP
    assert "[search-not-found]" in _said(capsys)
    plan = plan_changes(analyze(text).actions, Workspace(tmp_path / "ws"))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "search-not-found" and d.data and d.data["candidates"][0]["line"] == 2
    assert "replace_all found no exact occurrence" in d.message and "a place at line 2" in d.message
    # chosen by the user, that one place is replaced (re-indented like any layout match)
    code, files = _apply(tmp_path, text, {"app.py": APP}, "--write", "--accept-candidate", "1=2")
    assert code == 0 and files["app.py"] == APP.replace("    count = count + 1\n    return count\n",
                                                        "    return count + 1\n")


def test_no_occurrence_at_all_is_search_not_found(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, files = _apply(tmp_path, session(edit("missing_name", "x")), {"app.py": APP}, "--write")
    assert code == 1 and files["app.py"] == APP
    assert "search-not-found" in _said(capsys)


def test_occurrences_counted_as_str_replace_counts_them(tmp_path: Path) -> None:
    """Non-overlapping, left to right; CRLF files keep their line endings."""
    code, files = _apply(tmp_path, session(edit("aa", "b", path="a.txt")), {"a.txt": "aaa aaaa\n"}, "--write")
    assert code == 0 and files["a.txt"] == "aaa aaaa\n".replace("aa", "b")
    crlf = "x = 1\r\ny = x\r\nx = 1\r\n"
    code, files = _apply(tmp_path, session(edit("x = 1\n", "x = 2\n", path="c.txt")), {"c.txt": crlf}, "--write")
    assert code == 0 and files["c.txt"] == "x = 2\r\ny = x\r\nx = 2\r\n"


def test_a_replacement_holding_the_search_text_is_not_applied_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = session(edit("count", "count_total"))
    code, files = _apply(tmp_path, text, {"app.py": APP}, "--write")
    assert code == 0 and files["app.py"] == APP.replace("count", "count_total")
    capsys.readouterr()
    code, again = _apply(tmp_path, text, {}, "--write")
    assert again["app.py"] == files["app.py"]  # not count_total_total
    assert "already" in _said(capsys)


def test_replace_all_with_the_same_text_is_a_noop_edit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, files = _apply(tmp_path, session(edit("count", "count")), {"app.py": APP}, "--write")
    assert files["app.py"] == APP
    assert "[noop-edit]" in _said(capsys)
