"""What goes out on the wire, built so that a long answer costs little memory.

A 50 MB transcript's outline is 100,000 symbols. pygls builds a response as the handler's
objects (about 1 KB each), then one tree of dicts for all of them (the converter's
``unstructure``), then the JSON text, then the text with its header, then its bytes: five
copies of the answer at once, a few hundred MB for a moment. Here:

* a handler may answer with :class:`Later` items: each is made (and dropped) only when the
  encoder reaches it, so the handler's list holds a few small objects per item;
* a response whose result is a list is encoded an item at a time, each item unstructured on
  its own, into one ``bytearray`` that the header is then put in front of -- one copy of the
  answer, as bytes.

The JSON is what pygls would send (``tests/server/test_serialize.py``), written without spaces.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

_SEPARATORS = (",", ":")


class Later:
    """An item of an answer, made by ``make(arg)`` when it is written (see the module doc)."""

    __slots__ = ("arg", "make")

    def __init__(self, make: Callable[[Any], Any], arg: Any) -> None:
        self.make = make
        self.arg = arg


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
        return bytearray(json.dumps(data, default=default, separators=_SEPARATORS).encode())
    head = {"id": data.id, "jsonrpc": data.jsonrpc}
    out = bytearray(json.dumps(head, separators=_SEPARATORS).encode()[:-1])
    out += b',"result":['
    dumps = json.JSONEncoder(default=default, separators=_SEPARATORS).encode
    for k, item in enumerate(items):
        if k:
            out += b","
        out += dumps(item).encode()
    out += b"]}"
    return out
