"""``action-lsp serve`` answers ``initialize`` before it imports the server when a start before
it kept the answer for the same client and code (``action_lsp/early_init.py``): the editor
prepares its document while the server is built."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from action_lsp import early_init
from action_lsp.early_init import FILE, Replay, key_of

from .test_stdio import _framed, _messages

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pipes and fstat as on POSIX")

CAPS: dict[str, Any] = {"general": {"positionEncodings": ["utf-8", "utf-16"]},
                        "textDocument": {"publishDiagnostics": {}}}
TEXT = '```actions\n{"actions": [{"type": "create_tsk"}]}\n```\n'


def _session(pid: int, folder: Path) -> list[dict[str, Any]]:
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": pid, "rootUri": folder.as_uri(), "capabilities": CAPS,
            "workspaceFolders": [{"uri": folder.as_uri(), "name": folder.name}]}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": "untitled:t.md", "languageId": "markdown", "version": 1, "text": TEXT}}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]


def _serve(tmp_path: Path, cache: Path, messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bytes]:
    env = dict(os.environ, ACTION_LSP_CACHE_DIR=str(cache))
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", "serve"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=env,
    )
    stdout, stderr = proc.communicate(_framed(messages), timeout=60)
    assert proc.returncode == 0, stderr.decode()
    return _messages(stdout), stderr


def _answers(out: list[dict[str, Any]]) -> tuple[dict[str, Any], list[str]]:
    by_id = {str(m["id"]): m for m in out if "id" in m and "method" not in m}
    codes = [d["code"] for m in out if m.get("method") == "textDocument/publishDiagnostics"
             for d in m["params"]["diagnostics"]]
    return by_id, codes


def _kept(cache: Path) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((cache / FILE).read_text(encoding="utf-8"))
    return found


def test_a_second_start_gives_the_kept_answer_and_serves_as_before(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first, _ = _serve(tmp_path, cache, _session(100, tmp_path))
    by_id, codes = _answers(first)
    assert codes == ["unknown-action"]
    kept = _kept(cache)
    assert list(kept.values()) == [by_id["1"]["result"]]  # the server's own answer, kept
    assert by_id["1"]["result"]["capabilities"]["positionEncoding"] == "utf-8"
    # Another editor process, another folder: the same answer, once, and the session as before.
    other = tmp_path / "other"
    other.mkdir()
    second, _ = _serve(other, cache, _session(200, other))
    by_id2, codes2 = _answers(second)
    assert [m.get("id") for m in second if "method" not in m] == [1, 2]  # initialize answered once
    assert by_id2["1"]["result"] == by_id["1"]["result"]
    assert codes2 == ["unknown-action"] and "error" not in by_id2["2"]
    assert _kept(cache) == kept


def test_the_kept_answer_is_given_before_the_server_is_built_and_corrected(tmp_path: Path) -> None:
    """A kept answer that is not the server's (here planted; in use: one the key missed) is
    what the client gets -- proof that it comes from the file, not from the server -- and the
    server's own answer replaces it for the next start; the server announced utf-16 and uses
    it (the document's diagnostics are published as before)."""
    cache = tmp_path / "cache"
    first, _ = _serve(tmp_path, cache, _session(100, tmp_path))
    real = _answers(first)[0]["1"]["result"]
    (key,) = _kept(cache)
    planted = json.loads(json.dumps(real))
    planted["serverInfo"]["name"] = "planted"
    planted["capabilities"]["positionEncoding"] = "utf-16"
    (cache / FILE).write_text(json.dumps({key: planted}), encoding="utf-8")
    out, stderr = _serve(tmp_path, cache, _session(300, tmp_path))
    by_id, codes = _answers(out)
    assert by_id["1"]["result"] == planted
    assert codes == ["unknown-action"] and "error" not in by_id["2"]
    assert b"differs" in stderr
    assert _kept(cache) == {key: real}


def test_a_changed_client_is_answered_by_the_server(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _serve(tmp_path, cache, _session(100, tmp_path))
    session = _session(100, tmp_path)
    session[0]["params"]["capabilities"] = {"general": {"positionEncodings": ["utf-16"]}}
    out, _ = _serve(tmp_path, cache, session)
    by_id, _ = _answers(out)
    assert by_id["1"]["result"]["capabilities"]["positionEncoding"] == "utf-16"
    assert len(_kept(cache)) == 2


def test_a_first_message_that_is_not_initialize_is_read_by_the_server(tmp_path: Path) -> None:
    session = _session(100, tmp_path)
    out, _ = _serve(tmp_path, tmp_path / "cache", [{"jsonrpc": "2.0", "method": "$/setTrace",
                                                    "params": {"value": "off"}}, *session])
    by_id, codes = _answers(out)
    assert set(by_id) == {"1", "2"} and codes == ["unknown-action"]


def test_nothing_is_kept_without_a_cache_directory(tmp_path: Path) -> None:
    env = dict(os.environ, ACTION_LSP_CACHE_DIR="")
    proc = subprocess.run([sys.executable, "-m", "action_lsp", "serve"], input=_framed(_session(1, tmp_path)),
                          capture_output=True, cwd=tmp_path, env=env, timeout=60)
    by_id, codes = _answers(_messages(proc.stdout))
    assert set(by_id) == {"1", "2"} and codes == ["unknown-action"]
    assert not list(tmp_path.rglob(FILE))


def test_the_key_leaves_out_what_changes_from_start_to_start() -> None:
    base = {"processId": 1, "rootUri": "file:///a", "capabilities": CAPS, "trace": "off"}
    same = {"processId": 2, "rootUri": "file:///b", "capabilities": CAPS, "workspaceFolders": [], "trace": "verbose"}
    assert key_of(base) == key_of(same)
    assert key_of(base) != key_of({**base, "capabilities": {}})
    assert key_of(base) != key_of({**base, "initializationOptions": {"actionLsp": {"allowOverwrite": True}}})
    assert key_of([1]) is None


def test_the_key_follows_the_code(monkeypatch: pytest.MonkeyPatch) -> None:
    before = key_of({"capabilities": {}})
    monkeypatch.setattr(early_init, "code_identity", lambda: ["another build"])
    assert key_of({"capabilities": {}}) != before


class _Inner:
    def __init__(self, data: bytes) -> None:
        self.data = data

    async def readline(self) -> bytes:
        end = self.data.find(b"\n") + 1 or len(self.data)
        line, self.data = self.data[:end], self.data[end:]
        return line

    async def readexactly(self, n: int) -> bytes:
        if len(self.data) < n:
            return b""
        out, self.data = self.data[:n], self.data[n:]
        return out


@pytest.mark.parametrize("cut", range(0, 40, 3))
def test_replay_gives_what_was_read_then_the_rest(cut: int) -> None:
    """Every split of the input between what was read ahead and what is still to come reads
    the same lines and bodies."""
    data = _framed([{"a": 1}, {"b": "x" * 5}])

    async def read(reader: Any) -> list[bytes]:
        out = []
        while line := await reader.readline():
            out.append(line)
            if line == b"\r\n":
                length = int(out[-2].split(b":")[1])
                out.append(await reader.readexactly(length))
        return out

    whole = asyncio.run(read(_Inner(data)))
    assert asyncio.run(read(Replay(data[:cut], _Inner(data[cut:])))) == whole
    assert asyncio.run(Replay(data[:5], _Inner(b"")).readexactly(10)) == b""  # the input ended
