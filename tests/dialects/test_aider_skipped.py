"""The edits Aider skipped: before it applies a reply, Aider asks to create a file that does not
exist ("Allow creation of new file PATH?") or to edit one not added to the chat, and on a no it
writes ``Skipping edits to PATH`` into the history and applies none of the reply's edits to that
file (``Coder.allowed_to_edit`` in Aider's ``aider/coders/base_coder.py``; also for a file that
matches ``.gitignore``). Those blocks are shown failed, never applied: found replaying Aider's own
4 MB chat history, where ``apply --write`` created the ``show_greeting.py`` its user had refused."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind

WHOLE = (
    "#### hi  \n\n"
    "show_greeting.py\n```\nimport sys\n\nprint('Hey', sys.argv[1])\n```\n\n"
    "I've updated the greeting.\n\n"
    "> Tokens: 206 sent, 85 received.  \n"
)
REFUSED = "> Allow creation of new file show_greeting.py? n  \n> Skipping edits to show_greeting.py  \n"
AFTER = "\n#### thanks  \n\nYou're welcome!\n"

DIFF = (
    "#### make it smaller  \n\n"
    "src/a.js\n```js\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 40;\n>>>>>>> REPLACE\n```\n\n"
    "src/b.js\n```js\n<<<<<<< SEARCH\nconst W = 6;\n=======\nconst W = 4;\n>>>>>>> REPLACE\n```\n\n"
    "> Tokens: 13k sent, 2.3k received.  \n"
    "> Allow edits to src/b.js which was not previously added to chat? n  \n"
    "> Skipping edits to src/b.js  \n"
    "> Applied edit to src/a.js  \n"
)


def _failed(text: str) -> list[tuple[str | None, bool]]:
    return [(a.path, a.failure is not None) for a in analyze(text).actions]


def test_a_whole_file_aider_skipped_is_shown_failed() -> None:
    (a,) = analyze(WHOLE + REFUSED + AFTER).actions
    assert a.kind == ActionKind.OTHER
    assert a.failure is not None and "Skipping edits to show_greeting.py" in a.failure
    # without the refusal it is the write it always was
    (b,) = analyze(WHOLE + AFTER).actions
    assert b.kind == ActionKind.WRITE_FILE and b.failure is None
    # the last turn of a history too
    assert _failed(WHOLE + REFUSED) == [("show_greeting.py", True)]


def test_only_the_skipped_file_of_a_reply_is_failed() -> None:
    assert _failed(DIFF + AFTER) == [("src/a.js", False), ("src/b.js", True)]
    # a skip in a later turn is not about this reply
    later = DIFF.replace("> Skipping edits to src/b.js  \n", "") + "\n#### again  \n\n> Skipping edits to src/b.js  \n"
    assert _failed(later) == [("src/a.js", False), ("src/b.js", False)]


def test_a_gitignored_file_aider_skipped_is_shown_failed() -> None:
    text = DIFF.replace("> Skipping edits to src/b.js  \n", "> Skipping edits to src/b.js that matches gitignore spec.  \n")
    assert _failed(text + AFTER) == [("src/a.js", False), ("src/b.js", True)]


def _apply_writes_nothing(tmp_path: Path, text: str) -> None:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    history = root / ".aider.chat.history.md"
    history.write_text(text, encoding="utf-8")
    assert main(["apply", "--write", str(history)]) == 0
    assert not (root / "show_greeting.py").exists()


def test_apply_never_writes_what_aider_skipped(tmp_path: Path) -> None:
    _apply_writes_nothing(tmp_path, WHOLE + REFUSED + AFTER)


def test_typing_the_refusal_in_marks_the_block_failed_and_removing_it_unmarks() -> None:
    for text, at in ((WHOLE + AFTER, len(WHOLE)), (WHOLE, len(WHOLE)), (DIFF + AFTER, DIFF.index("> Applied"))):
        doc = IncrementalDocument(text)
        before = [a.failure is not None for a in doc.analysis().actions]
        skip = REFUSED if text.startswith(WHOLE) else "> Skipping edits to src/b.js  \n"
        doc.edit(at, at, skip)
        assert [a.failure is not None for a in doc.analysis().actions] == [
            a.failure is not None for a in analyze(doc.text).actions]
        assert any(a.failure is not None for a in doc.analysis().actions)
        doc.edit(at, at + len(skip), "")
        assert [a.failure is not None for a in doc.analysis().actions] == before


# The user pressed Ctrl-C at Aider's prompt after the reply ("Allow creation of new file ...?",
# "Edit the files?"): Aider writes `^C again to exit` / `^C KeyboardInterrupt` and applies nothing
# (no `Applied edit to` line follows). Found in Aider's own 4 MB history (L85456).
INTERRUPTED = ">  \n>  \n> ^C again to exit  \n>  \n>  \n> ^C KeyboardInterrupt  \n"
STARTED = "\n# aider chat started at 2024-08-19 16:20:52\n\n> Aider v0.50.2-dev  \n"


def test_a_reply_interrupted_before_aider_applied_it_is_shown_failed() -> None:
    (a,) = analyze(WHOLE + INTERRUPTED + STARTED).actions
    assert a.failure is not None and "^C" in a.failure
    assert _failed(WHOLE + INTERRUPTED) == [("show_greeting.py", True)]
    assert _failed(DIFF.replace("> Applied edit to src/a.js  \n", "").replace(
        "> Skipping edits to src/b.js  \n", "") + INTERRUPTED + AFTER) == [("src/a.js", True), ("src/b.js", True)]


def test_an_interrupt_after_aider_applied_the_reply_changes_nothing() -> None:
    # Applied first, then Ctrl-C (at the next prompt, during a lint or test): the edit happened.
    assert _failed(DIFF + INTERRUPTED + AFTER) == [("src/a.js", False), ("src/b.js", True)]
    # an interrupt in a later turn is not about this reply
    assert _failed(WHOLE + AFTER + INTERRUPTED) == [("show_greeting.py", False)]
    # nor one after the next session's start
    assert _failed(WHOLE + STARTED + INTERRUPTED) == [("show_greeting.py", False)]


def test_apply_never_writes_a_reply_whose_turn_was_interrupted(tmp_path: Path) -> None:
    _apply_writes_nothing(tmp_path, WHOLE + INTERRUPTED + STARTED)


def test_typing_the_interrupt_in_marks_the_block_failed() -> None:
    doc = IncrementalDocument(WHOLE + AFTER)
    assert doc.analysis().actions[0].failure is None
    doc.edit(len(WHOLE), len(WHOLE), INTERRUPTED)
    assert doc.analysis().actions[0].failure is not None
    assert [a.failure for a in doc.analysis().actions] == [a.failure for a in analyze(doc.text).actions]
