"""Chat buffers that are no files (issue 23): an AI plugin's scratch buffer in Neovim
(buftype=nofile, named ``[CodeCompanion] 7``: its URI is a ``file:`` URI of a path that does not
exist), an editor's ``untitled:`` document, an unnamed buffer (``file://``). The server keeps such
a document in memory: its actions resolve against the workspace folder the client gave, apply
from there, and the server never reads or writes the buffer's own "path"."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.uris import from_fs_path

from action_lsp.dialects import NAMES

from .conftest import Session

pytestmark = pytest.mark.skipif("aider" not in NAMES, reason="needs the aider dialect")

ANSWER = """## Me

Make main() say bye, and add a README.

## CodeCompanion (Copilot)

src/app.py
````python
<<<<<<< SEARCH
    print("hello")
=======
    print("bye")
>>>>>>> REPLACE
````

docs/NOTE.md
```markdown
<<<<<<< SEARCH
=======
a note
>>>>>>> REPLACE
```
"""


def _nofile(session: Session) -> str:
    """Neovim's URI of a scratch buffer named ``[CodeCompanion] 7`` in its current directory."""
    uri = from_fs_path(str(session.root / "[CodeCompanion] 7"))
    assert uri is not None
    return uri


URIS: dict[str, Callable[[Session], str]] = {
    "nofile-buffer": _nofile,
    "untitled": lambda s: "untitled:Untitled-1",
    "plugin-scheme": lambda s: "codecompanion://chat/7",
    "unnamed-buffer": lambda s: "file://",
}


def _open(session: Session, uri: str, text: str) -> str:
    session.versions[uri] = 1
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="codecompanion", version=1, text=text)
        )
    )
    return uri


async def _lenses(session: Session, uri: str, timeout: float = 10.0) -> list[types.CodeLens]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = await session.client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        lenses = [lens for lens in found or [] if lens.command]
        if any(lens.command and lens.command.title == "Apply" for lens in lenses) or loop.time() > deadline:
            return lenses
        await asyncio.sleep(0.1)


@pytest.mark.parametrize("kind", sorted(URIS))
async def test_a_chat_buffer_that_is_no_file_applies_into_the_workspace(session: Session, kind: str) -> None:
    uri = _open(session, URIS[kind](session), ANSWER)
    lenses = await _lenses(session, uri)
    applies = [lens for lens in lenses if lens.command and lens.command.title == "Apply"]
    assert len(applies) == 2, [(lens.range.start.line, lens.command and lens.command.title) for lens in lenses]

    hover = await session.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=applies[0].range.start.line, character=1),
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "src/app.py" in hover.contents.value

    for lens in applies:
        assert lens.command is not None
        result = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )
        assert result["applied"] is True, result
    # the files of the workspace folder the client gave, not of the server's own directory
    assert 'print("bye")' in (session.root / "src" / "app.py").read_text(encoding="utf-8")
    assert (session.root / "docs" / "NOTE.md").read_text(encoding="utf-8") == "a note\n"
    # the buffer itself is never a file: nothing was written under its name, and no edit
    # touched its URI
    assert not (session.root / "[CodeCompanion] 7").exists()
    touched = {
        c.text_document.uri if isinstance(c, types.TextDocumentEdit) else getattr(c, "uri", None)
        for p in session.applied_edits
        for c in p.edit.document_changes or []
    }
    assert uri not in touched


async def test_a_chat_buffer_named_like_an_existing_file_is_not_that_file(session: Session) -> None:
    """A scratch buffer whose name is also a file of the workspace (a plugin naming its buffer
    ``copilot-chat`` where such a file exists): the actions still read the workspace's files,
    and applying leaves the file of that name alone."""
    namesake = session.root / "copilot-chat"
    namesake.write_text("not the chat\n", encoding="utf-8")
    uri = from_fs_path(str(namesake))
    assert uri is not None
    _open(session, uri, ANSWER)
    lenses = await _lenses(session, uri)
    first = next(lens for lens in lenses if lens.command and lens.command.title == "Apply")
    assert first.command is not None
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=first.command.command, arguments=first.command.arguments)
    )
    assert result["applied"] is True, result
    assert 'print("bye")' in (session.root / "src" / "app.py").read_text(encoding="utf-8")
    assert namesake.read_text(encoding="utf-8") == "not the chat\n"


async def test_a_chat_file_kept_under_a_home_repository_resolves_against_the_folder(
    session: Session, tmp_path: Path
) -> None:
    """gp.nvim and parrot.nvim keep their chats in ~/.local/share/nvim/{gp,parrot}/chats, and
    many home directories are git repositories (dotfiles). Neovim gives the chat the project's
    root as its workspace folder; the home repository above that folder is not the chat's
    workspace (its actions resolved against ~: `src/app.py` was ~/src/app.py)."""
    home = tmp_path  # holds the workspace folder (tmp_path/ws), like ~ holds ~/project
    assert session.root.parent == home
    (home / ".git").mkdir()
    chats = home / ".local" / "share" / "nvim" / "gp" / "chats"
    chats.mkdir(parents=True)
    uri = from_fs_path(str(chats / "2026-11-26.10-00-00.000.md"))
    assert uri is not None
    _open(session, uri, ANSWER)
    lenses = await _lenses(session, uri)
    for lens in [lens for lens in lenses if lens.command and lens.command.title == "Apply"]:
        assert lens.command is not None
        result = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )
        assert result["applied"] is True, result
    assert 'print("bye")' in (session.root / "src" / "app.py").read_text(encoding="utf-8")
    # the new file goes into the project, not into the home directory
    assert (session.root / "docs" / "NOTE.md").read_text(encoding="utf-8") == "a note\n"
    assert not (home / "docs").exists() and not (home / "src").exists()
