"""A large transcript opened in steps is scanned, then its rules run: the outline (actions and
groups only) is answered once the text is scanned, before the last diagnostics are published,
and it is the outline of the finished document. Driven in-process, one turn of the event loop
at a time, so that the order is the server's, not the machine's."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from lsprotocol import types

from action_lsp.document import analyze
from action_lsp.server import diagnostics as diagnostics_module
from action_lsp.server.server import create_server

URI = "file:///tmp/outline-before-rules.md"
PROSE = "Some prose about the change, long enough to be a paragraph of its own.\n\n"
FLAGGED = (
    '```actions\n{{"actions": [{{"type": "creat_task", "content": "{0}"}}]}}\n```\n\n'
    "<create_file>\n<path>/etc/x{0}.conf</path>\n<content>\nx\n</content>\n</create_file>\n\n"
)


def _text() -> str:
    # Past the first slice, which is published checked at once: 40 blocks whose findings are
    # all the rules' (an unknown action type, an absolute path).
    return "# user\n\n" + PROSE * 8_000 + "".join(FLAGGED.format(i) for i in range(40))


async def _run(steps: Any) -> Any:
    """Drive a generator handler as pygls does: each yield is ``(ls.in_request, (fn, *args), None)``."""
    sent = None
    while True:
        try:
            _, call, _ = steps.send(sent)
        except StopIteration as done:
            return done.value
        sent = await call[0](*call[1:])


def _symbols(answer: Any) -> list[dict[str, Any]]:
    [written] = answer  # (the items, written as JSON: wire.Encoded)
    result: list[dict[str, Any]] = json.loads(b"[" + bytes(written.data) + b"]")
    return result


def test_the_outline_is_answered_before_the_rules_end_and_is_the_whole_documents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(diagnostics_module, "CHECK_UNITS", 1)  # (a turn of the loop per unit checked)
    text = _text()
    published: list[object] = []

    async def main() -> tuple[list[dict[str, Any]], list[dict[str, Any]], bool, int, list[str]]:
        ls = create_server()
        ls.text_document_publish_diagnostics = lambda p: published.append(p)  # type: ignore[method-assign]
        ls.features["diagnostics"].schedule = lambda uris: None  # (no workspace here)
        od = ls.open_document(types.TextDocumentItem(uri=URI, language_id="markdown", version=1, text=text))
        ls.emit("opened", od)
        assert len(published) == 1  # the top, at once
        handler = ls.protocol.fm.features[types.TEXT_DOCUMENT_DOCUMENT_SYMBOL]
        params = types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=URI))
        early = _symbols(await _run(handler(params)))
        rules_done = od.doc.complete
        publishes = len(published)
        task = ls.features["diagnostics"].scanning(URI)
        assert task is not None
        await task
        assert len(published) == 2  # then everything
        late = _symbols(await _run(handler(params)))
        return early, late, rules_done, publishes, [str(d.code) for d in od.analysis().diagnostics]

    early, late, rules_done, publishes, codes = asyncio.run(main())
    assert not rules_done and publishes == 1  # answered while the rules ran, before the last publish
    assert early == late
    assert len([c for s in early for c in s.get("children", [s])]) == len(analyze(text).actions) == 80
    assert codes.count("unknown-action") == 40 and "absolute-path" in codes
    assert codes == [str(d.code) for d in analyze(text).diagnostics]
