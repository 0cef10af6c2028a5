"""``claude-code``: Claude Code session JSONL read as records."""

from __future__ import annotations

import json
from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind, Severity

FIXTURE = Path(__file__).parent.parent / "fixtures" / "dialects" / "claude-code" / "session.jsonl"
CWD = "/home/ana/proj"


def _text() -> str:
    return FIXTURE.read_text(encoding="utf-8")


def _record(kind: str, content: object, **extra: object) -> str:
    role = "assistant" if kind == "assistant" else "user"
    rec = {"type": kind, "cwd": CWD, "sessionId": "s1", "uuid": "u", "message": {"role": role, "content": content}}
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


def _use(tid: str, name: str, **inp: object) -> dict:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def test_tool_calls_become_actions_with_workspace_relative_paths() -> None:
    a = analyze(_text())
    assert [(x.type, x.kind) for x in a.actions] == [
        ("Write", ActionKind.WRITE_FILE),
        ("Edit", ActionKind.MODIFY_FILE),
        ("Edit", ActionKind.OTHER),  # its result was an error
        ("MultiEdit", ActionKind.MODIFY_FILE),
        ("Bash", ActionKind.COMMAND),
        ("Read", ActionKind.READ_FILE),
    ]
    assert {x.dialect for x in a.actions} == {"claude-code"}
    write = a.actions[0]
    assert write.path == "src/greet.py"
    # the path's range covers the relative part of the absolute path as written
    text = _text()
    span = write.fields["path"].span
    assert text[span.start : span.end] == "src/greet.py"
    assert text[span.start - len(CWD) - 1 : span.start] == CWD + "/"
    multi = file_view(a.actions[3])
    assert multi is not None and multi.op == "modify" and len(multi.edits) == 2
    assert a.actions[4].get("command") == 'python src/greet.py && echo "done ✓"'


def test_failed_call_is_a_hint_and_a_path_outside_cwd_an_error() -> None:
    a = analyze(_text())
    by_code = {d.code: d for d in a.diagnostics}
    hint = by_code["tool-error"]
    assert hint.severity is None  # the registry default: a hint
    assert "String to replace not found" in hint.message
    text = _text()
    assert text[hint.span.start : hint.span.end] == "Edit"
    assert hint.related and text[hint.related[0][0].start : hint.related[0][0].end] == "toolu_03Edit"
    absolute = by_code["absolute-path"]
    assert text[absolute.span.start : absolute.span.end] == "/etc/hosts"
    assert [d.code for d in a.diagnostics] == ["tool-error", "absolute-path"]


def test_a_call_the_user_rejected_is_failed_even_without_is_error() -> None:
    refused = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
               "file edit, the new_string was NOT written to the file). STOP what you are doing.")
    text = "\n".join([
        _record("assistant", [_use("toolu_9", "Write", file_path=f"{CWD}/web/package.json", content="{}\n")]),
        _record("user", [{"type": "tool_result", "tool_use_id": "toolu_9", "content": refused}]),
    ]) + "\n"
    (call,) = analyze(text).actions
    assert call.failure is not None and "rejected" in call.failure
    assert file_view(call) is None
    (kept,) = analyze(text.replace("The user doesn't want", "Done; the user doesn't mind")).actions
    assert kept.failure is None

def test_ranges_inside_json_strings_with_escapes_and_multibyte_characters() -> None:
    text = _text()
    a = analyze(text)
    edit = a.actions[1]
    replace = edit.edits[0].replace
    assert replace.value == '    return f"Héllo, {name} 🌍!"'
    # each character of the value maps to the characters written for it
    for i, ch in enumerate(replace.value):
        s, e = replace.source_map.to_source(i), replace.source_map.to_source(i + 1)
        assert json.loads(f'"{text[s:e]}"') == ch


def test_syntax_error_in_written_code_lands_on_its_characters() -> None:
    code = 'def f(:\n    return "é"\n'
    line = _record("assistant", [_use("t1", "Write", file_path=f"{CWD}/a.py", content=code)])
    a = analyze(line + "\n")
    errors = [d for d in a.diagnostics if d.code == "syntax-error"]
    assert errors, a.diagnostics
    span = errors[0].span
    assert line[span.start - 6 : span.end] == "def f(:"  # the character tree-sitter rejects


def test_one_bad_line_is_one_diagnostic_and_the_rest_still_parses() -> None:
    lines = _text().splitlines(keepends=True)
    broken = [*lines[:5], '{"type": "assistant", "message": {"content": [}\n', *lines[5:]]
    a = analyze("".join(broken))
    bad = [d for d in a.diagnostics if d.code == "bad-json"]
    assert len(bad) == 1 and bad[0].severity is None
    assert len(a.actions) == 6


def test_truncated_last_line_is_one_information_not_an_error_storm() -> None:
    text = _text()
    cut = text + _record("assistant", [_use("t9", "Write", file_path=f"{CWD}/b.py", content="x = 1\n")])[:90]
    a = analyze(cut)
    bad = [d for d in a.diagnostics if d.code == "bad-json"]
    assert len(bad) == 1 and bad[0].severity is Severity.INFORMATION
    assert "unfinished" in bad[0].message
    assert len(a.actions) == 6


def test_markdown_transcripts_are_not_read_as_sessions() -> None:
    md = "# Session\n\n" + _record("assistant", [_use("t1", "Write", file_path=f"{CWD}/a.py", content="x\n")]) + "\n"
    assert [x.dialect for x in analyze(md).actions] == []


def test_typing_in_a_line_rescans_that_line_only() -> None:
    text = _text() * 20
    doc = IncrementalDocument(text)
    at = text.index("Run the module", len(text) // 2)
    doc.edit(at, at, "x")
    assert doc.rescanned < 2000
    fresh = analyze(doc.text)
    got = doc.analysis()
    assert [(x.type, x.span) for x in got.actions] == [(x.type, x.span) for x in fresh.actions]
    assert [(d.code, d.span) for d in got.diagnostics] == [(d.code, d.span) for d in fresh.diagnostics]


def test_editing_the_first_line_into_prose_reads_the_document_as_markdown() -> None:
    text = _text()
    doc = IncrementalDocument(text)
    assert doc.analysis().actions
    doc.edit(0, 0, "Notes\n")
    assert doc.analysis().actions == []
    doc.edit(0, len("Notes\n"), "")
    assert len(doc.analysis().actions) == 6


def _replay(text: str) -> dict[str, str]:
    """What Claude Code did: its successful Write/Edit/MultiEdit calls, replayed in order."""
    files: dict[str, str] = {}
    failed = set()
    records = [json.loads(x) for x in text.splitlines() if x.strip()]
    for r in records:
        for c in (r.get("message") or {}).get("content") or []:
            if isinstance(c, dict) and c.get("type") == "tool_result" and c.get("is_error"):
                failed.add(c["tool_use_id"])
    for r in records:
        for c in (r.get("message") or {}).get("content") or []:
            if not isinstance(c, dict) or c.get("type") != "tool_use" or c["id"] in failed:
                continue
            inp = c["input"]
            rel = inp.get("file_path", "").removeprefix(CWD + "/")
            if c["name"] == "Write":
                files[rel] = inp["content"]
            elif c["name"] == "Edit":
                files[rel] = files[rel].replace(inp["old_string"], inp["new_string"], 1)
            elif c["name"] == "MultiEdit":
                for e in inp["edits"]:
                    files[rel] = files[rel].replace(e["old_string"], e["new_string"], 1)
    return files


def test_round_trip_apply_matches_replaying_the_session(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    session = tmp_path / "session.jsonl"
    session.write_text(_text(), encoding="utf-8")
    assert main(["apply", "--root", str(root), "--write", str(session)]) == 0
    expected = _replay(_text())
    got = {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in root.rglob("*") if p.is_file()}
    assert got == expected
    assert (root / "src" / "greet.py").read_bytes() == expected["src/greet.py"].encode("utf-8")


def test_check_walks_jsonl_files(tmp_path: Path, capsys) -> None:
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "session.jsonl").write_text(_text(), encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 1  # /etc/hosts is outside the session's cwd
    out = capsys.readouterr().out
    assert "session.jsonl:12:" in out and "[absolute-path]" in out and "[tool-error]" in out


def _summary(a) -> list:
    return (
        [(x.dialect, x.type, x.kind, x.span, x.path, [(e.search.span, e.replace.span) for e in x.edits]) for x in a.actions],
        sorted((d.code, d.span.start, d.span.end, d.severity) for d in a.diagnostics),
    )


def test_random_edits_agree_with_a_full_analysis() -> None:
    import random

    rng = random.Random(11)
    pieces = ["x", "\n", "}", "{", '"', "\\", "é", '"is_error":true,', "toolu_03Edit", ""]
    doc = IncrementalDocument(_text() * 3)
    for step in range(150):
        n = len(doc.lines)
        start = rng.randrange(n + 1)
        end = min(n, start + rng.choice([0, 0, 1, 3, 40]))
        doc.edit(start, end, rng.choice(pieces))
        if step % 10 == 0 or step > 140:
            assert _summary(doc.analysis()) == _summary(analyze(doc.text)), step


def test_any_tool_name_is_valid_and_a_write_needs_its_path() -> None:
    line = _record("assistant", [_use("t1", "mcp__github__create_issue", title="x"), _use("t2", "Write", content="x\n")])
    a = analyze(line + "\n")
    assert [x.type for x in a.actions] == ["mcp__github__create_issue", "Write"]
    assert [d.code for d in a.diagnostics] == ["missing-field"]
    assert "`Write` needs `path`" in a.diagnostics[0].message


def test_apply_says_a_failed_call_failed_in_the_session(tmp_path: Path, capsys) -> None:
    """Not "not a file action (other)": the skipped Edit is named as the call that failed."""
    root = tmp_path / "ws"
    root.mkdir()
    session = tmp_path / "session.jsonl"
    session.write_text(_text(), encoding="utf-8")
    main(["apply", "--root", str(root), str(session)])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    line = next(t for t in out.splitlines() if "skipped action 3 " in t)
    assert "failed in the session" in line and "String to replace not found in file" in line, line
    assert "(other)" not in line


def _cd_session() -> str:
    """A session that ran `cd sub` (Claude Code keeps the shell's directory, and the records
    after it carry it as their ``cwd``), then edited ``sub/b.py`` by its absolute path."""
    sub = CWD + "/sub"
    return "\n".join([
        _record("user", "go"),
        _record("assistant", [_use("t1", "Bash", command="cd sub")]),
        _record("user", [{"type": "tool_result", "tool_use_id": "t1", "content": ""}]),
        _record("assistant", [_use("t2", "Edit", file_path=sub + "/b.py", old_string="y = 1",
                                   new_string="y = 2")], cwd=sub),
        _record("user", [{"type": "tool_result", "tool_use_id": "t2", "content": "ok"}], cwd=sub),
    ]) + "\n"


def test_paths_are_read_under_the_sessions_first_cwd_after_a_cd() -> None:
    a = analyze(_cd_session())
    [edit] = [x for x in a.actions if x.type == "Edit"]
    assert edit.path == "sub/b.py"


def test_apply_after_a_cd_edits_the_file_in_the_subdirectory(tmp_path: Path, capsys) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / "b.py").write_text("y = 1\n")  # the same text at the top: the wrong file
    (root / "sub" / "b.py").write_text("y = 1\n")
    t = tmp_path / "s.jsonl"
    t.write_text(_cd_session())
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "sub" / "b.py").read_text() == "y = 2\n"
    assert (root / "b.py").read_text() == "y = 1\n"
