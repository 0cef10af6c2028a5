"""The chat buffers of AI plugins in a real, headless Neovim (editors/nvim, issue 23).

Each buffer is made the way its plugin makes it -- the plugins themselves are not installed:

- CodeCompanion.nvim: ``nvim_create_buf(listed, true)`` (buftype=nofile), named
  ``[CodeCompanion] <bufnr>``, then filetype ``codecompanion`` when its window opens; a chat
  given a title is renamed to it (``Chat:set_title``);
- CopilotChat.nvim: a scratch buffer given filetype ``copilot-chat``, made read-only, named
  ``copilot-chat``;
- avante.nvim: nui splits with ``buftype=nofile``: the answer buffer has filetype ``Avante`` and
  is named ``AVANTE_RESULT`` only once shown; ``AvanteInput`` and ``AvanteSelectedFiles`` hold
  the user's question and files, no answers;
- gp.nvim / parrot.nvim: markdown chat files under ``stdpath('data')/gp/chats`` (and
  ``parrot/chats``), outside the project.

fixtures/nvim/driver_chat.lua makes them, waits for the client, applies with ``:ActionApply``
and writes what it saw; the test asserts on it and on the files on disk.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_neovim import (
    FIXTURES,
    _path_with_server,
    _run_nvim,
    readme_setup,
    run_lua,
)

from action_lsp.dialects import NAMES
from action_lsp.project_root import find

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]

APP = 'def greet():\n    print("hello")\n'
UTIL = "def double(x):\n    return x * 2\n"

# An answer in CodeCompanion's chat buffer (its `## Me` / `## CodeCompanion (...)` headings),
# written as a SEARCH/REPLACE block with the file on the line before the fence.
CODECOMPANION = """## Me

Make greet() say bye in src/app.py.

## CodeCompanion (Copilot)

Here is the change:

src/app.py
````python
<<<<<<< SEARCH
    print("hello")
=======
    print("bye")
>>>>>>> REPLACE
````

## Me

"""

# CopilotChat's buffer (`## User ───` / `## Copilot ───`), the answer a unified diff as its
# edit_file_unified instructions ask (`--- path/to/file` / `+++ path/to/file`, `@@` hunks).
COPILOTCHAT = """## User ───

Make double() triple instead.

## Copilot ───

```diff
--- src/util.py
+++ src/util.py
@@ -1,2 +1,2 @@
-def double(x):
-    return x * 2
+def triple(x):
+    return x * 3
```

## User ───

"""

# A gp.nvim chat file (its header, `💬:` for the user, `🤖:[agent]` for the answer).
GP = """# topic: a note

- file: 2026-11-26.10-00-00.000.md
---

💬:
Add a file notes/gp.txt saying hi.

🤖:[ChatGPT4o]
notes/gp.txt
```text
<<<<<<< SEARCH
=======
hi from gp
>>>>>>> REPLACE
```

💬:
"""


@pytest.fixture
def chat_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "workspace", ws)
    (ws / ".git").mkdir()
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text(APP, encoding="utf-8")
    (ws / "src" / "util.py").write_text(UTIL, encoding="utf-8")
    return ws


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _scratch(key: str, filetype: str, name: str, make: list[str], text: str, **extra: Any) -> dict[str, Any]:
    return {"key": key, "filetype": filetype, "name": name, "make": make, "lines": _lines(text), **extra}


def _run_chats(
    ws: Path, tmp_path: Path, buffers: list[dict[str, Any]], before: str = ""
) -> tuple[dict[str, Any], str]:
    setup = before + readme_setup("vim.opt.rtp:append(", str(REPO))
    result, proc, tail, _ = _run_nvim(
        "driver_chat.lua",
        ws,
        tmp_path,
        _path_with_server(),
        setup=setup,
        ACTION_LSP_TEST_CHATS=json.dumps({"buffers": buffers}),
    )
    context = f"{json.dumps(result, indent=1, ensure_ascii=False)}\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    assert "error" not in result, context
    assert proc.returncode == 0, context
    return result, context


def _gp_chat(tmp_path: Path) -> Path:
    """A gp.nvim chat file where gp keeps them: stdpath('data')/gp/chats (XDG_DATA_HOME is the
    test's tmp_path/data)."""
    chats = tmp_path / "data" / "nvim" / "gp" / "chats"
    chats.mkdir(parents=True)
    chat = chats / "2026-11-26.10-00-00.000.md"
    chat.write_text(GP, encoding="utf-8")
    return chat


def test_neovim_attaches_to_chat_buffers_and_applies_from_them(chat_ws: Path, tmp_path: Path) -> None:
    chat = _gp_chat(tmp_path)
    buffers = [
        _scratch(
            "codecompanion", "codecompanion", "[CodeCompanion] 7", ["name", "filetype", "show", "lines"],
            CODECOMPANION, expect_attach=True, rename="Make greet say bye",
            apply={"needle": "<<<<<<< SEARCH", "target": "src/app.py", "expect": 'print("bye")'},
        ),
        _scratch(
            "copilotchat", "copilot-chat", "copilot-chat", ["filetype", "readonly", "name", "show", "lines"],
            COPILOTCHAT, listed=False, expect_attach=True,
            apply={"needle": "--- src/util.py", "target": "src/util.py", "expect": "return x * 3"},
        ),
        {"key": "gp", "file": str(chat), "expect_attach": True,
         "apply": {"needle": "<<<<<<< SEARCH", "target": "notes/gp.txt", "expect": "hi from gp"}},
        # avante.nvim's input and selected-files buffers hold no answers
        _scratch("avante_input", "AvanteInput", "", ["filetype", "show", "lines"], "src/app.py: say bye",
                 expect_attach=False),
        _scratch("avante_files", "AvanteSelectedFiles", "", ["filetype", "show", "lines"], "src/app.py",
                 expect_attach=False),
        # a scratch markdown buffer (a hover window, a plugin's preview) is no transcript
        _scratch("hover", "markdown", "", ["filetype", "show", "lines"], CODECOMPANION, expect_attach=False),
    ]
    result, context = _run_chats(chat_ws, tmp_path, buffers)
    seen = result["buffers"]

    for key in ("codecompanion", "copilotchat"):
        b = seen[key]
        assert b["buftype"] == "nofile", context
        assert b["clients"] == 1, context
        # the root of Neovim's current directory (the test runs Neovim in the workspace)
        assert b["root_dir"] == str(chat_ws), context
        assert b["uri"].startswith("file://"), context
    assert seen["codecompanion"]["name"] == str(chat_ws / "[CodeCompanion] 7")
    assert seen["codecompanion"]["uri"].endswith("/%5bCodeCompanion%5d%207")

    # a renamed chat (CodeCompanion names it by its title) keeps its lenses under the new name
    assert seen["codecompanion"]["renamed_uri"].endswith("/Make%20greet%20say%20bye"), context
    assert any("Apply" in t for _l, t in seen["codecompanion"]["lenses_after_rename"]), context

    # gp.nvim's chat file is outside the project: its root is still the current directory's
    assert seen["gp"]["buftype"] == "" and seen["gp"]["root_dir"] == str(chat_ws), context

    for key in ("avante_input", "avante_files", "hover"):
        assert seen[key]["clients"] == 0, (key, context)

    # :ActionApply applied from each, into buffers that :wall wrote
    assert (chat_ws / "src" / "app.py").read_text(encoding="utf-8") == APP.replace("hello", "bye")
    assert (chat_ws / "src" / "util.py").read_text(encoding="utf-8") == "def triple(x):\n    return x * 3\n"
    assert (chat_ws / "notes" / "gp.txt").read_text(encoding="utf-8") == "hi from gp\n"
    assert not (chat.parent / "notes").exists(), "gp's action resolved against the chat directory"
    assert result["modified"] == [], context
    # the chat buffers are no files: nothing was written under their names
    for name in ("[CodeCompanion] 7", "Make greet say bye", "copilot-chat"):
        assert not (chat_ws / name).exists(), name
    assert chat.read_text(encoding="utf-8") == GP  # the chat itself was not touched

    # :checkhealth action_lsp lists the chat plugins and each chat buffer with its root
    health = result["health"]
    assert "codecompanion: buffers of filetype `codecompanion`" in health, health
    assert f"gp: chat files in {chat.parent}" in health, health
    assert f"OK chat {chat} (markdown): attached, root {chat_ws}" in health, health
    assert f"OK chat {chat_ws / 'Make greet say bye'} (codecompanion): attached, root {chat_ws}" in health, health
    assert "ERROR" not in health, health


def test_neovim_chat_plugins_can_be_turned_off(chat_ws: Path, tmp_path: Path) -> None:
    """``vim.g.action_lsp_chats = { codecompanion = false }`` (before the plugin loads): its
    buffers are left alone, the other plugins' still get the client."""
    buffers = [
        _scratch("codecompanion", "codecompanion", "[CodeCompanion] 3", ["name", "filetype", "show", "lines"],
                 CODECOMPANION, expect_attach=False),
        _scratch("copilotchat", "copilot-chat", "copilot-chat", ["filetype", "readonly", "name", "show", "lines"],
                 COPILOTCHAT, expect_attach=True),
    ]
    result, context = _run_chats(
        chat_ws, tmp_path, buffers, before="vim.g.action_lsp_chats = { codecompanion = false }; "
    )
    assert result["buffers"]["codecompanion"]["clients"] == 0, context
    assert result["buffers"]["copilotchat"]["clients"] == 1, context


def test_neovim_attaches_to_a_chat_opened_before_the_plugin_loaded(chat_ws: Path, tmp_path: Path) -> None:
    """A plugin manager may load action-lsp after a chat is open: the plugin attaches to it when
    it loads."""
    lines = json.dumps(_lines(COPILOTCHAT))
    before = (
        "local b = vim.api.nvim_create_buf(false, true); vim.bo[b].filetype = 'copilot-chat'; "
        f"vim.api.nvim_buf_set_name(b, 'copilot-chat'); vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.json.decode([=[{lines}]=])); "
    )
    buffers = [{"key": "copilotchat", "existing": True, "filetype": "copilot-chat", "expect_attach": True,
                "apply": {"needle": "--- src/util.py", "target": "src/util.py", "expect": "return x * 3"}}]
    result, context = _run_chats(chat_ws, tmp_path, buffers, before=before)
    assert result["buffers"]["copilotchat"]["clients"] == 1, context
    assert (chat_ws / "src" / "util.py").read_text(encoding="utf-8") == "def triple(x):\n    return x * 3\n"


def test_neovim_no_chat_plugin_at_all(chat_ws: Path, tmp_path: Path) -> None:
    """``vim.g.action_lsp_chats = false``: no chat buffer, and a gp.nvim chat file is an ordinary
    markdown file again (its root found from its own path)."""
    chat = _gp_chat(tmp_path)
    buffers = [
        _scratch("copilotchat", "copilot-chat", "copilot-chat", ["filetype", "readonly", "name", "show", "lines"],
                 COPILOTCHAT, expect_attach=False),
        {"key": "gp", "file": str(chat), "expect_attach": True, "wait_lens": False},
    ]
    result, context = _run_chats(chat_ws, tmp_path, buffers, before="vim.g.action_lsp_chats = false; ")
    assert result["buffers"]["copilotchat"]["clients"] == 0, context
    assert result["buffers"]["gp"]["root_dir"] != str(chat_ws), context



# avante.nvim's answer buffer: the sidebar shows each SEARCH/REPLACE block by line numbers
# (transform_result_content in lua/avante/sidebar.lua), without the SEARCH text
AVANTE = """- Datetime: 2026-11-26 10:00:00
- Model: claude/claude-sonnet-4
- Selected files:
  - src/app.py

> Make greet say bye

Filepath: src/app.py
Replace lines: 2-2
```python
    print("bye")
```
"""


def test_neovim_avante_answer_buffer_is_shown_never_applied(chat_ws: Path, tmp_path: Path) -> None:
    """avante's answer buffer (filetype set when its split mounts, named `AVANTE_RESULT` only
    once shown) gets the client when it is named; its blocks are shown (hover) but have no
    Apply: the buffer gives line numbers, not the text they replace."""
    buffers = [
        _scratch("avante", "Avante", "AVANTE_RESULT", ["filetype", "lines", "readonly", "show", "name"], AVANTE,
                 listed=False, expect_attach=True, wait_lens=False, hover="Filepath: src/app.py",
                 rename_same=True),
    ]
    result, context = _run_chats(chat_ws, tmp_path, buffers)
    b = result["buffers"]["avante"]
    assert b["clients"] == 1 and b["root_dir"] == str(chat_ws), context
    assert b["uri"].endswith("/AVANTE_RESULT"), context
    assert not any("Apply" in t for _l, t in b["lenses"]), context
    assert "replace-lines" in b["hover"] and "src/app.py" in b["hover"], context
    assert (chat_ws / "src" / "app.py").read_text(encoding="utf-8") == APP
    # named again under the same name (each time its window is entered): no close and reopen
    assert b["same_name"] == {"detached": 0, "clients": 1, "uri": b["uri"]}, context


CC_HEAD = "## Me\n\nMake greet() say bye in src/app.py.\n\n## CodeCompanion (Copilot)\n\n"
CC_STREAM = ["Here is the change:\n\nsrc/app.py\n", "````python\n<<<<<<< SEARCH\n", '    print("hello")\n',
             "=======\n", '    print("by']
CC_FINISH = ['e")\n>>>>>>> REPLACE\n', "````\n\n## Me\n\n"]


def test_neovim_streaming_chat_answer_is_in_progress_then_applies(chat_ws: Path, tmp_path: Path) -> None:
    """CodeCompanion streams its answer into the chat buffer: while the block still grows, its
    unclosed end is information and has no Apply lens; once complete, :ActionApply applies it.
    (Neovim pulls diagnostics on a change only -- it has no workspace/diagnostic/refresh -- so
    a stream that stalls shows as an error at the buffer's next change, not when the grace
    period ends.)"""
    buffers = [
        _scratch("codecompanion", "codecompanion", "[CodeCompanion] 4", ["name", "filetype", "show", "lines"],
                 CC_HEAD, expect_attach=True, stream=CC_STREAM, finish=CC_FINISH,
                 apply={"needle": "<<<<<<< SEARCH", "target": "src/app.py", "expect": 'print("bye")'}),
    ]
    result, context = _run_chats(chat_ws, tmp_path, buffers)
    b = result["buffers"]["codecompanion"]
    growing = [d for d in b["while_streaming"]["diagnostics"] if d["code"] == "unclosed-block"]
    assert growing and all(d["severity"] == 3 and "in progress" in d["message"] for d in growing), context
    assert not any("Apply" in t for _l, t in b["while_streaming"]["lenses"]), context
    assert not any(d["code"] == "unclosed-block" for d in b["diagnostics"]), context
    assert (chat_ws / "src" / "app.py").read_text(encoding="utf-8") == APP.replace("hello", "bye")


CC_FILEPATH = """## Me

Add a helper module.

## CodeCompanion (Copilot)

````python
# filepath: src/helpers.py
def shout(text):
    return text.upper()
````

## Me

"""


@pytest.mark.skipif(
    "chat-answer" not in NAMES,
    reason="needs the chat-answer dialect (code blocks naming their file; branch i23-chat), not installed",
)
def test_neovim_applies_a_codecompanion_code_block_naming_its_file(chat_ws: Path, tmp_path: Path) -> None:
    """CodeCompanion's own convention (a `filepath:` comment on the block's first line): the
    block that makes a new file is applied from the chat buffer with :ActionApply."""
    buffers = [
        _scratch("codecompanion", "codecompanion", "[CodeCompanion] 9", ["name", "filetype", "show", "lines"],
                 CC_FILEPATH, expect_attach=True,
                 apply={"needle": "# filepath: src/helpers.py", "target": "src/helpers.py", "expect": "upper()"}),
    ]
    _run_chats(chat_ws, tmp_path, buffers)
    assert (chat_ws / "src" / "helpers.py").read_text(encoding="utf-8") == "def shout(text):\n    return text.upper()\n"


DIRS_LUA = """
vim.opt.rtp:append(vim.env.ACTION_LSP_NVIM_DIR)
local action_lsp = require('action_lsp')
local out = {}
for _, dir in ipairs(vim.json.decode(vim.env.ACTION_LSP_TEST_DIRS)) do
  local root, marker = action_lsp.find_root_of_dir(dir)
  vim.cmd.cd(vim.fn.fnameescape(dir))
  out[dir] = { root = root or vim.NIL, marker = marker or vim.NIL, chat_root = action_lsp.chat_root() or vim.NIL }
end
local f = assert(io.open(vim.env.ACTION_LSP_TEST_OUT, 'w'))
f:write(vim.json.encode(out))
f:close()
"""


def test_neovim_chat_root_is_the_current_directorys_as_the_command_line_finds_it(tmp_path: Path) -> None:
    """A chat buffer's root: the one `action-lsp check` finds for Neovim's current directory
    (the directory itself first, then those above); with none, that directory itself, unless
    every user may write into it (like /tmp)."""
    top = tmp_path / "top"
    (top / "repo" / ".git").mkdir(parents=True)
    (top / "repo" / "docs").mkdir()
    (top / "repo" / "decl").mkdir()
    (top / "repo" / "decl" / ".action-lsp.toml").write_text("[dialects]\n", encoding="utf-8")
    (top / "plain").mkdir()
    shared = tmp_path / "public"
    shared.mkdir()
    shared.chmod(0o1777)
    dirs = [top / "repo", top / "repo" / "docs", top / "repo" / "decl", top / "plain", shared]
    got = run_lua(DIRS_LUA, tmp_path, "dirs", ACTION_LSP_TEST_DIRS=json.dumps([str(d) for d in dirs]))
    for d in dirs:
        root = find(d)
        assert (got[str(d)]["root"], got[str(d)]["marker"]) == (
            (str(root.path), root.marker) if root else (None, None)
        ), d
    assert got[str(top / "repo" / "docs")]["chat_root"] == str(top / "repo")
    assert got[str(top / "repo" / "decl")]["chat_root"] == str(top / "repo" / "decl")
    assert got[str(top / "plain")]["chat_root"] == str(top / "plain")  # no root: the directory
    assert got[str(shared)]["chat_root"] is None
