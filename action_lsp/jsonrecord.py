"""The span-keeping tree of one JSON Lines record whose decoded value is already known.

A session's line is decoded by msgspec first (:func:`action_lsp.records.loads`); the lines that
hold a tool call need the range of every value too, which :func:`~action_lsp.jsonscan.parse_json`
gives by reading the line again token by token in Python (about 3.5 µs a token). Here the
decoded value leads instead: its members are walked in order, and each one's key, value and
separators are matched in the text by compiled regular expressions (a key, then a string, a
number or literal, or a container's members in turn), so the Python work is per member, not
per character or token. Strings' values are the decoded ones; a string's source map is the
one the tolerant parser makes (:meth:`~action_lsp.jsonscan._Parser.string` given the value).

Exactness: every key read from the text must decode to the decoded object's key in the same
place, every value must open with the character its decoded type is written with, a string
may hold no raw control character (the decoded value then came from the standard library's
lenient decoder, and the tolerant parser reports it), and every container must close right
after its last decoded member. The walk then spells the text as valid JSON, which JSON's
grammar reads one way only, so the tree is the eager parser's: a key written twice (which a
decoded ``dict`` merges: the text has more members than the value), an unusual literal
(``NaN``) or nesting deeper than :data:`MAX_DEPTH` gives None, and the caller parses the line
with the tolerant parser as before.
"""

from __future__ import annotations

import re
from json.encoder import encode_basestring
from typing import Any

from .jsonscan import LAZY_TREE, SHORT, JMember, JNode, _Parser, _scanstring, parse_json
from .model import SourceMap, Span
from .shared import share

MAX_DEPTH = 64  # containers nested deeper are left to the tolerant parser (which does not recurse)

_WS = re.compile(r"[ \t\n\r]*+")
_KEY_BODY = r'"([^"\\\x00-\x1f]*+(?:\\.[^"\\\x00-\x1f]*+)*+)"[ \t\n\r]*+:[ \t\n\r]*+'
_FIRST_KEY = re.compile(r"[ \t\n\r]*+" + _KEY_BODY, re.DOTALL)  # after "{": a key, its colon, blanks
_NEXT_KEY = re.compile(r"[ \t\n\r]*+,[ \t\n\r]*+" + _KEY_BODY, re.DOTALL)  # after a member
_FIRST_ITEM = _WS
_NEXT_ITEM = re.compile(r"[ \t\n\r]*+,[ \t\n\r]*+")
_CLOSE_OBJECT = re.compile(r"[ \t\n\r]*+\}")
_CLOSE_ARRAY = re.compile(r"[ \t\n\r]*+\]")
# A strict JSON string (no raw control character): its end.
_STRING = re.compile(r'"[^"\\\x00-\x1f]*+(?:\\.[^"\\\x00-\x1f]*+)*+"', re.DOTALL)
_NUMBER = re.compile(r"-?[0-9][0-9.eE+-]*+")
_new = JNode.__new__


class _Mismatch(Exception):
    """The text is not the decoded value written once as strict JSON."""


class StringNode(JNode):
    """A string node whose source map is made when first read (most strings of a record, its
    timestamps and ids, are never asked for a range inside them): the map
    :func:`~action_lsp.jsonscan.parse_json` makes, from the node's span and decoded value."""

    __slots__ = ("_text",)
    _text: str

    def __getattr__(self, name: str) -> Any:  # called only for an unset slot
        if name != "source_map":
            raise AttributeError(name)
        start, end = self.span.start, self.span.end
        value = self.value
        made: SourceMap | None
        if end - start == len(value) + 2:  # written without an escape
            made = SourceMap(start + 1, len(value), end - 1)
        else:
            made = _Parser(self._text, end).string(start, value, end).source_map
        self.source_map = made
        return made


def _string(text: str, pos: int, after: int, value: str) -> StringNode:
    node = _new(StringNode)
    node.kind = "string"
    node.span = Span(pos, after)
    node.value = value if len(value) > SHORT else share(value)
    node.members = None
    node.items = None
    node._text = text
    return node


def record_node(text: str, start: int, end: int, value: Any) -> JNode | None:
    """The span-keeping tree of the record ``text[start:end]`` decoded as ``value``: built from
    the value (:func:`record_tree`) when the line is that value written as strict JSON, else
    (and for a line long enough for the tree made as read) :func:`parse_json`'s."""
    if end - start < LAZY_TREE:
        node = record_tree(text, start, end, value)
        if node is not None:
            return node
    return parse_json(text, start, end).node


def record_tree(text: str, start: int, end: int, value: Any) -> JNode | None:
    """The node :func:`~action_lsp.jsonscan.parse_json` makes of the JSON value in
    ``text[start:end]`` (blanks around it allowed), built from ``value``, that text decoded;
    None when the text is not ``value`` written as strict JSON with no key twice (see the
    module's docstring): the caller parses it then."""
    if not isinstance(value, dict | list):
        return None
    try:
        pos = _WS.match(text, start, end).end()  # type: ignore[union-attr]
        node, pos = _value(text, end, pos, value, 0)
    except (_Mismatch, IndexError, RecursionError):
        return None
    if _WS.match(text, pos, end).end() != end:  # type: ignore[union-attr]
        return None
    return node


def _value(text: str, end: int, pos: int, value: Any, depth: int) -> tuple[JNode, int]:
    """The node of ``value`` written at ``pos``, and the offset just past it."""
    cls = value.__class__
    if cls is str:
        enc = encode_basestring(value)  # as JSON.stringify writes it (C): then one comparison
        if text.startswith(enc, pos):
            after = pos + len(enc)
        else:  # another spelling (\\u escapes, "\\/"): the string's end by the pattern
            m = _STRING.match(text, pos, end)
            if m is None:
                raise _Mismatch
            after = m.end()
        return _string(text, pos, after, value), after
    if cls is dict:
        return _object(text, end, pos, value, depth)
    if cls is list:
        return _array(text, end, pos, value, depth)
    if value is True or value is False:
        word = "true" if value else "false"
        if not text.startswith(word, pos):
            raise _Mismatch
        return JNode("bool", Span(pos, pos + len(word)), value), pos + len(word)
    if value is None:
        if not text.startswith("null", pos):
            raise _Mismatch
        return JNode("null", Span(pos, pos + 4), None), pos + 4
    m = _NUMBER.match(text, pos, end)
    if m is None or not (cls is int or cls is float):
        raise _Mismatch
    return JNode("number", Span(pos, m.end()), value), m.end()


def _object(text: str, end: int, pos: int, value: dict[str, Any], depth: int) -> tuple[JNode, int]:
    if text[pos] != "{" or depth >= MAX_DEPTH:
        raise _Mismatch
    members: list[JMember] = []
    append = members.append
    start = pos
    pos += 1
    sep = _FIRST_KEY
    for key, v in value.items():
        m = sep.match(text, pos, end)
        sep = _NEXT_KEY
        if m is None:
            raise _Mismatch
        written = m.group(1)
        if written != key and ("\\" not in written or _scanstring(text, m.start(1), True)[0] != key):
            raise _Mismatch
        ks, ke = m.span(1)
        pos = m.end()
        if v.__class__ is str:  # (the common case, inline)
            enc = encode_basestring(v)
            if text.startswith(enc, pos):
                after = pos + len(enc)
                child: JNode = _string(text, pos, after, v)
                pos = after
            else:
                child, pos = _value(text, end, pos, v, depth + 1)
        else:
            child, pos = _value(text, end, pos, v, depth + 1)
        append(JMember(share(key), Span(ks - 1, ke + 1), child))
    close = _CLOSE_OBJECT.match(text, pos, end)
    if close is None:
        raise _Mismatch
    pos = close.end()
    return JNode("object", Span(start, pos), value, members=members), pos


def _array(text: str, end: int, pos: int, value: list[Any], depth: int) -> tuple[JNode, int]:
    if text[pos] != "[" or depth >= MAX_DEPTH:
        raise _Mismatch
    items: list[JNode] = []
    append = items.append
    start = pos
    pos += 1
    sep = _FIRST_ITEM
    for v in value:
        m = sep.match(text, pos, end)
        sep = _NEXT_ITEM
        if m is None:
            raise _Mismatch
        child, pos = _value(text, end, m.end(), v, depth + 1)
        append(child)
    close = _CLOSE_ARRAY.match(text, pos, end)
    if close is None:
        raise _Mismatch
    pos = close.end()
    return JNode("array", Span(start, pos), value, items=items), pos
