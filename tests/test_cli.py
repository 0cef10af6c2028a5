"""``action-lsp check`` and ``parse`` as users and scripts run them.

Each behaviour is checked in-process (``action_lsp.cli.main`` with capsys) and the key ones also
through a real ``python -m action_lsp`` subprocess.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.model import Span
from action_lsp.text import LineIndex

# An emoji (two UTF-16 units) on the same line before the error proves UTF-16 columns.
BAD = (
    "# Reply\n"
    "\n"
    "Sure 😀, here you go.\n"
    "```actions\n"
    '{"actions": [{"notes": "😀 x", "type": "create_task"}]}\n'
    "```\n"
)
CLEAN = '```actions\n{"actions": [{"type": "create_task", "content": "x"}]}\n```\n'
TWO = (
    '```actions\n{"actions": [{"type": "create_task", "content": "a"}]}\n```\n\n'
    '```actions\n{"actions": [{"type": "create_memory", "content": "b"}, {"type": "list_tasks"}]}\n```\n\n'
    '{"actions": [{"action": "THINK", "context": "c"}], "can_extend": false, "reasoning": "r"}\n'
)
LINE = re.compile(
    r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|information|hint): (?P<msg>.+) \[(?P<code>[a-z-]+)\]$"
)


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
    )


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    p = tmp_path / "bad.md"
    p.write_text(BAD, encoding="utf-8")
    return p


@pytest.fixture
def clean(tmp_path: Path) -> Path:
    p = tmp_path / "clean.md"
    p.write_text(CLEAN, encoding="utf-8")
    return p


def expected_missing_field() -> tuple[int, int, int]:
    """(0-based line, UTF-16 column, code-point column) of the missing-field diagnostic in BAD."""
    at = BAD.index('"create_task"') + 1
    line_start = BAD.rindex("\n", 0, at) + 1
    pos = LineIndex(BAD).position(at, "utf-16")
    assert pos.character == at - line_start + 1  # one emoji before it: one extra UTF-16 unit
    return pos.line, pos.character, at - line_start


# --- check: text ---------------------------------------------------------------------------------


def test_check_text_format(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    m = LINE.match(out[0])
    assert m, out[0]
    line, _, col_cp = expected_missing_field()
    assert m["path"] == str(bad)
    assert (int(m["line"]), int(m["col"])) == (line + 1, col_cp + 1)  # 1-based, in characters
    assert m["sev"] == "error" and m["code"] == "missing-field"
    assert "content" in m["msg"]
    assert out[1] == "Found 1 error in 1 file."


def test_check_text_subprocess(bad: Path, clean: Path) -> None:
    r = run_module("check", bad.name, clean.name, cwd=bad.parent)
    assert r.returncode == 1, r.stderr
    lines = r.stdout.splitlines()
    assert LINE.match(lines[0]) and lines[0].startswith("bad.md:5:")
    assert lines[-1] == "Found 1 error in 2 files."
    # no workspace root above them: one line says the workspace checks were skipped
    assert r.stderr.startswith("workspace checks skipped for 2 files: no workspace root above them (")
    assert r.stderr.count("\n") == 1


def test_check_clean_exit_0(clean: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", str(clean)]) == 0
    assert capsys.readouterr().out == "No problems in 1 file.\n"


def test_warnings_only_exit_0(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "w.md"
    p.write_text('Plain {"type": "create_task", "content": "x"} in prose.\n', encoding="utf-8")
    assert main(["check", str(p)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert LINE.match(out[0])["sev"] == "warning"  # type: ignore[index]
    assert out[-1] == "Found 1 warning in 1 file."


# --- check: json ---------------------------------------------------------------------------------


def test_check_json_structure(bad: Path, clean: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--format", "json", str(bad), str(clean)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["files"]
    assert [f["path"] for f in data["files"]] == [str(bad), str(clean)]
    assert data["files"][1]["diagnostics"] == []
    (d,) = data["files"][0]["diagnostics"]
    assert {"code", "severity", "message", "range"} <= set(d)
    assert d["code"] == "missing-field" and d["severity"] == "error"
    line, col16, _ = expected_missing_field()
    assert d["range"] == {
        "start": {"line": line, "character": col16},
        "end": {"line": line, "character": col16 + len("create_task")},
    }


def test_check_json_subprocess_and_fixes(tmp_path: Path) -> None:
    p = tmp_path / "t.md"
    text = '```action\n{"actions": [{"type": "create_task", "content": "x"}]}\n```\n'
    p.write_text(text, encoding="utf-8")
    r = run_module("check", "--format", "json", "t.md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr  # a warning only
    (d,) = json.loads(r.stdout)["files"][0]["diagnostics"]
    assert d["code"] == "wrong-block-name" and d["severity"] == "warning"
    assert d["range"] == {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 9}}
    (fix,) = d["fixes"]
    assert fix["edits"] == [{"range": d["range"], "newText": "actions"}]


# --- exit code 2 ---------------------------------------------------------------------------------


def _one_clear_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", str(tmp_path / "nope.md")]) == 2
    captured = capsys.readouterr()
    assert "nope.md" in _one_clear_line(captured.err) and "no such file" in captured.err
    r = run_module("check", "nope.md", cwd=tmp_path)
    assert r.returncode == 2 and "nope.md" in _one_clear_line(r.stderr) and r.stdout == ""


def test_directory_of_only_binary_files(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    d = tmp_path / "bin"
    d.mkdir()
    (d / "a.md").write_bytes(b"\x00\x01\x02binary")
    (d / "b.txt").write_bytes(b"PK\x03\x04\x00\x00")
    assert main(["check", str(d)]) == 2
    line = _one_clear_line(capsys.readouterr().err)
    assert "binary" in line and "no transcript files" in line
    r = run_module("check", "bin", cwd=tmp_path)
    assert r.returncode == 2 and "binary" in _one_clear_line(r.stderr)


def test_non_utf8_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "latin1.md"
    p.write_bytes("line one\ncaf\xe9\n".encode("latin-1"))
    assert main(["check", str(p)]) == 2
    line = _one_clear_line(capsys.readouterr().err)
    assert "latin1.md" in line and "UTF-8" in line and "line 2" in line
    r = run_module("check", "latin1.md", cwd=tmp_path)
    assert r.returncode == 2 and "UTF-8" in _one_clear_line(r.stderr)


def test_unreadable_file_among_good_ones_still_reports_the_rest(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.md"
    good.write_text(BAD, encoding="utf-8")
    (tmp_path / "bad.md").write_bytes(b"\xff\xfe\x00")
    assert main(["check", str(good), str(tmp_path / "bad.md")]) == 2
    captured = capsys.readouterr()
    assert "[missing-field]" in captured.out
    error, skipped = captured.err.splitlines()
    assert "bad.md" in error and "Traceback" not in captured.err
    assert skipped.startswith(f"workspace checks skipped: no workspace root above {good} (")


def test_parse_missing_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["parse", str(tmp_path / "nope.md")]) == 2
    assert "no such file" in _one_clear_line(capsys.readouterr().err)


def test_usage_errors(tmp_path: Path, clean: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--dialect", "bogus", str(clean)]) == 2
    assert "bogus" in _one_clear_line(capsys.readouterr().err)
    assert main(["check", "--severity", "nonsense", str(clean)]) == 2
    assert "--severity" in _one_clear_line(capsys.readouterr().err)
    assert main(["check", "--severity", "missing-field=loud", str(clean)]) == 2
    assert "loud" in _one_clear_line(capsys.readouterr().err)
    assert main(["check", "--severity", "mising-field=off", str(clean)]) == 2
    assert "unknown code 'mising-field'; did you mean missing-field?" in _one_clear_line(capsys.readouterr().err)
    with pytest.raises(SystemExit) as exc:
        main(["check"])
    assert exc.value.code == 2


# --- walking directories, options --------------------------------------------------------------


def test_walking_a_directory(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "project"
    for rel in (
        "a.md",
        "sub/b.txt",
        ".git/c.md",
        "node_modules/pkg/d.md",
        "sub/e.py",
        ".hidden/f.md",
    ):
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(BAD, encoding="utf-8")
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    paths = [LINE.match(line)["path"] for line in out[:-1]]  # type: ignore[index]
    assert paths == [str(root / "a.md"), str(root / "sub" / "b.txt")]
    assert out[-1] == "Found 2 errors in 2 files."


def test_dialect_option_limits_dialects(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "t.md"
    p.write_text(
        BAD
        + '\n{"actions": [{"action": "SPEEK", "context": "c"}], "can_extend": true, "reasoning": "r"}\n',
        encoding="utf-8",
    )
    assert main(["check", "--format", "json", str(p)]) == 1
    both = {d["code"] for d in json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]}
    assert both == {"missing-field", "unknown-action"}
    assert main(["check", "--format", "json", "--dialect", "action-plan", str(p)]) == 1
    only = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert [d["code"] for d in only] == ["unknown-action"]
    assert main(["check", "--dialect", "actions-json,action-plan", str(p)]) == 1
    assert main(["check", "--dialect", "actions-json", "--dialect", "action-plan", str(p)]) == 1
    capsys.readouterr()


def test_severity_override(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--severity", "missing-field=off", str(bad)]) == 0
    assert capsys.readouterr().out == "No problems in 1 file.\n"
    assert main(["check", "--severity", "missing-field=warning", str(bad)]) == 0
    out = capsys.readouterr().out
    assert ": warning: " in out and "[missing-field]" in out
    assert main(["check", "--format", "json", "--severity", "missing-field=hint", str(bad)]) == 0
    (d,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert d["severity"] == "hint"


def test_bom_is_ignored(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "bom.md"
    p.write_bytes(b"\xef\xbb\xbf" + BAD.encode("utf-8"))
    assert main(["check", "--format", "json", str(p)]) == 1
    (d,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    line, col16, _ = expected_missing_field()
    assert d["range"]["start"] == {"line": line, "character": col16}


# --- parse -----------------------------------------------------------------------------------------


def test_parse_json_in_document_order(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "two.md"
    p.write_text(TWO, encoding="utf-8")
    assert main(["parse", "--format", "json", str(p)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data) == ["actions"]
    got = [(a["dialect"], a["type"], a["fields"]) for a in data["actions"]]
    assert got == [
        ("actions-json", "create_task", {"content": "a"}),
        ("actions-json", "create_memory", {"content": "b"}),
        ("actions-json", "list_tasks", {}),
        ("action-plan", "THINK", {"context": "c"}),
    ]
    lines = LineIndex(TWO)
    first = TWO.index('{"type": "create_task"')
    end = TWO.index("}", first) + 1
    r = lines.range(Span(first, end))
    assert data["actions"][0]["range"] == {
        "start": {"line": r.start.line, "character": r.start.character},
        "end": {"line": r.end.line, "character": r.end.character},
    }
    starts = [
        (a["range"]["start"]["line"], a["range"]["start"]["character"]) for a in data["actions"]
    ]
    assert starts == sorted(starts)


def test_parse_text(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "two.md"
    p.write_text(TWO, encoding="utf-8")
    assert main(["parse", str(p)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 5
    col = TWO.index('{"type"') - TWO.index("\n") - 1 + 1  # 1-based column on line 2
    assert re.match(rf"1\. {re.escape(str(p))}:2:{col} +actions-json +other +create_task$", out[0]), out[0]
    assert "action-plan" in out[3] and "THINK" in out[3]
    assert out[-1] == "4 actions."


def test_parse_subprocess_with_dialect(tmp_path: Path) -> None:
    (tmp_path / "two.md").write_text(TWO, encoding="utf-8")
    r = run_module("parse", "--format", "json", "--dialect", "action-plan", "two.md", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [a["type"] for a in json.loads(r.stdout)["actions"]] == ["THINK"]


def test_parse_reports_actions_even_with_errors(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["parse", "--format", "json", str(bad)]) == 0
    (a,) = json.loads(capsys.readouterr().out)["actions"]
    assert a["type"] == "create_task" and a["fields"] == {"notes": "😀 x"}


def test_version_and_help() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "action_lsp", "--help"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0
    for command in ("check", "parse", "rules"):
        assert command in r.stdout


def test_the_select_suggested_for_the_others_applies(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Actions planned after one that fails may depend on it (here on the text it would have
    written): the selection given for "the others" must be one that applies, not one that fails
    again with a new suggestion."""
    (tmp_path / ".action-lsp").mkdir()
    (tmp_path / "a.py").write_text("x = 1\nz = 2\n", encoding="utf-8")
    modify = "<modify_file>\n<path>a.py</path>\n<search>{}\n</search>\n<replace>{}\n</replace>\n</modify_file>\n\n"
    t = tmp_path / "t.md"
    t.write_text(modify.format("x = 1", "x = (1") + modify.format("z = 2", "z = 3") + modify.format("x = (1", "x = (1,"), encoding="utf-8")
    assert main(["apply", "--write", str(t)]) == 1
    err = capsys.readouterr().err
    assert "new-syntax-error" in err and "so `--select 2` writes the other one." in err, err
    assert "(fix it" not in err and "(s)" not in err
    assert main(["apply", "--write", "--select", "2", str(t)]) == 0
    assert (tmp_path / "a.py").read_text(encoding="utf-8") == "x = 1\nz = 3\n"


def test_messages_count_in_words_not_in_parentheses(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """`1 other(s)`, `1 action(s)`: a newcomer reads sentences, with the count's own plural."""
    d = tmp_path / "bin"
    d.mkdir()
    (d / "a.md").write_bytes(b"\x00\x01binary")
    assert main(["check", str(d)]) == 2
    err = capsys.readouterr().err
    assert "(1 binary or special file skipped)" in err and "(s)" not in err
    plan = tmp_path / "plan.txt"
    plan.write_text(
        '{"actions": [{"action": "DONE"}, {"action": "THINK", "context": "c"}], "can_extend": false, "reasoning": "r"}\n',
        encoding="utf-8",
    )
    main(["check", str(plan)])
    out = capsys.readouterr().out
    assert "1 action planned after DONE never run" in out and "(s)" not in out
