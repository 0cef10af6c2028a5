"""Checking as a stream (``action_lsp.stream``) gives exactly what the whole analysis gives.

The differential check of the streaming ``check``: over every fixture, the examples, the
adversarial shapes and generated markdown and JSON Lines sessions (with bad, blank, truncated,
CRLF, lone-CR and very long lines), the streamed diagnostics -- from the text in memory, and
from the text in pieces read a small window at a time -- equal ``analyze``'s, in its order, and
their positions equal :class:`~action_lsp.text.LineIndex`'s.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from bench_modules import bench_module
from opcount import count_ops

from action_lsp.document import analyze
from action_lsp.model import Diagnostic
from action_lsp.stream import TextPositions, diagnostics, placed_pieces, placed_text
from action_lsp.text import LineIndex

ROOT = Path(__file__).resolve().parent.parent


def _session(tmp: Path, size: int, seed: int) -> str:
    path = tmp / f"session-{seed}.jsonl"
    bench_module("bench_sessions").generate(path, size, seed)
    return path.read_text(encoding="utf-8")


def _jsonl_variants(base: str) -> dict[str, str]:
    """Lines of a session shuffled into the shapes a stream must survive."""
    rng = random.Random(7)
    lines = base.splitlines(keepends=True)
    out: dict[str, str] = {}
    mixed = []
    for i, line in enumerate(lines * 3):
        mixed.append(line)
        if i % 5 == 2:
            mixed.append('{"type": "user", "message": {"content": [1, 2,,]}}\n')  # bad line
        if i % 7 == 3:
            mixed.append("\n   \n")
        if i % 11 == 4:
            mixed.append('{"type": "assistant", "message": {"content": "' + "é🌍x" * 900 + '"}}\n')
    out["mixed"] = "".join(mixed)
    out["truncated"] = out["mixed"][: len(out["mixed"]) - 37]
    out["crlf"] = out["mixed"].replace("\n", "\r\n")
    out["lone-cr"] = out["mixed"].replace("\n", "\r", 40)
    out["no-final-newline"] = out["mixed"].rstrip("\n")
    out["leading-blank"] = "\n\n  \n" + out["mixed"]
    out["one-huge-line"] = lines[0] + '{"type": "user", "message": {"content": "' + "y" * 5000 + '"}}\n' + "".join(lines[1:])
    # a call whose result comes many lines later: the unit runs on (up to its limit)
    calls = [line for line in lines if '"tool_use"' in line]
    if calls:
        late = [lines[0], calls[0]] + ['{"type": "user", "message": {"role": "user", "content": "wait"}}\n'] * 80
        out["late-result"] = "".join(late + lines[1:])
    rng.shuffle(mixed)
    out["shuffled"] = lines[0] + "".join(mixed)
    return out


@cache
def corpus() -> dict[str, str]:
    texts: dict[str, str] = {}
    for base in (ROOT / "tests" / "fixtures", ROOT / "examples"):
        for p in sorted(base.rglob("*")):
            if p.is_file() and p.suffix in {".md", ".txt", ".json", ".jsonl", ".traj", ".patch", ".diff", ""}:
                try:
                    texts[str(p.relative_to(ROOT))] = p.read_text(encoding="utf-8")
                except (UnicodeDecodeError, OSError):
                    continue
    for name, shape in bench_module("adversarial").SHAPES.items():
        texts[f"shape:{name}"] = shape(120)
    parse = bench_module("bench_parse")
    texts["generated:dense"] = parse.generate(120_000, seed=3)[0]
    texts["generated:prose"] = parse.generate_prose(60_000, seed=3)
    texts["generated:patches"] = bench_module("bench_patches").generate(60_000, seed=3)
    session = ROOT / "tests" / "fixtures" / "dialects" / "claude-code" / "session.jsonl"
    rollout = ROOT / "tests" / "fixtures" / "dialects" / "tool-calls" / "codex-rollout.jsonl"
    for name, path in (("claude", session), ("codex", rollout)):
        for variant, text in _jsonl_variants(path.read_text(encoding="utf-8")).items():
            texts[f"{name}:{variant}"] = text
    return texts


def _sig(d: Diagnostic) -> tuple[Any, ...]:
    fixes = [(f.title, f.preferred, [(e.span, e.new_text) for e in f.edits]) for f in d.fixes]
    return (d.code, d.message, d.span, d.severity, fixes, d.related, json.dumps(d.data, sort_keys=True, default=str))


def _pieces(text: str, rng: random.Random) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        n = rng.choice((1, 3, 17, 200, 4000))
        out.append(text[pos : pos + n])
        pos += n
    return out


def _check_positions(text: str, placed: list[tuple[Diagnostic, TextPositions]]) -> None:
    lines = LineIndex(text)
    for d, pos in placed:
        spans = [d.span] + [e.span for f in d.fixes for e in f.edits]
        for span in spans:
            for enc in ("utf-16", "utf-32"):
                assert pos.range(span, enc) == lines.range(span, enc), (d, span)
        start = lines.position(d.span.start).line
        assert pos.line_text(start) == lines.line_text(start)


@pytest.mark.parametrize("name", sorted(corpus()))
def test_streamed_diagnostics_are_the_analysis(name: str) -> None:
    text = corpus()[name]
    expected = [_sig(d) for d in analyze(text).diagnostics]
    placed = list(placed_text(text))
    assert [_sig(d) for d, _ in placed] == expected
    _check_positions(text, placed)
    rng = random.Random(len(text))
    for window in (1, 64, 700):
        pieces = list(placed_pieces(_pieces(text, rng), window=window))
        assert [_sig(d) for d, _ in pieces] == expected, window
        _check_positions(text, pieces)


def test_generated_sessions_read_in_windows(tmp_path: Path) -> None:
    """Many windows over a generated session, and diagnostics found in them."""
    lines = _session(tmp_path, 150_000, seed=5).splitlines(keepends=True)
    for i in range(len(lines) - 1, 0, -13):
        lines.insert(i, lines[i][: len(lines[i]) // 2] + "\n")  # a record cut in half
    text = "".join(lines)
    expected = [_sig(d) for d in analyze(text).diagnostics]
    assert len(expected) > 5
    for window in (500, 9_000):
        placed = list(placed_pieces(_pieces(text, random.Random(window)), window=window))
        assert [_sig(d) for d, _ in placed] == expected
        _check_positions(text, placed)
    assert [_sig(d) for d in diagnostics(text)] == expected


def _dirs_session() -> str:
    """A Claude Code session that moved to /p/sub and then wrote /p/x.py (the project's x.py:
    read under the session's first cwd), and a Codex rollout whose last turn ran outside the
    project (its relative patch is an absolute-path error): each far more lines after the
    directory it hangs on than a window holds."""
    def rec(cwd: str, content: object) -> str:
        return json.dumps({"type": "assistant", "cwd": cwd, "sessionId": "s", "uuid": "u",
                           "message": {"role": "assistant", "content": content}})

    def codex(kind: str, payload: dict[str, Any]) -> str:
        return json.dumps({"timestamp": "t", "type": kind, "payload": payload})

    write = [{"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/p/x.py", "content": "x\n"}}]
    summary = json.dumps({"type": "summary", "summary": "x", "leafUuid": "y"})
    claude = [rec("/p", "hi"), *[summary] * 40, rec("/p/sub", "cd"), *[summary] * 40, rec("/p/sub", write)]
    patch = "*** Begin Patch\n*** Update File: b.py\n@@\n-y = 1\n+y = 2\n*** End Patch\n"
    rollout = [codex("session_meta", {"id": "s", "cwd": "/p"}), codex("turn_context", {"cwd": "/elsewhere"}),
               *[codex("event_msg", {"type": "token_count"})] * 40,
               codex("response_item", {"type": "custom_tool_call", "call_id": "c", "name": "apply_patch", "input": patch})]
    return "\n".join(claude) + "\n", "\n".join(rollout) + "\n"


@pytest.mark.parametrize("which", [0, 1])
def test_directories_recorded_windows_before_a_call_are_carried_on(which: int) -> None:
    text = _dirs_session()[which]
    expected = [_sig(d) for d in analyze(text).diagnostics]
    assert [d[0] for d in expected] == ([] if which == 0 else ["absolute-path"])
    for window in (64, 700):
        pieces = list(placed_pieces(_pieces(text, random.Random(window)), window=window))
        assert [_sig(d) for d, _ in pieces] == expected, window


def test_dialects_and_roots_are_passed_on() -> None:
    text = corpus()["generated:dense"]
    for names in (["xml-tags"], ["actions-json", "aether"]):
        assert [_sig(d) for d in diagnostics(text, names)] == [_sig(d) for d in analyze(text, names).diagnostics]
    roots = ["/work/project"]
    assert [_sig(d) for d in diagnostics(text, roots=roots)] == [
        _sig(d) for d in analyze(text, roots=roots).diagnostics
    ]


def test_text_positions_are_the_line_index() -> None:
    rng = random.Random(11)
    alphabet = ["a", "é", "🌍", "\n", "\r", "\r\n", " "]
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        lines = LineIndex(text)
        pos = TextPositions(text)
        offsets = sorted(rng.randrange(-2, len(text) + 3) for _ in range(20))
        offsets += [rng.randrange(0, len(text) + 1) for _ in range(5)]  # and some going back
        for off in offsets:
            for enc in ("utf-8", "utf-16", "utf-32"):
                assert pos.position(off, enc) == lines.position(off, enc), (text, off)
            line = lines.position(off).line
            assert pos.line_text(line) == lines.line_text(line)


def test_text_positions_of_a_window_count_on_from_its_first_line() -> None:
    text = "ab\r\ncd\ré\n🌍x\n\nlast"
    lines = LineIndex(text)
    cut = text.index("é")
    window = TextPositions(text[cut:], cut, lines.position(cut).line)
    for off in range(cut, len(text) + 1):
        assert window.position(off) == lines.position(off)


def test_output_is_released_as_the_scan_goes() -> None:
    """The first diagnostics of a long text come before its end is scanned: a check holds what
    is not reported yet, not the whole result."""
    unit = "<create_file>\n<path>../x.py</path>\n<content>\nx = 1\n</content>\n</create_file>\n\n"
    text = unit * 2000
    stream = placed_text(text)
    first, _ = next(stream)
    assert first.code == "path-traversal"
    frame = stream.gi_frame
    assert frame is not None
    order = frame.f_locals["order"]
    assert len(order._pending) < 10


N = 200


def _place_all(text: str) -> int:
    """Stream ``text`` and place every diagnostic and fix edit, as ``check`` does."""
    n = 0
    for d, lines in placed_text(text):
        for span in [d.span] + [e.span for f in d.fixes if not f.lazy for e in f.edits]:
            lines.range(span)
        lines.line_text(lines.position(d.span.start).line)
        n += 1
    return n


@pytest.mark.parametrize("name", sorted(bench_module("adversarial").SHAPES))
def test_streaming_is_linear(name: str) -> None:
    """The streamed check, positions included, on the adversarial shapes (the text is the
    counting str: every search in it counts)."""
    shape = bench_module("adversarial").SHAPES[name]
    run = _place_all
    a = count_ops(run, shape(N)).total
    b = count_ops(run, shape(4 * N)).total
    assert b / a <= 6.0, f"{name}: {b / a:.1f}x for 4x the input"


def test_windows_of_a_session_are_linear(tmp_path: Path) -> None:
    lines = (ROOT / "tests" / "fixtures" / "dialects" / "claude-code" / "session.jsonl").read_text(encoding="utf-8")
    run = lambda t: sum(1 for _ in placed_pieces([str(t)], window=2_000))  # noqa: E731
    a = count_ops(run, lines * 10).total
    b = count_ops(run, lines * 40).total
    assert b / a <= 6.0


# -- the command line: streamed output equals the whole analysis's, in every format --------------


def _reference(paths: list[Path], fmt: str) -> str:
    """What ``check`` printed when it analysed each file whole (analyze + LineIndex): the
    output the streaming ``check`` must reproduce byte for byte."""
    import io
    from collections import Counter

    from action_lsp.cli import check
    from action_lsp.cli.common import read_transcript
    from action_lsp.cli.output import Style, dumps, sarif_log
    from action_lsp.codes import default_severity
    from action_lsp.model import Severity

    out = io.StringIO()
    style = Style(False)
    counts = {s: 0 for s in Severity}
    per_code: Counter[tuple[str, Severity]] = Counter()
    report = []
    for path in paths:
        text = read_transcript(path)
        lines = LineIndex(text)
        entries = []
        for d in analyze(text).diagnostics:
            severity = d.severity if d.severity is not None else default_severity(d.code)
            counts[severity] += 1
            per_code[d.code, severity] += 1  # as reported
            entries.append((d, severity))
        if fmt in ("full", "concise"):
            for d, severity in entries:
                check._print_text(out, str(path), lines, d, severity, style, excerpt=fmt == "full")
        elif fmt == "github":
            for d, severity in entries:
                check._print_github(out, str(path), lines, d, severity)
        else:
            report.append({"path": str(path), "diagnostics": [check._json_diagnostic(d, s, lines) for d, s in entries]})
    if fmt == "json":
        out.write(dumps({"files": report}) + "\n")
    elif fmt == "sarif":
        from action_lsp import __version__

        out.write(dumps(sarif_log(report, __version__)) + "\n")
    elif fmt == "full":
        if per_code:
            check._print_per_code(out, per_code, style)
        print(check._summary(counts, len(paths), style), file=out)
    elif fmt == "concise":
        print(check._summary(counts, len(paths), style), file=out)
    return out.getvalue()


@pytest.fixture
def transcripts(tmp_path: Path) -> list[Path]:
    texts = corpus()
    names = ["claude:mixed", "claude:truncated", "claude:crlf", "codex:mixed", "generated:dense",
             "tests/fixtures/dialects/aider/chat-history-excerpt.md", "shape:closers"]
    paths = []
    for i, name in enumerate(names):
        p = tmp_path / f"{i:02}-{name.replace('/', '_').replace(':', '_')}"
        p.write_text(texts[name], encoding="utf-8", newline="")
        paths.append(p)
    bom = tmp_path / "99-bom.jsonl"
    bom.write_text("\ufeff" + texts["claude:mixed"], encoding="utf-8", newline="")
    return [*paths, bom]


@pytest.mark.parametrize("fmt", ["concise", "full", "json", "github", "sarif"])
def test_check_output_is_the_whole_analysis_output(
    fmt: str, transcripts: list[Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from action_lsp.cli import check, main

    expected = _reference(transcripts, fmt)
    assert expected.count("tool-error") > 3 and expected.count("bad-json") > 3
    for stream_from, window in ((1 << 40, None), (0, 300)):  # in memory; from the file in windows
        monkeypatch.setattr(check, "STREAM_FROM", stream_from)
        monkeypatch.setattr("action_lsp.stream.WINDOW", window or 1 << 20)
        monkeypatch.setattr("action_lsp.cli.common.PIECE", 97)
        main(["check", "--jobs", "1", "--format", fmt, *map(str, transcripts)])
        assert capsys.readouterr().out == expected, (fmt, stream_from)


def test_unreadable_files_say_so_before_any_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read in pieces, a file that turns out not to be UTF-8 near its end is refused as a whole
    read refuses it, and none of its diagnostics are printed."""
    from action_lsp.cli import check, main
    from action_lsp.cli.common import CliError, read_transcript

    monkeypatch.setattr(check, "STREAM_FROM", 0)
    monkeypatch.setattr("action_lsp.cli.common.PIECE", 64)
    good = corpus()["claude:mixed"].encode("utf-8")
    cases = {"late.jsonl": good + b"\xff\n", "binary.jsonl": b"{}\n\x00", "cut.jsonl": good + "é".encode()[:1]}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
    for name in cases:
        path = tmp_path / name
        with pytest.raises(CliError) as whole:
            read_transcript(path)
        assert main(["check", "--jobs", "1", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        assert captured.err.strip() == f"action-lsp check: {whole.value}"


def test_check_file_streams_a_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from action_lsp.batch import check_file, check_files, check_text

    monkeypatch.setattr("action_lsp.stream.WINDOW", 500)
    text = corpus()["claude:mixed"]
    path = tmp_path / "s.jsonl"
    path.write_text("\ufeff" + text, encoding="utf-8")
    expected = [_sig(d) for d in analyze(text).diagnostics]
    assert [_sig(d) for d in check_file(path)] == expected
    assert [_sig(d) for d in check_text(text)] == expected
    (first, missing) = check_files([path, tmp_path / "missing.jsonl"], jobs=1)
    assert first.text is None and first.error is None and [_sig(d) for d in first.diagnostics] == expected
    assert missing.error is not None and "no such file" in missing.error
