"""What goes out on the wire, built so that a long answer costs little memory.

A 50 MB transcript's outline is 100,000 symbols. pygls builds a response as the handler's
objects (about 1 KB each), then one tree of dicts for all of them (the converter's
``unstructure``), then the JSON text, then the text with its header, then its bytes: five
copies of the answer at once, a few hundred MB for a moment. Here:

* a handler may answer with :class:`Later` items: each is made (and dropped) only when the
  encoder reaches it, so the handler's list holds a few small objects per item;
* a response whose result is a list is encoded an item at a time, each item unstructured on
  its own, into one ``bytearray`` that the header is then put in front of -- one copy of the
  answer, as bytes;
* a handler with that many items encodes them itself, a slice of time at a time with the event
  loop free in between (:func:`in_steps`): the outline of a 50 MB transcript is seconds of work,
  and other documents' requests are answered meanwhile.

The JSON is what pygls would send (``tests/server/test_serialize.py``), written without spaces;
items that are JSON values already (the outline's symbols) are written by msgspec, with their
non-ASCII characters as UTF-8 rather than escaped (:func:`values_encoder`).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcContentModified

from ..document import gc_paused

if TYPE_CHECKING:
    from .documents import OpenDocument
    from .server import ActionLanguageServer

STEP_SECONDS = 0.02  # of encoding between two turns of the event loop (see in_steps)
BATCH = 64  # items encoded by one call (see in_steps)
TRIM_BYTES = 1 << 22  # a message this long is followed by a trim of the heap (see _send_data)
LARGE_CHARS = 1 << 19  # a document this long has its plan made one at a time (see one_at_a_time)
# ... and its long answers too when it holds more actions than this: a long history with a few
# thousand actions has a short outline, which need not wait for its plan (seconds).
LARGE_ITEMS = 10_000

_SEPARATORS = (",", ":")


class Later:
    """An item of an answer, made by ``make(arg)`` when it is written (see the module doc)."""

    __slots__ = ("arg", "make")

    def __init__(self, make: Callable[[Any], Any], arg: Any) -> None:
        self.make = make
        self.arg = arg


class Encoded:
    """Items of an answer already written as JSON (a comma-separated run), spliced in as they are."""

    __slots__ = ("data",)

    def __init__(self, data: bytes | bytearray) -> None:
        self.data = data


def in_steps(
    ls: ActionLanguageServer, od: OpenDocument, make_items: Callable[[], list[Any]], *, values: bool = False
) -> Generator[Any, Any, list[Any]]:
    """The items ``make_items()`` gives (objects or :class:`Later` items about ``od``), encoded
    ``STEP_SECONDS`` at a time, yielding the event loop to pygls in between (``yield from`` it
    in a generator handler). An edit of ``od`` meanwhile ends the request with
    ContentModified: the items are made from the text of the request, and the client asks
    again for the new one.

    A large document's long answers (outline, folding, lenses: VS Code asks all three on open;
    over ``LARGE_ITEMS`` actions) take turns with each other and with its plan, each made only
    once its turn comes: made side by side, their memory adds up. A short answer is made at
    once, without a turn of the loop (pygls then runs the handler synchronously, and it sees
    every message that came before it): a long history's outline is not held up by its plan,
    which the lenses asked at the open start.

    ``values``: the items are JSON values already, or :class:`Later` items that make them
    (dicts, lists, strings, numbers: the outline's symbols), written by msgspec in C
    (:func:`values_encoder`) instead of the standard encoder and its hook per item."""
    revision = od.revision  # (what the handler read before calling this is of this text)
    turn: _Turn | None = None
    try:
        if len(od.doc.lines) > LARGE_CHARS and len(od.doc.actions_analysis().actions) > LARGE_ITEMS:
            turn = _Turn(one_at_a_time(ls))
            yield ls.in_request, (turn.take,), None
        if od.revision != revision or ls.documents.get(od.uri) is not od:
            raise JsonRpcContentModified(message=f"{od.uri} changed while its answer waited")
        with gc_paused():  # (100,000 items kept alive: a full collection walked the whole heap)
            items = make_items()
        dumps = json.JSONEncoder(default=ls.protocol._serialize_message, separators=_SEPARATORS).encode
        encoded = values_encoder(dumps) if values else lambda batch: dumps(batch).encode()
        run = bytearray()  # the items, comma-separated: the answer's one buffer (see encode)
        started = time.perf_counter()
        for k in range(0, len(items), BATCH):
            if run:
                run += b","
            # A few items at a time, as one list without its brackets: an encoder's call costs
            # more than a small item (a symbol) does.
            run += encoded(items[k : k + BATCH])[1:-1]
            items[k : k + BATCH] = [None] * len(items[k : k + BATCH])  # (made, written, dropped)
            if time.perf_counter() - started > STEP_SECONDS:
                yield ls.in_request, (asyncio.sleep, 0), None
                if od.revision != revision or ls.documents.get(od.uri) is not od:
                    raise JsonRpcContentModified(message=f"{od.uri} changed while its answer was made")
                started = time.perf_counter()
    finally:
        if turn is not None:
            turn.give_back()
    return [Encoded(run)] if run else []


def values_encoder(dumps: Callable[[Any], str]) -> Callable[[list[Any]], bytes]:
    """A list of JSON values (and :class:`Later` items making them) as JSON bytes, written by
    msgspec: the outline of a 4 MB history (676 symbols, 340 KB) in 0.7 ms instead of 11-13 ms
    through the standard encoder. The same values as ``dumps`` (the standard encoder) writes;
    only non-ASCII characters are written as UTF-8 (what LSP's messages are in) instead of as
    ``\\u`` escapes. What msgspec cannot write (a lone surrogate, which UTF-8 cannot hold) goes
    through ``dumps``, as before."""
    import msgspec  # (imported by the server's warm-up: deferred.FIRST_OPEN)

    encode = msgspec.json.Encoder(enc_hook=_made).encode

    def encoded(batch: list[Any]) -> bytes:
        try:
            return encode(batch)
        except (UnicodeEncodeError, TypeError, ValueError, OverflowError):
            return dumps(batch).encode()

    return encoded


def _made(item: Any) -> Any:
    """The JSON value a :class:`Later` item makes (for msgspec; anything else is refused)."""
    if type(item) is Later:
        value = item.make(item.arg)
        if type(value) in (dict, list, str, int, bool):
            return value
    raise TypeError(f"not a JSON value: {type(item).__name__}")


class _Turn:
    """A turn of :func:`one_at_a_time` taken for a generator handler. When the client cancels
    the request, pygls drops the handler without resuming it -- possibly after the turn was
    taken for it, or while it is still being waited for: either way it is given back (the
    handler's ``finally`` runs when the dropped generator is closed)."""

    __slots__ = ("dropped", "held", "lock")

    def __init__(self, lock: asyncio.Lock) -> None:
        self.lock = lock
        self.held = self.dropped = False

    async def take(self) -> None:
        await self.lock.acquire()
        self.held = True
        if self.dropped:
            self.give_back()

    def give_back(self) -> None:
        self.dropped = True
        if self.held:
            self.held = False
            self.lock.release()


def one_at_a_time(ls: ActionLanguageServer) -> asyncio.Lock:
    """The turns a large document's long answers and workspace checks take."""
    lock = getattr(ls, "_answer_lock", None)
    if lock is None:
        lock = ls._answer_lock = asyncio.Lock()  # type: ignore[attr-defined]
    return lock


def item_encoder(ls: ActionLanguageServer) -> Callable[[Any], bytes]:
    """One object (an lsprotocol item) as the JSON bytes :func:`encode` would write for it."""
    dumps = json.JSONEncoder(default=ls.protocol._serialize_message, separators=_SEPARATORS).encode
    return lambda item: dumps(item).encode()


def encoded_diagnostics(data: Any) -> list[Encoded] | None:
    """A notification's ``params.diagnostics`` when it holds diagnostics already written as
    JSON (:class:`Encoded`: the server keeps each unit's JSON while the unit stays put)."""
    items = getattr(getattr(data, "params", None), "diagnostics", None)
    if type(items) is list and items and type(items[0]) is Encoded:
        return items
    return None


def list_result(data: Any) -> list[Any] | None:
    """The result of a response message when it is a list (encoded an item at a time)."""
    result = getattr(data, "result", None)
    if type(result) is list and hasattr(data, "__attrs_attrs__") and hasattr(data, "id"):
        return result
    return None


def encode(data: Any, default: Callable[[Any], Any]) -> bytearray:
    """``data`` as JSON bytes; ``default`` turns objects (and :class:`Later` items) into JSON
    values, as for :func:`json.dumps`."""
    items = list_result(data)
    if items is None:
        parts = encoded_diagnostics(data)
        if parts is not None:
            return _spliced(data, parts, default)
        return bytearray(json.dumps(data, default=default, separators=_SEPARATORS).encode())
    head = json.dumps({"id": data.id, "jsonrpc": data.jsonrpc}, separators=_SEPARATORS).encode()[:-1] + b',"result":['
    if len(items) == 1 and type(items[0]) is Encoded and isinstance(items[0].data, bytearray):
        out = items[0].data  # every item, encoded by in_steps: the buffer itself, not a copy
        items[0] = None
        out[0:0] = head
        out += b"]}"
        return out
    out = bytearray(head)
    dumps = json.JSONEncoder(default=default, separators=_SEPARATORS).encode
    for k, item in enumerate(items):
        if k:
            out += b","
        out += item.data if type(item) is Encoded else dumps(item).encode()
    out += b"]}"
    return out


def _spliced(data: Any, parts: list[Encoded], default: Callable[[Any], Any]) -> bytearray:
    """``data`` with its ``params.diagnostics`` written from ``parts``: the rest of the message
    is encoded with an empty list there, and the parts are put in it."""
    params = data.params
    params.diagnostics = []
    try:
        whole = json.dumps(data, default=default, separators=_SEPARATORS).encode()
    finally:
        params.diagnostics = parts
    # (found once: inside the JSON strings of a message, a quote is escaped)
    at = whole.index(b'"diagnostics":[]') + len(b'"diagnostics":[')
    out = bytearray(whole[:at])
    for part in parts:
        if part.data:
            if len(out) > at:
                out += b","
            out += part.data
    out += whole[at:]
    return out
