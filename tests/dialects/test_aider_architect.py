"""Aider's architect mode: the architect's answer is a plan for the editor model, never applied;
only the editor's answer (after Aider quotes the architect's answer back as the editor's prompt,
in ``#### `` lines) is. Texts modelled on real ``.aider.chat.history.md`` files (architect +
editor-whole, ``/architect`` messages, auto-accepted or asked ``Edit the files?``)."""

from __future__ import annotations

import re
from pathlib import Path

from action_lsp.cli import main
from action_lsp.document import IncrementalDocument, analyze

PLAN = (
    "Okay, here are the instructions for your editor engineer:\n"
    "\n"
    "Modify `requirements.txt` to include the libraries:\n"
    "\n"
    "```diff\n"
    "--- a/requirements.txt\n"
    "+++ b/requirements.txt\n"
    "@@ -1 +1,2 @@\n"
    "-langchain[openai]\n"
    "+langchain\n"
    "+langgraph\n"
    "```\n"
    "\n"
    "And in `app.py`:\n"
    "\n"
    "app.py\n"
    "```python\n"
    "<<<<<<< SEARCH\n"
    "import os\n"
    "=======\n"
    "import os\n"
    "import langgraph\n"
    ">>>>>>> REPLACE\n"
    "```\n"
    "\n"
    "Let me know when these changes are complete.\n"
)


def _quoted(answer: str) -> str:
    """The answer as Aider logs it as the editor's prompt: `#### ` lines with two spaces."""
    return "".join(f"#### {line}  \n" for line in answer.rstrip("\n").split("\n"))


EDITOR = (
    "requirements.txt\n"
    "```\n"
    "langchain\n"
    "langgraph\n"
    "```\n"
    "\n"
    "> Tokens: 2.1k sent, 40 received.  \n"
    "> Applied edit to requirements.txt  \n"
)
TURN = (
    "#### /architect lets start implementing block number 1  \n"
    "\n"
    "#### lets start implementing block number 1  \n"
    "\n" + PLAN + "\n"
    "> Tokens: 9.9k sent, 682 received. Cost: $0.02 message, $0.16 session.  \n"
    "\n" + _quoted(PLAN) + "\n" + EDITOR
)


def _found(text: str) -> list[tuple[str | None, str]]:
    return [(a.path, a.kind.value) for a in analyze(text).actions]


def test_the_architects_blocks_are_no_actions_and_the_editors_are() -> None:
    assert _found(TURN) == [("requirements.txt", "write_file")]
    assert [d.code for d in analyze(TURN).diagnostics if d.severity is not None and d.severity.value <= 2] == []


def test_the_same_answer_not_quoted_back_is_an_ordinary_answer() -> None:
    # In code mode the same answer's blocks are edits: only the quote makes it the architect's.
    text = "#### add langgraph  \n\n" + PLAN + "\n> Tokens: 9.9k sent, 682 received.  \n\n#### thanks  \n"
    assert _found(text) == [("requirements.txt", "modify_file"), ("app.py", "modify_file")]


def test_a_declined_edit_the_files_question_marks_the_architect_too() -> None:
    # Without --auto-accept-architect Aider asks; declined, no quote follows at all.
    text = (
        "#### add langgraph  \n\n" + PLAN + "\n"
        "> Tokens: 9.9k sent, 682 received.  \n"
        "> Edit the files? (Y)es/(N)o [Yes]: n  \n\n"
        "#### no, use poetry instead  \n"
    )
    assert _found(text) == []


def test_an_architect_answer_that_made_aider_add_files_is_a_proposal_too() -> None:
    # The first answer mentions files; Aider adds them and asks again: the second answer is
    # the one quoted to the editor, the first one was never applied either.
    second = "Thanks for adding the files.\nNow update `requirements.txt` as planned.\n"
    text = (
        "#### /architect add langgraph  \n\n#### add langgraph  \n\n" + PLAN + "\n"
        "> Tokens: 9.9k sent, 682 received.  \n"
        "> requirements.txt  \n"
        "> Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: y  \n\n"
        + second + "\n> Tokens: 11k sent, 115 received.  \n\n" + _quoted(second) + "\n" + EDITOR
    )
    assert _found(text) == [("requirements.txt", "write_file")]


def test_apply_writes_only_what_the_editor_wrote(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "requirements.txt").write_text("langchain[openai]\n")
    (root / "app.py").write_text("import os\n")
    t = tmp_path / "history.md"
    t.write_text(TURN)
    main(["apply", "--root", str(root), "--write", str(t)])
    assert (root / "requirements.txt").read_text() == "langchain\nlanggraph\n"
    assert (root / "app.py").read_text() == "import os\n"


def test_typing_the_quote_in_and_out_changes_the_verdict() -> None:
    head = TURN[: TURN.index("#### Okay")]
    rest = TURN[TURN.index("#### Okay"):]
    unquoted = head + "#### thanks  \n\n" + EDITOR
    doc = IncrementalDocument(unquoted)
    assert [a.path for a in doc.analysis().actions] == ["requirements.txt", "app.py", "requirements.txt"]
    at = len(head)
    doc.edit(at, at + len("#### thanks  \n\n"), rest[: rest.index(EDITOR)])
    assert doc.text == TURN
    assert [a.path for a in doc.analysis().actions] == ["requirements.txt"]
    doc.edit(at, at + len(rest) - len(EDITOR), "#### thanks  \n\n")
    assert [a.path for a in doc.analysis().actions] == [a.path for a in analyze(doc.text).actions]
    assert len(doc.analysis().actions) == 3
    # Typed at the end of a history: the question, then the answer to it.
    doc = IncrementalDocument(head)
    assert len(doc.analysis().actions) == 2
    doc.edit(len(head), len(head), "> Edit the files? (Y)es/(N)o [Yes]: y  \n")
    assert doc.analysis().actions == []


def test_the_quote_is_compared_the_same_whatever_the_line_endings() -> None:
    # The quote is compared line by line backwards from the editor's prompt; a line ends at a
    # \n, a \r\n or a lone \r, and a history can mix them (an older part saved on Windows).
    crlf = TURN.replace("\n", "\r\n")
    cr = TURN.replace("\n", "\r")
    mixed = "#### hello  \r\n\r\nHi.\r\n\r\n" + TURN  # \r only before the turn
    inner = TURN.replace("Modify `requirements.txt`", "Modify\r`requirements.txt`")  # a lone \r in a quoted line
    for text in (crlf, cr, mixed):
        assert _found(text) == [("requirements.txt", "write_file")], repr(text[:20])
    # The quote no longer repeats the changed line: an ordinary answer, its edits are actions.
    assert [p for p, _ in _found(inner)] == ["requirements.txt", "app.py", "requirements.txt"]


def _first_line(text: str, rx: str, pos: int) -> int:
    """The start of the first line at or after ``pos`` that ``rx`` matches from the line break
    before it (the text's first line: from an added one), searched through the whole text."""
    pattern = re.compile(r"[\r\n]" + rx)
    if pos == 0 and pattern.match("\n" + text) is not None:
        return 0
    m = pattern.search(text, max(0, pos - 1))
    return m.start() + 1 if m is not None else len(text)


def _plain_verdict(text: str, pos: int) -> tuple[bool, int, tuple[str, ...]]:
    """The verdict with the next user line (``#### `` and a two-space break at its end), Aider's
    question and its "Applied" line each searched through the whole text."""
    from action_lsp.dialects import aider_architect as arch
    from action_lsp.markdown import line_end

    turns = arch.Turns(text)
    user = _first_line(text, r"#### [^\r\n]*  (?=\r|\n|\Z)", pos)
    question = _first_line(text, r"> Edit the files\? ", pos)
    applied = _first_line(text, r"> Applied edit to ", pos)
    if question < user and question < applied:
        return True, line_end(text, question), ()
    if applied < user:
        return False, line_end(text, applied), ()
    if user >= len(text):
        return False, -1, arch.WATCH
    quote, run_end = turns._run(user)
    return turns._quotes(pos, user, quote), run_end, ()


def test_verdicts_look_for_aiders_lines_before_the_next_user_line_only() -> None:
    """Random histories of Aider's lines: each block's verdict (asked in order, as a scan
    does) is the one found searching the whole text for Aider's question and "Applied" line."""
    import random

    from action_lsp.dialects.aider_architect import Turns

    rng = random.Random(19)
    lines = ["#### make it so  ", "#### make it so", "#### ", "> Edit the files? (Y)es/(N)o [Yes]: y", "> Applied edit to a.py",
             "> Tokens: 1k sent  ", "make it so", "", "a.py", "```python", "```", "x = 1", "  #### indented  ", "####\ttab  ",
             "#### x ", "####   ", "#####  ", "a #### b  "]
    for _ in range(300):
        eol = rng.choice(["\n", "\r\n"])
        text = eol.join(rng.choice(lines) for _ in range(rng.randint(1, 25)))
        starts = [0] + [i + len(eol) for i in range(len(text)) if text.startswith(eol, i)]
        turns = Turns(text)
        for pos in sorted(rng.sample(starts, min(len(starts), 6))):
            v = turns.verdict(pos)
            assert (v.proposal, v.lookahead, v.watch) == _plain_verdict(text, pos), (text, pos)
