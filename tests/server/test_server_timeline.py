"""A history in its own workspace, in the editor: history actions get no Apply lens, the
superseded one says which later action rewrote it (lens, hover, hint), and nothing is an error."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types

from .conftest import Session

# Two SEARCH/REPLACE edits of calc.py, one after the other (return 1 -> 2 -> 3).
SMALLEST = (Path(__file__).parents[1] / "fixtures" / "timeline" / "smallest.md").read_text(encoding="utf-8")


async def _wait(session: Session, uri: str, pred: Any, timeout: float = 10.0) -> list[types.Diagnostic]:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        diags = await session.diagnostics(uri) if session.pull else list(session.client.diagnostics.get(uri, []))
        if pred({d.code for d in diags}) or loop.time() > deadline:
            return diags
        await asyncio.sleep(0.1)


async def test_history_at_the_end_state(session: Session) -> None:
    (session.root / "calc.py").write_text("def f():\n    return 3\n")
    uri = session.open("history.md", SMALLEST)
    diags = await _wait(session, uri, lambda codes: "superseded" in codes)
    assert sorted(str(d.code) for d in diags) == ["applied", "superseded"]
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in diags)
    td = types.TextDocumentIdentifier(uri=uri)
    lenses = await session.client.text_document_code_lens_async(types.CodeLensParams(text_document=td))
    titles = [lens.command.title for lens in lenses or [] if lens.command]
    assert "Apply" not in titles and not any(t.startswith("Apply all") for t in titles)
    assert "Superseded by action 2" in titles and "Applied ✓" in titles
    hover = await session.client.text_document_hover_async(
        types.HoverParams(text_document=td, position=types.Position(line=2, character=2)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Superseded by action 2" in hover.contents.value
