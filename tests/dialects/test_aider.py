"""The ``aider`` dialect: Aider's SEARCH/REPLACE blocks as its own extractor reads them, with
exact ranges, diagnostics where Aider's parse goes wrong, and the ``aider-shell`` commands."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from action_lsp import document
from action_lsp.cli import main
from action_lsp.dialects import DialectSet, file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import Severity, Span

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dialects" / "aider"
AIDER = DialectSet.named(["aider"])
_GOLD = re.compile(
    r"^@@@ SEARCH: (?P<path>[^\n]*) @{20}\n(?P<search>.*?)^@{20}\n(?P<replace>.*?)^@@@ REPLACE @{20}\n",
    re.MULTILINE | re.DOTALL,
)


def blocks(text: str, dialects: DialectSet = AIDER) -> list[tuple[str, str, str]]:
    out = []
    for a in analyze(text, dialects).actions:
        if a.dialect == "aider":
            path = a.fields.get("path")
            out.extend((path.value if path else "", e.search.value, e.replace.value) for e in a.edits)
    return out


def errors(text: str, dialects: DialectSet = AIDER) -> list[tuple[str, str]]:
    return [
        (d.code, text[d.span.start : d.span.end])
        for d in analyze(text, dialects).diagnostics
        if (d.severity or Severity.ERROR) == Severity.ERROR
    ]


# --- Aider's own transcript -------------------------------------------------------------------


def test_excerpt_of_aiders_history_gives_what_aiders_extractor_gives() -> None:
    text = (FIXTURES / "chat-history-excerpt.md").read_text(encoding="utf-8")
    gold = (FIXTURES / "chat-history-excerpt-gold.txt").read_text(encoding="utf-8")
    # Aider's extractor works message by message (`#### ` lines) and drops a message it rejects.
    messages = [m.start() for m in re.finditer(r"^#### ", text, re.M)] + [len(text)]
    rejected_headers = [h for h, body in re.findall(r"^@@@ (#### .*?) @{20}\n(.*?)(?=^@@@ #### |\Z)", gold, re.M | re.S)
                        if "\n^^^ " in body]
    assert len(rejected_headers) == 1
    rejected = [
        (messages[i], messages[i + 1]) for i in range(len(messages) - 1)
        if text[messages[i] : text.index("\n", messages[i])].strip() == rejected_headers[0].strip()
    ]
    assert len(rejected) == 1
    lo, hi = rejected[0]
    analysis = analyze(text, AIDER)
    ours = []
    for a in analysis.actions:
        if not lo <= a.span.start < hi:
            ours.extend((a.fields["path"].value, e.search.value, e.replace.value) for e in a.edits)
    expected = [(m["path"], m["search"], m["replace"]) for m in _GOLD.finditer(gold)]
    assert len(expected) == 4
    assert ours == expected
    # The two blocks Aider answered with "1 SEARCH/REPLACE block failed to match!" are shown
    # failed (a hint each), and so is the block of the reply the Aider of the time rejected
    # ("^^^ Expected `>>>>>>> REPLACE` not `=======`"); the others are not.
    reported = [a.failure.split(":")[0] for a in analysis.actions if a.failure is not None]
    assert reported == ["Aider reported that this SEARCH block failed to exactly match lines in tests/basic/test_main.py"] * 2 + [
        "Aider rejected the reply holding this block"]
    assert [d.code for d in analysis.diagnostics if d.code == "tool-error"] == ["tool-error"] * 3
    # The only errors are in the reply Aider rejects (a block cut off before its =======).
    errs = [d for d in analysis.diagnostics
            if (d.severity or Severity.ERROR) == Severity.ERROR and d.code != "tool-error"]
    assert errs and all(lo <= d.span.start < hi for d in errs)
    assert all("=======" in d.message for d in errs)


def test_quoted_output_and_inline_markers_are_no_blocks() -> None:
    text = (
        "Aider printed:\n\n"
        "> foo.py\n> <<<<<<< SEARCH  \n> a\n> =======  \n> b\n> >>>>>>> REPLACE  \n\n"
        "Write `<<<<<<< SEARCH` then `=======` then `>>>>>>> REPLACE`.\n"
    )
    assert blocks(text) == []
    assert analyze(text).diagnostics == []


# --- the format -------------------------------------------------------------------------------


def test_file_name_before_the_fence_with_exact_ranges() -> None:
    text = "Here:\n\nsrc/app.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
    (a,) = analyze(text, AIDER).actions
    assert a.type == "search-replace"
    f = a.fields
    assert (f["path"].value, text[f["path"].span.start : f["path"].span.end]) == ("src/app.py", "src/app.py")
    assert text[f["search"].span.start : f["search"].span.end] == "x = 1\n"
    assert text[f["replace"].span.start : f["replace"].span.end] == "x = 2\n"
    assert text[a.name_span.start : a.name_span.end] == "<<<<<<< SEARCH"
    view = file_view(a)
    assert view is not None and view.op == "modify" and view.path.value == "src/app.py"
    assert [(e.search.value, e.replace.value) for e in view.edits] == [("x = 1\n", "x = 2\n")]
    assert analyze(text).diagnostics == []


@pytest.mark.parametrize(
    ("before", "path"),
    [
        ("src/app.py\n```python\n", "src/app.py"),  # the line before the fence
        ("```src/app.py\n", "src/app.py"),  # on the fence line
        ("```python\nsrc/app.py\n", "src/app.py"),  # the fence's first line
        ("**src/app.py**\n```\n", "src/app.py"),
        ("`src/app.py`:\n```\n", "src/app.py"),
        ("### src/app.py\n````python\n", "src/app.py"),  # a heading, four backticks
        ("```python\nsrc/app.py\n```\n```python\n", "src/app.py"),  # Deepseek's separate fence
        ("src/app.py\n", "src/app.py"),  # no fence at all
        ("src/app.py\n<source>python\n", "src/app.py"),  # Aider's HTML-like fences
    ],
)
def test_where_aider_finds_the_file_name(before: str, path: str) -> None:
    close = "```\n" if "```" in before else ("</source>\n" if "<source>" in before else "")
    close = "````\n" if "````" in before else close
    text = "Change it.\n\n" + before + "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n" + close
    assert blocks(text) == [(path, "old\n", "new\n")]
    assert errors(text, DialectSet()) == []


def test_several_blocks_per_fence_markers_of_5_to_9_characters_indented_markers() -> None:
    text = (
        "a.py\n```python\n"
        "<<<<< SEARCH\n1\n=====\n2\n>>>>> REPLACE\n\n"
        "b.py\n<<<<<<<<< SEARCH>\n3\n=========\n4\n>>>>>>>>> REPLACE\n"
        "    <<<<<<< SEARCH\n5\n    =======\n6\n    >>>>>>> REPLACE\n"
        "```\n"
    )
    assert blocks(text) == [("a.py", "1\n", "2\n"), ("b.py", "3\n", "4\n"), ("b.py", "5\n", "6\n")]
    actions = analyze(text, AIDER).actions
    assert len({a.group for a in actions}) == 1  # one fence: one "apply all" group


def test_a_block_in_a_fence_may_hold_fence_lines() -> None:
    # Aider reads lines, not Markdown: a ``` line inside SEARCH text does not end the block.
    text = (
        "README.md\n```markdown\n<<<<<<< SEARCH\nInstall:\n```\npip install x\n```\n=======\n"
        "Install:\n```\npipx install x\n```\n>>>>>>> REPLACE\n```\n\nDone.\n"
    )
    assert blocks(text) == [
        ("README.md", "Install:\n```\npip install x\n```\n", "Install:\n```\npipx install x\n```\n")
    ]
    assert errors(text, DialectSet()) == []


def test_empty_search_creates_or_appends(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "log.txt").write_text("one\n")
    (root / "app.py").write_text("def f():\n    return 1\n")
    transcript = (
        "new.py\n```python\n<<<<<<< SEARCH\n=======\nprint('new')\n>>>>>>> REPLACE\n```\n\n"
        "log.txt\n```\n<<<<<<< SEARCH\n=======\ntwo\n>>>>>>> REPLACE\n```\n\n"
        "app.py\n```python\n<<<<<<< SEARCH\n    return 1\n=======\n    return 2\n>>>>>>> REPLACE\n```\n"
    )
    t = tmp_path / "t.md"
    t.write_text(transcript)
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "new.py").read_text() == "print('new')\n"
    assert (root / "log.txt").read_text() == "one\ntwo\n"
    assert (root / "app.py").read_text() == "def f():\n    return 2\n"


# --- diagnostics ------------------------------------------------------------------------------


def test_a_block_that_never_reaches_its_divider_or_replace_marker() -> None:
    text = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n```\n\nMore prose.\n"
    assert errors(text) == [("unclosed-block", "<<<<<<< SEARCH")]
    text = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n```\n"
    ((code, where),) = errors(text)
    assert (code, where) == ("unclosed-block", "<<<<<<< SEARCH")
    assert "REPLACE" in analyze(text, AIDER).diagnostics[0].message


def test_a_reply_does_not_read_into_the_next_user_message() -> None:
    text = (
        "#### fix it\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n\n"
        "#### /clear\n\nb.py\n```python\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n```\n"
    )
    assert blocks(text) == [("b.py", "y\n", "z\n")]
    assert errors(text) == [("unclosed-block", "<<<<<<< SEARCH")]


def test_a_missing_divider_makes_aider_read_the_next_block_as_text() -> None:
    text = (
        "a.py\n```python\n<<<<<<< SEARCH\nx = 1\nx = 2\n>>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n>>>>>>> REPLACE\n```\n"
    )
    # Aider's reading (one block whose search runs on to the second block's =======) ...
    assert blocks(text)[0][1] == "x = 1\nx = 2\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny = 1\n"
    # ... is reported at the SEARCH marker it swallowed.
    diags = [d for d in analyze(text, AIDER).diagnostics if d.code == "bad-marker"]
    assert diags and text[diags[0].span.start : diags[0].span.end] == "<<<<<<< SEARCH"
    assert diags[0].span.start > text.index("x = 2")


def test_marker_typos_are_reported_with_a_fix() -> None:
    text = "a.py\n```python\n<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    (d,) = [d for d in analyze(text, AIDER).diagnostics]
    assert d.code == "bad-marker" and text[d.span.start : d.span.end] == "<<<< SEARCH"
    assert d.fixes[0].edits[0].new_text == "<<<<<<< SEARCH"
    text = "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>>REPLACE\n```\n"
    spans = [text[d.span.start : d.span.end] for d in analyze(text, AIDER).diagnostics]
    assert ">>>>>>>REPLACE" in spans


def test_a_second_divider_ends_the_replacement_with_a_warning() -> None:
    text = "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n```\n"
    assert blocks(text) == [("a.py", "x\n", "y\n")]
    (d,) = analyze(text, AIDER).diagnostics
    assert d.severity == Severity.WARNING and d.fixes[0].edits[0].new_text == ">>>>>>> REPLACE"


def test_missing_file_name_and_path_traversal() -> None:
    text = "Change:\n\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    analysis = analyze(text, AIDER)
    (d,) = analysis.diagnostics
    assert d.code == "missing-field" and d.data and d.data["field"] == "path"
    fix = AIDER.get("aider").insert_field_fix(text, analysis.actions[0], "path")  # type: ignore[union-attr]
    assert fix is not None
    fixed = text[: fix.edits[0].span.start] + fix.edits[0].new_text + text[fix.edits[0].span.start :]
    assert blocks(fixed) == [("path/to/file", "x\n", "y\n")]
    text = "../../etc/passwd\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    assert ("path-traversal", "../../etc/passwd") in errors(text)


# --- shell blocks -----------------------------------------------------------------------------


def test_shell_blocks_are_commands_only_with_aider_shell() -> None:
    text = "Run:\n\n```bash\npytest -q\n```\n"
    assert analyze(text).actions == []  # off by default: a README's ```bash is no action
    (a,) = analyze(text, DialectSet.named(["aider", "aider-shell"])).actions
    assert a.type == "shell" and a.fields["command"].value == "pytest -q\n"
    # An edit block in a shell fence is an edit, as for Aider.
    text = "run.sh\n```bash\n<<<<<<< SEARCH\necho 1\n=======\necho 2\n>>>>>>> REPLACE\n```\n"
    assert blocks(text, DialectSet.named(["aider", "aider-shell"])) == [("run.sh", "echo 1\n", "echo 2\n")]


# --- incrementality ---------------------------------------------------------------------------


def test_editing_the_file_name_line_rescans_the_block() -> None:
    text = "Intro.\n\nold/name.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n" + "line\n" * 50
    doc = IncrementalDocument(text, AIDER)
    at = text.index("old/name.py")
    doc.edit(at, at + 3, "new")
    assert [a.fields["path"].value for a in doc.analysis().actions] == ["new/name.py"]
    doc.edit(at - 1, at - 1, "\n")  # a blank line between name and fence: no name any more
    (a,) = doc.analysis().actions
    assert "path" in a.fields  # still the line before the fence
    nl = doc.text.index("new/name.py") + len("new/name.py")
    doc.edit(nl, nl, "\n")
    assert [sorted(a.fields) for a in doc.analysis().actions] == [["replace", "search"]]


BLOCKS = [
    "Prose.\n\n",
    "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n\n",
    "b.py\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n",
    "```python\nc.py\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n\nd.py\n<<<<<<< SEARCH\n1\n=======\n2\n>>>>>>> REPLACE\n```\n",
    "#### next message\n\n",
    "e.py\n```\n<<<<<<< SEARCH\nunclosed\n",
    "line\n" * 20,
    # Aider's report that a block failed (see test_aider_history.py), and its line for a success
    "> # 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed"
    " to exactly match lines in a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
    "The SEARCH section must exactly match an existing block of lines\n\n",
    "> Applied edit to b.py  \n",
    "b.py\n<<<<<<< SEARCH\ny\n=======\nz\n>>>>>>> REPLACE\n\n> # 1 SEARCH/REPLACE block failed to match!\n"
    "> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in b.py  \n"
    "> <<<<<<< SEARCH  \n> y  \n> =======  \n",
    # /run output (only its first line quoted) holding a diff, and a <think> holding a block
    "#### /run git diff  \n> diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2  \n"
    "> Add the output to the chat?  \n\n",
    "<think>\nc.py\n<<<<<<< SEARCH\nq\n=======\nr\n>>>>>>> REPLACE\n</think>\n\n",
]
SNIPPETS = ["\n", "x", "```\n", "=======\n", ">>>>>>> REPLACE\n", "<<<<<<< SEARCH\n", "f.py\n", "#### ", "`", "",
            "> # 2 SEARCH/REPLACE blocks failed to match!\n", "## SearchReplaceNoExactMatch: This SEARCH block "
            "failed to exactly match lines in b.py\n", "  \n", "> ", "#### /run ls  \n", "</think>\n"]


@pytest.mark.parametrize("seed", [*range(0, 240, 4), 238, 286, 322, 534])  # 112, 238, 286, 322, 534 once failed
def test_edits_match_a_full_analysis(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(document, "WINDOW", rng.choice([64, 256, 1 << 14]))
    doc = IncrementalDocument("".join(rng.choice(BLOCKS) for _ in range(rng.randint(3, 10))))
    for _ in range(30):
        n = len(doc.text)
        start = rng.randint(0, n)
        end = min(n, start + rng.choice([0, 0, 1, 3, 12]))
        doc.edit(start, end, rng.choice(SNIPPETS))
        got = doc.analysis()
        want = analyze(doc.text)
        assert [(a.type, a.kind, a.failure, a.span, sorted((k, f.span, f.value) for k, f in a.fields.items()))
                for a in got.actions] == [
            (a.type, a.kind, a.failure, a.span, sorted((k, f.span, f.value) for k, f in a.fields.items()))
            for a in want.actions
        ], (start, end)
        assert sorted((d.code, d.span.start, d.span.end) for d in got.diagnostics) == sorted(
            (d.code, d.span.start, d.span.end) for d in want.diagnostics
        )


def test_a_missing_replace_marker_in_a_fence_has_a_fix() -> None:
    text = "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n```\n\nDone.\n"
    (d,) = analyze(text, AIDER).diagnostics
    (edit,) = d.fixes[0].edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.start :]
    assert blocks(fixed) == [("a.py", "x = 1\n", "x = 2\n")]
    assert analyze(fixed, AIDER).diagnostics == []


def test_typing_after_a_broken_reply_does_not_rescan_it() -> None:
    broken = "#### fix\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n```\n\n"
    text = broken + "#### next\n\n" + "".join(f"Line {i} of prose.\n" for i in range(2000))
    doc = IncrementalDocument(text, AIDER)
    doc.edit(len(doc.text), len(doc.text), "#### more ")
    assert doc.rescanned < 2000
    assert [d.code for d in doc.analysis().diagnostics] == ["unclosed-block"]


def test_another_agents_markers_shown_in_a_fence_are_not_aider_blocks() -> None:
    text = (
        "Cline writes:\n\n```xml\n<replace_in_file>\n<path>a.py</path>\n<diff>\n"
        "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</diff>\n</replace_in_file>\n```\n"
    )
    analysis = analyze(text)
    assert analysis.actions == [] and analysis.diagnostics == []
    # The decision read the line before the marker: editing it re-scans the block.
    text = "Prose.\n\n<diff>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n" + "More.\n" * 30
    assert analyze(text).actions == []
    doc = IncrementalDocument(text)
    at = text.index("<diff>")
    doc.edit(at, at + len("<diff>"), "a.py")
    assert [a.fields["path"].value for a in doc.analysis().actions] == ["a.py"]


def test_a_heading_inside_the_edited_text_is_no_message_boundary() -> None:
    text = (
        "README.md\n```markdown\n<<<<<<< SEARCH\n#### Install\n\npip install x\n=======\n"
        "#### Install\n\npipx install x\n>>>>>>> REPLACE\n```\n"
    )
    assert blocks(text) == [("README.md", "#### Install\n\npip install x\n", "#### Install\n\npipx install x\n")]
    assert errors(text) == []


def test_a_block_still_streaming_in_at_the_end_is_in_progress() -> None:
    from action_lsp.model import is_in_progress

    text = "Here:\n\na.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx ="
    (d,) = analyze(text, AIDER).diagnostics
    assert d.code == "unclosed-block" and is_in_progress(d)
    doc = IncrementalDocument(text, AIDER)
    doc.edit(len(doc.text), len(doc.text), " 2\n>>>>>>> REPLACE\n```\n")
    assert blocks(doc.text) == [("a.py", "x = 1\n", "x = 2\n")]
    assert [a.fields["replace"].value for a in doc.analysis().actions] == ["x = 2\n"]
    assert doc.analysis().diagnostics == []


def _plain_strip_filename(text: str, start: int, end: int) -> Span | None:
    """Aider's cleaning of a file-name line, a character at a time (the definition)."""
    from action_lsp.dialects.aider import _FENCES

    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if text[start:end] == "...":
        return None
    fence = next((f for f in _FENCES if text.startswith(f, start, end)), None)
    if fence is not None:
        a = start + len(fence)
        while fence == "```" and a < end and text[a] == "`":
            a += 1
        candidate = text[a:end]
        return Span(a, end) if candidate and ("." in candidate or "/" in candidate) else None
    while end > start and text[end - 1] == ":":
        end -= 1
    while start < end and text[start] == "#":
        start += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    for ch in "`*":
        while start < end and text[start] == ch:
            start += 1
        while end > start and text[end - 1] == ch:
            end -= 1
    return Span(start, end) if end > start else None


def test_file_name_lines_are_cleaned_as_aider_cleans_them() -> None:
    """Random lines of blanks, backticks, stars, colons, hashes, fences and names: the file
    name found where the character-by-character cleaning finds it."""
    import random

    from action_lsp.dialects.aider import strip_filename

    rng = random.Random(19)
    pieces = [" ", "\t", "\u00a0", "`", "```", "````", "*", "**", ":", "#", "# ", "...", "a.py", "src/x", "é", "<source>",
              "<code>", "<pre>", "x", "."]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        assert strip_filename(text, start, end) == _plain_strip_filename(text, start, end), (text, start, end)


def test_line_start_of_any_offset_by_lsp_line_endings() -> None:
    """The start of the line holding an offset, with its shortcut at a line start: the last
    ``\\n`` or ``\\r`` before it (a ``\\r\\n`` ends one line), on random texts."""
    import random

    from action_lsp.markdown import line_start

    rng = random.Random(19)
    for _ in range(3000):
        text = "".join(rng.choice(["\n", "\r", "\r\n", "a", " "]) for _ in range(rng.randint(0, 10)))
        for pos in range(len(text) + 2):
            nl = text.rfind("\n", 0, pos)
            assert line_start(text, pos) == max(nl, text.rfind("\r", nl + 1, pos)) + 1, (text, pos)


def test_a_last_blank_line_of_search_or_replace_is_dropped_as_aider_drops_it(tmp_path: Path) -> None:
    """Aider's do_replace reads each text through strip_quoted_wrapping (its lines joined by
    line breaks, one added at the end): the last blank line of a SEARCH or a REPLACE is gone.
    Modelled on a real history (diff-fenced, Simple-Calulator's src/styles.css): a REPLACE that
    ended with a blank line left none in the file Aider committed; `apply` wrote one."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "styles.css").write_text("button:active {\n  background: lightgray;\n}\n.a {\n  color: red;\n}\n")
    transcript = (
        "```css\nstyles.css\n<<<<<<< SEARCH\nbutton:active {\n  background: lightgray;\n}\n=======\n"
        "button:active {\n  top: 3px;\n}\n\n>>>>>>> REPLACE\n```\n\n"
        "```css\nstyles.css\n<<<<<<< SEARCH\n.a {\n\n=======\n.b {\n>>>>>>> REPLACE\n```\n"
    )
    [(_, _, replace), (_, search, _)] = blocks(transcript)
    assert replace == "button:active {\n  top: 3px;\n}\n"
    assert search == ".a {\n"
    t = tmp_path / "t.md"
    t.write_text(transcript)
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    assert (root / "styles.css").read_text() == "button:active {\n  top: 3px;\n}\n.b {\n  color: red;\n}\n"
