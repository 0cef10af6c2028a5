"""Opening a long history in its own repository in the language server (a script, not a test).

    .venv/bin/python bench/bench_open.py TRANSCRIPT ROOT [--source DIR]

A client (pytest-lsp's, over stdio, VS Code capabilities: pushed diagnostics) starts
``action-lsp serve`` with ROOT as its workspace folder and opens TRANSCRIPT (a ``file:`` URI
inside or outside ROOT). Reported, from the ``didOpen``: the first ``publishDiagnostics`` (the
transcript's own findings), the first that holds workspace findings (``applied``,
``superseded``, ``search-not-found``, ...) with their count, and the ``documentSymbol`` answer
(the outline) asked right after the open. On Linux, also the server's CPU time from the
``didOpen`` to the outline's answer (a busy machine stretches the wall times; the CPU time much
less), and the server's CPU time from its start to the first diagnostics (what a cold open in an
editor costs on an idle machine: the start-up, the ``initialize``, the open).

The outline is kept as the JSON it arrives as, as an editor reads it: turned into lsprotocol
objects by this client (cattrs, 676 symbols for Aider's history) it cost the client 60-90 ms,
which the time measured included; ``--typed`` does that again (the numbers before 2026-11-26
17:30 were measured so). ``--trace FILE`` starts the server through ``serve_traced.py`` and
writes its trace of the open there (``--profile FILE``: and a cProfile of it): the server's own
steps, with its CPU time and page faults, from the arrival of the ``didOpen`` to the outline
written (``--trace-start``: from the server's start on).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import sysconfig
import time
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

from action_lsp.codes import CODES

WORKSPACE_CODES = {c.code for c in CODES.values() if c.needs_workspace}


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of process ``pid`` so far (Linux: /proc), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


async def run(
    transcript: Path, root: Path, source: Path | None, typed: bool = False,
    trace: Path | None = None, profile: Path | None = None, trace_start: bool = False,
) -> None:
    client = make_test_lsp_client()
    if not typed:  # (see the module doc)
        result_type = client.protocol.get_result_type
        client.protocol.get_result_type = lambda method: (  # type: ignore[assignment]
            None if method == types.TEXT_DOCUMENT_DOCUMENT_SYMBOL else result_type(method)
        )
    python = [sys.executable]
    env = dict(os.environ)
    if source is not None:  # another checkout (-S: an editable install does not win over it)
        env["PYTHONPATH"] = os.pathsep.join([str(source.resolve()), sysconfig.get_paths()["purelib"]])
        python.append("-S")
    events: list[tuple[float, int, int]] = []  # (time, diagnostics, workspace findings)
    first_cpu: list[float | None] = []  # the server's CPU time at the first publish

    def publish(params: types.PublishDiagnosticsParams) -> None:
        ws = sum(1 for d in params.diagnostics if d.code in WORKSPACE_CODES)
        events.append((time.perf_counter(), len(params.diagnostics), ws))
        if not first_cpu:
            first_cpu.append(cpu_seconds(getattr(getattr(client, "_server", None), "pid", None)))

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    started = time.perf_counter()
    serve = ["-m", "action_lsp", "serve"]
    if trace is not None or profile is not None:
        serve = [str(Path(__file__).with_name("serve_traced.py"))]
        env["TRACE_OUT"] = str((trace or Path(os.devnull)).resolve())
        if trace_start:
            env["TRACE_START"] = "1"
        if profile is not None:
            env["PROFILE_OUT"] = str(profile.resolve())
    await client.start_io(*python, *serve, env=env, cwd=str(root.resolve()))
    folder = root.resolve().as_uri()
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=folder,
        workspace_folders=[types.WorkspaceFolder(uri=folder, name=root.name)]))
    uri = transcript.resolve().as_uri()
    text = transcript.read_text(encoding="utf-8")
    pid = getattr(getattr(client, "_server", None), "pid", None)
    cpu0 = cpu_seconds(pid)
    t0 = time.perf_counter()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text=text)))
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    t_outline = time.perf_counter() - t0
    cpu1 = cpu_seconds(pid)
    deadline = time.perf_counter() + 300
    while not any(ws for _, _, ws in events) and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(1.0)  # later publishes, if any
    first = events[0] if events else None
    with_ws = next((e for e in events if e[2]), None)
    print(f"{transcript.name} ({len(text) / 1e6:.1f} MB) in {root}:")
    if first is not None:
        print(f"  first diagnostics:     {first[0] - t0:6.2f} s ({first[1]} diagnostics)")
    if with_ws is not None:
        print(f"  workspace findings:    {with_ws[0] - t0:6.2f} s ({with_ws[1]} diagnostics, "
              f"{with_ws[2]} of the workspace checks)")
    print(f"  outline (asked at the open): {t_outline:6.2f} s ({len(symbols or [])} symbols)")
    if cpu0 is not None and cpu1 is not None:
        print(f"  server CPU, didOpen to outline: {cpu1 - cpu0:5.2f} s")
    if cpu1 is not None:  # (a fresh server: what it imported after initialize counts from the didOpen on)
        print(f"  server start to outline: {t0 + t_outline - started:5.2f} s wall, {cpu1:5.2f} s server CPU")
    if first is not None and first_cpu and first_cpu[0] is not None:
        print(f"  server start to first diagnostics: {first[0] - started:5.2f} s wall, {first_cpu[0]:5.2f} s server CPU")
    await client.shutdown_session()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("transcript", type=Path)
    p.add_argument("root", type=Path)
    p.add_argument("--source", type=Path, help="run the action-lsp found in this directory")
    p.add_argument("--typed", action="store_true", help="turn the outline into lsprotocol objects (as before)")
    p.add_argument("--trace", type=Path, help="write the server's trace of the open here (serve_traced.py)")
    p.add_argument("--profile", type=Path, help="write a cProfile of the server's open here")
    p.add_argument("--trace-start", action="store_true", help="the trace from the server's start on (with --trace)")
    args = p.parse_args()
    asyncio.run(run(args.transcript, args.root, args.source, args.typed, args.trace, args.profile, args.trace_start))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
