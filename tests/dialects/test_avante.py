"""The avante dialect: avante.nvim's SEARCH/REPLACE answers (its legacy mode's prompt,
``lua/avante/templates/legacy.avanterules``), and the way its sidebar shows them.

The answers are modelled on the prompt's own example conversation (a file path between
``<FILEPATH>`` tags, then ``<SEARCH>`` / ``<REPLACE>`` blocks, every tag on a line of its own).
"""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import DialectSet, by_name
from action_lsp.document import analyze
from action_lsp.model import ActionKind

APP = (
    "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
    "def factorial(n):\n"
    '    "compute factorial"\n\n'
    "    if n == 0:\n        return 1\n    else:\n        return n * factorial(n-1)\n\n\n"
    "@app.route('/<int:n>')\ndef get_factorial(n):\n    return str(factorial(n))\n"
)

# avante's own example: three blocks for one file, then a new file made with an empty SEARCH
ANSWER = """To make this change we need to modify `mathweb/flask/app.py` to:

1. Import the math package.
2. Remove the existing factorial() function.
3. Update get_factorial() to call math.factorial instead.

Here are the *SEARCH/REPLACE* blocks:

<FILEPATH>mathweb/flask/app.py</FILEPATH>
<SEARCH>
from flask import Flask
</SEARCH>
<REPLACE>
import math
from flask import Flask
</REPLACE>

<FILEPATH>mathweb/flask/app.py</FILEPATH>
<SEARCH>
def factorial(n):
    "compute factorial"

    if n == 0:
        return 1
    else:
        return n * factorial(n-1)

</SEARCH>
<REPLACE>
</REPLACE>

<FILEPATH>mathweb/flask/app.py</FILEPATH>
<SEARCH>
    return str(factorial(n))
</SEARCH>
<REPLACE>
    return str(math.factorial(n))
</REPLACE>

<FILEPATH>hello.py</FILEPATH>
<SEARCH>
</SEARCH>
<REPLACE>
def hello():
    "print a greeting"

    print("hello")
</REPLACE>
"""

# The same first block as avante's sidebar (the `Avante` buffer) shows it
SHOWN = """- Datetime: 2025-03-01 10:00:00
- Model: claude/claude-3-5-sonnet

> Use math.factorial

To make this change we need to modify `mathweb/flask/app.py`:

Filepath: mathweb/flask/app.py
Replace lines: 1-1
```python
import math
from flask import Flask
```
"""


def _avante() -> DialectSet:
    d = by_name("avante")
    assert d is not None, "the avante dialect is not registered"
    return DialectSet([d])


def test_the_answer_is_four_edits_with_their_paths() -> None:
    analysis = analyze(ANSWER, _avante())
    assert not analysis.diagnostics, analysis.diagnostics
    got = [(a.kind, a.path, [(e.search.value, e.replace.value) for e in a.edits]) for a in analysis.actions]
    assert got == [
        (ActionKind.MODIFY_FILE, "mathweb/flask/app.py", [("from flask import Flask\n", "import math\nfrom flask import Flask\n")]),
        (ActionKind.MODIFY_FILE, "mathweb/flask/app.py", [(
            'def factorial(n):\n    "compute factorial"\n\n    if n == 0:\n        return 1\n'
            "    else:\n        return n * factorial(n-1)\n\n", "")]),
        (ActionKind.MODIFY_FILE, "mathweb/flask/app.py", [("    return str(factorial(n))\n", "    return str(math.factorial(n))\n")]),
        (ActionKind.MODIFY_FILE, "hello.py", [("", 'def hello():\n    "print a greeting"\n\n    print("hello")\n')]),
    ]
    # each action starts on its FILEPATH line (the lens and the Apply command's line)
    lines = ANSWER.split("\n")
    starts = [ANSWER.count("\n", 0, a.span.start) for a in analysis.actions]
    assert all(lines[s].startswith("<FILEPATH>") for s in starts)


def test_the_answer_applies_as_avante_would(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "mathweb" / "flask").mkdir(parents=True)
    (root / "mathweb" / "flask" / "app.py").write_text(APP, encoding="utf-8")
    t = tmp_path / "answer.md"
    t.write_text(ANSWER, encoding="utf-8")
    assert main(["apply", "--root", str(root), "--write", str(t)]) == 0
    app = (root / "mathweb" / "flask" / "app.py").read_text(encoding="utf-8")
    assert app.startswith("import math\nfrom flask import Flask\n")
    assert "def factorial" not in app and "return str(math.factorial(n))" in app
    assert (root / "hello.py").read_text(encoding="utf-8") == 'def hello():\n    "print a greeting"\n\n    print("hello")\n'


def test_several_blocks_after_one_path_and_tags_in_any_case() -> None:
    text = (
        "<filepath>src/a.py</filepath>\n<search>\na = 1\n</search>\n<replace>\na = 2\n</replace>\n"
        "<SEARCH>\nb = 1\n</SEARCH>\n<REPLACE>\nb = 2\n</REPLACE>\n"
    )
    (action,) = analyze(text, _avante()).actions
    assert action.path == "src/a.py"
    assert [(e.search.value, e.replace.value) for e in action.edits] == [("a = 1\n", "a = 2\n"), ("b = 1\n", "b = 2\n")]


def test_a_fence_inside_a_block_is_dropped_as_avante_drops_it() -> None:
    text = "<FILEPATH>a.py</FILEPATH>\n<SEARCH>\n```python\nx = 1\n```\n</SEARCH>\n<REPLACE>\n```python\nx = 2\n```\n</REPLACE>\n"
    (action,) = analyze(text, _avante()).actions
    assert [(e.search.value, e.replace.value) for e in action.edits] == [("x = 1\n", "x = 2\n")]


def test_an_empty_search_on_a_file_with_content_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("keep = 1\n", encoding="utf-8")
    t = tmp_path / "answer.md"
    t.write_text("<FILEPATH>a.py</FILEPATH>\n<SEARCH>\n</SEARCH>\n<REPLACE>\nnew = 1\n</REPLACE>\n", encoding="utf-8")
    assert main(["apply", "--root", str(root), "--write", str(t)]) != 0
    assert (root / "a.py").read_text(encoding="utf-8") == "keep = 1\n"


def test_an_unclosed_block_is_no_action_and_says_so() -> None:
    text = "<FILEPATH>a.py</FILEPATH>\n<SEARCH>\nx = 1\n</SEARCH>\n<REPLACE>\nx = 2\n"
    analysis = analyze(text, _avante())
    assert analysis.actions == []
    assert [d.code for d in analysis.diagnostics] == ["unclosed-tag"]
    # ... and is no error while a chat buffer is still streaming it in
    assert analysis.diagnostics[0].data.get("in_progress") is True


def test_a_filepath_in_prose_is_no_action() -> None:
    text = "avante writes <FILEPATH>a.py</FILEPATH> before each block.\n\n<FILEPATH>b.py</FILEPATH>\n\nThen nothing.\n"
    analysis = analyze(text, _avante())
    assert analysis.actions == [] and analysis.diagnostics == []


def test_the_sidebar_form_is_shown_and_never_applied(tmp_path: Path) -> None:
    """The sidebar replaces the SEARCH text by the line numbers avante found it at: nothing says
    what those lines held, so it is shown (outline, hover) and never applied."""
    (action,) = analyze(SHOWN, _avante()).actions
    assert action.type == "replace-lines" and action.kind == ActionKind.OTHER
    assert (action.path, action.get("lines"), action.get("content")) == (
        "mathweb/flask/app.py", "1-1", "import math\nfrom flask import Flask\n",
    )
    root = tmp_path / "ws"
    (root / "mathweb" / "flask").mkdir(parents=True)
    (root / "mathweb" / "flask" / "app.py").write_text(APP, encoding="utf-8")
    t = tmp_path / "shown.md"
    t.write_text(SHOWN, encoding="utf-8")
    main(["apply", "--root", str(root), "--write", str(t)])
    assert (root / "mathweb" / "flask" / "app.py").read_text(encoding="utf-8") == APP
