"""Aider's replies when hunks of its ``udiff`` / ``udiff-simple`` formats, or a ``patch``-format
reply, do not apply (the messages of ``aider/coders/udiff_coder.py`` and ``patch_coder.py``, as
Aider writes them into its chat history: the first line quoted, the rest as it is). What Aider
reported failed is shown failed and never applied; what it applied stays an edit; the echo of a
failed hunk is no new action."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind

APP = "import os\n\ndef one():\n    return 1\n\ndef two():\n    return 2\n"

REPLY = (
    "#### make both return strings  \n\n"
    "Here are the diffs for those changes:\n\n"
    "```diff\n"
    "--- app.py\n"
    "+++ app.py\n"
    "@@ ... @@\n"
    " def one():\n"
    "-    return 1\n"
    "+    return '1'\n"
    "@@ ... @@\n"
    " def three():\n"
    "-    return 3\n"
    "+    return '3'\n"
    "```\n\n"
)
NO_MATCH = (
    "> Tokens: 2.2k sent, 120 received.  \n"
    "> The LLM did not conform to the edit format.  \n"
    "> https://aider.chat/docs/troubleshooting/edit-errors.html  \n"
    "> UnifiedDiffNoMatch: hunk failed to apply!\n\n"
    "app.py does not contain lines that match the diff you provided!\n"
    "Try again.\n"
    "DO NOT skip blank lines, comments, docstrings, etc!\n"
    "The diff needs to apply cleanly to the lines in app.py!\n\n"
    "app.py does not contain these 2 exact lines in a row:\n"
    "```\n"
    "def three():\n"
    "    return 3\n"
    "```\n"
    "Note: some hunks did apply successfully. See the updated source code shown above.  \n\n"
)


def _summary(text: str) -> list[tuple[str | None, str, bool, int]]:
    return [(a.path, a.kind.value, a.failure is not None, len(a.edits)) for a in analyze(text).actions]


def test_the_hunk_aider_reported_failed_is_shown_failed_and_the_other_stays() -> None:
    assert _summary(REPLY + NO_MATCH) == [("app.py", "modify_file", False, 1), ("app.py", "other", True, 1)]
    applied, failed = analyze(REPLY + NO_MATCH).actions
    assert applied.edits[0].search.value == "def one():\n    return 1\n"
    assert file_view(failed) is None and failed.failure is not None and "app.py" in failed.failure
    # Without the report both hunks are one pending edit.
    assert _summary(REPLY + NO_MATCH[: NO_MATCH.index("> The LLM")]) == [("app.py", "modify_file", False, 2)]


def test_a_report_naming_every_hunk_fails_the_whole_file() -> None:
    both = NO_MATCH.replace("def three():\n    return 3\n", "def one():\n    return 1\n")
    both += both.replace("def one():\n    return 1\n", "def three():\n    return 3\n")
    assert _summary(REPLY + both) == [("app.py", "other", True, 2)]


def test_not_unique_is_a_failure_too_and_another_files_report_is_not() -> None:
    not_unique = (
        NO_MATCH.replace("UnifiedDiffNoMatch", "UnifiedDiffNotUnique")
        .replace("does not contain these 2 exact lines in a row", "contains multiple copies of these 2 lines")
    )
    assert [f for _, _, f, _ in _summary(REPLY + not_unique)] == [False, True]
    other = NO_MATCH.replace("app.py does not contain these", "lib.py does not contain these")
    assert [f for _, _, f, _ in _summary(REPLY + other)] == [False]


def test_apply_writes_only_the_hunks_aider_applied(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text(APP)
    t = tmp_path / "history.md"
    t.write_text(REPLY + NO_MATCH)
    main(["apply", "--root", str(root), "--write", str(t)])
    assert (root / "app.py").read_text() == APP.replace("return 1", "return '1'")


def test_typing_the_report_in_marks_the_hunk_failed() -> None:
    doc = IncrementalDocument(REPLY + "#### thanks  \n")
    assert [a.failure is not None for a in doc.analysis().actions] == [False]
    at = len(REPLY)
    doc.edit(at, at, NO_MATCH)
    assert [a.failure is not None for a in doc.analysis().actions] == [False, True]


PATCH = (
    "#### use sympy  \n\n"
    "*** Begin Patch\n"
    "*** Update File: app.py\n"
    "@@\n"
    "-import os\n"
    "+import sys\n"
    "*** Update File: lib.py\n"
    "@@\n"
    "-x = 1\n"
    "+x = 2\n"
    "*** Add File: hello.py\n"
    "+print('hi')\n"
    "*** End Patch\n\n"
    "> Tokens: 1k sent, 100 received.  \n"
    "> The LLM did not conform to the edit format.  \n"
    "> https://aider.chat/docs/troubleshooting/edit-errors.html  \n"
)


def test_a_patch_aider_could_not_parse_is_failed_whole() -> None:
    text = PATCH + "> Error parsing patch content: Invalid line prefix in update section: x = 1  \n"
    assert [(a.path, a.failure is not None) for a in analyze(text).actions] == [
        ("app.py", True), ("lib.py", True), ("hello.py", True)
    ]
    assert all(a.kind == ActionKind.OTHER for a in analyze(text).actions)


def test_a_patch_file_that_failed_to_apply_and_those_after_it_are_failed() -> None:
    text = PATCH + "> Error applying action 'update' to lib.py: Could not find context  \n"
    assert [(a.path, a.failure is not None) for a in analyze(text).actions] == [
        ("app.py", False), ("lib.py", True), ("hello.py", True)
    ]
    assert [(a.path, a.failure is not None) for a in analyze(PATCH).actions] == [
        ("app.py", False), ("lib.py", False), ("hello.py", False)
    ]
