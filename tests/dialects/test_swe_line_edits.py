"""SWE-agent 0.x trajectories as SWE-agent 0.x writes them: each step's ``state`` (a JSON
string) is the environment *before* its action; refused steps carry their failure; ``edit N:M``
... ``end_of_edit`` is applied only where the trajectory shows what it replaced and its own
observation agrees with the result. Trajectories are built here in the shape of the real ones
(SWE-agent's demonstrations and test data, MIT)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.dialects.swe_agent import _REFUSALS
from action_lsp.document import analyze
from action_lsp.model import ActionKind

REPO = "/proj__proj"


def _state(open_file: str = "n/a") -> str:
    return json.dumps({"open_file": open_file, "working_dir": REPO})


def traj(*steps: tuple[str, str, str]) -> str:
    """A 0.x trajectory of (action, observation, file open before the action) steps."""
    return json.dumps({"environment": "swe_main", "trajectory": [
        {"action": a, "observation": o, "response": "", "state": _state(f), "thought": ""} for a, o, f in steps
    ], "info": {}}, indent=4)


def window(path: str, total: int, first: int, lines: list[str], tail: str = "") -> str:
    out = f"[File: {REPO}/{path} ({total} lines total)]\n"
    if first > 1:
        out += f"({first - 1} more lines above)\n"
    out += "".join(f"{first + k}:{t}\n" for k, t in enumerate(lines))
    below = total - (first + len(lines) - 1)
    if below > 0:
        out += f"({below} more lines below)\n"
    return out + tail


UPDATED = "File updated. Please review the changes and make sure they are correct (correct indentation, no duplicate lines, etc). Edit the file again if necessary.\n"
CALC = ["def divide(a, b):", "    return a // b", "", "", "def mean(xs):", "    return sum(xs) // len(xs)"]
OPEN_CALC = ("open calc.py\n", window("calc.py", 6, 1, CALC), "n/a")


def _actions(text: str) -> list[tuple[str, ActionKind, str | None, bool]]:
    return [(x.type, x.kind, x.path, x.failure is not None) for x in analyze(text).actions]


# --------------------------------------------------------------------------- the open file


def test_0x_state_is_the_state_before_the_step() -> None:
    """SWE-agent 0.x records each step's state before its action runs: an edit right after
    ``open`` is on the file just opened, not on the one open before."""
    text = traj(
        ("create notes.py\n", window("notes.py", 1, 1, [""]), "n/a"),
        ("open calc.py\n", window("calc.py", 6, 1, CALC), f"{REPO}/notes.py"),
        ("edit 'return a // b' 'return a / b'\n", "Text replaced.\n" + window("calc.py", 6, 1, CALC), f"{REPO}/calc.py"),
    )
    assert _actions(text)[2] == ("edit", ActionKind.MODIFY_FILE, "calc.py", False)


# --------------------------------------------------------------------------- refusals


SYNTAX = ("Your proposed edit has introduced new syntax error(s). Please understand the fixes and retry your edit commmand.\n\n"
          "ERRORS:\n- E999 IndentationError: unexpected indent\n\nThis is how your edit would have looked if applied\n"
          "-------------------------------------------------\n")


@pytest.mark.parametrize("message", [*_REFUSALS, "The path /proj__proj/x.py does not exist."])
@pytest.mark.parametrize("action", [
    "edit 2:2\n    return a / b\nend_of_edit\n",
    "edit 'return a // b' 'return a / b'\n",
    "insert 'import os' 1\n",
    "str_replace_editor str_replace /proj__proj/calc.py --old_str 'a // b' --new_str 'a / b'",
    "str_replace_editor insert /proj__proj/calc.py --insert_line 1 --new_str 'import os'",
    "str_replace_editor create /proj__proj/calc.py --file_text 'x = 1'",
])
def test_every_refusal_gives_a_failed_action_never_applied(message: str, action: str) -> None:
    text = traj(OPEN_CALC, (action, message + " (details)\n", f"{REPO}/calc.py"))
    found = analyze(text).actions[1]
    assert found.failure is not None, (action, message)
    assert file_view(found) is None  # never applied, no Apply lens
    assert found.path == "calc.py"


def test_syntax_error_refusal_of_a_line_edit_is_failed(tmp_path: Path) -> None:
    obs = SYNTAX + window("calc.py", 6, 1, [*CALC[:1], "return a / b", *CALC[2:]])
    text = traj(OPEN_CALC, ("edit 2:2\nreturn a / b\nend_of_edit\n", obs, f"{REPO}/calc.py"))
    edit = analyze(text).actions[1]
    assert (edit.type, edit.path) == ("edit", "calc.py")
    assert edit.failure is not None and edit.failure.startswith("Your proposed edit has introduced new syntax error")
    (tmp_path / "calc.py").write_text("\n".join(CALC) + "\n")
    (tmp_path / "t.traj").write_text(text)
    assert main(["apply", "--root", str(tmp_path), "--write", str(tmp_path / "t.traj")]) == 0
    assert (tmp_path / "calc.py").read_text() == "\n".join(CALC) + "\n"


# --------------------------------------------------------------------------- edit N:M


def _apply(tmp_path: Path, text: str, files: dict[str, str], *extra: str) -> tuple[int, dict[str, str]]:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    for name, body in files.items():
        (root / name).write_text(body)
    doc = tmp_path / "t.traj"
    doc.write_text(text)
    rc = main(["apply", "--root", str(root), "--write", *extra, str(doc)])
    return rc, {p.name: p.read_text() for p in root.iterdir() if p.is_file()}


CALC_FILE = "\n".join(CALC) + "\n"
FIXED = [*CALC[:5], "    return sum(xs) / len(xs)"]
EDIT_6 = ("edit 6:6\n    return sum(xs) / len(xs)\nend_of_edit\n", window("calc.py", 6, 1, FIXED, UPDATED), f"{REPO}/calc.py")


def _unchecked(text: str) -> list[str]:
    return [d.message for d in analyze(text).diagnostics if d.code == "line-edit-unchecked"]


def test_line_edit_shown_before_and_confirmed_after_is_applied(tmp_path: Path) -> None:
    """As in SWE-agent's HumanEvalFix demonstration: ``open`` shows the file, ``edit 15:15``
    replaces a line, the window after it shows the result."""
    text = traj(OPEN_CALC, EDIT_6)
    edit = analyze(text).actions[1]
    assert (edit.kind, edit.path, edit.failure) == (ActionKind.MODIFY_FILE, "calc.py", None)
    assert not _unchecked(text)
    rc, got = _apply(tmp_path, text, {"calc.py": CALC_FILE})
    assert rc == 0 and got["calc.py"] == "\n".join(FIXED) + "\n"
    rc, again = _apply(tmp_path, text, {})  # replayed twice: the file already holds it
    assert rc == 0 and again == got


def test_line_edits_apply_in_sequence_on_the_lines_the_earlier_ones_left(tmp_path: Path) -> None:
    grown = [CALC[0], "    if b == 0:", "        raise ZeroDivisionError", "    return a / b", *CALC[2:]]
    second = [*grown[:7], "    return sum(xs) / len(xs)"]
    text = traj(
        OPEN_CALC,
        ("edit 2:2\n    if b == 0:\n        raise ZeroDivisionError\n    return a / b\nend_of_edit\n",
         window("calc.py", 8, 1, grown, UPDATED), f"{REPO}/calc.py"),
        ("edit 8:8\n    return sum(xs) / len(xs)\nend_of_edit\n", window("calc.py", 8, 1, second, UPDATED), f"{REPO}/calc.py"),
    )
    assert [k for _, k, _, _ in _actions(text)] == [ActionKind.READ_FILE, ActionKind.MODIFY_FILE, ActionKind.MODIFY_FILE]
    rc, got = _apply(tmp_path, text, {"calc.py": CALC_FILE})
    assert rc == 0 and got["calc.py"] == "\n".join(second) + "\n"


def test_line_edit_of_a_file_created_in_the_trajectory(tmp_path: Path) -> None:
    """``create F`` then ``edit 1:1`` (every real 0.x trajectory writes its reproduction script so)."""
    body = ["from calc import mean", "print(mean([1, 2]))"]
    text = traj(
        ("create repro.py\n", window("repro.py", 1, 1, [""]), "n/a"),
        ("edit 1:1\n" + "\n".join(body) + "\nend_of_edit\n", window("repro.py", 2, 1, body, UPDATED), f"{REPO}/repro.py"),
    )
    rc, got = _apply(tmp_path, text, {})
    assert rc == 0 and got["repro.py"] == "\n".join(body) + "\n"


def test_create_writes_one_empty_line_as_swe_agent_does(tmp_path: Path) -> None:
    """SWE-agent's ``create F`` writes a file holding one empty line (``printf "\\n"``), as its
    window after it shows (``1 lines total``, line 1 empty); applied alone, so does the replay."""
    text = traj(("create notes.py\n", window("notes.py", 1, 1, [""]), "n/a"))
    (action,) = analyze(text).actions
    assert action.kind is ActionKind.CREATE_FILE and file_view(action).content.value == "\n"
    rc, got = _apply(tmp_path, text, {})
    assert rc == 0 and got["notes.py"] == "\n"


def test_edits_after_create_leave_no_extra_line(tmp_path: Path) -> None:
    """``create F`` then edits of its one line (``edit 1:1``, then ``edit 2:2``): the file ends
    as the last window shows it, one newline at its end."""
    body = ["import sys", "print(sys.argv)"]
    text = traj(
        ("create repro.py\n", window("repro.py", 1, 1, [""]), "n/a"),
        ("edit 1:1\n" + "\n".join(body) + "\nend_of_edit\n", window("repro.py", 2, 1, body, UPDATED), f"{REPO}/repro.py"),
        ("edit 2:2\nprint(sys.argv[1:])\nend_of_edit\n",
         window("repro.py", 2, 1, [body[0], "print(sys.argv[1:])"], UPDATED), f"{REPO}/repro.py"),
    )
    rc, got = _apply(tmp_path, text, {})
    assert rc == 0 and got["repro.py"] == "import sys\nprint(sys.argv[1:])\n"


def test_lines_shown_by_a_syntax_error_refusal_make_the_retry_applicable(tmp_path: Path) -> None:
    """As in SWE-agent's marshmallow-1867 demonstration: the refusal prints the original code;
    the retry of the same lines applies."""
    big = [f"line = {n}" for n in range(1, 41)]
    opened = ("open big.py 30\n", window("big.py", 40, 21, big[20:]), "n/a")
    bad = [*big[25:29], "  line = 30", *big[30:33]]
    refusal = (SYNTAX + window("big.py", 40, 26, bad) + "-------------------------------------------------\n\n"
               + "This is the original code before your edit\n-------------------------------------------------\n"
               + window("big.py", 40, 26, big[25:33]))
    good = [*big[:29], "line = 'thirty'", *big[30:]]
    text = traj(
        ("python run.py\n", "ok\n", "n/a"),
        opened,
        ("edit 30:30\n  line = 30\nend_of_edit\n", refusal, f"{REPO}/big.py"),
        ("edit 30:30\nline = 'thirty'\nend_of_edit\n", window("big.py", 40, 20, good[19:], UPDATED), f"{REPO}/big.py"),
    )
    kinds = [(k, f) for _, k, _, f in _actions(text)]
    assert kinds[2:] == [(ActionKind.OTHER, True), (ActionKind.MODIFY_FILE, False)]
    rc, got = _apply(tmp_path, text, {"big.py": "\n".join(big) + "\n"})
    assert rc == 0 and got["big.py"] == "\n".join(good) + "\n"


@pytest.mark.parametrize(("steps", "why"), [
    # the observation after it shows another result
    ((OPEN_CALC, (EDIT_6[0], window("calc.py", 6, 1, [*CALC[:5], "    return 0"], UPDATED), EDIT_6[2])),
     "its observation shows line 6 as '    return 0'"),
    # another line count
    ((OPEN_CALC, (EDIT_6[0], window("calc.py", 7, 1, [*FIXED, ""], UPDATED), EDIT_6[2])), "says 7 lines, the edit gives 6"),
    # no window after it
    ((OPEN_CALC, (EDIT_6[0], UPDATED, EDIT_6[2])), "shows no window"),
    # the lines it replaces were never shown
    ((("open calc.py\n", window("calc.py", 6, 1, CALC[:3]), "n/a"), EDIT_6), "did not show line 6"),
    # a shell command may have changed the file since it was shown
    ((OPEN_CALC, ("sed -i 's/mean/avg/' calc.py\n", "", f"{REPO}/calc.py"), EDIT_6), "did not show the file"),
    # a window of the edit's lines only elsewhere in the file
    ((OPEN_CALC, (EDIT_6[0], window("calc.py", 6, 1, FIXED[:2], UPDATED), EDIT_6[2])), "does not show the edited lines"),
])
def test_line_edit_not_confirmed_by_the_trajectory_is_shown_not_applied(
        tmp_path: Path, steps: tuple[tuple[str, str, str], ...], why: str) -> None:
    text = traj(*steps)
    edit = analyze(text).actions[-1]
    assert (edit.type, edit.kind, edit.path) == ("edit", ActionKind.OTHER, "calc.py")
    assert file_view(edit) is None
    (message,) = _unchecked(text)
    assert message.startswith("edit 6:6 replaces lines by number: not applied") and why in message
    _, got = _apply(tmp_path, text, {"calc.py": CALC_FILE})
    assert got["calc.py"] == CALC_FILE


def test_line_edit_on_a_checkout_that_differs_is_not_written(tmp_path: Path) -> None:
    """The search text is the lines the trajectory showed: a file that holds others is refused."""
    text = traj(OPEN_CALC, EDIT_6)
    other = CALC_FILE.replace("sum(xs) // len(xs)", "statistics.mean(xs)")
    rc, got = _apply(tmp_path, text, {"calc.py": other})
    assert rc != 0 and got["calc.py"] == other


def test_line_edit_with_an_empty_body_removes_the_lines(tmp_path: Path) -> None:
    left = [*CALC[:2], *CALC[4:]]
    text = traj(OPEN_CALC, ("edit 3:4\nend_of_edit\n", window("calc.py", 4, 1, left, UPDATED), f"{REPO}/calc.py"))
    rc, got = _apply(tmp_path, text, {"calc.py": CALC_FILE})
    assert rc == 0 and got["calc.py"] == "\n".join(left) + "\n"


def test_hover_of_an_unchecked_line_edit_says_why_it_is_not_applied() -> None:
    from action_lsp.server.hover import describe

    text = traj(OPEN_CALC, (EDIT_6[0], UPDATED, EDIT_6[2]))
    edit = analyze(text).actions[1]
    said = describe(edit, 1, None)
    assert "not applied" in said and "its observation shows no window of the file after it" in said
    applied = analyze(traj(OPEN_CALC, EDIT_6)).actions[1]
    assert "unchecked" not in applied.fields
