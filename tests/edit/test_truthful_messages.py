"""Messages that say what is there: a directory is named as a directory, and a git copy is
reported, never silently dropped."""

from __future__ import annotations

from pathlib import Path

from action_lsp.document import analyze
from action_lsp.edit import Workspace, plan_changes
from action_lsp.model import ActionKind


def test_deleting_a_directory_says_it_is_a_directory(tmp_path: Path, tx) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "build").mkdir()
    plan = plan_changes([tx().delete("build")], Workspace(tmp_path))
    (outcome,) = plan.outcomes
    assert not outcome.ok
    assert [d.message for d in outcome.diagnostics] == ["build is a directory; only files are deleted"]
    assert (tmp_path / "build").is_dir()


def test_renaming_a_directory_says_it_is_a_directory(tmp_path: Path, tx) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "src").mkdir()
    t = tx()
    a = t.action(ActionKind.RENAME_FILE, "src", to="lib")
    plan = plan_changes([a], Workspace(tmp_path))
    (outcome,) = plan.outcomes
    assert not outcome.ok
    assert [d.message for d in outcome.diagnostics] == ["src is a directory; only files are renamed"]


def test_a_missing_file_still_does_not_exist(tmp_path: Path, tx) -> None:  # type: ignore[no-untyped-def]
    a = tx().action(ActionKind.RENAME_FILE, "gone.txt", to="b.txt")
    plan = plan_changes([a], Workspace(tmp_path))
    assert [d.message for d in plan.outcomes[0].diagnostics] == ["gone.txt does not exist"]


def test_deleting_a_missing_file_says_it_is_already_deleted(tmp_path: Path, tx) -> None:  # type: ignore[no-untyped-def]
    """On the transcript's timeline a deletion whose file is gone is history, not an error."""
    plan = plan_changes([tx().delete("gone.txt")], Workspace(tmp_path))
    (outcome,) = plan.outcomes
    assert outcome.ok and outcome.applied
    assert [(d.code, d.message) for d in outcome.diagnostics] == [("applied", "gone.txt is already deleted")]


COPY = """\
```diff
diff --git a/src/a.py b/src/b.py
similarity index 90%
copy from src/a.py
copy to src/b.py
--- a/src/a.py
+++ b/src/b.py
@@ -1,2 +1,2 @@
 x = 1
-y = 2
+y = 3
```
"""

PURE_COPY = """\
```diff
diff --git a/src/a.py b/src/b.py
similarity index 100%
copy from src/a.py
copy to src/b.py
```
"""


def test_a_git_copy_is_reported_and_not_applied_to_the_copy_s_name() -> None:
    """``copy from``/``copy to`` were read as a modify of the copy (with a warning about two
    names), or, with no hunks, dropped without a word."""
    for text in (COPY, PURE_COPY):
        analysis = analyze(text)
        assert analysis.actions == []
        (d,) = [d for d in analysis.diagnostics if d.code == "bad-patch"]
        assert "copy" in d.message and "src/a.py" in d.message and "src/b.py" in d.message
        assert "not applied" in d.message
        assert text[d.span.start : d.span.end].startswith("copy from src/a.py")
