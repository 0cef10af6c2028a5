"""The answer to ``initialize``, given before the language server is imported.

An editor starts ``action-lsp serve``, sends ``initialize`` and waits for the answer before it
sends anything else; Neovim then reads the buffer and writes its ``didOpen`` (a 4 MB history:
0.1-0.25 s). The server's start -- lsprotocol's 561 classes, pygls, the feature modules,
``create_server()`` -- is 0.4-0.5 s of CPU before it can answer, so the editor's own work came
after all of it. The answer does not depend on that work: it is the server's capabilities for
the client's capabilities, the same at every start of the same code for the same client.

So ``action-lsp serve`` (over a pipe of its own: what editors give it) reads the first message
before it imports anything (:func:`answer`); when it is ``initialize`` and a start before this
one kept its answer for the same client and code (:class:`Answers`, a small JSON file in the
code cache's directory: ``codecache.cache_dir``), it writes that answer at once and imports the
server while the editor prepares its document. The message is then read again by the server
as if it had just arrived (:class:`Replay`): the server initializes itself from it as before,
and its own answer is compared with the one given (``ActionProtocol._send_data``): the same, it
is not written again; different (something the key below missed), the server keeps the
position encoding it announced (``server.ActionProtocol``), logs it and keeps the new answer
for the next start. With no kept answer, the server answers as before and keeps its answer.

The key: the client's ``initialize`` params without what changes from start to start and
does not change the answer (the process id, the folders, the trace level, a progress token),
with the interpreter's version and the size and modification time of every module of
action-lsp, pygls and lsprotocol (the code that makes the answer): a new version or an edited
checkout answers once the slow way. ``ACTION_LSP_CACHE_DIR`` empty keeps nothing, as for the
code cache. Measured: docs/performance.md, issue 19, fourteenth pass.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

FILE = "initialize-answers-v1.json"
KEEP = 16  # answers kept (one per client and code: the most recent first)
MAX_MESSAGE = 1 << 20  # a first message longer than this is not read ahead (no initialize is)
# The params that change from start to start and not the answer.
VOLATILE = ("processId", "rootUri", "rootPath", "workspaceFolders", "trace", "workDoneToken", "clientInfo")
PACKAGES = ("action_lsp", "pygls", "lsprotocol")  # the code that makes the answer


def own_pipe(stdin: BinaryIO, stdout: BinaryIO) -> bool:
    """Whether stdin is a pipe or a socket of its own (not the file stdout writes to)."""
    if os.name != "posix":
        return False
    try:
        fd_in, fd_out = stdin.fileno(), stdout.fileno()
        st_in, st_out = os.fstat(fd_in), os.fstat(fd_out)
    except (AttributeError, OSError, ValueError):
        return False
    same = (st_in.st_dev, st_in.st_ino) == (st_out.st_dev, st_out.st_ino)
    return (stat.S_ISFIFO(st_in.st_mode) or stat.S_ISSOCK(st_in.st_mode)) and not same


class Early:
    """What :func:`answer` read (``consumed``: every byte, to be read again by the server), and
    the answer it gave (``answer``: the ``result`` written; None when it gave none)."""

    def __init__(self, consumed: bytes) -> None:
        self.consumed = consumed
        self.msg_id: int | str | None = None  # (the initialize's: its answer is kept)
        self.key: str | None = None
        self.answer: Any = None
        self.answers: Answers | None = None

    def settle(self, result: Any) -> bool:
        """The server's own ``result`` for the message: kept for the next start; True when
        it was answered already (the same answer or not: it is not written twice)."""
        if self.answers is not None and self.key is not None and result != self.answer:
            self.answers.keep(self.key, result)
        return self.answer is not None


def code_identity() -> list[Any]:
    """The interpreter's version and each module's size and modification time, for every
    package that makes the answer (found without importing them)."""
    found: list[Any] = [sys.version]
    for name in PACKAGES:
        spec = _package_dir(name)
        if spec is None:
            found.append(None)
            continue
        for folder, dirs, files in os.walk(spec):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    try:
                        st = os.stat(os.path.join(folder, f))
                    except OSError:
                        continue
                    found.append((os.path.relpath(os.path.join(folder, f), spec), st.st_size, st.st_mtime_ns))
    return found


def _package_dir(name: str) -> str | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    places = list(spec.submodule_search_locations or ()) if spec is not None else []
    return places[0] if places else None


def key_of(params: Any) -> str | None:
    """The key of an ``initialize``'s answer (None: params that are not an object)."""
    if type(params) is not dict:
        return None
    from _blake2 import blake2b

    kept = {k: v for k, v in params.items() if k not in VOLATILE}
    text = json.dumps([code_identity(), kept], sort_keys=True, ensure_ascii=True, default=repr)
    return blake2b(text.encode(), digest_size=20).hexdigest()


class Answers:
    """The kept answers (``{key: result}``, the most recent first) in ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as f:
                found = json.load(f)
        except (OSError, ValueError):
            return {}
        return found if type(found) is dict else {}

    def get(self, key: str) -> Any:
        return self.read().get(key)

    def keep(self, key: str, result: Any) -> None:
        """Keep ``result`` under ``key`` (written whole to a new file, then renamed over the old)."""
        kept = {key: result}
        for k, v in self.read().items():
            if k != key and len(kept) < KEEP:
                kept[k] = v
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(kept, f)
            os.replace(tmp, self.path)
        except (OSError, ValueError, TypeError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def answers() -> Answers | None:
    """The kept answers, where the code cache lives (None: kept nowhere)."""
    from .codecache import cache_dir

    directory = cache_dir()
    return Answers(directory / FILE) if directory is not None else None


def read_message(fd: int) -> tuple[bytes, bytes | None]:
    """Read from ``fd`` up to the end of the first framed message: (every byte read, its body;
    None when the input ended, the header had no length or the body is too long)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return data, None
        data += chunk
        if len(data) > MAX_MESSAGE:
            return data, None
    head, _, rest = data.partition(b"\r\n\r\n")
    length = None
    for line in head.split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if sep and name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length is None or length > MAX_MESSAGE:
        return data, None
    while len(rest) < length:
        chunk = os.read(fd, max(1 << 16, length - len(rest)))
        if not chunk:
            return data, None
        data += chunk
        rest += chunk
    return data, rest[:length]


def answer(stdin: BinaryIO, stdout: BinaryIO) -> Early | None:
    """Read the first message (stdin a pipe of its own, else None: nothing read); answer it when
    it is ``initialize`` and its answer is kept (see the module doc)."""
    if not own_pipe(stdin, stdout):
        return None
    store = answers()
    consumed, body = read_message(stdin.fileno())
    early = Early(consumed)
    if body is None or store is None:
        return early
    try:
        message = json.loads(body)
    except ValueError:
        return early
    if type(message) is not dict or message.get("method") != "initialize":
        return early
    msg_id = message.get("id")
    if type(msg_id) not in (int, str):
        return early
    early.msg_id, early.answers = msg_id, store
    early.key = key_of(message.get("params"))
    if early.key is None:
        return early
    kept = store.get(early.key)
    if kept is None:
        return early
    reply = json.dumps({"id": msg_id, "jsonrpc": "2.0", "result": kept}, separators=(",", ":")).encode()
    out = stdout.fileno()
    written = f"Content-Length: {len(reply)}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".encode() + reply
    while written:
        try:
            n = os.write(out, written)
        except OSError:
            return Early(consumed)  # (the client is gone: the server finds out as before)
        written = written[n:]
    early.answer = kept
    return early


class Replay:
    """A reader (``readline``, ``readexactly``) that gives ``consumed`` first, then ``inner``'s."""

    def __init__(self, consumed: bytes, inner: Any) -> None:
        self.buffer = consumed
        self.inner = inner

    async def readline(self) -> bytes:
        if not self.buffer:
            line: bytes = await self.inner.readline()
            return line
        end = self.buffer.find(b"\n")
        if end >= 0:
            line, self.buffer = self.buffer[: end + 1], self.buffer[end + 1 :]
            return line
        head, self.buffer = self.buffer, b""
        return head + await self.inner.readline()

    async def readexactly(self, n: int) -> bytes:
        if not self.buffer:
            data: bytes = await self.inner.readexactly(n)
            return data
        if len(self.buffer) >= n:
            data, self.buffer = self.buffer[:n], self.buffer[n:]
            return data
        head, self.buffer = self.buffer, b""
        rest = await self.inner.readexactly(n - len(head))
        return head + rest if rest else b""
