"""plan_changes(): document order, overlay, diagnostics pointing into the transcript."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, plan_changes, unified_diff, workspace_diagnostics


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    return r


def codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics]


def test_create_new_file(root: Path, tx) -> None:
    t = tx()
    a = t.create("src/app.py", "print('hi')\n")
    plan = plan_changes([a], Workspace(root))
    assert plan.ok
    (change,) = plan.changes
    assert change.kind == "create" and change.rel == "src/app.py"
    assert change.old_bytes is None and change.new_bytes == b"print('hi')\n"
    assert change.edits == [(0, 0, "print('hi')\n")]
    assert plan.outcomes[0].change is change


def test_mkdir(root: Path, tx) -> None:
    t = tx()
    plan = plan_changes([t.mkdir("pkg/sub")], Workspace(root))
    assert plan.ok and plan.changes[0].kind == "mkdir"
    (root / "pkg").mkdir()
    (root / "pkg" / "sub").mkdir()
    plan = plan_changes([t.mkdir("pkg/sub")], Workspace(root))
    assert plan.ok and not plan.changes and codes(plan.outcomes[0]) == ["applied"]


def test_modify(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\n")
    t = tx()
    a = t.modify("a.py", ("y = 2\n", "y = 3\n"))
    plan = plan_changes([a], Workspace(root))
    assert plan.ok
    (change,) = plan.changes
    assert change.kind == "modify" and change.new_bytes == b"x = 1\ny = 3\n"
    assert change.edits == [(6, 12, "y = 3\n")]
    assert change.strategies == ["exact"]


def test_modify_after_create_in_same_transcript(root: Path, tx) -> None:
    t = tx()
    plan = plan_changes(
        [t.create("m.py", "a = 1\nb = 2\n"), t.modify("m.py", ("b = 2\n", "b = 3\n"))],
        Workspace(root),
    )
    assert plan.ok
    (change,) = plan.changes
    assert change.kind == "create" and change.new_text == "a = 1\nb = 3\n"
    assert change.actions == [0, 1]


def test_several_edits_compose_in_original_coordinates(root: Path, tx) -> None:
    (root / "a.txt").write_text("one\ntwo\nthree\nfour\n")
    t = tx()
    a = t.modify("a.txt", ("two\n", "2\n"), ("four\n", "4\n"))
    b = t.modify("a.txt", ("one\n", "1\n"))
    plan = plan_changes([a, b], Workspace(root))
    (change,) = plan.changes
    assert change.new_text == "1\n2\nthree\n4\n"
    old = change.old_text
    assert old is not None
    for s, e, new in reversed(change.edits):
        old = old[:s] + new + old[e:]
    assert old == change.new_text


def test_search_not_found_points_at_search_field(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\n")
    t = tx()
    a = t.modify("a.py", ("zzz = 9\nqqq = 8\n", "y\n"))
    plan = plan_changes([a], Workspace(root))
    assert not plan.ok
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "search-not-found" and d.span == a.edits[0].search.span
    assert not plan.changes


def test_ambiguous_lists_lines(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\nx = 1\n")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("x = 1\n", "x = 0\n"))], Workspace(root))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "search-ambiguous" and "1, 3" in d.message
    assert d.data == {
        "lines": [1, 3], "action": 0, "edit": 0,
        "candidates": [{"line": 1, "endLine": 1, "strategy": "exact"},
                       {"line": 3, "endLine": 3, "strategy": "exact"}],
    }


def test_fuzzy_is_reported_with_strategy(root: Path, tx) -> None:
    (root / "a.py").write_text("def f():\n    if x:\n        return 1\n")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("if x:\n    return 1\n", "if x:\n    return 2\n"))],
                        Workspace(root))
    assert plan.ok
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "search-fuzzy" and "whitespace" in d.message
    assert plan.changes[0].new_text == "def f():\n    if x:\n        return 2\n"


def test_file_not_found_at_path_span(root: Path, tx) -> None:
    t = tx()
    a = t.modify("missing.py", ("a", "b"))
    plan = plan_changes([a], Workspace(root))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "file-not-found" and d.span == a.fields["path"].span


def test_empty_search_on_missing_file_creates_it(root: Path, tx) -> None:
    t = tx()
    plan = plan_changes([t.modify("new.txt", ("", "hello\n"))], Workspace(root))
    assert plan.ok and plan.changes[0].kind == "create"
    assert plan.changes[0].new_bytes == b"hello\n"


def test_overwrite_refused_then_allowed(root: Path, tx) -> None:
    (root / "a.txt").write_text("old\n")
    t = tx()
    a = t.create("a.txt", "new\n")
    plan = plan_changes([a], Workspace(root))
    assert not plan.ok and codes(plan.outcomes[0]) == ["file-exists"]
    assert plan.outcomes[0].diagnostics[0].span == a.fields["path"].span
    plan = plan_changes([a], Workspace(root, allow_overwrite=True))
    assert plan.ok and plan.changes[0].new_bytes == b"new\n"


def test_applied_create_and_modify(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\ny = 3\n")
    t = tx()
    plan = plan_changes(
        [t.create("a.py", "x = 1\ny = 3\n"), t.modify("a.py", ("y = 2\n", "y = 3\n"))],
        Workspace(root),
    )
    assert plan.ok and not plan.changes
    assert codes(plan.outcomes[0]) == ["applied"] and plan.outcomes[0].applied
    assert codes(plan.outcomes[1]) == ["applied"] and plan.outcomes[1].applied


def test_applied_insertion_is_not_repeated(root: Path, tx) -> None:
    (root / "a.py").write_text("import os\nimport sys\n\nx = 1\n")
    t = tx()
    plan = plan_changes([t.modify("a.py", ("import os\n", "import os\nimport sys\n"))],
                        Workspace(root))
    assert plan.ok and not plan.changes and plan.outcomes[0].applied


def test_noop_edit(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\n")
    t = tx()
    a = t.modify("a.py", ("x = 1\n", "x = 1\n"))
    plan = plan_changes([a], Workspace(root))
    assert plan.ok and not plan.changes
    assert codes(plan.outcomes[0]) == ["noop-edit"]


def test_new_syntax_error_blocks_unless_forced(root: Path, tx) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    t = tx()
    a = t.modify("a.py", ("    return 1\n", "    return (1\n"))
    plan = plan_changes([a], Workspace(root))
    assert not plan.ok
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "new-syntax-error" and d.severity is None  # the registry's: error
    forced = plan_changes([a], Workspace(root), force=True)
    assert forced.ok and codes(forced.outcomes[0]) == ["new-syntax-error"]
    assert forced.changes[0].new_text == "def f():\n    return (1\n"


def test_break_repaired_by_a_later_action_is_not_reported(root: Path, tx) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    t = tx()
    plan = plan_changes(
        [t.modify("a.py", ("    return 1\n", "    return (1\n")),
         t.modify("a.py", ("    return (1\n", "    return (1)\n"))],
        Workspace(root),
    )
    assert plan.ok and plan.changes[0].new_text == "def f():\n    return (1)\n"
    assert codes(plan.outcomes[0]) == [] and codes(plan.outcomes[1]) == []


def test_new_syntax_error_in_a_chain_of_edits_of_one_file(root: Path, tx) -> None:
    # The plan keeps the file's parse from edit to edit (syntax/reparse.py): the edit that
    # breaks the file is still the one reported, after others that did not, with non-ASCII
    # text before each edit (byte and code-point offsets differ) and a multi-line edit.
    (root / "a.py").write_text("# é ü 😀\ndef f():\n    return 1\n\n\ndef g():\n    return 'ö'\n")
    t = tx()
    plan = plan_changes(
        [t.modify("a.py", ("    return 1\n", "    x = 'ä'\n    return x\n")),
         t.modify("a.py", ("def g():\n", "def g(y='ß'):\n")),
         t.modify("a.py", ("    return 'ö'\n", "    return ('ö'\n")),
         t.modify("a.py", ("    x = 'ä'\n", "    x = 'å'\n"))],
        Workspace(root),
    )
    assert [codes(o) for o in plan.outcomes] == [[], [], ["new-syntax-error"], []]
    assert "line 8" in plan.outcomes[2].diagnostics[0].message
    assert not plan.outcomes[2].ok and plan.outcomes[3].ok


def test_non_file_actions_are_skipped(root: Path, tx) -> None:
    t = tx()
    plan = plan_changes([t.other(), t.create("a.txt", "x")], Workspace(root))
    assert plan.ok and plan.outcomes[0].skipped and not plan.outcomes[1].skipped


def test_only_selected(root: Path, tx) -> None:
    t = tx()
    plan = plan_changes([t.create("a.txt", "a"), t.create("b.txt", "b")], Workspace(root),
                        only={1})
    assert [c.rel for c in plan.changes] == ["b.txt"]
    assert plan.outcomes[0].skipped


@pytest.mark.parametrize("bad,code", [
    ("../out.txt", "path-traversal"),
    ("/etc/passwd", "absolute-path"),
    ("~/x", "absolute-path"),
    ("C:\\x", "absolute-path"),
    ("a\x00b", "invalid-path"),
    ("", "invalid-path"),
])
def test_bad_paths(root: Path, tx, bad: str, code: str) -> None:
    t = tx()
    plan = plan_changes([t.create(bad, "x")], Workspace(root))
    assert codes(plan.outcomes[0]) == [code]


def test_symlink_escapes(root: Path, tmp_path: Path, tx) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    t = tx()
    plan = plan_changes(
        [t.modify("link.txt", ("s\n", "t\n")), t.create("linkdir/new.txt", "x"),
         t.create("linkdir/../../outside/z", "x")],
        Workspace(root),
    )
    assert [codes(o) for o in plan.outcomes] == [["path-traversal"]] * 3
    assert not plan.changes


def test_symlink_inside_is_followed(root: Path, tx) -> None:
    (root / "real.txt").write_text("a\n")
    os.symlink(root / "real.txt", root / "alias.txt")
    t = tx()
    plan = plan_changes([t.modify("alias.txt", ("a\n", "b\n"))], Workspace(root))
    assert plan.ok and plan.changes[0].path == (root / "real.txt").resolve()


def test_extra_roots(root: Path, tmp_path: Path, tx) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "lib.txt").write_text("v1\n")
    t = tx()
    plan = plan_changes([t.modify("lib.txt", ("v1\n", "v2\n"))], Workspace(root, [other]))
    assert plan.ok and plan.changes[0].path == (other / "lib.txt").resolve()


def test_not_utf8_refused(root: Path, tx) -> None:
    (root / "l1.txt").write_bytes("café\n".encode("latin-1"))
    t = tx()
    plan = plan_changes([t.modify("l1.txt", ("caf", "x"))], Workspace(root))
    assert not plan.ok and "not UTF-8" in plan.outcomes[0].diagnostics[0].message
    assert plan.outcomes[0].diagnostics[0].code == "file-unreadable"


def test_read_override(root: Path, tx) -> None:
    (root / "a.py").write_text("x = 1\n")
    ws = Workspace(root, read_override=lambda p: "x = 2\n" if p.name == "a.py" else None)
    t = tx()
    plan = plan_changes([t.modify("a.py", ("x = 2\n", "x = 3\n"))], ws)
    assert plan.ok and plan.changes[0].new_text == "x = 3\n"


def test_workspace_diagnostics(root: Path, tx) -> None:
    t = tx()
    diags = workspace_diagnostics([t.modify("nope.py", ("a", "b"))], Workspace(root))
    assert [d.code for d in diags] == ["file-not-found"]


def test_diff_round_trips_through_unidiff(root: Path, tx) -> None:
    from unidiff import PatchSet

    (root / "a.txt").write_text("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\nend")
    (root / "c.txt").write_bytes(b"x\r\ny\r\n")
    t = tx()
    plan = plan_changes(
        [t.modify("a.txt", ("2\n", "two\n"), ("end", "END")), t.create("b/new.txt", "n1\nn2"),
         t.modify("c.txt", ("y\n", "why\n"))],
        Workspace(root),
    )
    text = unified_diff(plan)
    patch = PatchSet(text)
    assert [p.path for p in patch] == ["a.txt", "b/new.txt", "c.txt"]
    assert patch[1].is_added_file and patch[1].source_file == "/dev/null"
    assert "--- a/a.txt\n+++ b/a.txt\n" in text
    assert "-end\n\\ No newline at end of file\n+END\n\\ No newline at end of file\n" in text
    assert "+why\r\n" in text
    assert patch[0].added == 2 and patch[0].removed == 2


def test_blockers_are_found_per_action_as_by_reading_them_all() -> None:
    """The index that finds the diagnostic blocking each action (a plan of 100,000 actions
    read every blocker per action: minutes on a 50 MB transcript) picks the same one as the
    plain search, overlaps, nesting, empty spans and ties included."""
    import random

    from action_lsp.edit.plan import _blocker, _Blockers
    from action_lsp.model import Action, ActionKind, Diagnostic, Span

    rng = random.Random(3)
    for _ in range(300):
        blockers = []
        for _ in range(rng.randint(0, 12)):
            start = rng.randint(0, 60)
            blockers.append(Diagnostic("bad-json", "x", Span(start, start + rng.choice([0, 1, 3, 10, 40]))))
        index = _Blockers(blockers)
        for _ in range(20):
            start = rng.randint(0, 70)
            span = Span(start, start + rng.choice([0, 1, 5, 20]))
            action = Action("xml-tags", "create_file", ActionKind.CREATE_FILE, span, span)
            assert index.of(action) is _blocker(action, blockers)


def _outcomes(plan) -> list[tuple]:
    return [
        (o.action_index, o.ok, o.applied, o.skipped, o.reason, o.strategies,
         [(d.code, d.message, d.span, d.severity) for d in o.diagnostics])
        for o in plan.outcomes
    ]


def test_a_check_only_plan_finds_what_the_full_plan_finds(tmp_path: Path) -> None:
    """The server's workspace checks plan without the changes (no composed edits, no bytes:
    a large session's plan held every file it writes twice over); what they report is the same."""
    import shutil

    from action_lsp.document import analyze
    from action_lsp.edit.plan import blocking_diagnostics

    repo = Path(__file__).resolve().parents[2]
    ws_root = tmp_path / "ws"
    shutil.copytree(repo / "examples" / "workspace", ws_root)
    transcripts = sorted(p for p in (repo / "tests" / "fixtures").rglob("*") if p.suffix in {".md", ".jsonl", ".json", ".traj"})
    transcripts.append(ws_root / "transcript.md")
    planned = 0
    for path in transcripts:
        analysis = analyze(path.read_text(encoding="utf-8"))
        if not any(a.kind.is_file_action for a in analysis.actions):
            continue
        blockers = blocking_diagnostics(analysis.diagnostics)
        full = plan_changes(analysis.actions, Workspace(ws_root), blockers=blockers)
        check = plan_changes(analysis.actions, Workspace(ws_root), blockers=blockers, check_only=True)
        assert _outcomes(check) == _outcomes(full), path
        assert not check.changes and all(o.change is None for o in check.outcomes)
        planned += 1
    assert planned >= 20


def test_a_plan_resolves_each_path_once(root: Path, tx, monkeypatch: pytest.MonkeyPatch) -> None:
    """A session writes the same few files thousands of times: each action's path was resolved
    on disk again (a realpath and an lstat per component), most of a large session's check."""
    t = tx()
    actions = [t.create("src/app.py", "x = 0\n")]
    actions += [t.modify("src/app.py", (f"x = {i}\n", f"x = {i + 1}\n")) for i in range(30)]
    actions += [t.create(f"docs/{i % 3}.md", "hi\n") for i in range(9)]
    ws = Workspace(root)
    resolved: list[Path] = []
    real = Path.resolve

    def counting(self: Path, strict: bool = False) -> Path:
        resolved.append(self)
        return real(self, strict)

    monkeypatch.setattr(Path, "resolve", counting)
    plan = plan_changes(actions, ws)
    assert [o.ok for o in plan.outcomes[:31]] == [True] * 31
    assert sorted(map(str, resolved)) == sorted(str(root / p) for p in ["src/app.py", "docs/0.md", "docs/1.md", "docs/2.md"])
