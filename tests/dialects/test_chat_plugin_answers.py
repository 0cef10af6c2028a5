"""The answers of Neovim's AI chat plugins, in their chat buffers' own layout, read by the
``chat-answer`` dialect (code blocks that name their file; built on another branch, issue 23).

Each answer follows what the plugin asks its model for:

- CodeCompanion.nvim until December 2025: four backticks, the language, and a first line
  comment ``filepath:`` + the path, ``...existing code...`` comments for unchanged code
  (its system prompt, ``lua/codecompanion/strategies/chat/init.lua``); since then the path in
  curly braces after the language (````` ````python {src/app.py} `````);
- CopilotChat.nvim: ```` ```lua path=/abs/path start_line=N end_line=M ```` (its
  ``edit_file_block`` instructions), and the ``// filepath:`` comment Copilot itself writes;
- gp.nvim / parrot.nvim: no convention of their own (the model's usual path line), in their
  ``🤖:[agent]`` / ``🦜:[agent]`` turns.

These tests run once the dialect exists (skipped, saying why, while ``chat-answer`` is not
among the installed dialects). The shapes the dialect does not read yet are ``xfail`` with the
reason: each is a convention a plugin documents.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import ALL, NAMES, DialectSet
from action_lsp.document import analyze

pytestmark = pytest.mark.skipif(
    "chat-answer" not in NAMES,
    reason="needs the chat-answer dialect (code blocks naming their file; branch i23-chat), not installed",
)

APP = 'def greet():\n    print("hello")\n\n\ndef main():\n    greet()\n'

CC_ME = "## Me\n\nMake greet() say bye, and add a helper module.\n\n## CodeCompanion (Copilot)\n\n"
CC_END = "\n## Me\n\n"

# CodeCompanion's prompt until December 2025: `filepath:` comment, `...existing code...` comments
CC_FILEPATH = CC_ME + """Add the helper:

````python
# filepath: src/helpers.py
def shout(text):
    return text.upper()
````

And in `src/app.py`:

````python
# filepath: src/app.py
# ...existing code...
def greet():
    print("bye")
# ...existing code...
````
""" + CC_END

# CodeCompanion's prompt since December 2025: the path in curly braces after the language
CC_CURLY = CC_ME + """````python {src/helpers.py}
def shout(text):
    return text.upper()
````
""" + CC_END

# ... and the path on the line before the fence, in CodeCompanion's answer turn
CC_PATH_LINE = CC_ME + """**src/helpers.py**
````python
def shout(text):
    return text.upper()
````
""" + CC_END

COPILOT_ME = "## User ───\n\nAdd a helper module.\n\n## Copilot ───\n\n"
COPILOT_FILEPATH = COPILOT_ME + """```python
# filepath: src/helpers.py
def shout(text):
    return text.upper()
```

## User ───

"""
COPILOT_PATH_ATTR = COPILOT_ME + """```python path=src/helpers.py start_line=1 end_line=2
def shout(text):
    return text.upper()
```
"""

GP_PATH_LINE = """# topic: helpers

- file: 2026-11-26.10-00-00.000.md
---

💬:
Add a helper module.

🤖:[ChatGPT4o]
`src/helpers.py`
```python
def shout(text):
    return text.upper()
```

💬:
"""
PARROT_PATH_LINE = GP_PATH_LINE.replace("💬:", "🗨:").replace("🤖:[ChatGPT4o]", "🦜:[Claude]")

HELPERS = "def shout(text):\n    return text.upper()\n"


def _actions(text: str) -> list[tuple[str | None, str]]:
    analysis = analyze(text, DialectSet([d for d in ALL if d.default_enabled]))
    return [(a.path, a.dialect) for a in analysis.actions if a.kind.is_file_action]


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(APP, encoding="utf-8")
    return root


def _apply(tmp_path: Path, root: Path, text: str, *extra: str) -> int:
    t = tmp_path / "chat.md"
    t.write_text(text, encoding="utf-8")
    return main(["apply", "--root", str(root), "--write", *extra, str(t)])


def test_codecompanion_filepath_comments_are_read() -> None:
    assert _actions(CC_FILEPATH) == [("src/helpers.py", "chat-answer"), ("src/app.py", "chat-answer")]


def test_codecompanion_new_file_is_created_and_its_lazy_snippet_never_written_whole(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    _apply(tmp_path, root, CC_FILEPATH, "--select", "1")
    assert (root / "src" / "helpers.py").read_text(encoding="utf-8") == HELPERS
    _apply(tmp_path, root, CC_FILEPATH, "--select", "2", "--force")
    text = (root / "src" / "app.py").read_text(encoding="utf-8")
    assert "...existing code..." not in text and "def main" in text  # merged, or left alone


def test_copilotchat_filepath_comment_is_read() -> None:
    assert _actions(COPILOT_FILEPATH) == [("src/helpers.py", "chat-answer")]


def test_codecompanion_path_in_curly_braces_is_read() -> None:
    assert _actions(CC_CURLY) == [("src/helpers.py", "chat-answer")]


def test_codecompanion_path_line_in_its_answer_turn_is_read() -> None:
    assert _actions(CC_PATH_LINE) == [("src/helpers.py", "chat-answer")]


def test_copilotchat_path_attribute_is_shown_never_applied(tmp_path: Path) -> None:
    """CopilotChat's `path=... start_line=N end_line=M` names lines by number only: read (its
    path and lines), shown, never a file action (nothing says what the lines held)."""
    analysis = analyze(COPILOT_PATH_ATTR, DialectSet([d for d in ALL if d.default_enabled]))
    (action,) = analysis.actions
    assert (action.type, action.path, action.text("lines")) == ("replace-lines", "src/helpers.py", "1-2")
    assert not action.kind.is_file_action
    root = _workspace(tmp_path)
    _apply(tmp_path, root, COPILOT_PATH_ATTR)
    assert not (root / "src" / "helpers.py").exists()


@pytest.mark.parametrize("text", [GP_PATH_LINE, PARROT_PATH_LINE], ids=["gp", "parrot"])
def test_gp_and_parrot_path_line_is_read(text: str) -> None:
    assert _actions(text) == [("src/helpers.py", "chat-answer")]
