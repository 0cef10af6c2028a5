"""The commands on the whole-document shapes of ``bench/adversarial.py`` (issue 21): ``parse``,
``check``, ``apply`` (dry run) and the server's outline, each at two sizes, in a child process.

    .venv/bin/python bench/bench_commands.py [--n 2000] [--factor 10] [--only NAME ...] [--timeout 300]
        [--commands "apply" "apply --write" "check" "parse" "server-check"]

For every shape of ``DOCUMENTS`` (``parse``, ``check``, ``outline``) and ``WORKSPACES``
(``apply`` dry run and ``--write``, ``check --root``, ``parse`` and the server's workspace checks
``server-check``: the transcript and the files it edits, written to a temporary directory) the report
gives the CPU time of the command itself (import and start-up excluded) at ``n`` and
``factor * n``, their ratio (linear is the factor; the issue's bound is 1.5 times it, flagged
above), and the child's peak RSS at the larger size. ``outline`` is what the server's
``documentSymbol`` does: open the document and place every action's range and name range.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from adversarial import DOCUMENTS, WORKSPACES

_DRIVER = r"""
import contextlib, io, json, sys, time
command, args = sys.argv[1], sys.argv[2:]
from action_lsp.cli import main
from action_lsp.document import IncrementalDocument
t0 = time.process_time()
if command == "outline":
    doc = IncrementalDocument(open(args[0], encoding="utf-8").read())
    lines = doc.lines
    for a in doc.analysis().actions:
        lines.range(a.span, "utf-16"), lines.range(a.name_span, "utf-16")
elif command == "server-check":  # the server's workspace checks of an open transcript
    from pathlib import Path
    from action_lsp.edit import Workspace, workspace_diagnostics
    doc = IncrementalDocument(open(args[0], encoding="utf-8").read())
    workspace_diagnostics(doc.analysis().actions, Workspace(Path(args[2])))
else:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            main([command, *args])
        except SystemExit:
            pass
cpu = time.process_time() - t0
hwm = int(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
print(json.dumps({"cpu": cpu, "hwm": hwm}))
"""


#: What runs on a workspace shape: ``apply`` (a dry run, and writing), ``check --root``,
#: ``parse``, and the server's workspace checks of the open transcript.
WORKSPACE_COMMANDS = ("apply", "apply --write", "check", "parse", "server-check")


def run_child(command: str, args: list[str], timeout: float) -> tuple[float, int]:
    """(CPU seconds of the command, the child's peak RSS in KB from /proc's VmHWM); inf on a
    timeout."""
    try:
        proc = subprocess.run([sys.executable, "-c", _DRIVER, command, *args], capture_output=True,
                              text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return float("inf"), 0
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    return got["cpu"], got["hwm"]


def measure(n: int, factor: int, only: list[str], timeout: float,
            commands: list[str] | None = None) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        jobs: list[tuple[str, str, list[list[str]]]] = []
        for name, doc in DOCUMENTS.items():
            if only and name not in only:
                continue
            paths = []
            for size in (n, factor * n):
                p = root / f"{name}-{size}.jsonl"
                p.write_text(doc(size), encoding="utf-8")
                paths.append(str(p))
            for command in ("parse", "check", "outline"):
                jobs.append((name, command, [[p] for p in paths]))
        for name, make in WORKSPACES.items():
            if only and name not in only:
                continue
            for command in WORKSPACE_COMMANDS:
                if commands and command not in commands:
                    continue
                argsets = []
                for size in (n, factor * n):
                    ws = root / f"{name}-{size}-{command.replace(' ', '')}"
                    ws.mkdir()
                    transcript, files = make(size)
                    for rel, content in files.items():
                        (ws / rel).write_text(content, encoding="utf-8")
                    (ws / "t.jsonl").write_text(transcript.replace("/w", str(ws)), encoding="utf-8")
                    argsets.append([str(ws / "t.jsonl"), "--root", str(ws), *command.split()[1:]])
                jobs.append((name, command, argsets))
        print(f"| shape | command | n: CPU s | {factor}n: CPU s | ratio | peak RSS ({factor}n) |")
        print("|---|---|--:|--:|--:|--:|")
        for name, command, (small, big) in jobs:
            a, _ = run_child(command.split()[0], small, timeout)
            b, rss = run_child(command.split()[0], big, timeout)
            ratio = b / max(a, 1e-3)
            flag = " **superlinear**" if ratio > 1.5 * factor else ""
            shown = f"> {timeout:.0f}" if b == float("inf") else f"{b:.2f}"
            print(f"| {name} | {command} | {a:.2f} | {shown} | {ratio:.1f}{flag} | {rss / 1024:.0f} MB |", flush=True)
            rows.append({"shape": name, "command": command, "small": a, "big": b, "ratio": ratio, "rss_kb": rss})
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--factor", type=int, default=10)
    ap.add_argument("--only", nargs="*", default=[])
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--commands", nargs="*", default=[], help=f"of the workspace shapes: {', '.join(WORKSPACE_COMMANDS)}")
    args = ap.parse_args(argv)
    rows = measure(args.n, args.factor, args.only, args.timeout, args.commands)
    return 1 if any(float(str(r["ratio"])) > 1.5 * args.factor for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
