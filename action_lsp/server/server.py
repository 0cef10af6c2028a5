"""The language server: a pygls ``LanguageServer`` that fans requests out to feature modules.

Each LSP feature lives in its own module with a ``register(ls)`` function; this module holds
what they share: the document store, the settings, the negotiated position encoding, the
workspace roots, and the client's capabilities.

Two pygls defaults are replaced (see docs/server.md):

* pygls keeps its own ``TextDocument`` per open document and applies every change to it
  (``TextDocument.lines`` splits on U+2028, ``\\f`` and others, and each change rebuilds the
  text). :class:`ActionProtocol` leaves that copy out; documents live only in our
  :class:`~action_lsp.server.documents.DocumentStore`.
* pygls takes the client's first position encoding. We prefer ``utf-8`` when it is offered
  (Neovim) and ``utf-16`` otherwise (the LSP default).

What the first open needs and the answer to ``initialize`` does not (NumPy, tree-sitter,
``rapidfuzz``: ``deferred.FIRST_OPEN``) is imported by :func:`warm_up` once that answer is
sent, while the client prepares its first ``didOpen`` (a 4 MB document: 0.1-0.2 s in Neovim),
instead of before the answer, which the client waits for (docs/performance.md, issue 19).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import inspect
import json
import logging
import traceback
from collections.abc import Awaitable, Callable, Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInternalError,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
)
from pygls.lsp.server import LanguageServer
from pygls.protocol.language_server import LanguageServerProtocol, lsp_method

from .. import __version__, codecache, collector
from ..deferred import FIRST_OPEN
from ..early_init import Early
from ..project_root import find_root as marked_root
from ..text import Encoding
from . import wire
from .config import Settings
from .convert import converter, encoding_of
from .documents import DocumentStore, OpenDocument, uri_path
from .framing import LARGE_BODY
from .guard import guard
from .ledger import Ledger
from .lifecycle import trim_memory
from .wire import Later

if TYPE_CHECKING:
    from ..edit import Workspace

log = logging.getLogger("action_lsp.server")

NAME = "action-lsp"

# Feature modules, each with ``register(ls)``; the order is the order of registration.
FEATURES = (
    "lifecycle",
    "project",
    "diagnostics",
    "symbols",
    "folding",
    "hover",
    "completion",
    "links",
    "code_actions",
    "code_lens",
    "commands",
)


def prefer_utf8(capabilities: types.ClientCapabilities) -> None:
    """Reorder the client's position encodings so that pygls picks utf-8 when it is offered,
    else utf-16 (pygls takes the first one it knows)."""
    general = capabilities.general
    if general is None or not general.position_encodings:
        return
    offered = [str(getattr(e, "value", e)) for e in general.position_encodings]
    for choice in ("utf-8", "utf-16"):
        if choice in offered:
            general.position_encodings = [choice] + [e for e in offered if e != choice]
            return


class _Answered:
    """A message that could not be read and was already answered with an error."""

    jsonrpc = "answered"


def _invalid_params(method: str, exc: BaseException) -> JsonRpcInvalidParams:
    cause = exc.__cause__ or exc
    try:
        from cattrs import transform_error

        detail = "; ".join(transform_error(cause))
    except Exception:
        detail = str(cause)
    return JsonRpcInvalidParams(message=f"invalid params for {method}: {detail}"[:2000])


_writes: set[asyncio.Future[Any]] = set()  # writes under way (kept from the garbage collector)


class ActionProtocol(LanguageServerProtocol):
    """pygls's protocol without its own copy of open documents, and with an answer to every
    request: pygls 2.1 drops a request whose params do not deserialize, and every request
    after ``shutdown``, without a response, so the client would wait forever."""

    early: Early | None = None  # the first message, read (and maybe answered) before the server was built
    body_pending = 0  # bytes of the message being read (framing.run_messages: see warm_up)

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "jsonrpc" not in data or data.get("id") is None:
                raise  # a notification: logged by pygls, nobody waits for it
            msg_id = data["id"]
            if "method" in data:  # a request: answer it with the error
                error = _invalid_params(str(data["method"]), exc) if isinstance(exc, JsonRpcInvalidParams) else exc
                log.warning("%s", error.message)
                self._send_response(msg_id, None, error.to_response_error())
                return _Answered()
            future = self._request_futures.pop(msg_id, None)  # a response we cannot read
            if future is not None and not future.done():
                future.set_exception(exc)
                return _Answered()
            raise

    def _serialize_message(self, data: Any) -> Any:
        if isinstance(data, Later):  # an item of a long answer, made as it is written
            data = data.make(data.arg)
            if type(data) is dict:  # (made as JSON already: see symbols.py)
                return data
        return super()._serialize_message(data)

    def _send_data(self, data: Any) -> None:
        """pygls's, with the message encoded by :func:`wire.encode` (a long answer an item at a
        time, into one buffer of bytes: see ``wire.py``)."""
        if not data:
            return
        if self.writer is None:
            log.error("Unable to send data, no available transport!")
            return
        if getattr(getattr(self.writer, "_stdout", None), "closed", False):
            # After ``exit`` (a publish that was still due): the client is gone. Reporting
            # the failed write would send a message, fail again, and so on, a traceback each.
            log.debug("not sent: the client's stream is closed")
            return
        try:
            body = wire.encode(data, self._serialize_message)
            if self.early is not None and getattr(data, "id", None) == self.early.msg_id and self._answered_early(body):
                return
            if self._include_headers:
                body[0:0] = (
                    f"Content-Length: {len(body)}\r\n"
                    f"Content-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
                ).encode()
            res = self.writer.write(body)  # type: ignore[arg-type]
            if inspect.isawaitable(res):  # (a websocket's writer)
                task = asyncio.ensure_future(res)
                _writes.add(task)
                task.add_done_callback(_writes.discard)
            elif len(body) > wire.TRIM_BYTES:
                # Written: the answer and what made it are free. The heap keeps their pages
                # unless told (a 50 MB document's outline left ~50 MB resident for good).
                del body
                trim_memory()
        except BrokenPipeError:
            log.exception("Error sending data. BrokenPipeError")
            raise
        except Exception as error:
            log.exception("Error sending data")
            self._server._report_server_error(error, JsonRpcInternalError)

    def _answered_early(self, body: bytearray) -> bool:
        """The answer to ``initialize`` (the message ``early_init.answer`` read): kept for the
        next start; True when it was given already, before the server was built (not written
        again). An answer that differs from the one given is logged, and the position encoding
        announced is the one used (see early_init.py)."""
        early, self.early = self.early, None
        assert early is not None
        try:
            message = json.loads(body)
        except ValueError:
            return early.answer is not None
        if "result" not in message:  # an error: nothing kept (a kept answer is a start's own)
            return early.answer is not None
        result = message["result"]
        answered = early.settle(result)
        if answered and result != early.answer:
            log.warning("action-lsp: the answer to initialize given at the start differs from the "
                        "server's (kept for the next start)")
            announced = early.answer.get("capabilities", {}).get("positionEncoding") if isinstance(early.answer, dict) else None
            if isinstance(self._server, ActionLanguageServer):
                self._server.encoding = encoding_of(announced or "utf-16")
        return answered

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Answered):
            return
        method = getattr(message, "method", None)
        if self._shutdown and method is not None and method != types.EXIT and getattr(message, "id", None) is not None:
            self._send_response(
                message.id,
                None,
                JsonRpcInvalidRequest(message=f"the server is shutting down; {method} is not served").to_response_error(),
            )
            return
        if method is not None and method not in _BEFORE_WORK and isinstance(self._server, ActionLanguageServer):
            self._server.warm_up_now(method)  # (what the warm-up has not imported yet: before the work)
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(
        self, params: types.InitializeParams
    ) -> Generator[Any, Any, types.InitializeResult]:
        prefer_utf8(params.capabilities)
        result = yield from super().lsp_initialize(params)
        with contextlib.suppress(RuntimeError):  # (no running loop: nothing to overlap with)
            if isinstance(self._server, ActionLanguageServer):
                warm_up(self._server, asyncio.get_running_loop())  # (after the answer is written)
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(
        self, params: types.DidOpenTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_OPEN)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
        self, params: types.DidChangeTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(
        self, params: types.DidCloseTextDocumentParams
    ) -> Generator[Any, Any, None]:
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CLOSE)) is not None:
            yield handler, (params,), None


# What a client sends when it opens a document (the outline, lenses, folding and links asked at
# the open, then its edits): the warm-up structures one of each, so that the converter's hooks
# for them (2-5 ms each, made at a message type's first use) are made while the client prepares
# its document, not on the way to its first diagnostics and its outline.
_WARM_URI = "untitled:action-lsp-warm-up"
_WARM_DOC = {"textDocument": {"uri": _WARM_URI}}
FIRST_MESSAGES: tuple[dict[str, Any], ...] = (
    {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_OPEN,
     "params": {"textDocument": {"uri": _WARM_URI, "languageId": "markdown", "version": 0, "text": ""}}},
    *({"jsonrpc": "2.0", "id": 0, "method": method, "params": _WARM_DOC} for method in (
        types.TEXT_DOCUMENT_DOCUMENT_SYMBOL, types.TEXT_DOCUMENT_CODE_LENS,
        types.TEXT_DOCUMENT_FOLDING_RANGE, types.TEXT_DOCUMENT_DOCUMENT_LINK)),
    {"jsonrpc": "2.0", "method": types.TEXT_DOCUMENT_DID_CHANGE,
     "params": {"textDocument": {"uri": _WARM_URI, "version": 1}, "contentChanges": [
         {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}]}},
)

# What a document's first diagnostics do not need (``warm_up_now``).
AFTER_OPEN = frozenset({"numpy"})
# What a client says before it asks for work: the warm-up goes on through these.
_BEFORE_WORK = frozenset({types.INITIALIZE, types.INITIALIZED, types.SET_TRACE, types.WORKSPACE_DID_CHANGE_CONFIGURATION})
WARM_STEP = 0.005  # seconds between two imports of the warm-up: the client's messages go first


def warm_up(server: ActionLanguageServer, loop: asyncio.AbstractEventLoop) -> None:
    """Import what the first open of a document needs (``deferred.FIRST_OPEN``), one module a
    step, from just after the answer to ``initialize`` is written, while the client prepares its
    first ``didOpen`` (Neovim reads the file and encodes it: 0.1-0.3 s for a 4 MB history), so
    that the imports are not in the way of the answer. The first message that asks for work
    (a ``didOpen`` sent at once) imports what is left before it is handled
    (:meth:`ActionLanguageServer.warm_up_now`): imported later, in the middle of a large scan,
    the same imports cost more (each of their collections walks the scan's objects: measured, a
    4 MB history's outline 0.1-0.2 s later, the server's CPU time 0.1 s more). While a long
    message is being read (a document's ``didOpen``, arriving in 256 KB pieces) it waits: that
    message's handler imports what it needs first, NumPy after it (:meth:`~ActionLanguageServer.warm_up_now`),
    instead of NumPy between two pieces, on the way to its first diagnostics. Its last step
    resumes the cyclic garbage collector ``action-lsp serve`` paused for the start
    (``collector.py``)."""

    def step() -> None:
        # (a document arriving: its handler imports what it needs first, see above)
        if getattr(server.protocol, "body_pending", 0) >= LARGE_BODY or server.warm_up_step():
            loop.call_later(WARM_STEP, step)
        else:  # (the code attrs and cattrs wrote for the start, kept for the next: codecache.py)
            codecache.save()

    loop.call_later(WARM_STEP, step)


def _import(name: str) -> None:
    try:
        importlib.import_module(name)
    except ImportError as exc:  # (said again, and reported, where it is used)
        log.warning("could not import %s: %s", name, exc)


def capability(caps: Any, dotted: str, default: Any = None) -> Any:
    """A client capability by dotted snake_case path (``"workspace.apply_edit"``)."""
    value = caps
    for part in dotted.split("."):
        value = getattr(value, part, None)
        if value is None:
            return default
    return value


class ActionLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=ActionProtocol,
            converter_factory=converter,
        )
        self.documents = DocumentStore()
        self.warm_names = list(FIRST_OPEN)  # what the warm-up has still to import (see warm_up)
        self.warm_scan = True  # ... whether to scan its sample (see warm.py)
        self.warm_messages = list(FIRST_MESSAGES)  # ... and to structure once (see FIRST_MESSAGES)
        self.ledger = Ledger()
        self.init_options: dict[str, Any] = {}
        self.settings = Settings()
        self.encoding: Encoding = "utf-16"
        self.folders: list[Path] = []
        self.pull_diagnostics = False
        self.hooks: dict[str, list[Callable[..., Any]]] = {}
        self.features: dict[str, Any] = {}
        for name in FEATURES:
            module = importlib.import_module(f"{__package__}.{name}")
            self.features[name] = module.register(self)

    def warm_up_step(self) -> bool:
        """One step of the warm-up (False: none was left): one import of ``warm_names``, then
        the scan of a sample (``warm.py``), then one message of ``warm_messages`` structured (and
        dropped), then the collector paused for the start resumed (``collector.resume``)."""
        if self.warm_names:
            _import(self.warm_names.pop(0))
            return True
        if self.warm_scan:
            self.warm_scan = False
            from .warm import scan_sample

            try:
                scan_sample(self)
            except Exception as exc:  # (a warm-up only: the document's own scan says it again)
                log.warning("the warm-up's scan failed: %s", exc)
            return True
        if self.warm_messages:
            # (only its hooks are wanted; pygls's own method: ours would answer a request it
            # cannot read, and this one the client never sent)
            with contextlib.suppress(Exception):
                LanguageServerProtocol.structure_message(self.protocol, self.warm_messages.pop(0))
            return True
        return collector.resume()

    def warm_up_now(self, method: str | None = None) -> None:
        """Do at once what the warm-up has not (see :func:`warm_up`), but for the sample's scan
        and the messages: the client's document is scanned now (with the patterns an earlier
        start's sample kept: ``warm.py``) and its messages are structured, each at its own cost.
        Before a ``didOpen``, NumPy (``AFTER_OPEN``) is left to just after its handler, which
        publishes a large document's first diagnostics without it (``text.EditableLineIndex``,
        lazy): a server started for the document imports it after them, not before."""
        self.warm_scan = False
        self.warm_messages.clear()
        if method == types.TEXT_DOCUMENT_DID_OPEN and any(n in AFTER_OPEN for n in self.warm_names):
            for name in [n for n in self.warm_names if n not in AFTER_OPEN]:
                self.warm_names.remove(name)
                _import(name)
            with contextlib.suppress(RuntimeError):  # (no running loop: imported at first use)
                asyncio.get_running_loop().call_soon(self.warm_up_now)
            return
        while self.warm_up_step():
            pass

    # -- registration helpers ----------------------------------------------------------

    def handle(
        self, method: str, options: Any = None, *, is_request: bool = True, scanned_only: bool = False
    ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """``@ls.handle(METHOD)``: register a feature handler wrapped by :func:`guard`
        (``scanned_only``: see :meth:`_after_scan`)."""

        def decorator(fn: Callable[..., Any]) -> Callable[..., Any]:
            guarded = guard(self, method, fn, is_request=is_request)
            self.feature(method, options)(self._after_scan(guarded, scanned_only) if is_request else guarded)
            return fn

        return decorator

    def _after_scan(self, handler: Callable[..., Any], scanned_only: bool = False) -> Callable[..., Any]:
        """``handler`` for a request that waits, without blocking the server, while its
        document is still being opened in steps (see ``Diagnostics.open_in_steps``): code
        lenses, symbols or a hover need the whole analysis, and other documents' requests are
        answered meanwhile. Otherwise it runs at once, as before (a generator that yields
        nothing: pygls runs it synchronously, so it sees the messages that came before it).
        ``scanned_only``: the handler reads only the actions (``actions_analysis``: the outline)
        and runs once the text is scanned, before the rules of its last slices run (they wait
        for it to be answered: ``Diagnostics.awaiting_scan``)."""
        if inspect.iscoroutinefunction(handler):

            @functools.wraps(handler)
            async def run_async(params: Any = None, *args: Any, **kwargs: Any) -> Any:
                task = self.scanning(params, scanned_only)
                if task is None:
                    return await handler(params, *args, **kwargs)
                with self._awaiting_scan(params, scanned_only):
                    await asyncio.wait({task})
                    return await handler(params, *args, **kwargs)

            return run_async

        stepwise = inspect.isgeneratorfunction(handler)

        def run(params: Any = None, *args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            task = self.scanning(params, scanned_only)
            if task is None:
                if stepwise:
                    return (yield from handler(params, *args, **kwargs))
                return handler(params, *args, **kwargs)
            with self._awaiting_scan(params, scanned_only):  # (until it is answered)
                yield self.in_request, (asyncio.wait, {task}), None
                if stepwise:
                    return (yield from handler(params, *args, **kwargs))
                return handler(params, *args, **kwargs)

        run.__name__ = getattr(handler, "__name__", "handler")
        return run

    def scanning(self, params: Any, scanned_only: bool = False) -> asyncio.Future[None] | None:
        """The scan still running for the document a request is about (None: none is)."""
        uri = getattr(getattr(params, "text_document", None), "uri", None)
        diagnostics = self.features.get("diagnostics")
        if uri is None or diagnostics is None:
            return None
        task: asyncio.Future[None] | None = diagnostics.scanning(uri, scanned_only=scanned_only)
        return task

    def _awaiting_scan(self, params: Any, scanned_only: bool) -> contextlib.AbstractContextManager[None]:
        """Held while a ``scanned_only`` request waits for its document's scan and is answered:
        the rules of the last slices run after it (``Diagnostics.awaiting_scan``)."""
        diagnostics = self.features.get("diagnostics")
        uri = getattr(getattr(params, "text_document", None), "uri", None)
        if not scanned_only or diagnostics is None or uri is None:
            return contextlib.nullcontext()
        hold: contextlib.AbstractContextManager[None] = diagnostics.awaiting_scan(uri)
        return hold

    async def in_request(self, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """``await fn(*args)`` for a generator handler that yields ``(ls.in_request, (fn,
        *args), None)``: pygls runs it, then resumes the handler with its result."""
        try:
            return await fn(*args)
        finally:
            # pygls files this among the request futures under a made-up id; drop it.
            futures = self.protocol._request_futures
            me = asyncio.current_task()
            for key in [k for k, f in futures.items() if f is me]:
                del futures[key]

    def on(self, event: str, fn: Callable[..., Any]) -> None:
        """Subscribe to an internal event (``opened``, ``changed``, ``closed``, ...)."""
        self.hooks.setdefault(event, []).append(fn)

    def emit(self, event: str, *args: Any) -> None:
        for fn in self.hooks.get(event, ()):
            try:
                fn(*args)
            except Exception as exc:
                self.report_crash(f"{event} hook", exc)

    # -- shared state --------------------------------------------------------------------
    def client_has(self, dotted: str) -> bool:
        try:
            caps = self.client_capabilities
        except AttributeError:
            return False
        return bool(capability(caps, dotted, False))

    def roots(self) -> list[str]:
        """Workspace folders and the configured extra roots (for the core's path fixes)."""
        out = [str(p) for p in self.folders]
        base = self.folders[0] if self.folders else Path.cwd()
        for r in self.settings.workspace_roots:
            p = Path(r).expanduser()
            out.append(str(p if p.is_absolute() else base / p))
        return out

    def workspace_for(self, od: OpenDocument, *, snapshot: bool = False) -> Workspace:
        """The edit engine's view of the files: roots, overwrite policy, and the unsaved text of
        every open document and of every edit the editor applied but has not saved (the
        :class:`~action_lsp.server.ledger.Ledger`; ``snapshot``: copied now, safe to use from
        another thread)."""
        root: Path | None = None
        if od.path is not None:
            root = next((f for f in self.folders if od.path.is_relative_to(f)), None)
            marked = marked_root(od.path)  # a workspace marked inside the folder wins
            if marked is not None and (root is None or marked.is_relative_to(root)):
                root = marked
            # A transcript outside every folder (a gp.nvim / parrot.nvim chat file under
            # ~/.local/share/nvim) whose root is above a folder (a home directory that is a git
            # repository) belongs to that folder, the project the editor works on: nothing
            # above a workspace folder is ever the root.
            outside = not any(od.path.is_relative_to(f) for f in self.folders)
            if marked is not None and root is marked and outside:
                below = [f for f in self.folders if f != marked and f.is_relative_to(marked)]
                root = below[0] if below else root
        if root is None:
            if self.folders:
                root = self.folders[0]
            elif od.path is not None:
                root = od.path.parent
            else:
                root = Path.cwd()
        # Not the folder around a marked workspace: its paths must stay inside the marked tree.
        extra = [r for r in self.roots() if Path(r) != root and not root.is_relative_to(r)]
        ledger = self.ledger
        if snapshot:
            texts = ledger.snapshot() if len(ledger) else {}
            texts.update({d.path: d.text for d in self.documents if d.path is not None})
            override: Callable[[Path], str | None] = texts.get
        else:
            store = self.documents

            def override(path: Path) -> str | None:
                d = store.by_path(path)
                return d.text if d is not None else ledger.pending(path)

        from ..edit import Workspace

        return Workspace(root, extra, self.settings.allow_overwrite, override, transcript=od.path)

    def document(self, uri: str) -> OpenDocument:
        od = self.documents.get(uri)
        if od is None:
            raise JsonRpcInvalidParams(message=f"{uri} is not open")
        return od

    def open_document(self, item: types.TextDocumentItem) -> OpenDocument:
        return self.documents.open(item, self.settings, self.roots())

    # -- errors --------------------------------------------------------------------------
    def report_crash(self, feature: str, exc: BaseException) -> None:
        text = "".join(traceback.format_exception(exc))
        log.error("%s failed:\n%s", feature, text)
        with contextlib.suppress(Exception):
            self.window_log_message(
                types.LogMessageParams(
                    type=types.MessageType.Error, message=f"action-lsp: {feature} failed:\n{text}"
                )
            )

    def log_info(self, message: str) -> None:
        try:
            self.window_log_message(
                types.LogMessageParams(type=types.MessageType.Info, message=message)
            )
        except Exception:
            log.info("%s", message)

    def set_folders(self, uris: Sequence[str]) -> None:
        folders: list[Path] = []
        for uri in uris:
            p = uri_path(uri)
            if p is not None and p not in folders:
                folders.append(p)
        self.folders = folders


def create_server() -> ActionLanguageServer:
    return ActionLanguageServer()


def set_encoding(ls: ActionLanguageServer) -> None:
    ls.encoding = encoding_of(ls.workspace.position_encoding)
