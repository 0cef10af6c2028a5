"""Typing in a session JSONL: an edit re-scans the lines it touched, plus the earlier call
lines whose results it changed, and the analysis always equals a full one."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from action_lsp import document, records
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind

CWD = "/home/ana/proj"


def _record(kind: str, content: object, **extra: object) -> str:
    role = "assistant" if kind == "assistant" else "user"
    rec = {"type": kind, "cwd": CWD, "sessionId": "s1", "uuid": "u", "message": {"role": role, "content": content}}
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


def _use(tid: str, name: str, **inp: object) -> dict:
    return {"type": "tool_use", "id": tid, "name": name, "input": inp}


def _result(tid: str, error: bool = False, text: str = "ok") -> str:
    block: dict[str, Any] = {"tool_use_id": tid, "type": "tool_result", "content": text}
    if error:
        block["is_error"] = True
    return _record("user", [block])


def _session(copies: int = 2) -> list[str]:
    """Lines of a Claude Code session: writes, edits (one failed), a MultiEdit, Bash, Read."""
    lines = [json.dumps({"type": "summary", "summary": "s", "leafUuid": "x"})]
    for k in range(copies):
        body = f'def greet(name):\n    return "Hé {k}, \\"" + name  # 🌍\n'
        lines += [
            _record("user", f"write greet {k}"),
            _record("assistant", [{"type": "text", "text": "Writing."},
                                  _use(f"w{k}", "Write", file_path=f"{CWD}/src/g{k}.py", content=body)]),
            _result(f"w{k}"),
            _record("assistant", [_use(f"e{k}", "Edit", file_path=f"{CWD}/src/g{k}.py",
                                       old_string="Hé", new_string="Hello"),
                                  _use(f"b{k}", "Bash", command=f"python src/g{k}.py")]),
            _result(f"b{k}", text="done"),
            _result(f"e{k}", error=True, text="<tool_use_error>String to replace not found</tool_use_error>"),
            _record("assistant", [_use(f"m{k}", "MultiEdit", file_path=f"{CWD}/src/g{k}.py", edits=[
                {"old_string": "name", "new_string": "who"}, {"old_string": "#", "new_string": "# ✓"}])]),
            "",
            _result(f"m{k}"),
            _record("assistant", [_use(f"r{k}", "Read", file_path="/etc/hosts")]),
        ]
    return lines


def _codex() -> list[str]:
    def rec(payload: dict) -> str:
        return json.dumps({"timestamp": "t", "type": "response_item", "payload": payload})

    args = json.dumps({"command": "create", "path": "a.txt", "file_text": "é\n"})
    return [
        json.dumps({"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "cwd": "/w"}}),
        rec({"type": "function_call", "name": "str_replace_editor", "arguments": args, "call_id": "c1"}),
        rec({"type": "function_call", "name": "shell", "arguments": json.dumps({"command": ["ls"]}), "call_id": "c2"}),
        rec({"type": "function_call_output", "call_id": "c2", "output": "Exit code: 0\nok"}),
        rec({"type": "function_call_output", "call_id": "c1", "output": "Exit code: 1\npermission denied"}),
        rec({"type": "function_call", "name": "str_replace_editor", "arguments": args, "call_id": "c3"}),
        rec({"type": "function_call_output", "call_id": "c3", "output": "Exit code: 0"}),
    ]


def _signature(analysis: Any) -> Any:
    actions = [
        (a.dialect, a.type, a.kind, a.failure, a.span, a.name_span, a.group, a.group_label,
         sorted((k, f.span, str(f.value)) for k, f in a.fields.items()),
         [(e.search.span, e.replace.span, e.line) for e in a.edits])
        for a in analysis.actions
    ]
    diags = sorted(
        (d.code, d.span.start, d.span.end, d.message, str(d.severity), [(s.start, s.end, m) for s, m in d.related])
        for d in analysis.diagnostics
    )
    return actions, diags, [(g.span, g.label, g.actions) for g in analysis.groups]


def _same(doc: IncrementalDocument) -> None:
    assert _signature(doc.analysis()) == _signature(analyze(doc.text))


def _line_at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    start = text.rfind("\n", 0, at) + 1
    return start, text.index("\n", at) + 1


def _kind_of(doc: IncrementalDocument, tool: str, nth: int = 0) -> ActionKind:
    return [a for a in doc.analysis().actions if a.type == tool][nth].kind


def test_typing_inside_a_json_string_rescans_that_line_only() -> None:
    text = "\n".join(_session(6)) + "\n"
    doc = IncrementalDocument(text)
    a, b = _line_at(text, '"Write"', 3)
    at = text.index("return", a)
    doc.edit(at, at, "é")
    assert doc.rescanned == b - a + 1
    _same(doc)
    assert "é" in [x for x in doc.analysis().actions if x.type == "Write"][3].get("content")


def test_typing_in_a_result_line_does_not_rescan_its_call() -> None:
    text = "\n".join(_session(6)) + "\n"
    doc = IncrementalDocument(text)
    a, b = _line_at(text, '"tool_use_id": "w3"')
    at = text.index('"ok"', a) + 1
    for ch in "still fine":
        doc.edit(at, at, ch)
        at += 1
        assert doc.rescanned <= b - a + 12  # the result line, not the Write before it
    _same(doc)


def test_a_result_turning_into_an_error_marks_its_call_failed_and_back() -> None:
    text = "\n".join(_session(3)) + "\n"
    doc = IncrementalDocument(text)
    assert _kind_of(doc, "Write", 1) is ActionKind.WRITE_FILE
    a, _ = _line_at(text, '"tool_use_id": "w1"')
    at = text.index('"type": "tool_result"', a)
    flag = '"is_error": true, '
    doc.edit(at, at, flag)
    assert _kind_of(doc, "Write", 1) is ActionKind.OTHER
    hints = [d for d in doc.analysis().diagnostics if d.code == "tool-error"]
    assert any(doc.text[r.start : r.end] == "w1" for d in hints for r, _ in d.related)
    _same(doc)
    # the error message is the call's hint: typing in it changes the hint
    msg = doc.text.index('"content": "ok"', a) + len('"content": "')
    doc.edit(msg, msg + 2, "denied")
    assert any("denied" in d.message for d in doc.analysis().diagnostics if d.code == "tool-error")
    _same(doc)
    doc.edit(at, at + len(flag), "")
    assert _kind_of(doc, "Write", 1) is ActionKind.WRITE_FILE
    _same(doc)


def test_breaking_and_fixing_a_result_line() -> None:
    text = "\n".join(_session(3)) + "\n"
    doc = IncrementalDocument(text)
    assert _kind_of(doc, "Edit", 2) is ActionKind.OTHER  # its result is an error
    _, b = _line_at(text, '"tool_use_id": "e2"')
    brace = b - 2  # the record's closing brace
    assert text[brace] == "}"
    doc.edit(brace, brace + 1, "")
    assert _kind_of(doc, "Edit", 2) is ActionKind.MODIFY_FILE  # no result any more
    assert any(d.code == "bad-json" for d in doc.analysis().diagnostics)
    _same(doc)
    doc.edit(brace, brace, "}")
    assert _kind_of(doc, "Edit", 2) is ActionKind.OTHER
    _same(doc)


def test_adding_deleting_and_moving_result_lines() -> None:
    lines = _session(2)
    text = "\n".join(lines) + "\n"
    doc = IncrementalDocument(text)
    # a new result line saying the Bash call of copy 0 failed
    _, after = _line_at(text, '"tool_use_id": "b0"')
    new = _result("w0", error=True, text="disk full") + "\n"
    doc.edit(after, after, new)  # w0 was answered before: its first result decides
    assert _kind_of(doc, "Write", 0) is ActionKind.WRITE_FILE
    _same(doc)
    a, b = _line_at(doc.text, '"tool_use_id": "w0"')
    doc.edit(a, b, "")  # delete the first (successful) result: the new one answers
    assert _kind_of(doc, "Write", 0) is ActionKind.OTHER
    _same(doc)
    # lines pushed in between: the answer is MAX_RUN lines after the call, then one more
    call = doc.text.count("\n", 0, doc.text.index('"id": "w0"'))
    a, _ = _line_at(doc.text, '"disk full"')
    answer = doc.text.count("\n", 0, a)
    doc.edit(a, a, "\n" * (records.MAX_RUN - (answer - call)))
    assert _kind_of(doc, "Write", 0) is ActionKind.OTHER
    _same(doc)
    doc.edit(a, a, "\n")
    assert _kind_of(doc, "Write", 0) is ActionKind.WRITE_FILE  # out of reach
    _same(doc)
    doc.edit(a, a + 1, "")
    assert _kind_of(doc, "Write", 0) is ActionKind.OTHER
    _same(doc)
    # deleting the call's line takes its hint with it
    a, b = _line_at(doc.text, '"id": "w0"')
    doc.edit(a, b, "")
    assert not any("disk full" in d.message for d in doc.analysis().diagnostics)
    _same(doc)


def test_lines_between_a_failed_call_and_its_result_move_the_related_range() -> None:
    text = "\n".join(_session(2)) + "\n"
    doc = IncrementalDocument(text)
    a, b = _line_at(text, '"tool_use_id": "b1"')  # between Edit e1 and its failing result
    doc.edit(a + 5, a + 5, "xyz")
    assert doc.rescanned > b - a  # the Edit's line too: its hint points at the result
    _same(doc)
    hint = next(d for d in doc.analysis().diagnostics if d.code == "tool-error" and "e1" in doc.text[
        d.related[0][0].start : d.related[0][0].end])
    assert doc.text[hint.related[0][0].start : hint.related[0][0].end] == "e1"


def test_a_truncated_last_line_growing_until_complete() -> None:
    lines = _session(2)
    last = _result("r1", error=True, text="no such file")
    text = "\n".join(lines) + "\n"
    doc = IncrementalDocument(text)
    assert _kind_of(doc, "Read", 1) is ActionKind.READ_FILE
    rng = random.Random(5)
    pos = 0
    while pos < len(last):
        step = rng.randint(1, 40)
        doc.edit(len(doc.text), len(doc.text), last[pos : pos + step])
        pos += step
        if pos < len(last):
            bad = [d for d in doc.analysis().diagnostics if d.code == "bad-json"]
            assert len(bad) == 1 and "unfinished" in bad[0].message
        _same(doc)
    assert _kind_of(doc, "Read", 1) is ActionKind.OTHER
    doc.edit(len(doc.text), len(doc.text), "\n")
    _same(doc)


def test_a_lone_carriage_return_joined_by_an_inserted_line_feed() -> None:
    lines = _session(1)
    text = "\r".join(lines) + "\r"
    doc = IncrementalDocument(text)
    _same(doc)
    _, b = _line_at(text.replace("\r", "\n"), '"tool_use_id": "w0"')
    doc.edit(b, b, "\n")
    _same(doc)
    doc.edit(b, b + 1, "")
    _same(doc)


PIECES = [
    "x", "é😀", "\n", "\r", "\r\n", "}", "{", '"', "\\", '"is_error": true, ', '"is_error": false, ', "w0", "e1", "c1",
    "Exit code: 1\\n", "",
]


@pytest.mark.parametrize("seed", range(12))
def test_random_edits_agree_with_a_full_analysis(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(document, "WINDOW", rng.choice([64, 512, 1 << 14]))
    if seed % 3 == 2:
        monkeypatch.setattr(records, "MAX_RUN", 3)
        monkeypatch.setattr(document, "MAX_RUN", 3)
    lines = _codex() * 2 if seed % 4 == 1 else _session(2)
    extra = [_result(t, error=rng.random() < 0.5, text="boom") for t in ("w0", "e1", "b0", "m1", "r0")]
    doc = IncrementalDocument("\n".join(lines) + "\n")
    for step in range(60):
        text = doc.text
        n = len(text)
        r = rng.random()
        if r < 0.15:  # a whole line: new, deleted or moved
            at = text.rfind("\n", 0, rng.randrange(n + 1)) + 1
            if rng.random() < 0.5:
                doc.edit(at, at, rng.choice(extra + lines) + "\n")
            else:
                stop = text.find("\n", at)
                doc.edit(at, n if stop < 0 else stop + 1, "")
        elif r < 0.2:  # the end of the text grows
            doc.edit(n, n, rng.choice(lines)[: rng.randint(1, 60)])
        else:
            start = rng.randrange(n + 1)
            end = min(n, start + rng.choice([0, 0, 0, 1, 2, 30]))
            doc.edit(start, end, rng.choice(PIECES))
        if step % 3 == 0 or step > 55:
            assert _signature(doc.analysis()) == _signature(analyze(doc.text)), step


@pytest.mark.parametrize(
    "first",
    [
        '{"type": {"a": 1}, "sessionId": "x"}',
        '{"type": ["x"], "payload": {}}',
        '{"type": "response_item", "payload": {"type": ["function_call"], "call_id": "c"}}',
        'prose {"type": {}, "tool_calls": 1}',
    ],
)
def test_a_type_that_is_no_string_is_no_crash(first: str) -> None:
    """A ``"type"`` holding an object or a list (a half-typed line) is just not a record kind."""
    rest = '{"type": "response_item", "payload": {"type": {"a": 1}, "output": "x", "name": "tool_calls"}}'
    for text in (f"{first}\n{rest}\n", f"{first}\n", f"{rest}\n{first}\n"):
        assert analyze(text) is not None
