"""Many edits of one file (issue 21): the indexed text (``edit/chunked.py``, ``edit/many.py``),
the timeline's indexed replay and the one-parse syntax check give the same plans as the
straightforward ``str`` code they stand in for, on random files and calls.

The reference is the same planner with the thresholds set so that nothing is indexed; the
indexed run sets them so that every action is, with chunks of a few characters (so that
searches, edits and line breaks straddle chunks) and both ways of searching (by the index, and
the whole text when a text is in many chunks).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp.document import analyze
from action_lsp.edit import Workspace, chunked, many, plan, timeline, unified_diff
from action_lsp.edit.chunked import ChunkedText
from action_lsp.syntax import reparse

# -- ChunkedText against str ----------------------------------------------------------------------


@pytest.mark.parametrize("candidates", [0, 10**9])
@pytest.mark.parametrize("chunk", [4, 16, 128])
def test_chunked_text_answers_as_str(monkeypatch: pytest.MonkeyPatch, chunk: int, candidates: int) -> None:
    monkeypatch.setattr(chunked, "CHUNK", chunk)
    monkeypatch.setattr(chunked, "MAX_CHUNK", 4 * chunk)
    monkeypatch.setattr(chunked, "MAX_CANDIDATES", candidates)
    rng = random.Random(chunk + candidates)
    for alphabet in ("ab\n", "abc \r\n", "abcdefgh\n"):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(600)))
        t = ChunkedText(text)
        for _ in range(150):
            a = rng.randrange(len(text) + 1)
            b = min(len(text), a + rng.choice([0, 1, 3, 40, 300]))
            new = "".join(rng.choice(alphabet) for _ in range(rng.choice([0, 1, 5, 30, 500])))
            text = text[:a] + new + text[b:]
            t.replace(a, b, new)
            for _ in range(4):
                x = rng.randrange(len(text) + 1)
                sub = text[x : x + rng.choice([1, 11, 12, 25])] or "a"
                if rng.random() < 0.3:
                    sub = "".join(rng.choice(alphabet) for _ in range(len(sub)))
                start = rng.randrange(len(text) + 1) if rng.random() < 0.3 else 0
                assert t.find(sub, start) == text.find(sub, start)
                assert t.line_of(x) == text.count("\n", 0, x)
                assert t.slice(x, x + 50) == text[x : x + 50]
                assert t.spaces_before(x) == sum(c.isspace() for c in text[:x])
            assert len(t) == len(text)
        assert str(t) == text


# -- plans: indexed against straightforward -------------------------------------------------------


def _straightforward(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plan, "MANY_EDITS", 10**9)
    monkeypatch.setattr(reparse, "MANY_EDITS", 10**9)
    monkeypatch.setattr(timeline, "INDEX_AFTER", 10**9)


def _indexed(monkeypatch: pytest.MonkeyPatch, candidates: int) -> None:
    monkeypatch.setattr(plan, "MANY_EDITS", 1)
    monkeypatch.setattr(reparse, "MANY_EDITS", 1)
    monkeypatch.setattr(timeline, "INDEX_AFTER", 0)
    monkeypatch.setattr(chunked, "CHUNK", 8)
    monkeypatch.setattr(chunked, "MAX_CHUNK", 32)
    monkeypatch.setattr(chunked, "MAX_CANDIDATES", candidates)


def _seen(root: Path, transcript: str) -> Any:
    """Everything a user sees of a plan: each outcome and its diagnostics, each change, the diff."""
    actions = analyze(transcript).actions
    p = plan.plan_changes(actions, Workspace(root))
    check = plan.plan_changes(actions, Workspace(root), check_only=True)
    return (
        [(o.ok, o.skipped, o.applied, o.reason, o.superseded_by, o.strategies,
          [(d.code, d.message, d.span, d.data) for d in o.diagnostics]) for o in p.outcomes],
        [(c.rel, c.kind, c.new_text, c.edits, c.strategies) for c in p.changes],
        unified_diff(p),
        [(o.ok, o.reason, [(d.code, d.message, d.data) for d in o.diagnostics]) for o in check.outcomes],
    )


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], transcript: str,
          candidates: int) -> Any:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    for rel, text in files.items():
        (root / rel).write_bytes(text.encode())
    with monkeypatch.context() as m:
        _straightforward(m)
        want = _seen(root, transcript)
    with monkeypatch.context() as m:
        _indexed(m, candidates)
        got = _seen(root, transcript)
    assert got == want
    return want


def _call(name: str, inp: dict[str, Any]) -> str:
    return json.dumps({"messages": [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": name, "input": inp}]}]})


_LINES = ["x = 1", "y = 2", "x = 1  ", "def f():", "    return x", "", "# x = 1", "z = [1, 2]"]


@st.composite
def _file_and_edits(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    """A file of repeated lines (so that search texts occur once, twice or never, and edits
    create and destroy occurrences of later ones) and edits taken from it as it changes."""
    lines = draw(st.lists(st.sampled_from(_LINES), min_size=1, max_size=30))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + draw(st.sampled_from(["", newline]))
    current = text.replace("\r\n", "\n")
    edits = []
    for _ in range(draw(st.integers(2, 24))):
        how = draw(st.sampled_from(["slice", "slice", "line", "random"]))
        if how == "slice" and current:
            a = draw(st.integers(0, len(current) - 1))
            search = current[a : a + draw(st.sampled_from([1, 3, 6, 12, 20, 40]))]
        elif how == "line":
            search = draw(st.sampled_from(_LINES)) + "\n"
        else:
            search = draw(st.text("xyz= 1\n", min_size=1, max_size=15))
        replace = draw(st.sampled_from([
            "", search + "\n# added", "y = 2", search.upper(), "x = 1\n", "q" + search,
            draw(st.text("xyz= 12\n", max_size=20))]))
        edits.append((search, replace))
        at = current.find(search)
        if at >= 0 and search:
            current = current[:at] + replace + current[at + len(search):]
    return text, edits


_SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@_SETTINGS
@given(case=_file_and_edits(), candidates=st.sampled_from([0, 10**9]), crlf_search=st.booleans())
def test_a_multiedit_plans_the_same_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            case: tuple[str, list[tuple[str, str]]], candidates: int,
                                            crlf_search: bool) -> None:
    """Claude Code's MultiEdit: edits in sequence, each unique in the text the ones before left."""
    text, edits = case
    if crlf_search:
        edits = [(s.replace("\n", "\r\n"), r) for s, r in edits]
    call = _call("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": s, "new_string": r} for s, r in edits]})
    _both(tmp_path, monkeypatch, {"a.py": text}, call, candidates)


@_SETTINGS
@given(case=_file_and_edits(), candidates=st.sampled_from([0, 10**9]))
def test_a_multi_replace_plans_the_same_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                case: tuple[str, list[tuple[str, str]]], candidates: int) -> None:
    """Copilot's multi_replace_string_in_file: every edit located in the original text."""
    text, edits = case
    call = _call("multi_replace_string_in_file", {"replacements": [
        {"filePath": "a.txt", "oldString": s, "newString": r} for s, r in edits]})
    _both(tmp_path, monkeypatch, {"a.txt": text}, call, candidates)


@_SETTINGS
@given(case=_file_and_edits(), candidates=st.sampled_from([0, 10**9]), anchored=st.booleans())
def test_a_codex_patch_plans_the_same_indexed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              case: tuple[str, list[tuple[str, str]]], candidates: int,
                                              anchored: bool) -> None:
    """A Codex patch: chunks searched in order, after the chunk before (and a context line)."""
    text, edits = case
    chunks: list[str] = []
    for s, r in edits:
        old = [ln for ln in s.replace("\r\n", "\n").split("\n") if ln] or ["x = 1"]
        new = [ln for ln in r.split("\n") if ln]
        head = "@@ def f():\n" if anchored and len(chunks) % 3 == 1 else "@@\n"
        chunks.append(head + "".join(f"-{ln}\n" for ln in old) + "".join(f"+{ln}\n" for ln in new))
    patch = "*** Begin Patch\n*** Update File: a.py\n" + "".join(chunks) + "*** End Patch\n"
    _both(tmp_path, monkeypatch, {"a.py": text}, patch, candidates)


@_SETTINGS
@given(case=_file_and_edits(), candidates=st.sampled_from([0, 10**9]))
def test_a_multiedit_already_applied_is_judged_the_same_indexed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[str, list[tuple[str, str]]],
        candidates: int) -> None:
    """The timeline replays a call's pairs on the file (here: the call's own result, or a file
    between): the indexed replay judges as the ``str`` one."""
    text, edits = case
    call = _call("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": s, "new_string": r} for s, r in edits]})
    current = text
    for s, r in edits[: len(edits) // 2]:
        at = current.find(s)
        if at >= 0 and s:
            current = current[:at] + r + current[at + len(s):]
    _both(tmp_path, monkeypatch, {"a.py": current}, call, candidates)


def test_the_indexed_path_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparisons above compare something: with the thresholds low, the planner's edits
    are found through the index."""
    found: list[str] = []
    original = many.ManyEdits.exact

    def spy(self: many.ManyEdits, search: str, start: int = 0) -> Any:
        got = original(self, search, start)
        found.append("index" if got is not None else "whole text")
        return got

    monkeypatch.setattr(many.ManyEdits, "exact", spy)
    text = "".join(f"v{i} = {i}\n" for i in range(40))
    call = _call("MultiEdit", {"file_path": "a.py", "edits": [
        {"old_string": f"v{i} = {i}\n", "new_string": f"v{i} = {i + 1}\n"} for i in range(0, 40, 2)]})
    seen = _both(tmp_path, monkeypatch, {"a.py": text}, call, 10**9)
    assert seen[0][0][0] is True
    assert found and set(found) == {"index"}


def test_a_crlf_file_is_searched_through_the_index_until_an_edit_leaves_a_lone_lf() -> None:
    """The CRLF form of an LF search text is found through the index only while every line
    break of the text is CRLF: once an edit leaves a lone LF, the whole text is asked (where
    the normalised search may also match at that LF)."""
    from action_lsp.edit.locate import locate
    from action_lsp.edit.many import ManyEdits

    text = "".join(f"v{i} = {i}\r\n" for i in range(40))
    many = ManyEdits(text)
    found = many.exact("v7 = 7\nv8 = 8\n")
    assert found is not None and found == locate(text, "v7 = 7\nv8 = 8\n")
    at = text.index("v3 = 3\r\n")
    many.replace(at + 6, at + 8, "\n")  # `v3 = 3` now ends with a lone LF
    assert many.exact("v7 = 7\nv8 = 8\n") is None
    assert many.exact("v3 = 3\nv4 = 4\n") is None
