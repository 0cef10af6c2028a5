"""Fuzzing (issue 21): mutated transcripts of every dialect, declared-dialect configurations and
planted journals (``tests/fuzzing.py``) against ``check``, ``parse``, ``apply`` (the dry run; a
write under a planted journal) and the server. Each input must end with a documented exit code
(0, 1 or 2) or an answer to every request, without a traceback and within a generous deadline
(a hang detector, not a speed test: speed is measured under ``bench/``).

The default budget is small (a few seconds); the ``slow`` tests run many more inputs, the whole
seeds instead of windows of the large ones. ``ACTION_LSP_FUZZ=N`` sets the number of inputs of
each slow test. Every input is reproducible from its number (the failure message names it).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import pytest
from fuzzing import (
    DECLARED_TRANSCRIPT,
    Case,
    configs,
    plant_journal,
    target_files,
    transcripts,
)

from action_lsp.cli import main
from action_lsp.dialects import set_declared

DEADLINE = 60.0  # seconds for one command on one input: only a hang takes that long
SLOW = int(os.environ.get("ACTION_LSP_FUZZ", "0")) or 1_500
WRITE_TRANSCRIPT = "<create_file>\n<path>made.txt</path>\n<content>\nx\n</content>\n</create_file>\n"


class Hang(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    if not hasattr(signal, "setitimer"):  # pragma: no cover - not POSIX
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no answer in {seconds:.0f} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(autouse=True)
def no_declared() -> Iterator[None]:
    set_declared(())
    yield
    set_declared(())


def workspace(base: Path) -> Path:
    ws = base / "ws"
    ws.mkdir()
    (ws / ".action-lsp").mkdir()
    for name, data in target_files().items():
        (ws / name).write_bytes(data)
    outside = base / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_bytes(b"keep\n")
    return ws


def run_cli(argv: list[str], what: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``main(argv)`` in this process: its exit code and stderr; a traceback, an exit code
    outside the contract or a hang fails the test, naming the input."""
    try:
        with deadline(DEADLINE):
            code = main(argv)
    except BaseException as exc:
        _, err = capsys.readouterr()
        raise AssertionError(f"{what}: `action-lsp {' '.join(argv[:1])}` raised "
                             f"{type(exc).__name__}: {str(exc)[:300]}\n{err[-2000:]}") from exc
    _, err = capsys.readouterr()
    assert code in (0, 1, 2), f"{what}: {argv[0]} exited {code}"
    assert "Traceback" not in err, f"{what}: {argv[0]}:\n{err[-2000:]}"
    return code, err


def fuzz_transcripts(cases: Iterable[Case], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    ws = workspace(tmp_path)
    before = snapshot(ws)
    count = 0
    for case in cases:
        doc = ws / f"fuzzed-transcript{case.suffix}"
        doc.write_bytes(case.data)
        what = case.describe()
        run_cli(["check", "--format", "json", str(doc)], what, capsys)
        run_cli(["parse", "--format", "json", str(doc)], what, capsys)
        run_cli(["apply", "--root", str(ws), str(doc)], what, capsys)
        doc.unlink()
        assert snapshot(ws) == before, f"{what}: the dry run changed the workspace"
        count += 1
    return count


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_fuzz_transcripts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_transcripts(transcripts(0, 60), tmp_path, capsys) == 60


@pytest.mark.slow
def test_fuzz_transcripts_many(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = fuzz_transcripts(transcripts(10_000, SLOW, window=None), tmp_path, capsys)
    assert n == SLOW


def fuzz_configs(cases: Iterable[Case], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    ws = workspace(tmp_path)
    doc = ws / "chat.md"
    doc.write_text(DECLARED_TRANSCRIPT, encoding="utf-8")
    count = 0
    for case in cases:
        (ws / ".action-lsp.toml").write_bytes(case.data)
        what = case.describe()
        for argv in (["check", str(doc)], ["parse", str(doc)], ["apply", "--root", str(ws), str(doc)]):
            set_declared(())
            code, err = run_cli(argv, what, capsys)
            if code == 2:
                assert err.count("\n") == 1 and ".action-lsp.toml" in err, f"{what}: {err[-2000:]}"
        count += 1
    return count


def test_fuzz_declared_configs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_configs(configs(0, 60), tmp_path, capsys) == 60


@pytest.mark.slow
def test_fuzz_declared_configs_many(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_configs(configs(10_000, SLOW), tmp_path, capsys) == SLOW


def fuzz_journals(numbers: range, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> int:
    count = 0
    for number in numbers:
        base = tmp_path / str(number)
        base.mkdir()
        ws = workspace(base)
        (ws / "t.md").write_text(WRITE_TRANSCRIPT, encoding="utf-8")
        steps = plant_journal(ws, number)
        what = f"journal {number}: {', '.join(steps) or 'unchanged'}"
        run_cli(["apply", "--root", str(ws), str(ws / "t.md")], what, capsys)
        run_cli(["apply", "--root", str(ws), "--write", str(ws / "t.md")], what, capsys)
        assert (base / "outside" / "keep.txt").read_bytes() == b"keep\n", what
        assert sorted(os.listdir(base / "outside")) == ["keep.txt"], what
        shutil.rmtree(base)
        count += 1
    return count


def test_fuzz_planted_journals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_journals(range(20), tmp_path, capsys) == 20


@pytest.mark.slow
def test_fuzz_planted_journals_many(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fuzz_journals(range(10_000, 10_000 + SLOW), tmp_path, capsys) == SLOW


# -- the server -----------------------------------------------------------------------------


def _framed(messages: Iterable[dict[str, object]]) -> bytes:
    out = bytearray()
    for m in messages:
        data = json.dumps(m).encode("utf-8", errors="surrogatepass")
        out += b"Content-Length: %d\r\n\r\n" % len(data) + data
    return bytes(out)


def server_session(cases: list[Case], ws: Path) -> tuple[list[dict[str, object]], dict[int, str]]:
    """Every case opened, asked about (outline, hover, code actions, folding, links, pulled
    diagnostics), edited and closed: the messages, and which input each request id asks about."""
    root = ws.as_uri()
    messages: list[dict[str, object]] = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "processId": None, "rootUri": root, "workspaceFolders": [{"uri": root, "name": "ws"}],
            # (pulls are served to a client that can be asked to pull again)
            "capabilities": {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]
    asked: dict[int, str] = {}
    next_id = 1
    for case in cases:
        uri = f"{root}/input{case.number}{case.suffix}"
        text = case.data.decode("utf-8", errors="replace")
        lines = text.count("\n")
        doc = {"uri": uri}
        where = {"textDocument": doc, "position": {"line": case.number % (lines + 1), "character": 3}}
        whole = {"start": {"line": 0, "character": 0}, "end": {"line": lines + 1, "character": 0}}
        messages.append({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 1, "text": text}}})
        requests = [
            ("textDocument/documentSymbol", {"textDocument": doc}),
            ("textDocument/hover", where),
            ("textDocument/codeAction", {"textDocument": doc, "range": whole, "context": {"diagnostics": []}}),
            ("textDocument/foldingRange", {"textDocument": doc}),
            ("textDocument/documentLink", {"textDocument": doc}),
            ("textDocument/diagnostic", {"textDocument": doc}),
            ("textDocument/codeLens", {"textDocument": doc}),
            ("textDocument/completion", where),
        ]
        for method, params in requests:
            messages.append({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params})
            asked[next_id] = f"{case.describe()}: {method}"
            next_id += 1
        messages.append({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2}, "contentChanges": [
                {"range": {"start": where["position"], "end": where["position"]}, "text": "\\udfff\"{["}]}})
        messages.append({"jsonrpc": "2.0", "id": next_id, "method": "textDocument/documentSymbol",
                         "params": {"textDocument": doc}})
        asked[next_id] = f"{case.describe()}: documentSymbol after an edit"
        next_id += 1
        messages.append({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": doc}})
    messages.append({"jsonrpc": "2.0", "id": next_id, "method": "shutdown"})
    asked[next_id] = "shutdown"
    messages.append({"jsonrpc": "2.0", "method": "exit"})
    return messages, asked


def fuzz_server(cases: list[Case], tmp_path: Path, timeout: float) -> int:
    """One server, every case's messages written at once; ``shutdown`` once every request of
    the cases is answered (as a client does: a request still running at ``exit`` is lost)."""
    ws = workspace(tmp_path)
    messages, asked = server_session(cases, ws)
    *session, shutdown, exit_ = messages
    proc = subprocess.Popen([sys.executable, "-m", "action_lsp", "serve"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    errors: list[bytes] = []
    threads = [threading.Thread(target=lambda: (proc.stdin.write(_framed(session)), proc.stdin.flush()),  # type: ignore[union-attr]
                                daemon=True),
               threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)]  # type: ignore[union-attr]
    for t in threads:
        t.start()
    answered: dict[int, dict[str, object]] = {}
    try:
        with deadline(timeout):
            for m in _messages(proc.stdout):
                if "id" in m and "method" not in m:
                    answered[int(m["id"])] = m  # type: ignore[call-overload]
                if len(answered) == len(asked) - 1:  # all but the shutdown to come
                    proc.stdin.write(_framed([shutdown, exit_]))
                    proc.stdin.close()
            proc.wait(30)
    except Hang:
        pass
    finally:
        proc.kill()
        threads[1].join(30)
    stderr = b"".join(errors).decode("utf-8", errors="replace")
    missing = [asked[i] for i in asked if i not in answered]
    assert not missing, f"{len(missing)} request(s) never answered, the first: {missing[0]}"
    # A crash inside a feature is an internal error (-32603, with its traceback). Fair answers:
    # a request on a document closed before it ran ("is not open", -32602), or edited while
    # its answer was made (content modified, -32801).
    failed = [(asked[i], m["error"]) for i, m in answered.items()
              if "error" in m and m["error"]["code"] not in (-32602, -32801)]  # type: ignore[index]
    assert not failed, f"{len(failed)} request(s) failed, the first: {str(failed[0])[:2000]}"
    # (pygls logs the two fair answers above with their tracebacks too)
    crashes = [e for e in raised(stderr) if "is not open" not in e and "ContentModified" not in e]
    assert not crashes, f"{len(crashes)} traceback(s), the first ends: {crashes[0]}"
    assert proc.returncode == 0, stderr[-3000:]
    return len(cases)


def raised(stderr: str) -> list[str]:
    """The exception line ending each traceback in ``stderr``."""
    out = []
    for block in stderr.split("Traceback (most recent call last):")[1:]:
        lines = block.splitlines()[1:]
        out.append(next((x for x in lines if x and not x[0].isspace()), "?")[:500])
    return out


def _messages(stream: IO[bytes]) -> Iterator[dict[str, object]]:
    """The framed messages read from ``stream`` as they come."""
    while True:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return
            if line in (b"\r\n", b"\n"):
                break
            key, _, value = line.partition(b":")
            if key.strip().lower() == b"content-length":
                length = int(value)
        assert length is not None
        yield json.loads(stream.read(length))


def test_fuzz_server(tmp_path: Path) -> None:
    assert fuzz_server(list(transcripts(0, 12)), tmp_path, timeout=300) == 12


@pytest.mark.slow
def test_fuzz_server_many(tmp_path: Path) -> None:
    cases = list(transcripts(20_000, SLOW // 3, window=None))
    assert fuzz_server(cases, tmp_path, timeout=3_600) == SLOW // 3


def test_fuzz_smoke_in_a_subprocess(tmp_path: Path) -> None:
    """The command line as users run it, over a directory of mutated transcripts."""
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for case in transcripts(500, 20):
        (inputs / f"input{case.number}{case.suffix.replace('.txt', '.md')}").write_bytes(case.data)
    for argv in (["check", "--format", "json", "inputs"], ["check", "inputs"]):
        proc = subprocess.run([sys.executable, "-m", "action_lsp", *argv], cwd=tmp_path,
                              capture_output=True, timeout=600)
        err = proc.stderr.decode("utf-8", errors="replace")
        assert proc.returncode in (0, 1, 2) and "Traceback" not in err, err[-3000:]
