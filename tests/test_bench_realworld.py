"""The real-world scorer (``bench/bench_realworld.py``) scores what its labels say.

These tests check the scorer, not action-lsp's recall: a labelled file scored against its own
labels is perfect, a false action lowers precision, a missed edit lowers recall, and the whole
run over the committed real transcripts (``tests/fixtures/realworld``) reports every labelled
edit. They never pin today's numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bench_modules import bench_module

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "realworld"


def _label(path: str) -> Any:
    b = bench_module("bench_realworld")
    return next(lb for lb in b.load_labels(FIXTURES / "labels.toml") if lb.path == path)


def test_every_committed_fixture_is_labelled_and_exists() -> None:
    b = bench_module("bench_realworld")
    labels = b.load_labels(FIXTURES / "labels.toml")
    labelled = {lb.path for lb in labels}
    on_disk = {
        str(p.relative_to(FIXTURES))
        for p in FIXTURES.rglob("*")
        if p.is_file() and p.name not in ("labels.toml", "README.md", "LICENSE")
    }
    assert labelled == on_disk
    assert sum(lb.expected for lb in labels) > 0  # files without edits check precision only


def test_a_file_scored_against_its_own_labels_is_perfect() -> None:
    b = bench_module("bench_realworld")
    label = _label("aider-website/semantic-search-replace.md")
    found = [b.Edit(e.kind, e.path, e.failed, line=1) for e in label.edits]
    result = b.score(label, found)
    assert (result.score.expected, result.score.found, result.score.matched) == (3, 3, 3)
    assert result.score.recall == 1.0 and result.score.precision == 1.0
    assert not result.missed and not result.extra


def test_a_false_action_lowers_precision_and_a_miss_lowers_recall() -> None:
    b = bench_module("bench_realworld")
    label = _label("aider-website/hello-world-flask.md")  # 4 edits of app.py
    found = [
        b.Edit("modify", "app.py", line=20),
        b.Edit("modify", "./app.py", line=40),
        b.Edit(
            "modify", "SearchReplaceNoExactMatch: in app.py", line=60
        ),  # an echo read as an edit
    ]
    s = b.score(label, found).score
    assert (s.expected, s.found, s.matched) == (4, 3, 2)
    assert s.recall == 0.5
    assert s.precision == pytest.approx(2 / 3)


def test_paths_match_by_suffix_and_kinds_by_class() -> None:
    b = bench_module("bench_realworld")
    label = b.Label(
        path="x",
        format="f",
        edits=[
            b.Edit("write", "src/app.py"),
            b.Edit("create", "c:\\Apps\\Proj\\lib\\auth.ts"),
            b.Edit("create", "new.py", alt="modify"),
            b.Edit("modify", "main.py", failed=True),
        ],
    )
    found = [
        b.Edit("create", "/home/u/proj/src/app.py"),  # absolute, and create for write: same class
        b.Edit("write", "C:/Apps/Proj/lib/auth.ts"),  # drive letter and slashes normalized
        b.Edit("modify", "new.py"),  # the label accepts either kind
        b.Edit("modify", "xmain.py", failed=True),  # not a /-suffix: no match
    ]
    result = b.score(label, found)
    assert result.score.matched == 3
    assert [e.path for e in result.missed] == ["main.py"]
    assert result.score.kind_differs == 2
    assert result.score.failed_shown == 0 and result.score.expected_failed == 1


def test_failed_edits_count_only_when_shown_failed() -> None:
    b = bench_module("bench_realworld")
    label = b.Label(
        path="x",
        format="f",
        edits=[b.Edit("modify", "a.py", failed=True), b.Edit("modify", "a.py")],
    )
    shown = b.score(label, [b.Edit("modify", "a.py", failed=True), b.Edit("modify", "a.py")]).score
    hidden = b.score(label, [b.Edit("modify", "a.py"), b.Edit("modify", "a.py")]).score
    assert (shown.matched, shown.failed_shown) == (2, 1)
    assert (hidden.matched, hidden.failed_shown) == (2, 0)


def test_a_labelled_line_range_ignores_actions_outside_it() -> None:
    b = bench_module("bench_realworld")
    label = b.Label(path="x", format="f", counts={"modify": 2}, lines=(10, 20))
    found = [
        b.Edit("modify", None, line=5),
        b.Edit("modify", None, line=15),
        b.Edit("write", None, line=30),
    ]
    s = b.score(label, found).score
    assert (s.expected, s.found, s.matched) == (2, 1, 1)


def test_counts_only_labels_match_per_class() -> None:
    b = bench_module("bench_realworld")
    label = b.Label(path="x", format="f", counts={"create": 1, "modify": 2})
    found = [b.Edit("write", "a"), b.Edit("modify", "b"), b.Edit("delete", "c")]
    result = b.score(label, found)
    assert (result.score.matched, len(result.missed), len(result.extra)) == (2, 1, 1)


def test_malformed_labels_are_refused_with_the_entry_named(tmp_path: Path) -> None:
    b = bench_module("bench_realworld")
    bad = tmp_path / "labels.toml"
    bad.write_text(
        '[[file]]\npath = "a.md"\nformat = "f"\nedits = [{ kind = "edit", path = "x" }]\n'
    )
    with pytest.raises(ValueError, match=r"a\.md.*unknown kind 'edit'"):
        b.load_labels(bad)


def test_the_run_over_the_committed_transcripts_reports_every_labelled_edit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    b = bench_module("bench_realworld")
    labels = b.load_labels(FIXTURES / "labels.toml")
    assert b.main([str(FIXTURES), str(FIXTURES / "labels.toml"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["overall"]["expected"] == sum(lb.expected for lb in labels)
    assert {f["path"] for f in report["files"]} == {lb.path for lb in labels}
    for f in report["files"]:
        assert f["error"] == ""
        assert f["matched"] <= min(f["expected"], f["found"])
        assert len(f["missed"]) == f["expected"] - f["matched"]
        assert len(f["false"]) == f["found"] - f["matched"]
    assert set(report["formats"]) == {lb.format for lb in labels}


def test_a_failed_call_counts_as_an_edit_shown_failed() -> None:
    b = bench_module("bench_realworld")
    records = [
        {
            "type": "assistant",
            "sessionId": "s",
            "cwd": "/w",
            "message": {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Edit",
                        "input": {"file_path": "/w/a.py", "old_string": "a", "new_string": "b"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "Read",
                        "input": {"file_path": "/w/missing.py"},
                    },
                ],
            },
        },
        {
            "type": "user",
            "sessionId": "s",
            "cwd": "/w",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": "not found",
                    },
                    {
                        "type": "tool_result",
                        "tool_use_id": "t2",
                        "is_error": True,
                        "content": "no file",
                    },
                ],
            },
        },
    ]
    text = "".join(json.dumps(r) + "\n" for r in records)
    found = b.found_edits(text)
    assert [(e.kind, e.path, e.failed) for e in found] == [("modify", "a.py", True)]  # under cwd /w
    label = b.Label(path="x", format="f", edits=[b.Edit("modify", "a.py", failed=True)])
    s = b.score(label, found).score
    assert (s.matched, s.failed_shown, s.expected_failed) == (1, 1, 1)
