"""``swe-agent`` and ``openhands``: agent trajectories saved as JSON, their file edits with exact
ranges through the JSON string (and, for SWE-agent, through the shell quoting of its action
string), failed steps as ``tool-error`` hints, ``.traj`` in ``check DIR``, and apply."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.dialects.swe_agent import shell_words
from action_lsp.document import analyze
from action_lsp.model import ActionKind, Severity

FIXTURES = Path(__file__).parent.parent / "fixtures" / "dialects"
GREET = FIXTURES / "swe-agent" / "greet.traj"
CALC = FIXTURES / "swe-agent" / "calc-0x.traj"
OPENHANDS = FIXTURES / "openhands" / "trajectory.json"


def _read(p: Path) -> str:
    return p.read_text(encoding="utf-8")


def _files(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file()}


# --------------------------------------------------------------------------- shell words


@pytest.mark.parametrize("value", ["plain", "it's", 'x "q"\nnext\ttab', "", "a\\b$c", "é 👋 «»"])
def test_shell_words_read_shlex_quoting_back_with_a_map_to_each_character(value: str) -> None:
    s = "tool " + shlex.quote(value) + " tail"
    words = shell_words(s)
    assert [w.value for w in words] == ["tool", value, "tail"]
    w = words[1]
    assert [s[w.smap.to_source(i)] for i in range(len(value))] == list(value)


def test_shell_words_double_quotes_and_backslashes() -> None:
    s = 'a "dq \\"x\\" \\$y" bare\\ word'
    assert [w.value for w in shell_words(s)] == ["a", 'dq "x" $y', "bare word"]


# --------------------------------------------------------------------------- SWE-agent


def test_swe_agent_steps_become_actions_with_workspace_relative_paths() -> None:
    text = _read(GREET)
    a = analyze(text)
    assert {x.dialect for x in a.actions} == {"swe-agent"}
    assert [(x.type, x.kind) for x in a.actions] == [
        ("find_file", ActionKind.COMMAND),
        ("str_replace_editor", ActionKind.CREATE_FILE),
        ("str_replace_editor", ActionKind.OTHER),  # its observation: no replacement was performed
        ("str_replace_editor", ActionKind.MODIFY_FILE),
        ("str_replace_editor", ActionKind.MODIFY_FILE),  # insert
        ("python", ActionKind.COMMAND),
        ("str_replace_editor", ActionKind.READ_FILE),
        ("submit", ActionKind.OTHER),
    ]  # only trajectory[]: history[] and each step's query repeat the same calls
    create = a.actions[1]
    assert create.path == "src/greet.py"
    span = create.fields["path"].span
    assert text[span.start : span.end] == "src/greet.py"
    assert text[span.start - len("/testbed/") : span.start] == "/testbed/"
    insert = file_view(a.actions[4])
    assert insert is not None and insert.edits[0].line == 4 and insert.edits[0].search.value == ""
    assert a.actions[5].get("command") == "python src/greet.py && echo 'done ✓'"


def test_swe_agent_ranges_through_json_escapes_and_shell_quotes() -> None:
    text = _read(GREET)
    a = analyze(text)
    view = file_view(a.actions[3])
    assert view is not None
    (edit,) = view.edits
    r = edit.replace
    assert r.value == '    return f"Héllo, {name}! 👋"'
    i = r.value.index("Héllo")
    s = r.value_span(i, i + 5)
    assert text[s.start : s.end] == "Héllo"
    q = r.value.index('"')  # written \" in the JSON string, inside the shell's single quotes
    s = r.value_span(q, q + 1)
    assert text[s.start : s.end] == '\\"'
    w = r.value.index("👋")
    s = r.value_span(w, w + 1)
    assert text[s.start : s.end] == "👋"
    # the old string of the failed call holds a quote written '"'"' by shlex.quote
    failed = a.actions[2]
    search = failed.fields["search"]
    k = search.value.index("'")
    s = search.value_span(k, k + 1)
    assert text[s.start - 2 : s.start + 3] == "\\\"'\\\""  # shlex's '"'"', JSON-escaped
    content = a.actions[1].fields["content"]
    n = content.value.index("\n")
    s = content.value_span(n, n + 1)
    assert text[s.start : s.end] == "\\n"


def test_swe_agent_ranges_with_ascii_escaped_json() -> None:
    """The same trajectory written with ensure_ascii (é as \\u00e9): ranges still exact."""
    doc = json.dumps(json.loads(_read(GREET)), indent=2)
    a = analyze(doc)
    r = a.actions[3].edits[0].replace
    i = r.value.index("é")
    s = r.value_span(i, i + 1)
    assert doc[s.start : s.end] == "\\u00e9"
    w = r.value.index("👋")
    s = r.value_span(w, w + 1)
    assert doc[s.start : s.end] == "\\ud83d\\udc4b"


def test_swe_agent_failed_step_is_a_hint_not_applied() -> None:
    a = analyze(_read(GREET))
    (hint,) = [d for d in a.diagnostics if d.code == "tool-error"]
    assert hint.severity is None  # the registry's default: a hint
    assert "No replacement was performed" in hint.message
    assert a.actions[2].failure is not None
    assert not [d for d in a.diagnostics if d.code != "tool-error"]


def test_swe_agent_0x_windowed_edits_use_the_open_file() -> None:
    text = _read(CALC)
    a = analyze(text)
    by = [(x.type, x.kind, x.path) for x in a.actions]
    assert by == [
        ("open", ActionKind.READ_FILE, "calc.py"),
        ("edit", ActionKind.MODIFY_FILE, "calc.py"),
        ("edit", ActionKind.OTHER, "calc.py"),  # lint error: the tool undid it
        ("edit", ActionKind.OTHER, "calc.py"),  # edit 6:6 ... end_of_edit: line 6 never shown before it, not replayed
        ("create", ActionKind.CREATE_FILE, "reproduce.py"),
        ("insert", ActionKind.MODIFY_FILE, "reproduce.py"),
        ("python", ActionKind.COMMAND, None),
    ]
    line_edit = a.actions[3]
    c = line_edit.fields["content"]
    assert c.value == "    return sum(xs) / len(xs)\n"
    s = c.value_span(4, 10)
    assert text[s.start : s.end] == "return"


def test_swe_agent_apply_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    assert main(["apply", "--root", str(root), "--write", str(GREET)]) == 0
    got = _files(root)
    assert list(got) == ["src/greet.py"]
    assert got["src/greet.py"] == (
        'def greet(name):\n    """Say hello — «politely»."""\n    return f"Héllo, {name}! 👋"\n'
        "\n\ndef farewell(name):\n    return f'Bye, {name}.'\n"
        '\n\nif __name__ == "__main__":\n    print(greet(\'wörld\'))\n'
    )
    # the 0.x trajectory on a checkout of the file it edits
    root2 = tmp_path / "ws2"
    root2.mkdir()
    shutil.copy(FIXTURES / "swe-agent" / "calc.py", root2 / "calc.py")
    assert main(["apply", "--root", str(root2), "--write", str(CALC)]) == 0
    got = _files(root2)
    assert got["calc.py"] == "def divide(a, b):\n    return a / b\n\n\ndef mean(xs):\n    return sum(xs) // len(xs)\n"
    # `create` wrote one empty line; `insert` without a line appends after it (as the tool does)
    assert got["reproduce.py"] == "\nfrom calc import divide\nprint(divide(7, 2))\n"


def test_traj_files_are_walked_by_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runs").mkdir()
    shutil.copy(GREET, tmp_path / "runs" / "greet.traj")
    main(["check", str(tmp_path)])
    got = capsys.readouterr()
    assert "greet.traj:" in got.out + got.err and "[tool-error]" in got.out + got.err


def test_other_json_is_not_a_trajectory() -> None:
    assert not analyze('{"trajectory": [1, 2], "history": []}\n').actions
    assert not analyze('{"history": [{"role": "user", "content": "hi"}]}\n').actions
    assert not analyze('{"id": 3, "action": "edit"}\n').actions  # no args: not an event


# --------------------------------------------------------------------------- OpenHands


def test_openhands_events_become_actions_and_failures_hints() -> None:
    text = _read(OPENHANDS)
    a = analyze(text)
    assert {x.dialect for x in a.actions} == {"openhands"}
    assert [(x.type, x.kind, x.path) for x in a.actions] == [
        ("run", ActionKind.COMMAND, None),
        ("edit", ActionKind.OTHER, "app.py"),  # an error observation answered it
        ("edit", ActionKind.MODIFY_FILE, "app.py"),
        ("edit", ActionKind.CREATE_FILE, "tests/test_app.py"),
        ("edit", ActionKind.MODIFY_FILE, "app.py"),  # insert
        ("run", ActionKind.OTHER, None),  # exit code 1
        ("write", ActionKind.WRITE_FILE, "NOTES.md"),
    ]
    hints = [d for d in a.diagnostics if d.code == "tool-error"]
    assert len(hints) == 2 and all(d.severity in (None, Severity.HINT) for d in hints)
    assert "No replacement was performed" in hints[0].message
    assert "exit code 1" in hints[1].message
    assert text[hints[0].span.start : hints[0].span.end] == "edit"


def test_openhands_ranges_inside_json_strings() -> None:
    text = _read(OPENHANDS)
    a = analyze(text)
    r = a.actions[2].edits[0].replace
    i = r.value.index("«ça")
    s = r.value_span(i, i + 3)
    assert text[s.start : s.end] == "«ça"
    q = r.value.index('"')
    s = r.value_span(q, q + 1)
    assert text[s.start : s.end] == '\\"'
    path = a.actions[3].fields["path"]
    assert text[path.span.start : path.span.end] == "tests/test_app.py"
    assert text[path.span.start - len("/workspace/") : path.span.start] == "/workspace/"


def test_openhands_ui_export_form_reads_the_same(tmp_path: Path) -> None:
    events = json.loads(_read(OPENHANDS))
    doc = json.dumps({"trajectory": events}, ensure_ascii=False)
    a = analyze(doc)
    assert [(x.type, x.kind, x.path) for x in a.actions] == [
        (x.type, x.kind, x.path) for x in analyze(_read(OPENHANDS)).actions
    ]


def test_openhands_evaluation_output_lines_read_their_history() -> None:
    """OpenHands' evaluation harness writes ``output.jsonl``: one JSON line per instance,
    ``{"instance_id", "instruction", "history": [events], ...}`` (the shape of OpenHands'
    ``evaluation/benchmarks/multi_swe_bench/examples/output.jsonl``, April 2025). Its events
    read as a saved trajectory's: an ``edit`` whose observation says ``ERROR:`` is failed."""
    events = json.loads(_read(OPENHANDS))
    line = json.dumps({"instance_id": "acme__app-1", "instruction": "fix it", "history": events, "error": None})
    a = analyze(line + "\n" + line + "\n")
    expected = [(x.type, x.kind, x.path, x.failure is not None) for x in analyze(_read(OPENHANDS)).actions]
    assert [(x.type, x.kind, x.path, x.failure is not None) for x in a.actions] == expected * 2
    assert {x.dialect for x in a.actions} == {"openhands"}
    assert any(failed for *_, failed in expected)


def test_openhands_str_replace_without_old_str_is_no_write() -> None:
    """A ``str_replace`` event whose ``old_str`` is null (the model gave only the path; the
    real output.jsonl above has five, answered ``ERROR: Parameter `old_str` is required``) is a
    failed call shown as such, never a whole-file write of its empty ``content``."""
    args = {"path": "/workspace/app.py", "command": "str_replace", "file_text": None, "old_str": None,
            "new_str": None, "insert_line": None, "content": "", "start": 1, "end": -1, "impl_source": "oh_aci"}
    events = [
        {"id": 5, "source": "agent", "message": "", "action": "edit", "args": args},
        {"id": 6, "cause": 5, "source": "agent", "observation": "edit", "extras": {"path": "/workspace/app.py"},
         "content": "ERROR:\nParameter `old_str` is required for command: str_replace."},
    ]
    a = analyze(json.dumps(events, indent=4))
    assert [(x.type, x.kind, x.path) for x in a.actions] == [("edit", ActionKind.OTHER, "app.py")]
    assert a.actions[0].failure is not None
    assert "content" not in a.actions[0].fields
    assert file_view(a.actions[0]) is None


def test_openhands_refused_call_without_its_text_still_says_which_edit_it_was(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A refused ``str_replace`` with ``old_str: null`` named its file and was refused: the
    action keeps the call's text arguments as written (``search`` null; ``replace`` the
    ``new_str`` when it gave one), so it reads as the failed modify of that file it was -- no
    edit is made up (no search/replace pair), and nothing is applied."""
    args = {"path": "/workspace/src/match.c", "command": "str_replace", "file_text": None, "old_str": None,
            "new_str": "return pattern_type;", "insert_line": None, "content": "", "start": 1, "end": -1}
    bare = {**args, "new_str": None}
    events = [
        {"id": 5, "source": "agent", "action": "edit", "args": bare},
        {"id": 6, "cause": 5, "observation": "edit",
         "content": "ERROR:\nParameter `old_str` is required for command: str_replace."},
        {"id": 7, "source": "agent", "action": "edit", "args": args},
        {"id": 8, "cause": 7, "observation": "edit",
         "content": "ERROR:\nParameter `old_str` is required for command: str_replace."},
    ]
    line = json.dumps({"instance_id": "acme__app-1", "history": events})
    a = analyze(line + "\n")
    first, second = a.actions
    for x in (first, second):
        assert (x.type, x.path, x.edits) == ("edit", "src/match.c", [])
        assert x.failure is not None and "old_str" in x.failure
        assert x.get("command") == "str_replace" and "search" in x.fields and x.get("search") is None
        assert line[x.fields["search"].span.start:x.fields["search"].span.end] == "null"
    assert first.get("replace") is None and second.get("replace") == "return pattern_type;"
    (tmp_path / "out.jsonl").write_text(line + "\n")
    main(["parse", "--format", "json", str(tmp_path / "out.jsonl")])
    shown = json.loads(capsys.readouterr().out)
    fields = [x["fields"] for x in shown["actions"]]
    assert [(f.get("command"), f.get("search"), f.get("replace")) for f in fields] == [
        ("str_replace", None, None), ("str_replace", None, "return pattern_type;")]
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "match.c").write_text("x\n")
    main(["apply", "--root", str(root), "--write", "--force", str(tmp_path / "out.jsonl")])
    assert (root / "src" / "match.c").read_text() == "x\n"


def test_openhands_apply_end_to_end(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(FIXTURES / "openhands" / "app.py", root / "app.py")
    assert main(["apply", "--root", str(root), "--write", str(OPENHANDS)]) == 0
    got = _files(root)
    assert got["app.py"] == (
        '"""The app."""\n\n\ndef main():\n    print("bonjour — «ça va?» 🇫🇷")\n'
        '\n\nif __name__ == "__main__":\n    main()\n'
    )
    assert got["NOTES.md"] == "# Notes\n\n- main() says «bonjour»\n"
    assert got["tests/test_app.py"].startswith("from app import main\n")


def _summary(a) -> tuple:
    return (
        [(x.dialect, x.type, x.kind, x.span, x.path, x.failure, [(e.search.span, e.replace.span) for e in x.edits])
         for x in a.actions],
        sorted((d.code, d.span.start, d.span.end) for d in a.diagnostics),
    )


@pytest.mark.parametrize("fixture", [OPENHANDS, CALC])
def test_random_edits_agree_with_a_full_analysis(fixture: Path) -> None:
    import random

    from action_lsp.document import IncrementalDocument

    rng = random.Random(5)
    pieces = ["x", "\n", "}", "{", '"', "\\", "é", ",", '"cause": 3,', '"observation": "error",', ""]
    doc = IncrementalDocument(_read(fixture))
    for step in range(120):
        n = len(doc.text)
        start = rng.randrange(n + 1)
        end = min(n, start + rng.choice([0, 0, 1, 3, 40]))
        doc.edit(start, end, rng.choice(pieces))
        if step % 10 == 0 or step > 110:
            assert _summary(doc.analysis()) == _summary(analyze(doc.text)), step


def test_swe_agent_demonstration_history_reads_the_same_calls() -> None:
    """A demonstration keeps only ``history[]``: its assistant messages' actions are read (the
    failed one marked by the observation after it), with the same results as the steps."""
    data = json.loads(_read(GREET))
    del data["trajectory"]
    doc = json.dumps(data, indent=2, ensure_ascii=False)
    a = analyze(doc)
    steps = analyze(_read(GREET))
    assert [(x.type, x.kind) for x in a.actions] == [(x.type, x.kind) for x in steps.actions]
    assert [d.code for d in a.diagnostics] == ["tool-error"]
    r = a.actions[3].edits[0].replace
    i = r.value.index("Héllo")
    s = r.value_span(i, i + 5)
    assert doc[s.start : s.end] == "Héllo"


def test_openhands_view_of_the_workspace_itself_is_no_path_error() -> None:
    events = [
        {"id": 3, "source": "agent", "message": "Reading file: /workspace", "action": "read",
         "args": {"path": "/workspace", "start": 0, "end": -1, "thought": "", "impl_source": "oh_aci"}},
        {"id": 4, "source": "agent", "message": "", "cause": 3, "observation": "read",
         "content": "Here's the files and directories up to 2 levels deep in /workspace", "extras": {"path": "/workspace"}},
    ]
    a = analyze(json.dumps(events, indent=4))
    (read,) = a.actions
    assert read.kind is ActionKind.READ_FILE and read.path is None and read.get("directory") == "/workspace"
    assert not a.diagnostics


def test_swe_agent_view_of_the_repository_itself_is_no_path_error() -> None:
    step = {"action": "str_replace_editor view /testbed", "observation": "Here's the files and directories up to 2 levels deep in /testbed",
            "state": {"open_file": "n/a", "working_dir": "/testbed"}, "thought": "", "response": ""}
    a = analyze(json.dumps({"trajectory": [step], "info": {}}, indent=2))
    (view,) = a.actions
    assert view.kind is ActionKind.READ_FILE and view.path is None and view.get("directory") == "/testbed"
    assert not a.diagnostics
