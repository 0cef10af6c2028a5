"""A transcript inside a marked workspace (``.action-lsp/``) below the editor's folder is applied
to that workspace, never to the enclosing folder (the example in ``examples/workspace``)."""

from __future__ import annotations

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
