"""The chat-answer dialect: a chat answer's code block that names its file, in the three ways
chat assistants name it (the fence's info string, a first-line path comment, the path on the
line before the fence inside an assistant turn), with exact ranges; ordinary examples and
documentation stay examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from apply_cli import apply_write as _apply
from apply_cli import workspace as _workspace

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import Action, ActionKind

ASSISTANT = "_**User**_\n\nplease fix it\n\n---\n\n_**Assistant**_\n\nHere you go:\n\n"


def _actions(text: str) -> list[Action]:
    return [a for a in analyze(text).actions if a.dialect == "chat-answer"]


def _one(text: str) -> Action:
    found = _actions(text)
    assert len(found) == 1, [(a.type, a.path) for a in found]
    return found[0]


def _at(text: str, action: Action, name: str) -> str:
    f = action.fields[name]
    return text[f.span.start : f.span.end]


def test_cursor_info_string_names_the_file() -> None:
    text = "Change the menu:\n\n```tsx:src/components/Menu.tsx\nexport const Menu = () => <nav/>;\n```\n"
    a = _one(text)
    assert (a.type, a.kind, a.path) == ("fence-info", ActionKind.WRITE_FILE, "src/components/Menu.tsx")
    assert _at(text, a, "path") == "src/components/Menu.tsx"
    assert a.get("content") == "export const Menu = () => <nav/>;\n"
    assert _at(text, a, "content") == a.get("content")
    # The action runs from the fence line through its closing fence.
    assert text[a.span.start : a.span.end] == text[text.index("```tsx") :]
    view = file_view(a)
    assert view is not None and view.op == "write" and view.rules.snippet
    assert view.to_json() == {"op": "write", "path": "src/components/Menu.tsx", "content": a.get("content")}


def test_cursor_citation_of_lines_is_no_action() -> None:
    # ```12:40:path is Cursor quoting lines of an existing file, not an edit.
    assert _actions("See:\n\n```12:14:src/app.ts\nconst a = 1;\n```\n") == []


@pytest.mark.parametrize(
    ("lang", "comment", "path"),
    [
        ("typescript", "// filepath: src/app.ts", "src/app.ts"),
        ("python", "# filepath: app.py", "app.py"),
        ("python", "# File: pkg/mod.py", "pkg/mod.py"),
        ("go", "// path: cmd/main.go", "cmd/main.go"),
        ("html", "<!-- filepath: web/index.html -->", "web/index.html"),
        ("css", "/* filepath: web/site.css */", "web/site.css"),
        ("jsx", "{/* filepath: src/App.jsx */}", "src/App.jsx"),
        ("sql", "-- filepath: db/schema.sql", "db/schema.sql"),
        ("clojure", ";; file: src/core.clj", "src/core.clj"),
        ("matlab", "% filename: calc.m", "calc.m"),
        ("ts", "// filepath: `src/quoted.ts`", "src/quoted.ts"),
        ("rust", "// FilePath: src/lib.rs", "src/lib.rs"),
    ],
)
def test_a_path_comment_names_the_file_and_is_not_content(lang: str, comment: str, path: str) -> None:
    text = f"Updated:\n\n```{lang}\n{comment}\nline one\nline two\n```\n"
    a = _one(text)
    assert (a.type, a.path) == ("path-comment", path)
    assert _at(text, a, "path") == path
    assert a.get("content") == "line one\nline two\n"
    assert _at(text, a, "content") == "line one\nline two\n"


def test_a_bare_path_comment_counts_only_in_an_assistant_turn() -> None:
    block = "```python\n# app/main.py\nprint(1)\n```\n"
    assert _actions("A tutorial.\n\n" + block) == []  # documentation: `# main.py` is a caption
    a = _one(ASSISTANT + block)
    assert (a.type, a.path, a.get("content")) == ("path-comment", "app/main.py", "print(1)\n")
    # A comment that is not a path, or a path without a directory or extension, names nothing.
    assert _actions(ASSISTANT + "```python\n# compute it\nprint(1)\n```\n") == []
    assert _actions(ASSISTANT + "```python\n# main\nprint(1)\n```\n") == []


@pytest.mark.parametrize(
    "line",
    [
        "src/config.yaml",
        "**src/config.yaml**",
        "`src/config.yaml`",
        "`src/config.yaml`:",
        "**`src/config.yaml`**",
        "### src/config.yaml",
        "### `src/config.yaml`",
        "1. **src/config.yaml**:",
        "- `src/config.yaml`",
        "**File: src/config.yaml**",
        "File: `src/config.yaml`",
    ],
)
def test_the_path_line_before_the_fence_in_an_assistant_turn(line: str) -> None:
    text = ASSISTANT + f"{line}\n```yaml\na: 1\n```\n"
    a = _one(text)
    assert (a.type, a.path, a.get("content")) == ("path-line", "src/config.yaml", "a: 1\n")
    assert _at(text, a, "path") == "src/config.yaml"
    # The action starts at the path's line.
    assert a.span.start == text.index(line)
    view = file_view(a)
    assert view is not None and view.rules.snippet and view.rules.on_missing == "create"


@pytest.mark.parametrize(
    "turn",
    [
        "_**Assistant**_\n\n",
        "_**Agent (claude-sonnet-4)**_\n\n",
        "### Assistant\n\n",
        "## 🤖 Assistant\n\n",
        "**Assistant:**\n\n",
        "**ChatGPT:** sure.\n\n",
        "Assistant: sure.\n\n",
    ],
)
def test_assistant_turns_of_known_chats(turn: str) -> None:
    text = "**User:** fix it\n\n" + turn + "**app.py**\n```python\nprint(2)\n```\n"
    assert _one(text).path == "app.py"


@pytest.mark.parametrize(
    "before",
    [
        "",  # no chat at all: documentation
        "_**User**_\n\n",  # the user's own turn
        "### User\n\n",
        "## Model\n\n",  # a heading of documentation, not a role
        "## Claude Desktop\n\n",
    ],
)
def test_no_path_line_action_outside_an_assistant_turn(before: str) -> None:
    assert _actions(before + "**config.yaml**\n```yaml\na: 1\n```\n") == []


def test_a_fence_without_a_named_file_is_an_example() -> None:
    text = ASSISTANT + "Run this:\n```python\nprint(1)\n```\n\nand\n\n```\nplain\n```\n"
    assert _actions(text) == []
    # A path whose extension another language owns names no file (### Next.js above bash).
    assert _actions(ASSISTANT + "### Next.js\n```bash\nnpx create-next-app\n```\n") == []
    # A diff stays the unified-diff dialect's (an illustration without headers: no action).
    assert _actions(ASSISTANT + "**app.py**\n```diff\n-a\n+b\n```\n") == []


def test_search_replace_blocks_stay_aiders() -> None:
    text = ASSISTANT + "app.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
    assert [(a.dialect, a.path) for a in analyze(text).actions] == [("aider", "app.py")]


def test_crlf_line_endings() -> None:
    text = (ASSISTANT + "**src/a.py**\n```python\nx = 1\n```\n\n```ts\n// filepath: b.ts\nlet b;\n```\n").replace("\n", "\r\n")
    found = _actions(text)
    assert [(a.type, a.path, a.get("content")) for a in found] == [
        ("path-line", "src/a.py", "x = 1\r\n"),
        ("path-comment", "b.ts", "let b;\r\n"),
    ]
    for a in found:
        assert _at(text, a, "path") == a.path
        assert _at(text, a, "content") == a.get("content")


def test_a_four_backtick_fence_holds_a_three_backtick_one() -> None:
    body = "# Title\n\n```sh\nmake\n```\n"
    text = f"````markdown:docs/README.md\n{body}````\n"
    a = _one(text)
    assert (a.path, a.get("content")) == ("docs/README.md", body)


def test_an_unclosed_fence_at_the_end_is_in_progress_and_never_applied() -> None:
    text = ASSISTANT + "```ts:src/app.ts\nconst a = 1;\nconst b"
    analysis = analyze(text)
    [a] = [x for x in analysis.actions if x.dialect == "chat-answer"]
    assert a.in_progress and a.get("content") == "const a = 1;\nconst b"
    [d] = [d for d in analysis.diagnostics if d.code == "unclosed-block"]
    assert text[d.span.start : d.span.end] == "```ts:src/app.ts"


def test_several_blocks_in_one_answer_in_document_order() -> None:
    text = (
        ASSISTANT
        + "```tsx:src/A.tsx\na\n```\n\nThen **src/b.py**:\n\nsrc/b.py\n```python\nb\n```\n\n"
        + "```js\n// filepath: c.js\nc\n```\n"
    )
    assert [(a.type, a.path) for a in _actions(text)] == [
        ("fence-info", "src/A.tsx"),
        ("path-line", "src/b.py"),
        ("path-comment", "c.js"),
    ]


# -- applying -------------------------------------------------------------------------------

def test_a_block_for_a_missing_file_creates_it(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {})
    assert _apply(tmp_path, root, "```ts:src/new.ts\nexport const n = 1;\n```\n") == 0
    assert (root / "src/new.ts").read_text() == "export const n = 1;\n"


@pytest.mark.parametrize(
    "placeholder",
    [
        "// ... existing code ...",
        "// ... 现有代码保持不变 ...",
        "/* ... */",
        "// … rest unchanged …",
    ],
)
def test_a_lazy_snippet_of_an_existing_file_is_never_written_whole(
    tmp_path: Path, placeholder: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Merged by syntax (function `a`, which the placeholder stands for, is kept), never
    written as the whole file."""
    old = "function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n"
    root = _workspace(tmp_path, {"src/app.js": old})
    snippet = f"```js:src/app.js\n{placeholder}\n\nfunction b() {{\n  return 3;\n}}\n```\n"
    assert _apply(tmp_path, root, snippet, "--write") == 0
    assert (root / "src/app.js").read_text() == old.replace("return 2", "return 3")


def test_html_and_python_placeholders(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A placeholder in a file with no grammar to place it is asked (`lazy-ambiguous`), even
    forced; a Python one is merged."""
    root = _workspace(tmp_path, {"index.html": "<p>a</p>\n<p>b</p>\n", "app.py": "a = 1\nb = 2\n"})
    html = ASSISTANT + "**index.html**\n```html\n<!-- ... -->\n<p>c</p>\n```\n"
    assert _apply(tmp_path, root, html, "--write", "--force") == 1
    assert "[lazy-ambiguous]" in capsys.readouterr().err
    assert (root / "index.html").read_text() == "<p>a</p>\n<p>b</p>\n"
    py = ASSISTANT + "```python\n# filepath: app.py\n# ... rest of the code unchanged ...\nb = 3\n```\n"
    assert _apply(tmp_path, root, py, "--write") == 0
    assert (root / "app.py").read_text() == "a = 1\nb = 3\n"


# -- Aider's whole format -------------------------------------------------------------------

AIDER_WHOLE = Path(__file__).resolve().parents[1] / "fixtures" / "chat_answer" / "aider-whole.chat.history.md"


def test_aider_whole_format_blocks_are_whole_file_writes() -> None:
    text = AIDER_WHOLE.read_text()
    found = _actions(text)
    assert [(a.type, a.path) for a in found] == [
        ("aider-whole", "hello.py"),
        ("aider-whole", "hello.py"),
        ("aider-whole", "tests/test_hello.py"),
    ]
    assert found[0].get("content") == 'print("goodbye")\n'
    for a in found:
        view = file_view(a)
        assert view is not None and view.op == "write" and not view.rules.snippet
        assert _at(text, a, "path") == a.path
    # A user line `#### ` bounds the turn: the blocks are read after it, never before.
    assert analyze(text).diagnostics == []


def test_aider_whole_history_replays_on_a_checkout(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"hello.py": 'print("hello")\n'})
    assert main(["apply", "--root", str(root), "--write", str(AIDER_WHOLE)]) == 0
    assert (root / "hello.py").read_text() == (
        'def main():\n    print("goodbye")\n\n\nif __name__ == "__main__":\n    main()\n'
    )
    assert (root / "tests/test_hello.py").read_text().startswith("from hello import main\n")


def test_an_aider_whole_block_that_elides_code_is_refused_unless_forced(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"hello.py": "def a():\n    pass\n\n\ndef b():\n    pass\n"})
    history = AIDER_WHOLE.read_text().split("#### now")[0] + (
        "#### add c\n\nhello.py\n```python\n# ... rest of the code unchanged ...\n\n\ndef c():\n    pass\n```\n"
    )
    # The first block (print goodbye) is a whole file too: select the last one only.
    assert _apply(tmp_path, root, history, "--select", "2") == 1
    assert "def a()" in (root / "hello.py").read_text()


def test_aider_user_lines_without_aiders_own_output_are_no_history() -> None:
    # A README with `####` headings is no Aider history: its captions stay captions.
    text = "# Guide\n\n#### Configure it\n\nconfig.yaml\n```yaml\na: 1\n```\n"
    assert _actions(text) == []


def test_aiders_source_fence_for_files_holding_backticks() -> None:
    # Aider switches to <source> lines when the file itself holds ```; Windows line endings.
    text = (
        "# aider chat started at 2025-08-06 12:06:30\n\n> Aider v0.85.2  \n\n#### write the docs  \n\n"
        "docs/guide.md\n<source>\n# Guide\n\n```sh\nmake\n```\n</source>\nbackend/main.sh\n<source>\n"
        "#!/usr/bin/env bash\n</source>\n\n> Applied edit to docs/guide.md  \n"
    ).replace("\n", "\r\n")
    found = _actions(text)
    assert [(a.type, a.path) for a in found] == [("aider-whole", "docs/guide.md"), ("aider-whole", "backend/main.sh")]
    assert found[0].get("content") == "# Guide\r\n\r\n```sh\r\nmake\r\n```\r\n"
    assert _at(text, found[0], "content") == found[0].get("content")
    assert analyze(text).diagnostics == []


def test_a_source_block_far_from_aiders_lines_is_still_aiders() -> None:
    # A long answer writing many files: the last ones stand far from any `####` or `>` line.
    files = "".join(f"src/m{i}.py\n<source>\n" + "x = 1\n" * 60 + "</source>\n" for i in range(8))
    text = "# aider chat started at 2025-08-06\n\n#### write eight modules  \n\n" + files
    assert [a.path for a in _actions(text)] == [f"src/m{i}.py" for i in range(8)]
    # ... but never in another chat's user turn, and HTML's <source src=...> is no block.
    assert _actions("_**User**_\n\nsrc/a.py\n<source>\nx\n</source>\n") == []
    html = '<video>\n<source src="a.mp4">\n</video>\n'
    assert analyze(html).actions == [] and analyze(html).diagnostics == []


def test_aider_names_are_cleaned_as_aider_cleans_them() -> None:
    head = "# aider chat started at 2025\n\n#### go  \n\n"
    for line in ("**app.py**", "`app.py`:", "# app.py", "app.py:"):
        assert [a.path for a in _actions(head + f"{line}\n```python\nx\n```\n")] == ["app.py"], line
    # A plan's quote under a `**File:**` label is no file Aider would write.
    assert _actions(head + "**File:** `app.py`\n```python\n# Current:\nx\n```\n") == []


# -- markdown exports of sessions -----------------------------------------------------------

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "chat_answer"


def test_claude_session_export_tool_uses_are_read_as_their_tools() -> None:
    text = (FIXTURES / "claude-session-export.md").read_text()
    write, edit, bash = _actions(text)
    assert (write.type, write.kind, write.path) == ("Write", ActionKind.WRITE_FILE, "/home/dev/shop/api/health.py")
    assert write.get("content") == 'def health():\n    return {"ok": True}\n'
    # Exact ranges inside the JSON strings, escapes and all.
    c = write.fields["content"]
    assert text[c.span.start : c.span.end] == 'def health():\\n    return {\\"ok\\": True}\\n'
    assert text[write.name_span.start : write.name_span.end] == "Write"
    assert (edit.type, edit.kind) == ("Edit", ActionKind.MODIFY_FILE)
    [e] = edit.edits
    assert (e.search.value, e.replace.value) == ("routes = []", "routes = [health]")
    assert (bash.kind, bash.get("command")) == (ActionKind.COMMAND, "pytest -q")
    # Claude Code's own meanings: Write is a whole file, never a snippet.
    view = file_view(write)
    assert view is not None and view.op == "write" and not view.rules.snippet
    view = file_view(edit)
    assert view is not None and view.op == "modify" and view.rules.agent == "Claude Code's Edit"


def test_transcript_export_write_with_a_project_dir_path() -> None:
    text = (FIXTURES / "transcript-export.md").read_text()
    [a] = _actions(text)
    assert (a.type, a.path, a.get("content")) == ("Write", "hello.sh", '#!/bin/sh\necho "Hello, world!"\n')
    assert _at(text, a, "path") == "hello.sh"  # `$CLAUDE_PROJECT_DIR/` is the workspace root
    view = file_view(a)
    assert view is not None and view.op == "write" and not view.rules.snippet


def test_transcript_export_applies_on_a_checkout(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {})
    assert main(["apply", "--root", str(root), "--write", str(FIXTURES / "transcript-export.md")]) == 0
    assert (root / "hello.sh").read_text() == '#!/bin/sh\necho "Hello, world!"\n'


# -- SpecStory Markdown v2 tool calls -------------------------------------------------------


def test_specstory_v2_tool_uses_are_edits_with_exact_ranges() -> None:
    text = (FIXTURES / "specstory-v2.md").read_text()
    edit, write = _actions(text)  # read_file is no file action
    assert (edit.type, edit.kind, edit.path) == ("search_replace", ActionKind.MODIFY_FILE, "components/Terrain.tsx")
    first, second = edit.edits
    assert first.search.value == "import { useMemo } from 'react'\nimport { Mesh } from 'three'\n\nexport function Terrain() {\n"
    assert first.replace.value.splitlines()[1] == "import { BufferGeometry } from 'three'"
    # HTML entities decoded, and each character still maps to where it is written.
    assert second.replace.value == "  const size = 10\n  return <mesh geometry={new BufferGeometry()} />\n}\n"
    at = second.replace.value.index("<mesh")
    span = second.replace.value_span(at, at + len("<mesh geometry"))
    assert text[span.start : span.end] == "&lt;mesh geometry"
    assert (write.type, write.kind, write.path, write.get("content")) == (
        "write", ActionKind.WRITE_FILE, "terrain.config.json", '{\n  "size": 10\n}\n')
    # The diff chunks are the tool call's, not unified diffs of their own (no bad-patch).
    assert [d.code for d in analyze(text).diagnostics] == []


def test_specstory_v2_replays_on_a_checkout(tmp_path: Path) -> None:
    root = _workspace(tmp_path, {"components/Terrain.tsx": (
        "import { useMemo } from 'react'\nimport { Mesh } from 'three'\n\nexport function Terrain() {\n"
        "  const size = 10\n  return <mesh />\n}\n")})
    assert main(["apply", "--root", str(root), "--write", str(FIXTURES / "specstory-v2.md")]) == 0
    assert (root / "components/Terrain.tsx").read_text() == (
        "import { useMemo } from 'react'\nimport { BufferGeometry } from 'three'\n\nexport function Terrain() {\n"
        "  const size = 10\n  return <mesh geometry={new BufferGeometry()} />\n}\n")
    assert (root / "terrain.config.json").read_text() == '{\n  "size": 10\n}\n'


def test_specstory_claude_code_sessions() -> None:
    """Claude Code sessions in SpecStory: a Write's file is named by its result; an Edit is
    exported with its result only (a modify with no edit: listed, never applied; see
    test_specstory_exports.py); a Read's path line above the file it shows is no chat answer."""
    text = (FIXTURES / "specstory-claude.md").read_text()
    found = _actions(text)
    assert [(a.type, a.kind, a.path) for a in found] == [
        ("Write", ActionKind.WRITE_FILE, "/home/dev/munsell/.taskmaster/state.json"),
        ("Edit", ActionKind.MODIFY_FILE, "/home/dev/munsell/PLAN.md"),
    ]
    assert found[0].get("content") == '{\n  "currentTag": "dev"\n}\n'
    assert found[1].edits == [] and file_view(found[1]) is None


def test_search_replace_blocks_in_source_lines_stay_aiders() -> None:
    """Aider writes its SEARCH/REPLACE blocks in <source> lines too (a file that holds ```):
    such a block is Aider's edit, never a whole-file write of its SEARCH/REPLACE text (it was,
    on Aider's own chat history, before this test)."""
    text = (
        "# aider chat started at 2024-08-01\n\n> Aider v0.49.2-dev  \n\n#### translate it  \n\n"
        "README.md\n<source>\n<<<<<<< SEARCH\n# Aider\n```sh\npip install aider\n```\n=======\n"
        "# Aider (fr)\n```sh\npip install aider\n```\n>>>>>>> REPLACE\n</source>\n"
    )
    analysis = analyze(text)
    assert [(a.dialect, a.kind, a.path) for a in analysis.actions] == [("aider", ActionKind.MODIFY_FILE, "README.md")]
    # Its closing </source> line is no stray tag (nor is a stray </tool-use> of SpecStory's).
    assert analysis.diagnostics == []
    assert analyze("text\n</tool-use>\n").diagnostics == []


def test_aider_on_windows_writes_backslash_paths() -> None:
    text = "# aider chat started at 2025\n\n#### add the adapter  \n\nbackend\\db_adapters.py\n<source>\nx = 1\n</source>\n"
    [a] = _actions(text)
    assert a.path == "backend/db_adapters.py"  # where Aider on Windows wrote it
    assert _at(text, a, "path") == "backend\\db_adapters.py"


def test_export_tool_write_with_the_path_on_its_line() -> None:
    text = "## Claude\n\n**Tool: Write** `/work/app/main.py`\n```python\nprint(1)\n```\n"
    [a] = _actions(text)
    assert (a.type, a.kind, a.path, a.get("content")) == ("Write", ActionKind.WRITE_FILE, "/work/app/main.py", "print(1)\n")
    assert _at(text, a, "path") == "/work/app/main.py"
    view = file_view(a)
    assert view is not None and not view.rules.snippet


def test_a_bare_path_comment_in_an_aider_history_is_an_architects_instruction() -> None:
    # Aider applies only the path-line blocks of its whole format; an architect's snippet with
    # `# doc_processor.py` as its first line is an instruction to the editor, not an edit.
    text = ("# aider chat started at 2025\n\n#### plan it  \n\nAt the top of `doc_processor.py`, add:\n\n"
            "```python\n# doc_processor.py\n# ... (existing imports)\nimport os\n```\n")
    assert _actions(text) == []
