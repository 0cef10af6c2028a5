"""A JSON object in prose that is strict JSON is read through the tree made as it is read.

Cline's ``ui_messages.json`` (an indented array) is read message by message as prose JSON: each
message object is offered to the prose-JSON dialects up to the next blank line or fence, past
which lies the rest of the log. ``jsonscan.parse_strict`` finds where the first value ends with
the standard library's C scanner and gives it a tree made as read (:mod:`action_lsp.jsonlazy`),
whatever its length. It must give what the tolerant parser gives for the same value -- every
node, span, key, string map, error, note and the end -- or None (then the tolerant parser reads
it): on any JSON with text after it (more values, a comma, prose, a bound cutting it short).
``JNode.get`` answers a key the decoded value lacks without making the members.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_json_lazy_tree import _full, _result, documents  # (tests/ is on the path: no package)

from action_lsp import jsonscan, model
from action_lsp.dialects import DialectSet
from action_lsp.jsonlazy import LazyNode
from action_lsp.jsonscan import JNode, parse_eager, parse_strict
from action_lsp.scan import scan

_AFTER = ["", ",\n", ",\n    {\"ts\": 2}\n]", " tail", "\n\n# notes", ' {"b": 1}', "}", "]"]


@settings(max_examples=500, deadline=None)
@given(text=documents(), data=st.data())
def test_a_strict_value_reads_as_the_tolerant_parser_reads_it(text: str, data: st.DataObject) -> None:
    prefix = data.draw(st.sampled_from(["", "x\n", "é🌍 = ", "[\n    ", "\r\n\r\n"]))
    whole = prefix + text.lstrip() + data.draw(st.sampled_from(_AFTER))
    at = len(prefix)
    end = data.draw(st.integers(at, len(whole)))  # the bound: anywhere up to the text's end
    jsonscan._SCANNED = (0, 0, 0, 0)  # (an earlier example's text may have had this one's id)
    jsonscan._REFUSALS = (0, 0, 0)
    strict = parse_strict(whole, at, end)
    eager = parse_eager(whole, at, end)
    if strict is not None:
        assert isinstance(strict.node, LazyNode)
        node = strict.node
        if node.kind == "object":  # a key asked before the members are made (JNode.get)
            for key in ("a", "b", "absent"):
                got = node.get(key)
                want = eager.node.get(key) if eager.node is not None else None
                assert (got is None) == (want is None)
        assert _result(strict) == _result(eager)
        assert not eager.errors and not eager.notes
    elif eager.node is not None and not eager.errors and not eager.notes and eager.node.kind in ("object", "array"):
        # the tolerant parser found no fault: only what the strict readers refuse is left to it
        raw = whole[at : eager.end]
        assert "\ud800" in raw or "\udc00" in raw or "\\ud" in raw.lower() or "e999" in raw


@settings(max_examples=300, deadline=None)
@given(text=documents())
def test_get_answers_as_the_members_do(text: str) -> None:
    """``JNode.get`` of the eager tree (any text, damaged too): the last member with the key."""
    node = parse_eager(text).node
    stack: list[JNode | None] = [node]
    while stack:
        n = stack.pop()
        if n is None or n.kind != "object":
            if n is not None and n.items:
                stack.extend(n.items)
            continue
        for key in {m.key for m in n.members or ()} | {"a", "b", "é", "zz"}:
            want = next((m for m in reversed(n.members or ()) if m.key == key), None)
            assert n.get(key) is want
        stack.extend(m.value for m in n.members or ())


def test_what_is_not_one_strict_value_there_is_left_to_the_tolerant_parser() -> None:
    for text in ('{"a": 1,}', '{"a": NaN}', '{"a": -Infinity}', '{"a": "x\ty"}', '{"a": "\\q"}', "{'a': 1}",
                 '"str"', "  {\"a\": 1}", '{"a": 1', '{"a": "\ud800"}', "[" * 5000 + "]" * 5000):
        assert parse_strict(text, 0, len(text)) is None
    text = '{"a": [1, 2]} {"b": 2}'
    assert parse_strict(text, 0, 12) is None  # the bound cuts the value short
    r = parse_strict(text, 0, len(text))
    assert r is not None and r.end == 13 and _result(r) == _result(parse_eager(text))


def test_a_message_not_read_is_not_made() -> None:
    """Not vacuous: the members of a message no dialect takes are never made."""
    text = json.dumps([{"ts": 1, "type": "say", "say": "text", "text": "hi", "modelInfo": {"mode": "act"}}], indent=4)
    r = parse_strict(text, text.index("{"), len(text))
    assert r is not None and isinstance(r.node, LazyNode)
    assert r.node.get("actions") is None and r.node.get("messages") is None
    with pytest.raises(AttributeError):  # (the slot is still unset)
        object.__getattribute__(r.node, "members")
    assert _full(r.node) == _full(parse_eager(text, text.index("{")).node)


def _messages(say_tool: bool) -> str:
    call = json.dumps({"tool": "newFileCreated", "path": "src/a.py", "content": "x = 1\n"})
    msgs = [
        {"ts": 1, "type": "say", "say": "text", "text": "make a file", "modelInfo": {"mode": "act"}},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": json.dumps({"request": "<task>x</task>"})},
        {"ts": 3, "type": "say" if say_tool else "ask", "say" if say_tool else "ask": "tool", "text": call},
        {"ts": 4, "type": "say", "say": "completion_result", "text": "done é🌍 \\ \"q\""},
    ]
    return json.dumps(msgs, indent=4, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("say_tool", [True, False])
def test_a_ui_log_reads_the_same_either_way(say_tool: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Cline UI log, with the strict path and without it (``model.LAZY`` off): the same units,
    actions and diagnostics."""
    text = _messages(say_tool)
    ds = DialectSet.named(None)

    def read() -> list[tuple[object, ...]]:
        out = []
        for unit in scan(text, ds):
            out.append((unit.start, unit.end, unit.lookahead, [(a.kind, a.span, a.fields) for a in unit.actions],
                        [(d.code, d.span, d.message) for d in unit.diagnostics], [c.span for c in unit.blocks]))
        return out

    fast = read()
    monkeypatch.setattr(model, "LAZY", False)
    assert read() == fast
    assert sum(len(u[3]) for u in fast) == 1


def _nest(n: int) -> str:
    """Objects nested n deep, each opening a line after a blank one: every ``{`` is offered as
    prose JSON, and each bound (the next blank line) cuts its value short."""
    return "".join(f'{{"k{i}": "é", "x":\n\n' for i in range(n)) + "1" + "}" * n + "\n"


@pytest.mark.parametrize("shape", [_nest, lambda n: _nest(n).replace("1}", "1,}", 1), lambda n: _nest(n).replace("1}", "NaN}", 1)])
def test_the_scanner_reads_each_character_once(shape: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """A value the scanner read and refused is not read again from a value nested in it."""
    scanned = [0]
    first_value = jsonscan._FIRST_VALUE

    def counting(text: str, start: int) -> tuple[object, int]:
        try:
            value, stop = first_value(text, start)
        except ValueError as e:
            scanned[0] += getattr(e, "pos", start) - start
            raise
        scanned[0] += stop - start
        return value, stop

    monkeypatch.setattr(jsonscan, "_FIRST_VALUE", counting)
    ds = DialectSet.named(None)
    work = []
    for n in (100, 400):
        scanned[0] = 0
        text = shape(n)  # type: ignore[operator]
        list(scan(text, ds))
        assert scanned[0] > 0
        work.append(scanned[0] / len(text))
    assert work[1] < 2 * work[0] and work[1] < 3


def test_a_text_of_broken_values_is_left_to_the_tolerant_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each refusal of the scanner costs a count of the lines before it (``JSONDecodeError``'s line
    number): after ``MAX_REFUSALS`` in one text the rest is left to the tolerant parser."""
    calls = [0]
    first_value = jsonscan._FIRST_VALUE

    def counting(text: str, start: int) -> tuple[object, int]:
        calls[0] += 1
        return first_value(text, start)  # type: ignore[no-any-return]

    monkeypatch.setattr(jsonscan, "_FIRST_VALUE", counting)
    text = '{"type": "create_task", "content": "x"\n' * 400
    list(scan(text, DialectSet.named(None)))
    assert calls[0] == jsonscan.MAX_REFUSALS
