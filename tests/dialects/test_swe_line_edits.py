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
