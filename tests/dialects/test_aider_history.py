"""What Aider writes into its chat history around the model's blocks: the echo of a block that
failed, its "N SEARCH/REPLACE blocks failed to match!" report (the blocks it names are shown
failed, never applied), and the output of ``/run`` pasted into the history. The texts are
written after the shapes of real ``.aider.chat.history.md`` files: Aider quotes the first line of
a multi-line tool message (``> ``) and writes the rest of it as it is."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import DialectSet, file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind

AIDER = DialectSet.named(["aider"])

REPLY = (
    "#### make the bubble smaller\n\n"
    "I'll change both files.\n\n"
    "src/bubble.js\n```js\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 40;\n>>>>>>> REPLACE\n```\n\n"
    "src/style.css\n```css\n<<<<<<< SEARCH\n.bubble { width: 60px; }\n=======\n.bubble { width: 40px; }\n"
    ">>>>>>> REPLACE\n```\n\n"
)
REPORT = (
    "> Tokens: 13k sent, 2.3k received.  \n"
    "> The LLM did not conform to the edit format.  \n"
    "> https://aider.chat/docs/troubleshooting/edit-errors.html  \n"
    "> # 1 SEARCH/REPLACE block failed to match!\n\n"
    "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/style.css\n"
    "<<<<<<< SEARCH\n.bubble { width: 60px; }\n=======\n.bubble { width: 40px; }\n>>>>>>> REPLACE\n\n"
    "Did you mean to match some of these actual lines from src/style.css?\n\n"
    "```\n.bubble { width: 60px; height: 60px; }\n```\n\n"
    "The SEARCH section must exactly match an existing block of lines including all white space, "
    "comments, indentation, docstrings, etc\n\n"
    "# The other 1 SEARCH/REPLACE block were applied successfully.\n"
    "Don't re-send them.\n"
    "Just reply with fixed versions of the block above that failed to match.  \n\n"
)
RETRY = (
    "I see, here is the fixed block:\n\n"
    "src/style.css\n```css\n<<<<<<< SEARCH\n.bubble { width: 60px; height: 60px; }\n=======\n"
    ".bubble { width: 40px; height: 40px; }\n>>>>>>> REPLACE\n```\n\n"
    "> Tokens: 14k sent, 200 received.  \n"
    "> Applied edit to src/style.css  \n"
)
HISTORY = REPLY + REPORT + RETRY


def _summary(text: str) -> list[tuple[str | None, str, bool]]:
    return [(a.path, a.kind.value, a.failure is not None) for a in analyze(text, AIDER).actions]


def test_the_echo_of_a_failed_block_is_no_new_action() -> None:
    analysis = analyze(HISTORY)
    paths = [a.path for a in analysis.actions]
    assert paths == ["src/bubble.js", "src/style.css", "src/style.css"]
    assert {d.code for d in analysis.diagnostics} == {"tool-error"}  # a hint: no invalid-path


def test_the_blocks_aider_reported_failed_are_shown_failed() -> None:
    analysis = analyze(HISTORY, AIDER)
    bubble, failed, retry = analysis.actions
    assert (bubble.kind, bubble.failure) == (ActionKind.MODIFY_FILE, None)  # applied: as it was
    assert retry.kind == ActionKind.MODIFY_FILE and retry.failure is None  # a later reply
    assert failed.kind == ActionKind.OTHER and file_view(failed) is None  # never applied
    assert failed.failure is not None and "src/style.css" in failed.failure
    (hint,) = [d for d in analysis.diagnostics if d.code == "tool-error"]
    assert HISTORY[hint.span.start : hint.span.end] == "<<<<<<< SEARCH"
    assert hint.span.start > HISTORY.index("src/style.css") and hint.span.end < len(REPLY)
    (where, _), = hint.related
    assert HISTORY[where.start : where.end].startswith("## SearchReplaceNoExactMatch")


def test_apply_never_writes_a_block_aider_reported_failed(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "src").mkdir()
    (root / "src" / "bubble.js").write_text("const SIZE = 60;\n")
    # The failed block's SEARCH text is in the file here: only the report keeps it unapplied.
    (root / "src" / "style.css").write_text(".bubble { width: 60px; }\n")
    t = tmp_path / "history.md"
    t.write_text(REPLY + REPORT)
    main(["apply", "--root", str(root), "--write", str(t)])
    assert (root / "src" / "bubble.js").read_text() == "const SIZE = 40;\n"
    assert (root / "src" / "style.css").read_text() == ".bubble { width: 60px; }\n"


def test_a_fully_quoted_report_of_older_aider_versions_marks_the_block_failed() -> None:
    quoted = "".join(
        "> " + line + "  \n" if line else ">  \n" for line in REPORT.replace("> ", "", 4).rstrip("\n").split("\n")
    )
    text = REPLY + quoted + "\n" + RETRY
    assert _summary(text) == [
        ("src/bubble.js", "modify_file", False),
        ("src/style.css", "other", True),
        ("src/style.css", "modify_file", False),
    ]


def test_an_echo_names_a_block_by_its_file_and_search_text() -> None:
    # The report names the css block: the js block of the same reply is not failed, nor is a
    # block of an earlier reply with the same text (a user message lies between).
    earlier = REPLY.replace("make the bubble smaller", "first try")
    text = earlier + "> Applied edit to src/style.css  \n\n" + REPLY + REPORT
    assert [f for _, _, f in _summary(text)] == [False, False, False, True]
    # A report that names no block of the reply changes nothing.
    other = REPORT.replace("src/style.css", "src/other.css")
    assert [f for _, _, f in _summary(REPLY + other)] == [False, False]


def test_a_report_after_a_user_message_is_not_about_the_reply_before_it() -> None:
    text = REPLY + "#### /undo  \n> Removed: abc123  \n\n" + REPORT
    assert [f for _, _, f in _summary(text)] == [False, False]


def test_typing_the_report_in_marks_the_block_failed_and_removing_it_unmarks() -> None:
    text = REPLY + "Some prose after the reply.\n" * 40
    doc = IncrementalDocument(text, AIDER)
    at = len(REPLY)
    doc.edit(at, at, REPORT)
    assert [a.failure is not None for a in doc.analysis().actions] == [False, True]
    assert [a.failure is not None for a in analyze(doc.text, AIDER).actions] == [False, True]
    doc.edit(at, at + len(REPORT), "")
    assert [a.failure is not None for a in doc.analysis().actions] == [False, False]
    # Editing the echo's file name re-reads it.
    doc = IncrementalDocument(HISTORY, AIDER)
    heading = HISTORY.index("lines in src/style.css") + len("lines in ")
    doc.edit(heading, heading + len("src/style.css"), "src/x.css")
    assert [a.failure is not None for a in doc.analysis().actions] == [False, False, False]


# --- a reply Aider rejected -------------------------------------------------------------------

REJECTED = (
    "#### add the time zone\n\n"
    "Here's the change:\n\n"
    "app/clock.py\n```python\n<<<<<<< SEARCH\n    dt = now()\n=======\n    dt = now().astimezone()\n"
    "=======\n\nThis adds the offset.\n\n"
    "> Tokens: 19,537 sent, 217 received.  \n"
    "> The LLM did not conform to the edit format.  \n"
    "> https://aider.chat/docs/troubleshooting/edit-errors.html  \n"
    "> Here's the change:\n\n"
    "app/clock.py\n```python\n<<<<<<< SEARCH\n    dt = now()\n=======\n    dt = now().astimezone()\n"
    "=======\n\n"
    "^^^ Expected `>>>>>>> REPLACE` not `=======  \n\n"
)


def test_a_reply_aider_rejected_is_failed_and_its_echo_is_no_action() -> None:
    analysis = analyze(REJECTED)
    (a,) = analysis.actions  # the echo of the reply (after `> Here's the change:`) is none
    assert a.span.end < REJECTED.index("> Tokens")
    assert a.kind == ActionKind.OTHER and a.failure is not None and "Expected" in a.failure
    assert {d.code for d in analysis.diagnostics} <= {"tool-error", "bad-marker"}
    # Fully quoted, as older Aider versions wrote it: the same.
    head, _, tail = REJECTED.partition("> Here's the change:\n")
    quoted = "".join(f"> {line}  \n" for line in ("Here's the change:\n" + tail).rstrip("\n").split("\n"))
    (a,) = analyze(head + quoted).actions
    assert a.failure is not None


# --- /run and /test output --------------------------------------------------------------------

RUN = (
    "#### /run git diff a162  \n"
    "> diff --git a/app/args.py b/app/args.py\n"
    "index 8b0b2fa0..4c6c5334 100644\n"
    "--- a/app/args.py\n"
    "+++ b/app/args.py\n"
    "@@ -358,3 +358,3 @@ def get_parser():\n"
    "     group.add_argument(\n"
    '-        "--attribute-commit-message",\n'
    '+        "--attribute-commit-message-author",\n'
    "diff --git a/app/main.py b/app/main.py\n"
    "--- a/app/main.py\n"
    "+++ b/app/main.py\n"
    "@@ -1,1 +1,1 @@\n"
    "-x = 1\n"
    "+x = 2  \n"
    "> Add the output to the chat?\n"
    "(y/n/instructions) update the release notes  \n"
    "> diff --git a/app/args.py b/app/args.py  \n"
    "> index 8b0b2fa0..4c6c5334 100644  \n"
    "> --- a/app/args.py  \n\n"
)
TEST = (
    "#### /test pytest tests/test_app.py  \n"
    "> ============================= test session starts ==============================\n"
    "collected 1 item\n\n"
    "tests/test_app.py F\n\n"
    "    def test_it():\n"
    ">       assert f() == 2\n"
    "E       assert 1 == 2\n"
    "========================= 1 failed in 0.03s ==========================  \n"
    "> ============================= test session starts ==============================  \n\n"
    "The test fails because `f` returns 1. Here is the fix:\n\n"
    "app/f.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n\n"
    "> Tokens: 2k sent, 80 received.  \n"
    "> Applied edit to app/f.py  \n"
)


def test_run_output_in_the_history_is_no_action() -> None:
    analysis = analyze(RUN)
    assert analysis.actions == [] and analysis.diagnostics == []


def test_the_reply_after_test_output_still_gives_its_blocks() -> None:
    analysis = analyze(TEST)
    assert [(a.path, a.kind) for a in analysis.actions] == [("app/f.py", ActionKind.MODIFY_FILE)]
    assert analysis.diagnostics == []


def test_a_quote_in_an_ordinary_document_hides_nothing() -> None:
    text = (
        "> As the README says:\n"
        "src/app.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n\n"
        "diff --git a/b.py b/b.py\n--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-a\n+b\n"
    )
    assert [a.path for a in analyze(text).actions] == ["src/app.py", "b.py"]


def test_typing_in_run_output_keeps_it_no_action() -> None:
    doc = IncrementalDocument(RUN + TEST)
    at = RUN.index("+x = 2")
    doc.edit(at, at, "+y = 3\n")
    assert [a.path for a in doc.analysis().actions] == ["app/f.py"]
    assert [a.path for a in analyze(doc.text).actions] == ["app/f.py"]
    first = RUN.index("> diff --git")
    doc.edit(first, first + 2, "")  # the output's first line no longer quoted: not Aider's output
    assert [a.path for a in doc.analysis().actions] == [a.path for a in analyze(doc.text).actions]


# --- a block that names no file ---------------------------------------------------------------


def test_a_block_naming_no_file_in_a_history_is_shown_never_applied() -> None:
    # A reasoning model in the whole format wrote a bare block after its reasoning; Aider's
    # output follows it and no "Applied edit": Aider never applies a block without a file name.
    text = (
        "#### please continue  \n\n"
        "Here is the corrected version of the SEARCH/REPLACE block:\n\n"
        "<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 40;\n>>>>>>> REPLACE\n\n"
        "This will allow the replacement to succeed.\n\n"
        "> Tokens: 7.8k sent, 971 received. Cost: $0.0014 message, $0.0014 session.  \n\n"
        "#### an error pops up  \n"
    )
    (a,) = analyze(text).actions
    assert a.kind == ActionKind.OTHER and file_view(a) is None
    assert a.failure is not None and "names no file" in a.failure
    # Written live (no output of Aider's after it) it stays the block with its missing file name.
    (b,) = analyze(text[: text.index("> Tokens")]).actions
    assert b.kind == ActionKind.MODIFY_FILE and b.failure is None
    assert "missing-field" in [d.code for d in analyze(text[: text.index("> Tokens")]).diagnostics]
