"""Typing in a session whose paths hang on working directories recorded far before them: the
session's first ``cwd`` (Claude Code, Codex) and the ``cwd`` of the Codex turn a call ran in.
An open document's analysis always equals a full one, and an edit that touches no directory
re-scans only its own line."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp import document
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import ActionKind


def _signature(analysis: Any) -> Any:
    actions = [
        (a.dialect, a.type, a.kind, a.failure, a.span,
         sorted((k, f.span, str(f.value)) for k, f in a.fields.items()))
        for a in analysis.actions
    ]
    diags = sorted((d.code, d.span.start, d.span.end, d.message, str(d.severity)) for d in analysis.diagnostics)
    return actions, diags


def _same(doc: IncrementalDocument) -> None:
    assert _signature(doc.analysis()) == _signature(analyze(doc.text))


def _paths(doc: IncrementalDocument) -> list[str]:
    return [a.path or "" for a in doc.analysis().actions if a.kind is ActionKind.MODIFY_FILE]


def _codex(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-03-24T19:25:50.000Z", "type": kind, "payload": payload})


FILLER = _codex("event_msg", {"type": "token_count", "info": None})


def _patch(call_id: str, path: str = "b.py") -> list[str]:
    patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-y = 1\n+y = 2\n*** End Patch\n"
    return [
        _codex("response_item", {"type": "custom_tool_call", "status": "completed", "call_id": call_id,
                                 "name": "apply_patch", "input": patch}),
        _codex("response_item", {"type": "custom_tool_call_output", "call_id": call_id, "output": "Success."}),
    ]


def _shell_patch(call_id: str, workdir: str) -> str:
    patch = "*** Begin Patch\n*** Add File: c.py\n+x = 1\n*** End Patch\n"
    args = json.dumps({"command": ["apply_patch", patch], "workdir": workdir})
    return _codex("response_item", {"type": "function_call", "name": "shell", "arguments": args, "call_id": call_id})


def _turn(cwd: str) -> str:
    return _codex("turn_context", {"cwd": cwd, "approval_policy": "never", "model": "m"})


def test_a_turn_far_before_its_patch_changes_where_the_patch_writes() -> None:
    """The turn's ``cwd`` edited 300 lines before the patch: the patch is read in the new
    directory (a re-scan that stopped at the next line would keep the old one)."""
    lines = [_codex("session_meta", {"id": "s", "cwd": "/p"}), _turn("/p/sub"), *[FILLER] * 300, *_patch("c1")]
    doc = IncrementalDocument("\n".join(lines) + "\n")
    assert _paths(doc) == ["sub/b.py"]
    at = doc.text.index('"/p/sub"') + len('"/p/sub')
    doc.edit(at, at, "2")
    assert _paths(doc) == ["sub2/b.py"]
    _same(doc)
    at = doc.text.index('"/p/sub2"') + 1
    doc.edit(at, at + len("/p/sub2"), "/elsewhere")
    assert [a.path for a in doc.analysis().actions] == ["/elsewhere/b.py"]
    assert "absolute-path" in [d.code for d in doc.analysis().diagnostics]
    _same(doc)


def test_a_turn_context_inserted_or_deleted_far_before_a_patch() -> None:
    lines = [_codex("session_meta", {"id": "s", "cwd": "/p"}), *[FILLER] * 300, *_patch("c1")]
    doc = IncrementalDocument("\n".join(lines) + "\n")
    assert _paths(doc) == ["b.py"]
    at = doc.text.index("\n") + 1
    doc.edit(at, at, _turn("/p/sub") + "\n")
    assert _paths(doc) == ["sub/b.py"]
    _same(doc)
    doc.edit(at, at + len(_turn("/p/sub")) + 1, "")
    assert _paths(doc) == ["b.py"]
    _same(doc)


def test_typing_in_a_line_that_sets_no_directory_rescans_that_line_only() -> None:
    lines = [_codex("session_meta", {"id": "s", "cwd": "/p"}), _turn("/p/sub")]
    for k in range(40):
        lines += [*[FILLER] * 5, *_patch(f"c{k}")]
    doc = IncrementalDocument("\n".join(lines) + "\n")
    at = doc.text.index('"info": null', len(doc.text) // 2)
    doc.edit(at, at, " ")
    assert doc.rescanned <= len(FILLER) + 2
    _same(doc)


def test_claude_code_first_cwd_far_before_an_edited_call() -> None:
    """A Claude Code session after a ``cd``: a call 300 lines below the first record is read
    under the session's first ``cwd`` when it is typed in too (not under the nearest record's)."""
    def rec(cwd: str, content: object, kind: str = "assistant") -> str:
        return json.dumps({"type": kind, "cwd": cwd, "sessionId": "s", "uuid": "u",
                           "message": {"role": "assistant", "content": content}})

    summary = json.dumps({"type": "summary", "summary": "x", "leafUuid": "y"})
    call = [{"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/p/sub/b.py", "content": "x\n"}}]
    text = "\n".join([rec("/p", "hi", "user"), *[summary] * 300, rec("/p/sub", call)]) + "\n"
    doc = IncrementalDocument(text)
    at = doc.text.index("/p/sub/b.py") + len("/p/sub/b")
    doc.edit(at, at, "c")
    assert [a.path for a in doc.analysis().actions] == ["sub/bc.py"]
    _same(doc)
    # its result arrives, an error: the call's line is read again, still under the first cwd
    result = rec("/p/sub", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "no"}], "user")
    doc.edit(len(doc.text), len(doc.text), result + "\n")
    [action] = doc.analysis().actions
    assert action.path == "sub/bc.py" and action.failure is not None
    _same(doc)
    # the first record's cwd edited: every path is read under the new one
    at = doc.text.index('"/p"') + 2
    doc.edit(at, at + 1, "q")
    assert [a.path for a in doc.analysis().actions] == ["/p/sub/bc.py"]
    _same(doc)


_CWDS = ["/p", "/p/sub", "/p/sub/deep", "/elsewhere", "sub", "C:\\\\p"]


def _session(turns: list[tuple[str, int]]) -> list[str]:
    lines = [_codex("session_meta", {"id": "s", "cwd": "/p"})]
    for k, (cwd, filler) in enumerate(turns):
        lines += [_turn(cwd), *[FILLER] * filler, *_patch(f"p{k}"), _shell_patch(f"s{k}", "sub" if k % 2 else "/p/sub")]
    return lines


_EDIT = st.tuples(
    st.sampled_from(["line", "delete", "cwd", "piece"]),
    st.floats(0, 1),
    st.sampled_from([*_CWDS, "x", "\n", '"', "}", '"cwd": "/p/z", ', ""]),
)


@settings(max_examples=40, deadline=None)
@given(
    turns=st.lists(st.tuples(st.sampled_from(_CWDS), st.integers(0, 3)), min_size=1, max_size=6),
    edits=st.lists(_EDIT, min_size=1, max_size=12),
    window=st.sampled_from([64, 512, 1 << 14]),
    far=st.booleans(),
)
def test_random_edits_of_a_session_with_several_turns_agree_with_a_full_analysis(
    turns: list[tuple[str, int]], edits: list[tuple[str, float, str]], window: int, far: bool
) -> None:
    lines = _session(turns)
    if far:  # a turn's directory more lines before its calls than a re-scan reads around an edit
        lines[2:2] = [FILLER] * 260
    pool = [_turn(c) for c in _CWDS] + _patch("q") + [_shell_patch("r", "sub"), FILLER]
    with mock.patch.object(document, "WINDOW", window):
        doc = IncrementalDocument("\n".join(lines) + "\n")
        for kind, where, piece in edits:
            text = doc.text
            n = len(text)
            at = int(where * n)
            line = text.rfind("\n", 0, at) + 1
            if kind == "line":
                doc.edit(line, line, pool[int(where * 1000) % len(pool)] + "\n")
            elif kind == "delete":
                stop = text.find("\n", line)
                doc.edit(line, n if stop < 0 else stop + 1, "")
            elif kind == "cwd":  # a directory's value changed (a turn's, or the session's first)
                hits = [k for k in range(n) if text.startswith('"cwd": "', k)]
                if not hits:
                    continue
                k = hits[int(where * len(hits)) % len(hits)] + len('"cwd": "')
                stop = text.index('"', k)
                doc.edit(k, stop, piece if piece not in ('"', "\n") else "/q")
            else:
                doc.edit(at, min(n, at + int(where * 7) % 3), piece)
            _same(doc)


def test_an_edit_while_the_document_is_still_being_scanned_in_steps() -> None:
    """The server scans a large session in steps: an edit of a turn's ``cwd`` (or the first
    ``cwd``) meanwhile is read as a full scan reads it, and so is the rest of the scan."""
    lines = [_codex("session_meta", {"id": "s", "cwd": "/p"}), _turn("/p/sub"), *[FILLER] * 100, *_patch("c1"),
             _turn("/p/sub"), *[FILLER] * 100, *_patch("c2")]
    for needle, new in (('"/p/sub"', '"/p/other"'), ('"/p"', '"/q"')):
        doc = IncrementalDocument("\n".join(lines) + "\n", defer=True)
        doc.scan_some(len(doc.text) // 3)
        assert not doc.scanned
        at = doc.text.index(needle)
        doc.edit(at, at + len(needle), new)
        _same(doc)
        doc = IncrementalDocument("\n".join(lines) + "\n", defer=True)
        doc.scan_some(len(doc.text) * 2 // 3)  # past the first patch, before the second turn's
        at = doc.text.index(needle)
        doc.edit(at, at + len(needle), new)
        _same(doc)
    doc = IncrementalDocument("\n".join(lines) + "\n", defer=True)
    doc.scan_some(len(doc.text) // 3)
    at = doc.text.index(FILLER, len(doc.text) // 4)  # a line after the first turn's, before its patch
    doc.edit(at, at, " ")
    _same(doc)
    assert _paths(doc) == ["sub/b.py", "sub/b.py"]
