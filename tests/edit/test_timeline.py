"""A transcript is a timeline: actions the workspace is past are history, never errors.

The workspace checks find where each file stands on the chain of the transcript's actions on it
(the latest one whose result it holds); the actions before are ``applied`` or ``superseded``,
the ones after are pending and checked in order from the file as it is.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp.edit import Workspace, plan_changes, write_plan
from action_lsp.model import Severity

# Two SEARCH/REPLACE edits of calc.py, one after the other (return 1 -> 2 -> 3).
SMALLEST = (Path(__file__).parents[1] / "fixtures" / "timeline" / "smallest.md").read_text(encoding="utf-8")


def check_root(root: Path, transcript: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", "check", "--root", str(root),
         "--output-format", "concise", str(transcript)],
        capture_output=True, text=True, timeout=60,
    )


def apply(root: Path, transcript: Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", "apply", "--root", str(root), *more, str(transcript)],
        capture_output=True, text=True, timeout=60,
    )


@pytest.mark.parametrize(("holds", "findings"), [
    ("return 1", []),  # the transcript's base: both pending
    ("return 2", ["applied"]),  # past the first edit
    ("return 3", ["superseded", "applied"]),  # the transcript's end state
])
def test_smallest_chain_is_clean_at_every_point(tmp_path: Path, holds: str, findings: list[str]) -> None:
    (tmp_path / "calc.py").write_text(f"def f():\n    {holds}\n")
    t = tmp_path / "t.md"
    t.write_text(SMALLEST)
    out = check_root(tmp_path, t)
    assert out.returncode == 0, out.stdout
    assert [line.rsplit("[", 1)[1].rstrip("]") for line in out.stdout.splitlines() if "[" in line] == findings
    if "superseded" in findings:
        assert "superseded by action 2" in out.stdout and ": hint:" in out.stdout


def test_end_state_applies_nothing_and_writes_nothing(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def f():\n    return 3\n")
    t = tmp_path / "t.md"
    t.write_text(SMALLEST)
    out = apply(tmp_path, t, "--write")
    assert out.returncode == 0, out.stderr
    assert "superseded by action 2" in out.stderr
    assert (tmp_path / "calc.py").read_text() == "def f():\n    return 3\n"


def test_middle_state_applies_only_the_pending_edit(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text("def f():\n    return 2\n")
    t = tmp_path / "t.md"
    t.write_text(SMALLEST)
    out = apply(tmp_path, t, "--write")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "calc.py").read_text() == "def f():\n    return 3\n"


def test_selected_history_action_is_never_written(tmp_path: Path) -> None:
    """`apply --select 1` of the first edit, the file at the end state: the first edit's
    search text is not there to find, and the engine must not find it elsewhere either. The
    user asked for it and gets a refusal naming the action that superseded it, exit 1
    (tests/test_apply_select_history.py)."""
    (tmp_path / "calc.py").write_text("def f():\n    return 3\n\ndef g():\n    return 1\n")
    t = tmp_path / "t.md"
    t.write_text(SMALLEST)
    out = apply(tmp_path, t, "--write", "--select", "1")
    assert out.returncode == 1, out.stderr
    assert "action 2 (not selected)" in out.stderr
    assert (tmp_path / "calc.py").read_text() == "def f():\n    return 3\n\ndef g():\n    return 1\n"


# -- plan level ------------------------------------------------------------------------------


def split(plan) -> tuple[set[int], set[int]]:
    """(history, pending) action indices of a plan."""
    history = {o.action_index for o in plan.outcomes if o.history}
    pending = {o.action_index for o in plan.outcomes if not o.history and not o.skipped}
    return history, pending


def errors(plan) -> list[str]:
    from action_lsp.codes import default_severity

    return [f"{d.code}: {d.message}" for d in plan.diagnostics
            if (d.severity or default_severity(d.code)) is Severity.ERROR]


def test_created_then_edited_twice(tmp_path: Path, tx) -> None:
    t = tx()
    base = "def f():\n    return 1\n"
    actions = [t.create("m.py", base), t.modify("m.py", ("return 1", "return 2")),
               t.modify("m.py", ("return 2", "return 3"))]
    states = [None, base, base.replace("1", "2"), base.replace("1", "3")]
    for at, holds in enumerate(states):
        if holds is None:
            (tmp_path / "m.py").unlink(missing_ok=True)
        else:
            (tmp_path / "m.py").write_text(holds)
        plan = plan_changes(actions, Workspace(tmp_path))
        assert errors(plan) == [], at
        assert split(plan) == (set(range(at)), set(range(at, 3))), at
        assert plan.ok
        if at == 3:
            assert [o.superseded_by for o in plan.outcomes[:2]] == [1, 2]
        if at < 3:  # the pending ones bring the file to the end state
            (change,) = plan.changes
            assert change.new_text == states[3]
        else:
            assert plan.changes == []


def test_hand_edit_in_the_middle_is_said_once(tmp_path: Path, tx) -> None:
    """The file took the first two edits, then someone rewrote the lines the next two change:
    one error, on the first pending action, that counts the other."""
    t = tx()
    actions = [t.modify("m.py", (f"{v} = 1", f"{v} = 2")) for v in "abcd"]
    (tmp_path / "m.py").write_text("a = 2\nb = 2\nC = 9\nD = 9\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert [d.code for d in plan.diagnostics] == ["applied", "applied", "search-not-found"]
    (wrong,) = errors(plan)
    assert "1 later action(s) on m.py cannot be applied either" in wrong
    assert "matches no point of this transcript's edits" in wrong
    assert [o.ok for o in plan.outcomes] == [True, True, False, False]
    assert "since action 3" in plan.outcomes[3].reason


def test_hand_rewritten_chain_gives_one_error_at_most(tmp_path: Path, tx) -> None:
    """Edits that build on each other, their lines rewritten by hand: no error per action."""
    t = tx()
    actions = [t.modify("m.py", ("a = 1", "a = 2")), t.modify("m.py", ("b = 1", "b = 2")),
               t.modify("m.py", ("b = 2\nc = 1", "b = 2\nc = 2")), t.modify("m.py", ("c = 2", "c = 3"))]
    (tmp_path / "m.py").write_text("a = 2\nB = 7\nC = 7\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert len(errors(plan)) == 1
    assert plan.changes == []


def test_hand_edit_elsewhere_keeps_the_timeline(tmp_path: Path, tx) -> None:
    t = tx()
    actions = [t.modify("m.py", ("a = 1", "a = 2")), t.modify("m.py", ("b = 1", "b = 2"))]
    (tmp_path / "m.py").write_text("a = 2\nb = 1\n# a note by hand\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert errors(plan) == [] and split(plan) == ({0}, {1})
    assert plan.changes[0].new_text == "a = 2\nb = 2\n# a note by hand\n"


def test_a_later_action_applied_alone_leaves_the_earlier_one_pending(tmp_path: Path, tx) -> None:
    """The user applied action 2 alone (its lens): action 1, on other lines, can still be
    applied."""
    t = tx()
    actions = [t.modify("m.py", ("a = 1", "a = 2")), t.modify("m.py", ("b = 1", "b = 2"))]
    (tmp_path / "m.py").write_text("a = 1\nb = 2\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert errors(plan) == [] and split(plan) == ({1}, {0})
    assert plan.changes[0].new_text == "a = 2\nb = 2\n"


def test_a_reverted_edit_is_never_applied_again(tmp_path: Path, tx) -> None:
    """Edit 1 renames, edit 2 renames back, edit 3 changes another line. At the end state edit
    1's search text is in the file again: it is history (superseded by 2), not pending."""
    t = tx()
    actions = [t.modify("m.py", ("x = old()", "x = new()")),
               t.modify("m.py", ("x = new()", "x = old()")),
               t.modify("m.py", ("y = 1", "y = 2"))]
    (tmp_path / "m.py").write_text("x = old()\ny = 2\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert errors(plan) == [] and split(plan) == ({0, 1, 2}, set())
    assert plan.outcomes[0].superseded_by == 1
    assert plan.changes == []
    write_plan(plan, root=tmp_path)
    assert (tmp_path / "m.py").read_text() == "x = old()\ny = 2\n"


# -- property: random chains, every point of them ------------------------------------------

_names = st.integers(min_value=0, max_value=10**9)


@st.composite
def chains(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str]]]:
    """A random file (lines of unique tokens) and a chain of edits on it: each replaces 1-3
    consecutive lines of the text the edits before it left with 0-3 new lines (none: a
    removal). Returns the states (base first) and the (search, replace) pairs. (Insertions
    that keep their search text, which a later edit then partly removes with lines of the
    base, are not generated: the timeline can place such a file too early; see
    docs/edit-engine.md.)"""
    fresh = iter(range(10**6))
    tag = draw(_names)

    def line() -> str:
        n = next(fresh)
        return f"    value_{tag}_{n} = compute({n})\n"

    lines = [line() for _ in range(draw(st.integers(min_value=3, max_value=12)))]
    states = ["".join(lines)]
    pairs: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=8))):
        if not lines:
            break
        at = draw(st.integers(min_value=0, max_value=len(lines) - 1))
        width = draw(st.integers(min_value=1, max_value=min(3, len(lines) - at)))
        old = lines[at : at + width]
        new = [line() for _ in range(draw(st.integers(min_value=0, max_value=3)))]
        lines[at : at + width] = new
        pairs.append(("".join(old), "".join(new)))
        states.append("".join(lines))
    return states, pairs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chains())
def test_every_point_of_a_random_chain_is_clean(tmp_path: Path, tx, chain) -> None:
    states, pairs = chain
    t = tx()
    actions = [t.modify("m.py", p) for p in pairs]
    for at, holds in enumerate(states):
        (tmp_path / "m.py").write_text(holds)
        plan = plan_changes(actions, Workspace(tmp_path))
        assert errors(plan) == [], (at, holds)
        # A point the file is at (a removal of what an earlier edit added brings it back to
        # an earlier state: it stands at either, with the same end state).
        points = [j for j, s in enumerate(states) if s == holds]
        assert split(plan) in [(set(range(j)), set(range(j, len(pairs)))) for j in points], at
        end = plan.changes[0].new_text if plan.changes else holds
        assert end == states[-1], at


def test_an_edit_found_as_written_after_a_wrong_one_still_applies(tmp_path: Path, tx) -> None:
    """The model's first search text matches nothing; its second edit of the file is there as
    written: one error, and the second edit is applied."""
    t = tx()
    actions = [t.modify("m.py", ("a = 9", "a = 2")), t.modify("m.py", ("b = 1", "b = 2"))]
    (tmp_path / "m.py").write_text("a = 1\nb = 1\n")
    plan = plan_changes(actions, Workspace(tmp_path), only={1})
    assert errors(plan) == [] and plan.changes[0].new_text == "a = 1\nb = 2\n"
    plan = plan_changes(actions, Workspace(tmp_path))
    assert [d.code for d in plan.diagnostics] == ["search-not-found"]
    assert [o.ok for o in plan.outcomes] == [False, True]


# -- a Claude Code session: a file written, then edited twice ---------------------------------


def _session(cwd: str) -> str:
    import json

    def record(kind: str, content: list[dict[str, object]], n: int) -> str:
        return json.dumps({"type": kind, "cwd": cwd, "sessionId": "s", "uuid": f"u{n}",
                           "message": {"role": kind, "content": content}})

    def call(n: int, name: str, **inp: object) -> list[str]:
        return [record("assistant", [{"type": "tool_use", "id": f"t{n}", "name": name, "input": inp}], n),
                record("user", [{"type": "tool_result", "tool_use_id": f"t{n}",
                                 "content": "String not found" if name == "Edit" and n == 4 else "ok",
                                 **({"is_error": True} if n == 4 else {})}], n + 100)]

    path = f"{cwd}/app.py"
    lines = [
        *call(1, "Write", file_path=path, content="def f():\n    return 1\n"),
        *call(2, "Edit", file_path=path, old_string="return 1", new_string="return 2"),
        *call(3, "Edit", file_path=path, old_string="return 2", new_string="return 3"),
        *call(4, "Edit", file_path=path, old_string="return 9", new_string="return 10"),  # failed
    ]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("holds", [None, "return 1", "return 2", "return 3"])
def test_session_that_writes_a_file_and_edits_it_twice(tmp_path: Path, holds: str | None) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    if holds is not None:
        (root / "app.py").write_text(f"def f():\n    {holds}\n")
    t = tmp_path / "session.jsonl"
    t.write_text(_session("/home/ana/proj"))
    out = check_root(root, t)
    assert out.returncode == 0, out.stdout
    assert ": error:" not in out.stdout
    assert "[tool-error]" in out.stdout  # the failed call: shown, never pending
    written = apply(root, t, "--write")
    assert written.returncode == 0, written.stderr
    assert (root / "app.py").read_text() == "def f():\n    return 3\n"


def test_a_place_chosen_for_a_later_action_of_a_diverged_file_is_applied(tmp_path: Path, tx) -> None:
    """After the file diverged, a later action is looked for only as written -- unless the
    user chose its place (`--accept-candidate`) or accepted close matches."""
    t = tx()
    actions = [t.modify("m.py", ("a = 9", "a = 2")), t.modify("m.py", ("b  =  1", "b = 2"))]
    (tmp_path / "m.py").write_text("a = 1\nb = 1\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert [o.ok for o in plan.outcomes] == [False, False]
    plan = plan_changes(actions, Workspace(tmp_path), only={1}, choices={(1, 0): 2})
    assert plan.ok and plan.changes[0].new_text == "a = 1\nb = 2\n"
    plan = plan_changes(actions, Workspace(tmp_path), choices={(1, 0): 2})
    assert [o.ok for o in plan.outcomes] == [False, True]


def test_a_removal_inside_a_line_whose_text_is_still_there_is_pending(tmp_path: Path, tx) -> None:
    """The timeline compares whole lines; a search text that is part of a line must still be
    seen in the file (it was judged 'applied' and never written)."""
    t = tx()
    actions = [t.modify("a.txt", ("keep ", ""))]
    (tmp_path / "a.txt").write_text("keep me\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert split(plan) == (set(), {0})
    assert plan.changes[0].new_text == "me\n"


def test_a_replacement_inside_a_line_whose_search_is_still_there_is_pending(tmp_path: Path, tx) -> None:
    t = tx()
    actions = [t.modify("m.py", ("return 1", "return 2"))]
    (tmp_path / "m.py").write_text("def f(): return 1\n")
    plan = plan_changes(actions, Workspace(tmp_path))
    assert split(plan) == (set(), {0})
    assert plan.changes[0].new_text == "def f(): return 2\n"


def _one_write(cwd: str, content: str) -> str:
    import json

    call = {"type": "tool_use", "id": "t1", "name": "Write",
            "input": {"file_path": f"{cwd}/crypto.ts", "content": content}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": "File created successfully"}
    return "".join(json.dumps({"type": kind, "cwd": cwd, "sessionId": "s",
                               "message": {"role": kind, "content": [block]}}) + "\n"
                   for kind, block in (("assistant", call), ("user", result)))


WRITTEN = "export function a() {\n  return 1\n}\n"


@pytest.mark.parametrize("holds, added", [
    # written by the session, then a function added by hand
    (WRITTEN + "\nexport function b() {\n  return 2\n}\n", True),
    # a line added by hand inside what the session wrote
    ("export function a() {\n  log()\n  return 1\n}\n", True),
    # another file there (the session's base): the write replaces it
    ("export const z = 0\n", False),
])
def test_a_written_file_with_lines_added_since_is_not_written_back_unless_forced(
        tmp_path: Path, holds: str, added: bool) -> None:
    """Real Claude Code session (handy-cli): `Write src/auth/crypto.ts`, then a function added
    by hand; `apply` wrote the session's content back over it, dropping the function, and
    `check --root` said nothing. Now it is refused unless forced, as a truncated write is."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / "crypto.ts").write_text(holds)
    t = tmp_path / "session.jsonl"
    t.write_text(_one_write("/home/ana/proj", WRITTEN))
    out = check_root(root, t)
    assert ("[truncated-content]" in out.stdout) is added
    written = apply(root, t, "--write")
    assert (written.returncode != 0) is added
    assert (root / "crypto.ts").read_text() == (holds if added else WRITTEN)
    assert apply(root, t, "--write", "--force").returncode == 0
    assert (root / "crypto.ts").read_text() == WRITTEN


# -- a file an Aider block created (empty SEARCH), changed by hand since ---------------------
# Modelled on a real Aider history (diff format) replayed in its repository: frontend/ui.ts was
# created by an empty-SEARCH block, edited by the next ones, then by hand (a commit Aider made
# of the user's changes before its next edit); `apply --write` appended the whole created text
# to the file again, and the later edits then landed in that copy.

_CREATED = """\
const load = async () => {
    const response = await fetch('results.json');
    return response.json();
};

const draw = (values: number[]) => {
    console.log("drawing", values.length);
    ctx.moveTo(padding, padding);
};
"""

_AIDER_CREATE = f"""
# aider chat started at 2025-12-03 14:43:45

> Model: openrouter/openai/gpt-4o-mini with diff edit format

#### draw the results in ui.ts

ui.ts
```ts
<<<<<<< SEARCH
=======
{_CREATED}>>>>>>> REPLACE
```

> Tokens: 1.2k sent, 300 received.
> ui.ts
> Create new file? (Y)es/(N)o [Yes]: y
> Applied edit to ui.ts
> Commit 1b2614a feat: draw the results
"""

_AIDER_FLIP = """
#### flip the y axis

ui.ts
```ts
<<<<<<< SEARCH
    ctx.moveTo(padding, padding);
=======
    ctx.moveTo(padding, height + padding);
>>>>>>> REPLACE
```

> Tokens: 1.2k sent, 300 received.
> Applied edit to ui.ts
> Commit 45d01cf fix: flip the y axis
"""

# The user's change since: one line of the created text.
_HAND_EDITED = _CREATED.replace("fetch('results.json')", "fetch('/api/results.json')")


@pytest.mark.parametrize("later", ["", _AIDER_FLIP], ids=["created-only", "created-then-edited"])
def test_a_created_file_changed_since_is_never_appended_again(tmp_path: Path, later: str) -> None:
    (tmp_path / "ui.ts").write_text(_HAND_EDITED)
    t = tmp_path / "t.md"
    t.write_text(_AIDER_CREATE + later)
    out = apply(tmp_path, t, "--write")
    assert out.returncode == 0, out.stderr
    want = _HAND_EDITED.replace("ctx.moveTo(padding, padding)", "ctx.moveTo(padding, height + padding)") \
        if later else _HAND_EDITED
    assert (tmp_path / "ui.ts").read_text() == want
    assert "the file was changed since" in out.stderr or "superseded by action 2" in out.stderr


def test_an_append_to_a_file_of_other_text_is_still_applied(tmp_path: Path) -> None:
    """An empty SEARCH on a file holding other text appends to it, as Aider does (two lines of
    the appended text -- a closing line, a common call -- already in the file do not stop it)."""
    (tmp_path / "ui.ts").write_text("const other = () => {\n    return response.json();\n};\n")
    t = tmp_path / "t.md"
    t.write_text(_AIDER_CREATE)
    out = apply(tmp_path, t, "--write")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "ui.ts").read_text() == \
        "const other = () => {\n    return response.json();\n};\n" + _CREATED
