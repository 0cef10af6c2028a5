"""Benchmark: a large Claude Code session JSONL, checked as ``action-lsp check`` does.

Generates (or reads) a session file and measures:

- ``action-lsp check --format json PATH`` in a child process (what a user runs): wall and CPU
  time, MB/s (10**6 bytes of UTF-8), and the child's peak RSS beside that of a check of a tiny
  file (the interpreter with everything a check imports): the difference is what the file
  costs;
- in this process, on the text in memory: the streaming check (``action_lsp.stream``) and
  ``analyze(text)`` (the whole analysis the editor uses; ``--no-analyze`` skips it): time,
  MB/s, and peak RSS growth during the first run (``VmHWM`` in ``/proc/self/status``, reset
  through ``/proc/self/clear_refs``), beside the size of the text itself;
- keystrokes in an ``IncrementalDocument`` of the same text: characters re-scanned and CPU time
  per edit, to the diagnostics (what the server republishes) and with ``analysis()`` (what code
  lenses and symbols read), median and p95, and a check that the last edit's analysis equals a
  full one.

``--dense SIZE`` also checks a generated action-dense markdown transcript of that size
(``bench_parse.generate``) in a child process, for its peak RSS. Run with
``PYTHONPATH`` set to another checkout to measure that one (the in-process streaming check is
skipped where it does not exist).

Run: ``python bench/bench_sessions.py --generate /tmp/session.jsonl --size 100m`` (writes the
file, then measures it) or ``python bench/bench_sessions.py PATH`` for an existing file.
The generated session is deterministic: user prompts, assistant text, Write / Edit / MultiEdit /
Bash / Read calls with realistic inputs (escapes, multi-byte characters), their tool results
(some errors), and Claude Code's ``toolUseResult`` copies of file contents.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CWD = "/home/dev/project"
_WORDS = ["the", "of", "and", "to", "a", "in", "is", "for", "that", "with", "on", "as", "it", "by", "this", "be", "are", "from", "or", "'quoted'", "é", "ü", "🌍", "—", "«x»"]


def _size(s: str) -> int:
    s = s.lower()
    mult = {"k": 10**3, "m": 10**6, "g": 10**9}.get(s[-1], 1)
    return int(float(s[:-1] if s[-1] in "kmg" else s) * mult)


def _code(rng: random.Random, lines: int) -> str:
    out = []
    for i in range(lines):
        w = rng.choice(_WORDS)
        out.append(f'    value_{i} = compute("{w}", {i})  # {rng.choice(_WORDS)}\\n\t"tab"')
    return "def generated():\n" + "\n".join(out) + "\n    return None\n"


def generate(path: Path, size: int, seed: int = 1) -> int:
    """Write a session of about ``size`` bytes to ``path``; returns the bytes written."""
    rng = random.Random(seed)
    sid = "2f1c9a7e-0b6d-4e55-9d1a-7c3e5b2a9f10"
    written = 0
    n = 0
    with path.open("w", encoding="utf-8") as f:

        def emit(rec: dict) -> None:
            nonlocal written, n
            n += 1
            rec.update({"cwd": CWD, "sessionId": sid, "uuid": f"u-{n}", "timestamp": "2025-09-01T10:00:00Z"})
            line = json.dumps(rec, ensure_ascii=n % 3 == 0) + "\n"
            f.write(line)
            written += len(line.encode("utf-8"))

        emit({"type": "summary", "summary": "generated", "leafUuid": "x"})
        k = 0
        while written < size:
            k += 1
            name = f"src/mod_{k % 500}/file_{k}.py"
            body = _code(rng, rng.randint(10, 120))
            emit({"type": "user", "message": {"role": "user", "content": f"Please write {name} — {rng.choice(_WORDS)}"}})
            emit({"type": "assistant", "message": {"id": f"msg_{k}", "role": "assistant", "content": [
                {"type": "text", "text": "I'll write it. " * rng.randint(1, 20)},
                {"type": "tool_use", "id": f"toolu_w{k}", "name": "Write",
                 "input": {"file_path": f"{CWD}/{name}", "content": body}}]}})
            emit({"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": f"toolu_w{k}", "type": "tool_result", "content": f"File created successfully at: {CWD}/{name}"}]},
                "toolUseResult": {"type": "create", "filePath": f"{CWD}/{name}", "content": body}})
            old = body.splitlines()[1]
            emit({"type": "assistant", "message": {"id": f"msg_e{k}", "role": "assistant", "content": [
                {"type": "tool_use", "id": f"toolu_e{k}", "name": "Edit",
                 "input": {"file_path": f"{CWD}/{name}", "old_string": old, "new_string": old + "  # ✓"}},
                {"type": "tool_use", "id": f"toolu_b{k}", "name": "Bash",
                 "input": {"command": f"python -m pytest -q {name}", "description": "Run tests"}}]}})
            err = k % 7 == 0
            emit({"type": "user", "message": {"role": "user", "content": [
                {"tool_use_id": f"toolu_e{k}", "type": "tool_result", "is_error": err,
                 "content": "<tool_use_error>String to replace not found in file.</tool_use_error>" if err else "updated"},
                {"tool_use_id": f"toolu_b{k}", "type": "tool_result", "content": "1 passed in 0.01s"}]},
                "toolUseResult": {"filePath": f"{CWD}/{name}", "originalFile": body}})
    return written


def _hwm_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def _reset_hwm() -> None:
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


# The child reports its own peak: a child's ru_maxrss also counts the parent's pages it had
# between fork and exec (Linux keeps the larger high-water mark across exec).
_CHILD = (
    "import atexit, runpy, sys\n"
    "def _peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            sys.stderr.write('VmHWM ' + line.split()[1] + '\\n')\n"
    "atexit.register(_peak)\n"
    "sys.argv = ['action-lsp', *sys.argv[1:]]\n"
    "runpy.run_module('action_lsp', run_name='__main__', alter_sys=True)\n"
)


def check_child(path: Path) -> tuple[float, float, float, int]:
    """``action-lsp check --format json PATH`` in a child: (wall s, CPU s, peak RSS MB, exit)."""
    t = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, "check", "--jobs", "1", "--format", "json", str(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    peaks = [int(line.split()[1]) for line in err.splitlines() if line.startswith("VmHWM ")]
    return wall, usage.ru_utime + usage.ru_stime, (peaks[-1] if peaks else 0) / 1024, child.returncode


def report_check(label: str, path: Path, tiny: Path) -> None:
    mb = path.stat().st_size / 1e6
    _, _, floor, _ = check_child(tiny)
    wall, cpu, peak, code = check_child(path)
    print(f"check {label} ({mb:.1f} MB, child process, exit {code}): {wall:.1f} s wall, {cpu:.1f} s CPU -> "
          f"{mb / cpu:.1f} MB/s CPU; peak RSS {peak:.0f} MB, {peak - floor:+.0f} MB over a check of a "
          f"tiny file ({floor:.0f} MB)", flush=True)


def _measure(label: str, fn, mb: float, runs: int, text_chars: int) -> object:  # type: ignore[no-untyped-def]
    _reset_hwm()
    before = _hwm_kb()
    times = []
    result = None
    peak = 0
    for _ in range(max(1, runs)):
        t = time.perf_counter()
        c = time.process_time()
        result = fn()
        times.append((time.perf_counter() - t, time.process_time() - c))
        if len(times) == 1:
            peak = _hwm_kb() - before
    wall, cpu = min(times)
    print(f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU -> {mb / wall:.1f} MB/s ({mb / cpu:.1f} MB/s CPU); "
          f"peak RSS growth {peak / 1024:.0f} MB (the text itself: {text_chars / 1e6:.0f} M chars)", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path", nargs="?", help="a session JSONL to measure")
    p.add_argument("--generate", metavar="PATH", help="write a generated session here, then measure it")
    p.add_argument("--size", default="100m", help="size of the generated session (k/m/g = 10^3/10^6/10^9 bytes)")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--edits", type=int, default=30, help="keystrokes timed in an IncrementalDocument (0: none)")
    p.add_argument("--no-analyze", action="store_true", help="skip the whole analysis (slow, memory-hungry on 100 MB)")
    p.add_argument("--dense", metavar="SIZE", help="also check a generated action-dense markdown transcript of SIZE")
    args = p.parse_args(argv)
    if args.generate:
        path = Path(args.generate)
        t = time.perf_counter()
        n = generate(path, _size(args.size))
        print(f"generated {path}: {n / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    elif args.path:
        path = Path(args.path)
    else:
        p.error("give a PATH or --generate PATH")

    print(f"python {sys.version.split()[0]}, load {os.getloadavg()[0]:.1f}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tiny = Path(tmp, "tiny.jsonl")
        with path.open(encoding="utf-8") as f:
            tiny.write_text("".join(f.readline() for _ in range(20)), encoding="utf-8")
        report_check("session", path, tiny)
        if args.dense:
            sys.path.insert(0, str(Path(__file__).parent))
            from bench_parse import generate as generate_dense

            dense = Path(tmp, "dense.md")
            dense.write_text(generate_dense(_size(args.dense))[0], encoding="utf-8")
            small = Path(tmp, "small.md")
            small.write_text(generate_dense(20_000)[0], encoding="utf-8")
            report_check("dense markdown", dense, small)
            dense.unlink()

    from action_lsp.document import IncrementalDocument, analyze

    text = path.read_text(encoding="utf-8")
    mb = len(text.encode("utf-8")) / 1e6
    print(f"{path.name}: {mb:.1f} MB; in this process (process peak before: {_hwm_kb() / 1024:.0f} MB):")
    try:
        from action_lsp.stream import placed_text
    except ImportError:
        placed_text = None
    if placed_text is not None:
        found = _measure("  stream (check_text)", lambda: [d for d, _ in placed_text(text)], mb, args.runs, len(text))
        codes: dict[str, int] = {}
        for d in found:  # type: ignore[attr-defined]
            codes[d.code] = codes.get(d.code, 0) + 1
        print(f"  diagnostics {codes}")
        del found
    if not args.no_analyze:
        analysis = _measure("  analyze (whole analysis)", lambda: analyze(text), mb, args.runs, len(text))
        print(f"  {len(analysis.actions)} actions, {len(analysis.diagnostics)} diagnostics")  # type: ignore[attr-defined]
        del analysis
    if args.edits:
        t = time.perf_counter()
        doc = IncrementalDocument(text)
        print(f"open IncrementalDocument: {time.perf_counter() - t:.2f} s")
        rng = random.Random(3)
        per_edit: list[float] = []
        per_key: list[float] = []
        rescanned: list[int] = []
        for _ in range(args.edits):
            at = rng.randrange(len(doc.lines))
            c = time.process_time()
            doc.edit(at, at, "x")
            sum(1 for _ in doc.units_with_diagnostics())  # what the server republishes
            per_key.append((time.process_time() - c) * 1000)
            doc.analysis()
            per_edit.append((time.process_time() - c) * 1000)
            rescanned.append(doc.rescanned)

        def p95(v: list[float]) -> float:
            return sorted(v)[int(0.95 * (len(v) - 1))]

        print(f"keystrokes (CPU): edit -> diagnostics median {statistics.median(per_key):.2f} ms, "
              f"p95 {p95(per_key):.2f} ms; with analysis() median {statistics.median(per_edit):.1f} ms, "
              f"p95 {p95(per_edit):.1f} ms; re-scanned median {statistics.median(rescanned):.0f} chars, "
              f"max {max(rescanned)}")
        same = doc.analysis()
        full = analyze(doc.text)
        ok = [(a.type, a.kind, a.span) for a in same.actions] == [(a.type, a.kind, a.span) for a in full.actions] and [
            (d.code, d.span, d.message) for d in same.diagnostics] == [(d.code, d.span, d.message) for d in full.diagnostics]
        print(f"incremental analysis after {args.edits} edits equals a full one: {ok}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
