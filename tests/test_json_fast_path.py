"""The fast read of a JSON session gives what the exact read gives, byte for byte.

A JSON session is read fast by working ranges out only when they are read: the breaks of a
string's source map (where its escapes are), of a map composed through two levels of JSON
(a tool call's ``arguments`` string) and of a patch read from a decoded string are made the
first time something maps an index inside them (``model.LAZY``). With ``LAZY`` off every map
is made at once, as before. Both reads must give the same actions (every field's value, range
and map), the same diagnostics and the same ranges, on varied sessions: escapes, surrogates,
CRLF line breaks, Windows paths, a truncated last line, bad JSON in the middle.

The same holds of the tree of a strict JSON document made as it is read
(:mod:`action_lsp.jsonlazy`, on under ``LAZY`` past ``jsonscan.LAZY_TREE`` characters, here for
any size) and of the tool-call walker leaving alone what its decoded value shows holds nothing
for it (``tool_calls._holds``; in a long document, ``tool_calls._read_below``: only the objects
it reads are made): the exact read makes every node and walks every object.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp import jsonlazy, jsonscan, model
from action_lsp.dialects import tool_calls
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import Action, SourceMap

# Characters that make escapes of every kind: two-character ones, \u ones (with ensure_ascii),
# surrogate pairs, raw control characters (written by hand), slashes and Windows paths.
_ALPHABET = st.sampled_from(
    ["a", "b", " ", "\n", "\t", '"', "\\", "/", "é", "🌍", "\u2028", "\r\n", "\r", "\x0c", "\x08", "x = 1\n",
     "c:\\Apps\\m.py", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "*** Begin Patch"]
)
_TEXT = st.lists(_ALPHABET, min_size=0, max_size=12).map("".join)
_CWD = "/home/dev/proj"


def _blocks(body: str, k: int) -> str:
    return f"------- SEARCH\n{body}\n=======\nnew {body}\n+++++++ REPLACE\n"


def _patch(body: str, k: int) -> str:
    added = "".join("+" + x + "\n" for x in (body or "x").split("\n"))
    name = f"src/p{k}.py" if k % 2 == 0 else f'src/p{k} \\"\té.py'  # (escapes inside the path's map)
    return f"*** Begin Patch\n*** Add File: {name}\n{added}*** End Patch\n"


def _records(kind: int, body: str, k: int) -> list[Any]:
    """One step of a session of one of six shapes, with ``body`` written in it."""
    if kind == 0:  # Claude Code 2.x
        use = {"type": "tool_use", "id": f"toolu_{k}", "name": ("Write", "Edit")[k % 2],
               "input": {"file_path": f"{_CWD}/src/m{k}.py", "content": body} if k % 2 == 0 else
               {"file_path": f"{_CWD}/src/m{k}.py", "old_string": body or "x", "new_string": body + "!"}}
        return [{"type": "assistant", "cwd": _CWD, "sessionId": "s", "uuid": f"a{k}",
                 "message": {"role": "assistant", "content": [{"type": "text", "text": body}, use]}},
                {"type": "user", "cwd": _CWD, "sessionId": "s", "uuid": f"r{k}",
                 "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                          "is_error": k % 3 == 0, "content": body}]}}]
    if kind == 1:  # Cline's api_conversation_history.json, native tool_use
        use = {"type": "tool_use", "id": f"tu_{k}", "name": ("write_to_file", "replace_in_file")[k % 2],
               "input": {"absolutePath": f"c:\\Apps\\shop\\m{k}.py", "content": body} if k % 2 == 0 else
               {"path": f"src/m{k}.py", "diff": _blocks(body, k)}}
        return [{"role": "assistant", "content": [{"type": "text", "text": f"<thinking>{body}</thinking>"}, use]}]
    if kind == 2:  # Cline's ui_messages.json: a tool message as a JSON string
        tool = {"tool": "newFileCreated", "path": f"src/m{k}.py", "content": body} if k % 2 == 0 else \
            {"tool": "editedExistingFile", "path": f"src/m{k}.py", "diff": _blocks(body, k)}
        return [{"ts": k, "type": "say", "say": "tool", "text": json.dumps(tool, ensure_ascii=k % 3 == 0)}]
    if kind == 3:  # Gemini CLI stream-json
        return [{"type": "tool_use", "tool_name": "write_file", "tool_id": f"w-{k}",
                 "parameters": {"file_path": f"src/m{k}.py", "content": body}},
                {"type": "tool_result", "tool_id": f"w-{k}", "status": "error" if k % 3 == 0 else "success"}]
    if kind == 4:  # Codex rollout: apply_patch, a shell call whose arguments are a JSON string
        return [{"type": "response_item", "payload": {"type": "custom_tool_call", "call_id": f"c{k}",
                                                      "name": "apply_patch", "input": _patch(body, k)}},
                {"type": "response_item", "payload": {
                    "type": "function_call", "name": "shell", "call_id": f"s{k}",
                    "arguments": json.dumps({"command": ["apply_patch", _patch(body, k)]})}}]
    if kind == 6:  # Copilot Chat's export: calls in the request's metadata, answers by call id, metadata around
        args = json.dumps({"filePath": f"/home/dev/proj/c{k}.py", "content": body})
        return [{"message": {"text": body, "parts": [{"kind": "text", "text": body}]},
                 "variableData": {"variables": [{"value": {"text": body, "role": "user"}}]},
                 "response": [{"value": body, "kind": "markdownContent"},
                              {"kind": "toolInvocationSerialized", "toolId": "copilot_createFile"}],
                 "result": {"metadata": {
                     "renderedUserMessage": [{"type": 1, "text": f"<attachment>{body}</attachment>"}],
                     "toolCallRounds": [{"response": body, "toolCalls": [
                         {"name": "create_file", "arguments": args, "id": f"call_{k}"}]}],
                     "toolCallResults": {f"call_{k}": {"$mid": 20, "content": [
                         {"value": "ERROR while calling tool: bad" if k % 3 == 0 else body}]}}}}}]
    if kind == 7:  # opencode's session export: parts of type "tool" with their state
        return [{"info": {"id": f"m{k}", "role": "assistant"}, "parts": [
            {"type": "text", "text": body},
            {"type": "tool", "tool": "write", "callID": f"t{k}", "state": {
                "status": "error" if k % 3 == 0 else "completed", "error": body,
                "input": {"filePath": f"/home/dev/proj/o{k}.py", "content": body}}}]}]
    # OpenAI messages: write_file with arguments as a JSON string
    return [{"role": "assistant", "content": body, "tool_calls": [{"id": f"o{k}", "type": "function", "function": {
        "name": "write_file", "arguments": json.dumps({"path": f"src/o{k}.py", "content": body})}}]}]


@st.composite
def sessions(draw: st.DrawFn) -> str:
    """A session of one shape: JSON Lines (LF or CRLF) or one JSON document, escaped with or
    without ``ensure_ascii``, with a bad line in the middle and a truncated last line at times."""
    kind = draw(st.integers(0, 7))
    bodies = draw(st.lists(_TEXT, min_size=1, max_size=5))
    if draw(st.booleans()):  # a long value (a written file): its escapes are found by array operations
        bodies[0] = bodies[0] * 80
    ascii_ = draw(st.booleans())
    records = [r for k, body in enumerate(bodies) for r in _records(kind, body, k)]
    if kind >= 6 or draw(st.booleans()):  # one document: a bare array (Cline), a Copilot export or a messages object
        doc: Any = records if kind in (1, 2) else {"responderUsername": "GitHub Copilot", "requests": records} \
            if kind == 6 else {"info": {"id": "s", "directory": "/home/dev/proj"}, "messages": records} if kind == 7 \
            else {"messages": records}
        text = json.dumps(doc, ensure_ascii=ascii_, indent=draw(st.sampled_from([None, 2])))
        if draw(st.booleans()):  # a key written twice, the first one holding a call the value does not show
            call = json.dumps({"function": {"name": "write_file", "arguments": json.dumps({"path": "d.py", "content": "x"})}})
            twice = f'{{"meta": {{"x": {call}, "x": 1}}}}'
            text = text[0] + (f"{twice}, " if text[0] == "[" else f'"extra": {twice}, ') + text[1:]
        if draw(st.booleans()):
            text = text.replace("\n", "\r\n")
        if draw(st.booleans()):  # not strict JSON: read by the tolerant parser alone
            text = text.replace("}", ", }", 1) if draw(st.booleans()) else "// exported\n" + text
        return text
    lines = [json.dumps(r, ensure_ascii=ascii_) for r in records]
    if draw(st.booleans()):  # a raw control character inside a string (json.loads(strict=False) reads it)
        lines[0] = lines[0].replace("\\t", "\t")
    if len(lines) > 2 and draw(st.booleans()):
        lines.insert(len(lines) // 2, '{"type": "assistant", "message": {"content": [}')
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines) + eol
    if draw(st.booleans()):
        text = text[: len(text) - draw(st.integers(1, max(1, len(lines[-1]) // 2)))]
    return text


def _forced(actions: list[Action]) -> list[Any]:
    """Every action with every map it holds read out (forcing the lazy breaks)."""
    out: list[Any] = []
    for a in actions:
        maps: list[Any] = []
        for f in (*a.fields.values(), *(x for e in a.edits for x in (e.search, e.replace))):
            m = f.source_map
            maps.append((f.name, f.value, f.span, f.key_span, _key(m)))
        out.append((a, maps))
    return out


def _key(m: SourceMap | None) -> Any:
    if m is None:
        return None
    mapped = tuple(m.to_source(i) for i in range(m.length + 1))  # (before the breaks are made: lazily)
    return (m.base, m.length, m.source_end, mapped, tuple((i, s + m.offset) for i, s in m.breaks))


def _exact(lazy: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Lazily: maps, and trees of any strict JSON made as read (not only past a size), the
    walker skipping what holds nothing for it. Exactly: all made at once, every object walked."""
    monkeypatch.setattr(model, "LAZY", lazy)
    monkeypatch.setattr(jsonscan, "LAZY_TREE", 0 if lazy else 1 << 62)
    monkeypatch.setattr(tool_calls, "_holds", tool_calls._holds if lazy else lambda value, speaking: True)


def _read(text: str, lazy: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    _exact(lazy, monkeypatch)
    a = analyze(text)
    return _forced(a.actions), a.diagnostics


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=sessions())
def test_the_fast_read_gives_what_the_exact_read_gives(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _read(text, True, monkeypatch)
    exact = _read(text, False, monkeypatch)
    assert fast == exact


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=sessions())
def test_the_walker_s_objects_made_straight_give_what_the_exact_read_gives(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``jsonlazy.EXTENTS`` (here: any size) the walker makes only the nodes of the objects
    it reads, straight from the document's separators (``jsonlazy.descendants``), none of those
    between: the same actions, maps and diagnostics as the exact read."""
    monkeypatch.setattr(jsonlazy, "EXTENTS", 0)
    fast = _read(text, True, monkeypatch)
    monkeypatch.setattr(jsonlazy, "EXTENTS", 65536)
    exact = _read(text, False, monkeypatch)
    assert fast == exact


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=sessions(), data=st.data())
def test_an_edit_in_an_open_session_reads_the_same_fast_or_exact(
    text: str, data: st.DataObject, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Maps made lazily before an edit, shifted by it, read afterwards: the same as exact."""
    at = data.draw(st.integers(0, len(text)))
    results = []
    for lazy in (True, False):
        _exact(lazy, monkeypatch)
        doc = IncrementalDocument(text)
        doc.analysis()
        doc.edit(at, at, " ")
        a = doc.analysis()
        results.append((_forced(a.actions), a.diagnostics))
    assert results[0] == results[1]


def test_the_generated_sessions_hold_actions_read_through_escapes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison above is not vacuous: the shapes give file actions whose maps are lazy."""
    text = "\n".join(json.dumps(r) for k in range(3) for r in _records(4, 'x = "a"\ny = 2', k)) + "\n"
    monkeypatch.setattr(model, "LAZY", True)
    actions = analyze(text).actions
    assert len(actions) >= 3
    patch = next(a for a in actions if a.fields.get("content") is not None)
    breaks = patch.fields["content"].source_map.breaks  # type: ignore[union-attr]
    assert breaks._make is not None  # type: ignore[attr-defined]  # not made yet
    m = patch.fields["content"].source_map
    assert m is not None and text[m.to_source(0)] == "x" and text[m.to_source(4) : m.to_source(5)] == '\\"'
    assert breaks._make is None  # made when read


def test_a_key_written_twice_hides_no_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """A decoded object keeps the last of two members with one key: the walker of a JSON
    document decides from decoded values what to leave unread only when no key is written
    twice, so a call under the first of two ``"x"`` members is still read."""
    call = json.dumps({"function": {"name": "write_file", "arguments": json.dumps({"path": "d.py", "content": "x"})}})
    messages = json.dumps([{"role": "user", "content": "hi " * 30000}], indent=1)  # (long: a tree made as read)
    text = f'{{\n"meta": {{"x": {call}, "x": 1}},\n"messages": {messages}\n}}\n'  # (lines: a document, no record)
    _exact(True, monkeypatch)
    monkeypatch.setattr(jsonscan, "LAZY_TREE", 65536)
    assert [a.fields["path"].value for a in analyze(text).actions] == ["d.py"]


def test_a_type_that_is_no_string_is_read_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deciding from decoded values what to read never trips on a ``type`` that is an object or
    an array (unhashable): the document reads as the exact read does."""
    call = {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "write_file", "arguments": json.dumps({"path": "a.py", "content": "x"})}}]}
    doc = {"messages": [{"role": "user", "type": {"kind": "odd"}, "content": [{"type": ["x"]}]}, call]}
    text = json.dumps(doc, indent=1)
    fast = _read(text, True, monkeypatch)
    assert fast == _read(text, False, monkeypatch)
    assert [a.fields["path"].value for a, _ in fast[0]] == ["a.py"]


@settings(max_examples=80, deadline=None)
@given(kind=st.sampled_from([1, 2, 5, 6, 7]), bodies=st.lists(_TEXT, min_size=1, max_size=4))
def test_one_document_compact_or_indented_gives_the_same_edits(kind: int, bodies: list[str]) -> None:
    """Written on one line, a whole document is read as a session record (a JSON Lines file of
    one line); indented, as a document. Either way its calls are the same edits. (The shapes
    written as whole documents: Cline's two files, OpenAI messages, Copilot Chat and opencode
    exports.)"""
    from action_lsp.dialects import file_view

    records = [r for k, body in enumerate(bodies) for r in _records(kind, body, k)]
    doc: Any = records if kind in (1, 2) else {"responderUsername": "GitHub Copilot", "requests": records} \
        if kind == 6 else {"info": {"id": "s", "directory": "/home/dev/proj"}, "messages": records} if kind == 7 \
        else {"messages": records}

    def edits(text: str) -> list[Any]:
        a = analyze(text)
        views = [file_view(x) for x in a.actions if x.kind.is_file_action]
        failed = sorted(d.code for d in a.diagnostics if d.code == "tool-error")
        return [(v.op, v.path.value) for v in views if v is not None] + failed

    indented = edits(json.dumps(doc, indent=2))
    assert indented
    assert edits(json.dumps(doc)) == indented
