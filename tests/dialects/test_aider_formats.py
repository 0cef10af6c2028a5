"""Aider's edit formats other than ``diff`` (Aider-AI/aider, ``aider/coders/*_coder.py``), as its
replies stand in a chat history: ``diff-fenced`` (the file name as the fence's first line),
``udiff`` / ``udiff-simple`` (unified diffs in ```` ```diff ```` fences whose hunks have no line
numbers, ``@@ ... @@``, each located by its text), ``patch`` (the V4A ``*** Begin Patch``
envelope) and ``editor-diff`` (the ``diff`` format again)."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import Severity


def _ws(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
    return root


def _apply(tmp_path: Path, root: Path, transcript: str) -> int:
    t = tmp_path / "history.md"
    t.write_text(transcript)
    return main(["apply", "--root", str(root), "--write", str(t)])


def _errors(text: str) -> list[str]:
    return [d.code for d in analyze(text).diagnostics if (d.severity or Severity.ERROR) == Severity.ERROR]


APP = (
    "from flask import Flask\n\n"
    "class MathWeb:\n    pass\n\n"
    "def is_prime(x):\n    if x < 2:\n        return False\n    return True\n\n"
    "def nth_prime(n):\n    count = 0\n\n    if is_prime(n):\n        count += 1\n    return str(count)\n"
)


# --- diff-fenced ------------------------------------------------------------------------------

DIFF_FENCED = (
    "#### use sympy\n\n"
    "Here are the *SEARCH/REPLACE* blocks:\n\n"
    "```python\nmathweb/flask/app.py\n<<<<<<< SEARCH\nfrom flask import Flask\n=======\n"
    "import sympy\nfrom flask import Flask\n>>>>>>> REPLACE\n```\n\n"
    "```python\nmathweb/flask/app.py\n<<<<<<< SEARCH\n    if is_prime(n):\n=======\n"
    "    if sympy.isprime(n):\n>>>>>>> REPLACE\n```\n\n"
    "```\nhello.py\n<<<<<<< SEARCH\n=======\nprint('hi')\n>>>>>>> REPLACE\n```\n\n"
    "> Tokens: 1k sent, 100 received.  \n"
    "> Applied edit to mathweb/flask/app.py  \n"
)


def test_diff_fenced_blocks_name_their_file_inside_the_fence(tmp_path: Path) -> None:
    analysis = analyze(DIFF_FENCED)
    assert [(a.dialect, a.path) for a in analysis.actions] == [
        ("aider", "mathweb/flask/app.py"), ("aider", "mathweb/flask/app.py"), ("aider", "hello.py")
    ]
    assert _errors(DIFF_FENCED) == []
    root = _ws(tmp_path, {"mathweb/flask/app.py": APP})
    assert _apply(tmp_path, root, DIFF_FENCED) == 0
    text = (root / "mathweb/flask/app.py").read_text()
    assert text.startswith("import sympy\nfrom flask") and "if sympy.isprime(n):" in text
    assert (root / "hello.py").read_text() == "print('hi')\n"


# --- udiff / udiff-simple ---------------------------------------------------------------------

UDIFF = (
    "#### use sympy\n\n"
    "Here are the diffs for those changes:\n\n"
    "```diff\n"
    "--- mathweb/flask/app.py\n"
    "+++ mathweb/flask/app.py\n"
    "@@ ... @@\n"
    "-class MathWeb:\n"
    "+import sympy\n"
    "+\n"
    "+class MathWeb:\n"
    "@@ ... @@\n"
    "-def is_prime(x):\n"
    "-    if x < 2:\n"
    "-        return False\n"
    "-    return True\n"
    "@@ ... @@\n"
    " def nth_prime(n):\n"
    "     count = 0\n"
    "\n"  # a blank context line whose space the model dropped
    "-    if is_prime(n):\n"
    "+    if sympy.isprime(n):\n"
    "```\n\n"
    "```diff\n"
    "--- /dev/null\n"
    "+++ mathweb/README.md\n"
    "@@ ... @@\n"
    "+# MathWeb\n"
    "```\n\n"
    "> Tokens: 1k sent, 100 received.  \n"
    "> Applied edit to mathweb/flask/app.py  \n"
)


def test_udiff_hunks_without_line_numbers_are_found_by_their_text(tmp_path: Path) -> None:
    analysis = analyze(UDIFF)
    assert [(a.type, a.path) for a in analysis.actions] == [
        ("modify", "mathweb/flask/app.py"), ("new-file", "mathweb/README.md")
    ]
    view = file_view(analysis.actions[0])
    assert view is not None and len(view.edits) == 3
    assert view.edits[2].search.value == "def nth_prime(n):\n    count = 0\n\n    if is_prime(n):\n"
    assert _errors(UDIFF) == []
    root = _ws(tmp_path, {"mathweb/flask/app.py": APP})
    assert _apply(tmp_path, root, UDIFF) == 0
    text = (root / "mathweb/flask/app.py").read_text()
    assert text.startswith("from flask import Flask\n\nimport sympy\n\nclass MathWeb:\n")
    assert "def is_prime" not in text and "    if sympy.isprime(n):\n" in text
    assert (root / "mathweb/README.md").read_text() == "# MathWeb\n"


def test_a_udiff_hunk_found_in_two_places_is_refused(tmp_path: Path) -> None:
    root = _ws(tmp_path, {"f.py": "x = 1\ny = 2\nx = 1\ny = 2\n"})
    text = "```diff\n--- f.py\n+++ f.py\n@@ ... @@\n x = 1\n-y = 2\n+y = 3\n```\n"
    assert _apply(tmp_path, root, text) == 1
    assert (root / "f.py").read_text() == "x = 1\ny = 2\nx = 1\ny = 2\n"


# --- patch ------------------------------------------------------------------------------------

PATCH = (
    "#### use sympy\n\n"
    "To make this change we need to modify `mathweb/flask/app.py`.\n\n"
    "Here is the patch:\n\n"
    "*** Begin Patch\n"
    "*** Update File: mathweb/flask/app.py\n"
    "@@\n"
    "-from flask import Flask\n"
    "+from flask import Flask\n"
    "+import sympy\n"
    "@@ def nth_prime(n):\n"
    "-    if is_prime(n):\n"
    "+    if sympy.isprime(n):\n"
    "*** Add File: hello.py\n"
    "+print('hi')\n"
    "*** End Patch\n\n"
    "> Tokens: 1k sent, 100 received.  \n"
    "> Applied edit to mathweb/flask/app.py  \n"
)


def test_patch_format_is_read_as_codex_patches(tmp_path: Path) -> None:
    analysis = analyze(PATCH)
    assert [(a.type, a.path) for a in analysis.actions] == [("update-file", "mathweb/flask/app.py"), ("add-file", "hello.py")]
    assert _errors(PATCH) == []
    root = _ws(tmp_path, {"mathweb/flask/app.py": APP})
    assert _apply(tmp_path, root, PATCH) == 0
    text = (root / "mathweb/flask/app.py").read_text()
    assert text.startswith("from flask import Flask\nimport sympy\n") and "sympy.isprime(n)" in text
    assert (root / "hello.py").read_text() == "print('hi')\n"


# --- whole files are another dialect's --------------------------------------------------------


def test_a_whole_file_block_is_not_taken_for_an_edit_block() -> None:
    # Aider's `whole` format (the file name alone on a line, then the whole file in a fence) is
    # read by the chat-answer dialect; `aider` must not claim it as something else.
    text = "#### add a greeting\n\nhello.py\n```python\nprint('hello')\n```\n\n> Applied edit to hello.py  \n"
    assert [a for a in analyze(text).actions if a.dialect == "aider"] == []
    assert [d for d in analyze(text).diagnostics if d.code in ("unclosed-block", "bad-marker", "missing-field")] == []


def test_a_udiff_hunk_of_added_lines_only_appends_as_aider_does(tmp_path: Path) -> None:
    # Aider's udiff_coder: a hunk with no context or removed line appends its lines to the file
    # (creating it when it is missing).
    root = _ws(tmp_path, {"f.py": "a = 1\n"})
    text = (
        "```diff\n--- f.py\n+++ f.py\n@@ ... @@\n+b = 2\n```\n\n"
        "```diff\n--- g.py\n+++ g.py\n@@ ... @@\n+c = 3\n```\n"
    )
    assert _apply(tmp_path, root, text) == 0
    assert (root / "f.py").read_text() == "a = 1\nb = 2\n"
    assert (root / "g.py").read_text() == "c = 3\n"


# --- the ORIGINAL/UPDATED markers of Aider's 2023 versions ------------------------------------

OLD_MARKERS = (
    "#### make a flask app with a /hello endpoint  \n\n"
    "Here's how to update the `app.py` file:\n\n"
    "```python\napp.py\n<<<<<<< ORIGINAL\n\n=======\nfrom flask import Flask\n\napp = Flask(__name__)\n"
    ">>>>>>> UPDATED\n```\n\n"
    "> Applied edit to app.py  \n\n"
    "#### add a route  \n\n"
    "```python\napp.py\n<<<<<<< ORIGINAL\napp = Flask(__name__)\n=======\napp = Flask(__name__)\n\n"
    "@app.route('/hello')\ndef hello():\n    return 'hi'\n>>>>>>> UPDATED\n```\n"
)


def test_the_original_updated_markers_of_older_aider_versions(tmp_path: Path) -> None:
    analysis = analyze(OLD_MARKERS)
    assert [(a.dialect, a.path) for a in analysis.actions] == [("aider", "app.py"), ("aider", "app.py")]
    assert _errors(OLD_MARKERS) == []
    root = _ws(tmp_path, {})
    assert _apply(tmp_path, root, OLD_MARKERS) == 0
    # The first ORIGINAL holds a blank line only: for Aider, as an empty one, a new file.
    assert (root / "app.py").read_text() == (
        "from flask import Flask\n\napp = Flask(__name__)\n\n@app.route('/hello')\ndef hello():\n    return 'hi'\n"
    )


def test_a_search_of_blank_lines_only_is_empty_as_for_aider(tmp_path: Path) -> None:
    # Aider's do_replace: `if not before_text.strip()` -- a new file, or an append.
    root = _ws(tmp_path, {"log.txt": "one\n"})
    text = "log.txt\n```\n<<<<<<< SEARCH\n\n=======\ntwo\n>>>>>>> REPLACE\n```\n"
    assert _apply(tmp_path, root, text) == 0
    assert (root / "log.txt").read_text() == "one\ntwo\n"
