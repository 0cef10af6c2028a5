"""Benchmark: JSON sessions of every shape the one JSON reader reads, at MB/s.

Generates a deterministic session of each shape (``--size``, default 4 MB each), modelled on
the real files (see ``tests/dialects/test_json_shapes.py``):

- ``claude-2x``: Claude Code 2.x JSONL (bookkeeping records first, Write / Edit calls, results);
- ``cline-api``: Cline's ``api_conversation_history.json``, a bare array on one line, native
  ``tool_use`` blocks with Windows ``absolutePath`` and ``diff`` SEARCH/REPLACE blocks;
- ``cline-ui``: Cline's ``ui_messages.json`` (tool messages as JSON strings), on one line;
- ``gemini-stream``: Gemini CLI ``--output-format stream-json`` lines;
- ``gemini-chat``: a Gemini CLI saved chat, indented JSON (``toolCalls`` with status);
- ``codex``: a Codex rollout (``response_item`` apply_patch / shell, outputs).

For each: the read (the scan: every unit, action and dialect diagnostic, what this reader
costs) and ``analyze(text)`` (the read plus every rule, the syntax check of written code
among them: what the editor and ``check`` pay), best of ``--repeat`` runs, in MB/s (10**6
bytes of UTF-8), with the number of file actions found; and
for the JSONL shapes, the CPU time and characters re-scanned by one keystroke in the middle of
an open ``IncrementalDocument`` (median of 20).

The read runs with the garbage collector on unless ``--gc-paused``: ``analyze``, ``check`` and
the server scan with it paused (``document.gc_paused``), so that is what they pay.

Run: ``.venv/bin/python bench/bench_json_shapes.py`` (``--size 8m``, ``--only cline-api``). Run
with ``PYTHONPATH`` set to another checkout to measure that one. Paths given after the options
are measured the same way, each file as it is (real sessions: ``... bench_json_shapes.py
--only none path/to/session.jsonl``; the keystroke for a file whose text has line breaks).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

_WORDS = ["the", "of", "and", "to", "a", "in", "for", "'quoted'", "\"dq\"", "é", "🌍", "—", "\\back", "tab\t"]


def _code(rng: random.Random, lines: int) -> str:
    return "".join(f'    value_{i} = compute("{rng.choice(_WORDS)}", {i})  # {rng.choice(_WORDS)}\n' for i in range(lines))


def _dump(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def claude_2x(size: int, rng: random.Random) -> str:
    cwd = "/home/dev/proj"
    out = [_dump({"type": "permission-mode", "permissionMode": "acceptEdits", "sessionId": "s"}),
           _dump({"type": "file-history-snapshot", "messageId": "m", "snapshot": {"trackedFileBackups": {}},
                  "isSnapshotUpdate": False})]
    k = 0
    total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        use = {"type": "tool_use", "id": f"toolu_{k}", "name": "Write" if k % 2 else "Edit",
               "input": {"file_path": f"{cwd}/src/m{k % 50}.py", "content": body} if k % 2 else
               {"file_path": f"{cwd}/src/m{k % 50}.py", "old_string": body[:80], "new_string": body[80:200]}}
        lines = [
            _dump({"type": "user", "cwd": cwd, "sessionId": "s", "uuid": f"u{k}",
                   "message": {"role": "user", "content": f"step {k} " + " ".join(rng.choice(_WORDS) for _ in range(40))}}),
            _dump({"type": "assistant", "cwd": cwd, "sessionId": "s", "uuid": f"a{k}",
                   "message": {"role": "assistant", "content": [{"type": "text", "text": "Doing it."}, use]}}),
            _dump({"type": "user", "cwd": cwd, "sessionId": "s", "uuid": f"r{k}",
                   "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{k}",
                                                            "is_error": k % 9 == 0, "content": body[:300]}]},
                   "toolUseResult": {"stdout": body}}),
        ]
        out.extend(lines)
        total += sum(len(x) + 1 for x in lines)
    return "\n".join(out) + "\n"


def cline_api(size: int, rng: random.Random) -> str:
    env = ("<environment_details>\n# Current Working Directory (c:/Apps/shop) Files\nsrc/a.ts\n</environment_details>")
    messages: list[object] = [{"role": "user", "content": [{"type": "text", "text": "<task>go</task>"},
                                                           {"type": "text", "text": env}]}]
    k = total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        if k % 2:
            use = {"type": "tool_use", "id": f"tu_{k}", "name": "write_to_file",
                   "input": {"absolutePath": f"c:\\Apps\\shop\\src\\m{k % 50}.py", "content": body}}
        else:
            diff = f"------- SEARCH\n{body[:80]}\n=======\n{body[80:200]}\n+++++++ REPLACE\n"
            use = {"type": "tool_use", "id": f"tu_{k}", "name": "replace_in_file",
                   "input": {"path": f"src/m{k % 50}.py", "diff": diff}}
        pair = [{"role": "assistant", "content": [{"type": "text", "text": "<thinking>next</thinking>"}, use]},
                {"role": "user", "content": [{"type": "text", "text": f"[{use['name']} for 'x'] Result:\n{body[:400]}"},
                                             {"type": "text", "text": env}]}]
        messages.extend(pair)
        total += len(_dump(pair))
    return _dump(messages)


def cline_ui(size: int, rng: random.Random) -> str:
    entries: list[object] = []
    k = total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        tool = ({"tool": "newFileCreated", "path": f"src/m{k}.py", "content": body} if k % 2 else
                {"tool": "editedExistingFile", "path": f"src/m{k % 50}.py",
                 "diff": f"------- SEARCH\n{body[:80]}\n=======\n{body[80:200]}\n+++++++ REPLACE"})
        pair = [{"ts": k, "type": "say", "say": "text", "text": " ".join(rng.choice(_WORDS) for _ in range(60))},
                {"ts": k, "type": "say", "say": "tool", "text": _dump(tool)}]
        entries.extend(pair)
        total += len(_dump(pair))
    return _dump(entries)


def gemini_stream(size: int, rng: random.Random) -> str:
    out = [_dump({"type": "init", "timestamp": "t", "session_id": "s", "model": "gemini-2.5-pro"})]
    k = total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        lines = [
            _dump({"type": "message", "role": "assistant", "content": " ".join(rng.choice(_WORDS) for _ in range(30)),
                   "delta": True}),
            _dump({"type": "tool_use", "timestamp": "t", "tool_name": "write_file", "tool_id": f"w-{k}",
                   "parameters": {"file_path": f"src/m{k % 50}.py", "content": body}}),
            _dump({"type": "tool_result", "timestamp": "t", "tool_id": f"w-{k}",
                   "status": "error" if k % 9 == 0 else "success", "output": ""}),
        ]
        out.extend(lines)
        total += sum(len(x) + 1 for x in lines)
    return "\n".join(out) + "\n"


def gemini_chat(size: int, rng: random.Random) -> str:
    messages: list[object] = []
    k = total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        pair = [{"id": f"u{k}", "type": "user", "content": "next " + rng.choice(_WORDS)},
                {"id": f"g{k}", "type": "gemini", "content": "Writing.", "toolCalls": [
                    {"id": f"w-{k}", "name": "write_file", "args": {"file_path": f"m{k % 50}.py", "content": body},
                     "status": "error" if k % 9 == 0 else "success", "resultDisplay": "ok"}]}]
        messages.extend(pair)
        total += len(json.dumps(pair, indent=2, ensure_ascii=False))
    return json.dumps({"sessionId": "s", "projectHash": "h", "messages": messages}, indent=2, ensure_ascii=False)


def codex(size: int, rng: random.Random) -> str:
    out = [_dump({"timestamp": "t", "type": "session_meta", "payload": {"id": "s", "cwd": "/home/u/p"}})]
    k = total = 0
    while total < size:
        k += 1
        body = _code(rng, rng.randint(5, 60))
        patch = f"*** Begin Patch\n*** Add File: src/m{k}.py\n" + "".join("+" + x + "\n" for x in body.splitlines()) + "*** End Patch\n"
        lines = [
            _dump({"timestamp": "t", "type": "response_item", "payload": {
                "type": "custom_tool_call", "call_id": f"c{k}", "name": "apply_patch", "input": patch}}),
            _dump({"timestamp": "t", "type": "response_item", "payload": {
                "type": "custom_tool_call_output", "call_id": f"c{k}",
                "output": _dump({"output": "Success.", "metadata": {"exit_code": 1 if k % 9 == 0 else 0}})}}),
            _dump({"timestamp": "t", "type": "response_item", "payload": {
                "type": "function_call", "name": "shell", "call_id": f"s{k}",
                "arguments": _dump({"command": ["bash", "-lc", "ls src"], "workdir": "/home/u/p"})}}),
        ]
        out.extend(lines)
        total += sum(len(x) + 1 for x in lines)
    return "\n".join(out) + "\n"


SHAPES: dict[str, Callable[[int, random.Random], str]] = {
    "claude-2x": claude_2x, "cline-api": cline_api, "cline-ui": cline_ui,
    "gemini-stream": gemini_stream, "gemini-chat": gemini_chat, "codex": codex,
}
JSONL = ("claude-2x", "gemini-stream", "codex")


def _size(s: str) -> int:
    s = s.lower()
    mult = {"k": 10**3, "m": 10**6}.get(s[-1], 1)
    return int(float(s[:-1] if s[-1] in "km" else s) * mult)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="4m")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--only", action="append", choices=[*sorted(SHAPES), "none"])
    p.add_argument("--gc-paused", action="store_true",
                   help="read with the garbage collector paused, as analyze() and the server scan")
    p.add_argument("paths", nargs="*", help="session files to measure as they are")
    args = p.parse_args()
    from action_lsp.dialects import DialectSet, file_view
    from action_lsp.document import IncrementalDocument, analyze, gc_paused
    from action_lsp.records import records_owner
    from action_lsp.scan import scan

    texts: list[tuple[str, Callable[[], str], bool]] = [
        (name, lambda name=name: SHAPES[name](_size(args.size), random.Random(7)), name in JSONL)  # type: ignore[misc]
        for name in (args.only or SHAPES) if name != "none"
    ]
    for path in args.paths:
        texts.append((path.rsplit("/", 1)[-1][:30], lambda path=path: _read(path), True))  # type: ignore[misc]
    for name, make, keystroke in texts:
        text = make()
        mb = len(text.encode("utf-8")) / 1e6
        best = float("inf")
        found = 0
        for _ in range(args.repeat):
            t = time.process_time()
            a = analyze(text)
            best = min(best, time.process_time() - t)
            found = sum(1 for x in a.actions if x.kind.is_file_action and file_view(x) is not None)
        ds = DialectSet.named(None)
        read = float("inf")
        for _ in range(args.repeat):
            t = time.process_time()
            if args.gc_paused:
                with gc_paused():
                    for _unit in scan(text, ds, records=records_owner(text, ds)):
                        pass
            else:
                for _unit in scan(text, ds, records=records_owner(text, ds)):
                    pass
            read = min(read, time.process_time() - t)
        line = (f"{name:14.30s} {mb:6.2f} MB  read {mb / read:7.1f} MB/s  analyze {mb / best:6.1f} MB/s  "
                f"{found:5d} file actions")
        if keystroke and "\n" in text[len(text) // 2 :]:
            doc = IncrementalDocument(text)
            doc.analysis()
            at = text.index("\n", len(text) // 2) - 2
            costs, chars = [], []
            for k in range(20):
                t = time.process_time()
                doc.edit(at + k, at + k, " ")
                doc.analysis()
                costs.append(time.process_time() - t)
                chars.append(doc.rescanned)
            line += f"  keystroke {statistics.median(costs) * 1e3:6.2f} ms, {int(statistics.median(chars))} chars re-scanned"
        print(line, flush=True)


def _read(path: str) -> str:
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


if __name__ == "__main__":
    main()
