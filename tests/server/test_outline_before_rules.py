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


def _request(ls: Any, msg_id: int, method: str, uri: str) -> None:
    """A request as the server reads it from a client (decoded, structured, handled by pygls)."""
    body = json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": {"textDocument": {"uri": uri}}})
    ls.protocol.handle_message(json.loads(body, object_hook=ls.protocol.structure_message))


def _outline_then_rules(monkeypatch: pytest.MonkeyPatch, cancel: bool = False) -> tuple[list[str], Any]:
    """Open a large transcript and ask for its outline, as a client does at the open, through
    pygls; what happened once the text was scanned, in order: ``rules`` (a run of rules of the
    last slices) and ``outline`` (its answer written)."""
    monkeypatch.setattr(diagnostics_module, "CHECK_UNITS", 1)  # (a turn of the loop per unit checked)
    events: list[str] = []
    answers: list[dict[str, Any]] = []

    async def main() -> Any:
        ls = create_server()
        ls.text_document_publish_diagnostics = lambda p: None  # type: ignore[method-assign]
        ls.features["diagnostics"].schedule = lambda uris: None  # (no workspace here)

        class Writer:
            def write(self, data: bytes) -> None:
                message = json.loads(bytes(data).partition(b"\r\n\r\n")[2])
                if message.get("id") == 7:
                    events.append("outline")
                    answers.append(message)

            def close(self) -> None:
                pass

        ls.protocol.set_writer(Writer())
        od = ls.open_document(types.TextDocumentItem(uri=URI, language_id="markdown", version=1, text=_text()))
        check_some = od.doc.check_some

        def checked(units: int) -> bool:
            if od.doc.scanned:
                events.append("rules")
            return check_some(units)

        od.doc.check_some = checked  # type: ignore[method-assign]
        ls.emit("opened", od)
        _request(ls, 7, types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, URI)
        if cancel:  # the client cancels it while it waits for the scan
            cancel_request = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 7}}
            ls.protocol.handle_message(json.loads(json.dumps(cancel_request), object_hook=ls.protocol.structure_message))
        task = ls.features["diagnostics"].scanning(URI)
        assert task is not None
        await task
        assert not getattr(ls.features["diagnostics"], "_readers", None)  # (nothing holds the rules back)
        return od

    od = asyncio.run(main())
    assert od.doc.complete
    return events, answers


def test_the_outline_asked_at_the_open_is_answered_before_the_rules_of_the_last_slices_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events, [answer] = _outline_then_rules(monkeypatch)
    # Its wait ends through a few turns of the event loop, and each turn would run some rules
    # (up to 64 units' worth), which the outline does not need.
    assert events[0] == "outline" and events.count("rules") > 1
    assert len([c for s in answer["result"] for c in s.get("children", [s])]) == 80


def test_a_cancelled_outline_does_not_hold_the_rules_back(monkeypatch: pytest.MonkeyPatch) -> None:
    events, answers = _outline_then_rules(monkeypatch, cancel=True)
    assert [a["error"]["code"] for a in answers] == [types.LSPErrorCodes.RequestCancelled.value]
    assert events.count("rules") > 1
