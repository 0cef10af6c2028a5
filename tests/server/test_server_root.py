"""A transcript inside a marked workspace (``.action-lsp/``) below the editor's folder is applied
to that workspace, never to the enclosing folder (the example in ``examples/workspace``)."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.uris import to_fs_path

from .conftest import Session

TRANSCRIPT = """<modify_file>
<path>src/app.py</path>
<search>
x = 1
</search>
<replace>
x = 2
</replace>
</modify_file>

<create_file>
<path>tests/test_x.py</path>
<content>
def test_x():
    pass
</content>
</create_file>
"""


async def test_marked_workspace_inside_the_folder_is_the_root(session: Session) -> None:
    inner = session.root / "examples" / "workspace"
    (inner / ".action-lsp").mkdir(parents=True)
    (inner / "src").mkdir()
    (inner / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    uri = session.open("examples/workspace/t.md", TRANSCRIPT)
    diags = await session.diagnostics(uri)
    assert "file-not-found" not in {d.code for d in diags}, diags
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(
            command="action-lsp.applyAll", arguments=[{"uri": uri, "version": 1, "actions": [0, 1]}]
        )
    )
    assert result["applied"] is True
    (params,) = session.applied_edits
    targets = set()
    for change in params.edit.document_changes or []:
        target = change.uri if isinstance(change, types.CreateFile) else getattr(change, "text_document", change).uri
        targets.add(to_fs_path(target))
    assert targets == {str(inner / "src" / "app.py"), str(inner / "tests" / "test_x.py")}
    assert (inner / "src" / "app.py").read_text(encoding="utf-8") == "x = 2\n"
    assert not (session.root / "tests").exists() and (session.root / "src" / "app.py").exists()


async def test_a_repository_inside_the_folder_is_the_root_as_check_finds_it(session: Session) -> None:
    """The server and ``action-lsp check`` find the same root (here a repository's top inside the
    editor's folder) and give the same answer about the same transcript."""
    from action_lsp.cli import main

    repo = session.root / "vendor" / "lib"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("x = 3\n", encoding="utf-8")  # the search text is gone
    (repo / "docs").mkdir()
    (repo / "docs" / "t.md").write_text(TRANSCRIPT, encoding="utf-8")
    uri = session.open("vendor/lib/docs/t.md", TRANSCRIPT)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 10
    codes: set[str | int | None] = set()
    while "search-not-found" not in codes and loop.time() < deadline:  # workspace findings come second
        codes = {d.code for d in await session.diagnostics(uri)}
        await asyncio.sleep(0.05)
    assert "search-not-found" in codes and "file-not-found" not in codes, codes
    assert main(["check", "--output-format", "json", str(repo / "docs" / "t.md")]) == 1
