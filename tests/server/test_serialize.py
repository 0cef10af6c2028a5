"""Messages are encoded by ``action_lsp.server.wire`` (a list answer an item at a time, into one
buffer of bytes); the JSON must be what pygls would have sent, with a right Content-Length."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.protocol import default_converter

from action_lsp.model import Severity
from action_lsp.server import wire
from action_lsp.server.server import ActionProtocol, create_server
from action_lsp.server.wire import Later


def _pos(line: int, character: int = 0) -> types.Position:
    return types.Position(line=line, character=character)


def _range(line: int) -> types.Range:
    return types.Range(start=_pos(line, 2), end=_pos(line + 1, 5))


def _lenses(n: int) -> list[types.CodeLens]:
    return [
        types.CodeLens(
            range=_range(i),
            command=types.Command(title="Apply", command="action-lsp.apply", arguments=[{"uri": "file:///t.md", "action": i}])
            if i % 3
            else None,
            data=None if i % 2 else [i, "é\\"],
        )
        for i in range(n)
    ]


def _symbols(n: int) -> list[types.DocumentSymbol]:
    child = types.DocumentSymbol(name="write src/a.py", kind=types.SymbolKind.File, range=_range(1), selection_range=_range(1))
    return [
        types.DocumentSymbol(
            name=f"block {i}",
            detail="actions" if i % 2 else None,
            kind=types.SymbolKind.Namespace,
            range=_range(i),
            selection_range=_range(i),
            children=[child] if i % 4 == 0 else None,
        )
        for i in range(n)
    ]


def _folding(n: int) -> list[types.FoldingRange]:
    return [types.FoldingRange(start_line=i, end_line=i + 3, kind=types.FoldingRangeKind.Region if i % 2 else None) for i in range(n)]


def _sent(protocol: ActionProtocol, message: Any) -> dict[str, Any]:
    """What ``protocol`` writes for ``message``: its header checked, its body decoded."""
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(bytes(data))

        def close(self) -> None:
            pass

    protocol.set_writer(Writer())
    protocol._send_data(message)
    (data,) = written
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"Content-Length: %d\r\n" % len(body))
    return json.loads(body)  # type: ignore[no-any-return]


def _pygls(message: Any) -> dict[str, Any]:
    return json.loads(json.dumps(default_converter().unstructure(message)))  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("response_type", "result"),
    [
        (types.CodeLensResponse, _lenses(300)),
        (types.DocumentSymbolResponse, _symbols(600)),
        (types.FoldingRangeResponse, _folding(256)),
        (types.CodeLensResponse, _lenses(3)),
        (types.CodeLensResponse, []),
        (types.HoverResponse, types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value="é 😀 \\"))),
        (types.HoverResponse, None),
    ],
)
def test_an_answer_is_the_json_pygls_would_send(response_type: Any, result: Any) -> None:
    protocol = create_server().protocol
    assert isinstance(protocol, ActionProtocol)
    response = response_type(id=7, result=result, jsonrpc="2.0")
    ours = _sent(protocol, response)
    assert ours == _pygls(response)
    if isinstance(result, list) and result:
        assert "end_line" not in json.dumps(ours) and "selection_range" not in json.dumps(ours)  # LSP's names


def test_a_notification_is_the_json_pygls_would_send() -> None:
    protocol = create_server().protocol
    assert isinstance(protocol, ActionProtocol)
    note = types.PublishDiagnosticsNotification(
        params=types.PublishDiagnosticsParams(
            uri="file:///t.md",
            diagnostics=[types.Diagnostic(range=types.Range(start=_pos(0), end=_pos(0, 3)), message="« é 😀 »", data={"k": [1]})],
        )
    )
    assert _sent(protocol, note) == _pygls(note)


def test_later_items_are_made_as_they_are_written() -> None:
    """A handler may answer with items made only when the encoder reaches them."""
    protocol = create_server().protocol
    assert isinstance(protocol, ActionProtocol)
    made: list[int] = []

    def make(i: int) -> types.FoldingRange:
        made.append(i)
        return types.FoldingRange(start_line=i, end_line=i + 1)

    later = [Later(make, i) for i in range(5)]
    assert not made
    sent = _sent(protocol, types.FoldingRangeResponse(id=1, result=later))  # type: ignore[arg-type]
    assert made == [0, 1, 2, 3, 4]
    assert sent["result"] == _pygls(types.FoldingRangeResponse(id=1, result=[make(i) for i in range(5)]))["result"]


def _open(ls: Any, text: str) -> Any:
    return ls.open_document(types.TextDocumentItem(uri="untitled:t.md", language_id="markdown", version=1, text=text))


def _drive(steps: Any, between: Any = None) -> tuple[int, Any]:
    """Run a handler's generator as pygls does: each yielded ``(fn, args, kwargs)`` awaited on
    the loop and its result sent back."""

    async def run() -> tuple[int, Any]:
        turns, sent = 0, None
        try:
            while True:
                fn, args, _ = steps.send(sent)
                turns += 1
                sent = await fn(*args)
                if between is not None:
                    between()
        except StopIteration as done:
            return turns, done.value

    return asyncio.run(run())


def test_an_answer_made_in_steps_is_the_same_answer(monkeypatch: pytest.MonkeyPatch) -> None:

    ls = create_server()
    od = _open(ls, "x")
    lenses = _lenses(40)
    monkeypatch.setattr(wire, "STEP_SECONDS", -1.0)  # a turn of the loop after every batch
    monkeypatch.setattr(wire, "BATCH", 3)  # (items encoded by one call)
    turns, pieces = _drive(wire.in_steps(ls, od, lambda: [Later(lambda i: lenses[i], i) for i in range(40)]))
    assert turns == 14 and len(pieces) == 1
    response = types.CodeLensResponse(id=3, result=pieces)  # type: ignore[arg-type]
    assert _sent(ls.protocol, response) == _pygls(types.CodeLensResponse(id=3, result=lenses))


def test_an_edit_between_two_steps_ends_the_request_with_content_modified(monkeypatch: pytest.MonkeyPatch) -> None:
    from pygls.exceptions import JsonRpcContentModified


    ls = create_server()
    od = _open(ls, "x")
    monkeypatch.setattr(wire, "STEP_SECONDS", -1.0)
    monkeypatch.setattr(wire, "LARGE_CHARS", 0)  # a large document's answers take turns
    monkeypatch.setattr(wire, "LARGE_ITEMS", -1)

    def edit() -> None:
        od.revision += 1  # (what a didChange does to the document)

    with pytest.raises(JsonRpcContentModified):
        _drive(wire.in_steps(ls, od, lambda: _folding(5)), between=edit)
    assert not ls._answer_lock.locked()  # the next long answer is not kept waiting


def test_a_large_document_s_workspace_check_takes_its_turn_with_the_long_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Planned side by side with the outline or the lenses of a 50 MB transcript, the check's
    memory added to theirs (peak 566 -> 505 MB once they took turns)."""
    ls = create_server()
    od = _open(ls, "<create_file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</create_file>\n")
    monkeypatch.setattr(wire, "LARGE_CHARS", 0)  # (this document counts as large)
    monkeypatch.setattr(wire, "LARGE_ITEMS", -1)
    checks = ls.features["diagnostics"]

    async def run() -> None:
        lock = wire.one_at_a_time(ls)
        await lock.acquire()  # a long answer being made
        check = asyncio.ensure_future(checks.check(od))
        await asyncio.sleep(0.05)
        assert not check.done() and od.workspace.plan is None
        lock.release()
        await asyncio.wait_for(check, 10)
        assert od.workspace.plan is not None and not lock.locked()

    asyncio.run(run())


def test_the_heap_is_trimmed_after_a_long_message_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 50 MB document's outline is 34 MB of JSON: once written, its pages went back to the OS
    only if told (the server stayed ~20 MB higher for as long as the document was open)."""
    from action_lsp.server import server

    trims: list[int] = []
    monkeypatch.setattr(server, "trim_memory", lambda: trims.append(1))
    monkeypatch.setattr(wire, "TRIM_BYTES", 10_000)
    protocol = create_server().protocol
    _sent(protocol, types.FoldingRangeResponse(id=1, result=_folding(20)))  # (about 1 KB)
    assert trims == []
    _sent(protocol, types.FoldingRangeResponse(id=2, result=_folding(400)))  # (about 20 KB)
    assert trims == [1]


def test_a_long_answer_cancelled_while_it_waits_its_turn_gives_the_turn_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """VS Code cancels a pending outline or folding request when the document changes. pygls
    then never resumes the handler: the turn it was waiting for, taken for it meanwhile, must
    not stay taken (every later long answer and workspace check of a large document waited)."""
    ls = create_server()
    od = _open(ls, "x")
    monkeypatch.setattr(wire, "LARGE_CHARS", 0)
    monkeypatch.setattr(wire, "LARGE_ITEMS", -1)

    async def run() -> None:
        lock = wire.one_at_a_time(ls)
        await lock.acquire()  # another long answer is being made
        steps = wire.in_steps(ls, od, lambda: _folding(5))
        fn, args, _ = next(steps)  # this one waits for its turn, as pygls runs it
        waiting = asyncio.ensure_future(fn(*args))
        lock.release()  # the other answer is sent
        await waiting  # the turn is taken for this one; the client has cancelled it meanwhile,
        steps.close()  # so pygls drops the handler without resuming it
        assert not lock.locked()
        check = asyncio.ensure_future(ls.features["diagnostics"].check(od))
        await asyncio.wait_for(check, 10)  # (the next in line gets its turn)
        # Dropped while still in line: the turn, when it comes, is given back at once.
        await lock.acquire()
        steps = wire.in_steps(ls, od, lambda: _folding(5))
        fn, args, _ = next(steps)
        waiting = asyncio.ensure_future(fn(*args))
        await asyncio.sleep(0)
        steps.close()
        lock.release()
        await waiting
        assert not lock.locked()

    asyncio.run(run())


def test_published_diagnostics_are_what_pygls_would_send_edit_after_edit(tmp_path: Any) -> None:
    """Each unit's diagnostics are written once and their JSON reused while they stay where
    they are (a keystroke in a 4 MB transcript republished 1,300 diagnostics, each encoded
    again); the workspace findings likewise. Every publish must still be the document's
    diagnostics as pygls would write them, edit after edit, including after a settings change."""
    ls = create_server()
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    ls.folders = [tmp_path]  # (the workspace the checks read)
    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(bytes(data))

    ls.protocol.set_writer(Writer())
    block = (
        "<modify_file>\n<path>a.py</path>\n<search>y = 1\n</search>\n<replace>y = 2\n</replace>\n</modify_file>\n\n"
        '```actions\n{"actions": [{"type": "creat_task", "content": "é😀"}]}\n```\n\n'
        "<create_file>\n<path>../up.py</path>\n<content>x = (\n</content>\n</create_file>\n\n"
    )
    od = _open(ls, block * 30)
    checks = ls.features["diagnostics"]
    asyncio.run(checks.check(od))
    assert od.workspace.diagnostics  # (search-not-found for every modify)

    def published() -> dict[str, Any]:
        written.clear()
        checks.publish(od)
        body = written[-1].partition(b"\r\n\r\n")[2]
        return json.loads(body)  # type: ignore[no-any-return]

    def expected() -> dict[str, Any]:
        """Converted anew, without the caches (then put back as they were)."""
        kept = checks._caches.pop(od.uri, None)
        params = types.PublishDiagnosticsParams(uri=od.uri, version=od.version, diagnostics=checks.all(od))
        if kept is not None:
            checks._caches[od.uri] = kept
        return _pygls(types.PublishDiagnosticsNotification(params=params))

    lines = od.text.split("\n")
    # (start line and column, end line and column, text); the last ones keep the text's length but move
    # what follows to other lines or columns: a line break for a character, a line break taken
    # out for a character, an astral character (two UTF-16 units) for one letter.
    edits = [(0, 0, 0, 0, ""), (40, 3, 40, 3, "z"), (2, 0, 2, 0, "\n\n"), (len(lines) - 3, 0, len(lines) - 3, 0, "<create_file>"),
             (7, 1, 7, 1, "é"), (0, 0, 0, 0, "# hi\n"), (0, 2, 0, 3, "\n"), (0, 2, 1, 0, "x"), (0, 0, 0, 1, "😀")]
    for step, (line, col, end_line, end_col, text) in enumerate(edits):
        if step:
            span = types.Range(start=_pos(line, col), end=_pos(end_line, end_col))
            change = types.TextDocumentContentChangePartial(range=span, text=text)
            ls.documents.change(od.uri, od.version + 1, [change], ls.encoding)
        got = published()
        assert got == expected(), step
        assert len(got["params"]["diagnostics"]) > 60
    before = published()["params"]["diagnostics"]
    ls.settings = dataclasses.replace(ls.settings, severity={"unknown-action": None, "search-not-found": Severity.HINT})
    checks.on_reconfigured()
    after = published()
    assert after == expected()
    assert {d["code"] for d in after["params"]["diagnostics"]} == {d["code"] for d in before} - {"unknown-action"}
    assert {d["severity"] for d in after["params"]["diagnostics"] if d["code"] == "search-not-found"} == {4}


def test_a_check_waiting_for_its_turn_is_dropped_when_its_document_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A large document's plan is a minute of work for 100,000 actions: not made for a
    document closed while the check waited for its turn."""
    from action_lsp.server import diagnostics as module

    ls = create_server()
    od = _open(ls, "<create_file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</create_file>\n")
    monkeypatch.setattr(wire, "LARGE_CHARS", 0)
    monkeypatch.setattr(wire, "LARGE_ITEMS", -1)
    planned: list[int] = []
    plan = module._check_plan
    monkeypatch.setattr(module, "_check_plan", lambda *a, **k: (planned.append(1), plan(*a, **k))[1])

    async def run() -> None:
        lock = wire.one_at_a_time(ls)
        await lock.acquire()
        check = asyncio.ensure_future(ls.features["diagnostics"].check(od))
        await asyncio.sleep(0.01)
        ls.documents.close(od.uri)
        lock.release()
        assert await check is False

    asyncio.run(run())
    assert planned == []


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12) | st.sampled_from(["é", "😀", "𝕏 ü", "\\\"\n"])
_POSITION = st.builds(types.Position, line=st.integers(0, 2**31 - 1), character=st.integers(0, 2**31 - 1))
_RANGE = st.builds(types.Range, start=_POSITION, end=_POSITION)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)
_DIAGNOSTIC = st.builds(
    types.Diagnostic,
    range=_RANGE,
    message=_TEXT,
    severity=st.none() | st.sampled_from(types.DiagnosticSeverity),
    code=st.none() | _TEXT | st.integers(),
    code_description=st.none() | st.builds(types.CodeDescription, href=_TEXT),
    source=st.none() | _TEXT,
    tags=st.none() | st.lists(st.sampled_from(types.DiagnosticTag), max_size=2),
    related_information=st.none()
    | st.lists(
        st.builds(types.DiagnosticRelatedInformation, location=st.builds(types.Location, uri=_TEXT, range=_RANGE), message=_TEXT),
        max_size=2,
    ),
    data=st.none() | _JSON,
)


@settings(max_examples=300, deadline=None)
@given(diagnostics=st.lists(_DIAGNOSTIC, max_size=3))
def test_diagnostics_are_written_as_lsprotocol_s_converter_writes_them(diagnostics: list[types.Diagnostic]) -> None:
    """The server writes diagnostics without lsprotocol's generic unstructuring (a hook on its
    converter): the same JSON text, key for key and in the same order, in a publish and alone."""
    pygls = default_converter()
    ours = create_server().protocol
    note = types.PublishDiagnosticsNotification(params=types.PublishDiagnosticsParams(uri="file:///t.md", version=3, diagnostics=diagnostics))
    assert json.dumps(ours._serialize_message(note)) == json.dumps(pygls.unstructure(note))
    for d in diagnostics:
        assert json.dumps(ours._serialize_message(d)) == json.dumps(pygls.unstructure(d))
