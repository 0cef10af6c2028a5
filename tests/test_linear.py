"""Worst-case linear analysis: every adversarial shape (``bench/adversarial.py``) is analysed
with an operation count that grows like its size.

The count is deterministic (see ``tests/opcount.py``: function calls plus the characters every
search examined), so the test says the same on a busy machine as on an idle one. Each shape is
measured at ``n`` and ``4n``: linear work gives a ratio of about 4, the issue allows 1.5 times
that (6), and the quadratic scans this test was written against gave 14 to 16.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench_modules import bench_module
from opcount import count_ops

from action_lsp.document import IncrementalDocument, analyze

adversarial = bench_module("adversarial")
SHAPES = adversarial.SHAPES

N = 250
MAX_RATIO = 6.0  # 4x the input: at most 1.5 x 4 the work
MAX_OPS_PER_CHAR = 200  # a generous absolute bound on the same count


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_analysis_work_grows_linearly(name: str) -> None:
    shape = SHAPES[name]
    small, big = shape(N), shape(4 * N)
    a = count_ops(analyze, small).total
    b = count_ops(analyze, big).total
    assert b / a <= MAX_RATIO, f"{name}: {a} operations at {len(small)} chars, {b} at {len(big)} ({b / a:.1f}x)"
    assert b <= MAX_OPS_PER_CHAR * len(big), f"{name}: {b / len(big):.0f} operations per character"


def test_the_meter_sees_a_quadratic_scan() -> None:
    """The count is not blind: a scan that reads to the end of the text from every line is
    measured as quadratic."""

    def quadratic(text: str) -> None:
        pos = 0
        while (pos := text.find("\n", pos) + 1) > 0:
            text.find("never there", pos)

    a = count_ops(quadratic, "x\n" * N).total
    b = count_ops(quadratic, "x\n" * (4 * N)).total
    assert b / a > 12


@pytest.mark.parametrize("name", ["closers", "cdata", "blocks-one-close", "prose-brace-lines"])
def test_incremental_open_is_linear_too(name: str) -> None:
    """Opening a document (what the server does on didOpen) scans the same way."""
    shape = SHAPES[name]
    a = count_ops(lambda t: IncrementalDocument(str(t)).analysis(), shape(N)).total
    b = count_ops(lambda t: IncrementalDocument(str(t)).analysis(), shape(4 * N)).total
    assert b / a <= MAX_RATIO


def test_deeply_nested_json_on_the_first_line_is_no_crash() -> None:
    """The records sniffing decodes the first line with json.loads, which recurses: a line of
    5,000 nested objects raised RecursionError out of analyze."""
    text = '{"type": "create_task", "content": ' * 5000 + "\n"
    assert analyze(text) is not None
    jsonl = '{"type": "x", "a": ' * 5000 + "\n" + '{"type": "y"}\n'
    assert analyze(jsonl) is not None


def test_each_line_s_code_spans_are_worked_out_once_however_many_tags_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dozen tag names left unclosed on a text of more lines than the scan remembers the
    inline code of: each name's closing-tag search walked every line again, and the lines were
    worked out again on every walk (``all-openers`` at 1 MB took 16x the time of 100 KB). The
    events are now filed once, in order, outside inline code."""
    from action_lsp import scan_state as scan

    monkeypatch.setattr(scan, "SPAN_CACHE_LINES", 32)
    worked: list[int] = []
    original = scan._code_spans

    def counting(text: str, start: int, end: int) -> list[tuple[int, int]]:
        worked.append(start)
        return original(text, start, end)

    monkeypatch.setattr(scan, "_code_spans", counting)
    text = SHAPES["all-openers"](1200)  # 300 lines, 100 of them fence lines
    analyze(text)
    assert len(worked) <= 2 * len(set(worked)), f"{len(worked)} line passes for {len(set(worked))} lines"


# -- the edit engine: many edits of one file ------------------------------------------------------


def _many_edits(n: int, seed: int = 3) -> tuple[str, list[tuple[str, str]]]:
    """A file of 2n lines and n edits of every other line, in a shuffled order (a MultiEdit, a
    diff's hunks or a Codex patch's chunks: each edit is composed with those before it)."""
    import random

    text = "".join(f"v{i:07d} = {i}\n" for i in range(2 * n))
    pairs = [(f"v{i:07d} = {i}\n", f"v{i:07d} = {i + 1}\n") for i in range(0, 2 * n, 2)]
    random.Random(seed).shuffle(pairs)
    return text, pairs


def test_composing_many_edits_of_one_file_is_linear(tmp_path: Path) -> None:
    """Each edit was composed with every edit kept before it (a MultiEdit of 20,000 edits took
    30 s); now each finds its neighbours in a balanced tree."""
    from action_lsp.edit.plan import _Edits

    def compose(n: int) -> int:
        text, pairs = _many_edits(n)

        def run(_: str) -> None:
            edits, current = _Edits(), text
            for search, replace in pairs:
                at = current.index(search)
                edits.add(at, at + len(search), replace, current)
                current = current[:at] + replace + current[at + len(search):]

        return count_ops(run, "").total

    a, b = compose(N), compose(4 * N)
    assert b / a <= MAX_RATIO, f"{a} operations for {N} edits, {b} for {4 * N} ({b / a:.1f}x)"


def test_composed_edits_are_the_file_s_change() -> None:
    """Composed in any order, the edits (in the old text's coordinates) rebuild the new text,
    merging the ones that touch."""
    import itertools
    import random

    from action_lsp.edit.plan import _Edits

    rng = random.Random(11)
    for _ in range(200):
        old = "".join(rng.choice("ab\n") for _ in range(rng.randrange(0, 40)))
        edits, current = _Edits(), old
        for _ in range(rng.randrange(1, 12)):
            s = rng.randrange(len(current) + 1)
            e = min(len(current), s + rng.choice([0, 0, 1, 2, 5]))
            t = "".join(rng.choice("xy\n") for _ in range(rng.choice([0, 1, 3])))
            edits.add(s, e, t, current)
            current = current[:s] + t + current[e:]
        items = edits.items
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(items)), items
        rebuilt, pos = [], 0
        for s, e, t in items:
            rebuilt.append(old[pos:s] + t)
            pos = e
        assert "".join(rebuilt) + old[pos:] == current


# -- the commands on whole documents (issue 21) ---------------------------------------------------

DOCUMENTS = adversarial.DOCUMENTS
WORKSPACES = adversarial.WORKSPACES


def _command_ops(command: str, text: str, tmp_path: Path, files: dict[str, str] | None = None) -> int:
    """Operations of one command on ``text`` (a transcript; ``files``: the workspace it edits)."""
    import contextlib
    import io

    from action_lsp.cli import main

    ws = tmp_path / f"ws{len(text)}"
    ws.mkdir()
    for rel, content in (files or {}).items():
        (ws / rel).write_text(content, encoding="utf-8")
    transcript = ws / "t.jsonl"
    transcript.write_text(text.replace("/w", str(ws)), encoding="utf-8")

    def run(_: str) -> None:
        if command == "outline":  # what the server's documentSymbol does
            doc = IncrementalDocument(transcript.read_text(encoding="utf-8"))
            for a in doc.analysis().actions:
                doc.lines.range(a.span, "utf-16"), doc.lines.range(a.name_span, "utf-16")
            return
        args = [command, str(transcript)] + (["--root", str(ws)] if command == "apply" else [])
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(args)

    return count_ops(run, "").total


@pytest.mark.parametrize("command", ["parse", "check", "outline"])
@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_commands_on_whole_documents_grow_linearly(name: str, command: str, tmp_path: Path) -> None:
    """A one-line JSON export: every action's column was counted from the line's start (10x the
    calls took 60-76x the time); a session of blank lines: a unit (and a line-table entry) each."""
    shape = DOCUMENTS[name]
    a = _command_ops(command, shape(N), tmp_path)
    b = _command_ops(command, shape(4 * N), tmp_path)
    assert b / a <= MAX_RATIO, f"{name} {command}: {a} operations at n={N}, {b} at {4 * N} ({b / a:.1f}x)"


@pytest.mark.parametrize("name", sorted(WORKSPACES))
def test_apply_of_many_edits_of_one_file_grows_linearly_in_python_work(name: str, tmp_path: Path) -> None:
    """The Python work of ``apply`` (dry run) on n edits of one file. (The C-speed work on the
    file's text, which this count does not see, is counted by the test below.)"""
    make = WORKSPACES[name]
    a = _command_ops("apply", make(N)[0], tmp_path, make(N)[1])
    b = _command_ops("apply", make(4 * N)[0], tmp_path, make(4 * N)[1])
    assert b / a <= MAX_RATIO, f"{name}: {a} operations at n={N}, {b} at {4 * N} ({b / a:.1f}x)"


@pytest.mark.parametrize("name", sorted(WORKSPACES))
def test_apply_of_many_edits_never_walks_every_earlier_edit(name: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether an edit's search text is part of an earlier replacement (a MultiEdit) and
    whether it rewrites an earlier hunk's text (a diff, a Codex patch) walked every earlier
    edit: a MultiEdit of 20,000 edits spent 50 s there, a diff of 20,000 hunks 90 s. The call
    count above does not see it (one comprehension), so the walks are watched: for edits apart
    from each other, neither runs."""
    from action_lsp.edit import onecall

    walked: list[str] = []
    checked: list[str] = []
    for walk in ("_rewritten_walk", "_search_in_replacement_walk"):
        monkeypatch.setattr(onecall, walk, lambda *_a, _w=walk: walked.append(_w))
    for check in ("rewritten", "search_in_replacement"):
        original = getattr(onecall, check)
        monkeypatch.setattr(f"action_lsp.edit.plan.{check}",
                            lambda *a, _o=original, _c=check: (checked.append(_c), _o(*a))[1])
    transcript, files = WORKSPACES[name](4 * N)
    _command_ops("apply", transcript, tmp_path, files)
    assert checked, "the action's edits were not checked against each other"
    assert walked == []


def _file_text_read(monkeypatch: pytest.MonkeyPatch, run: Any) -> int:
    """The characters of a file's text that the edit engine reads whole or searches while
    ``run()`` runs: every text located in (``locate`` searches it from its start, at C speed),
    every line and byte count of a syntax-check point, every text the timeline's replay
    searches and copies, every text built whole from its chunks, and what the chunked text's
    searches read (``ChunkedText.read``). A ``str.find``/``count`` over the whole current text
    per edit is what made n edits of one file take n squared time (issue 21)."""
    from action_lsp.edit import chunked, plan, timeline
    from action_lsp.syntax import reparse

    read = [0]

    def counted(fn: Any, size: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            read[0] += size(*args, **kwargs)
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(plan, "locate", counted(plan.locate, lambda text, *a, **k: len(text)))
    monkeypatch.setattr(reparse, "_point", counted(reparse._point, lambda text, at: 2 * at))
    searched: list[Any] = []  # the timeline's texts: what their plain searches and copies read
    made = timeline._Text.__init__

    def made_text(self: Any, text: str) -> None:
        made(self, text)
        searched.append(self)

    monkeypatch.setattr(timeline._Text, "__init__", made_text)
    build = chunked.ChunkedText.__str__
    monkeypatch.setattr(chunked.ChunkedText, "__str__", counted(
        build, lambda self: len(self) if self._flat is None else 0))
    texts: list[Any] = []
    init = chunked.ChunkedText.__init__

    def kept(self: Any, text: str) -> None:
        init(self, text)
        texts.append(self)

    monkeypatch.setattr(chunked.ChunkedText, "__init__", kept)
    run()
    return read[0] + sum(t.read for t in texts) + sum(t.read for t in searched)


@pytest.mark.parametrize("name", sorted(WORKSPACES))
def test_apply_of_many_edits_of_one_file_reads_the_file_linearly(name: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Each edit searched the whole current file for its text (and again for a second place),
    counted the lines before it, and the syntax check and the timeline's replay did the same
    again: 10x the edits took about 50x the time (issue 21). Each edit is now found through an
    index of the current text (``edit/chunked.py``): the file's characters read grow like the
    edits."""
    make = WORKSPACES[name]

    def read(n: int) -> int:
        transcript, files = make(n)
        return _file_text_read(monkeypatch, lambda: _command_ops("apply", transcript, tmp_path, files))

    a, b = read(N), read(4 * N)
    assert b / a <= MAX_RATIO, f"{name}: {a} characters read at n={N}, {b} at {4 * N} ({b / a:.1f}x)"


def test_the_file_text_meter_sees_the_edits_searched_in_the_whole_text(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The meter above is not blind: with the index turned off (every action below the
    thresholds: the straightforward ``str`` code), n edits read the file n times."""
    from action_lsp.edit import plan, timeline
    from action_lsp.syntax import reparse

    monkeypatch.setattr(plan, "MANY_EDITS", 10**9)
    monkeypatch.setattr(reparse, "MANY_EDITS", 10**9)
    monkeypatch.setattr(timeline, "INDEX_AFTER", 10**9)
    make = WORKSPACES["multiedit-one-file"]

    def read(n: int) -> int:
        transcript, files = make(n)
        return _file_text_read(monkeypatch, lambda: _command_ops("apply", transcript, tmp_path, files))

    a, b = read(N), read(4 * N)
    assert b / a > 12


def test_many_edits_of_a_crlf_file_by_lf_search_texts_read_it_linearly(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose line breaks are CRLF, edited by a MultiEdit whose search texts have LF
    ones (as a transcript carries them): each edit was found by normalising the whole text's
    line endings, per edit -- n squared again. The CRLF form of the search text is now found
    through the index, where the normalised one would be found."""
    make = WORKSPACES["multiedit-one-file"]

    def read(n: int) -> int:
        transcript, files = make(n)
        crlf = {rel: body.replace("\n", "\r\n") for rel, body in files.items()}
        return _file_text_read(monkeypatch, lambda: _command_ops("apply", transcript, tmp_path, crlf))

    a, b = read(N), read(4 * N)
    assert b / a <= MAX_RATIO, f"{a} characters read at n={N}, {b} at {4 * N} ({b / a:.1f}x)"
