"""The span-keeping tree of a strict JSON value, made as it is read.

:func:`~action_lsp.jsonscan.parse_json` builds a :class:`~action_lsp.jsonscan.JNode` for every
value of a document, most of which no reader ever looks at (a Copilot Chat export: 22 calls in
1.5 MB of metadata). When the text is strict JSON, :func:`lazy_tree` decodes it once with
msgspec (C) and returns a root whose ``members`` / ``items`` are made when first read
(:class:`LazyNode`): the container is decoded again as ``dict[str, msgspec.Raw]`` or
``list[msgspec.Raw]`` (C; a ``Raw`` is the bytes of one member's value), and each member's key
and value are found by walking its separators with compiled regular expressions, a ``Raw``'s
length jumping over the value. A string, number or literal member is read by the tolerant
parser itself, so its node (value, span, source map) is the one :func:`parse_json` makes.

Exactness: every member's key read from the text must decode to the decoded object's key in
the same place, every value's bytes must equal its ``Raw``, and the container must close right
after the last one. The walk then spells a valid JSON text, which JSON's grammar parses one way
only, so the members are those of the eager parse; anything else (duplicate keys, which a
decoded ``dict`` merges) makes that container's subtree with the tolerant parser instead.

A long document (:data:`EXTENTS` bytes or more) is walked otherwise: decoding each container
again as raws skips every nested value once per level above it (an opencode export's bytes were
decoded 5.6 times over). At its first expansion one NumPy pass over its bytes finds every comma
and closing bracket outside the strings, with the depth of the container it belongs to
(:func:`_separators`: quotes not escaped, brackets counted, byte offsets turned into the
text's), each kept as the end of the value before it. A container's separators are one run of
that table, found by two bisections: member ``i``'s value ends where its separator says
(:func:`_walk_extents`), and a reader that knows from the decoded value which containers it
wants gets their nodes straight, none made on the way (:func:`descendants`). Keys are still
matched against the decoded object's, and each container must have one comma less than its
decoded members, so a key written twice still sends the container to the tolerant parser.

Offsets: the walk works on the UTF-8 bytes; a byte offset becomes a document (code point)
offset by adding the characters of the bytes walked since the last one (nothing to count when
the document is ASCII, nor in an ASCII value, which ``bytes.isascii`` tells without decoding it;
counting continuation bytes with ``bytes.translate`` instead was slower on real sessions, whose
values are mostly ASCII).
"""

from __future__ import annotations

import gc
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
else:
    from .deferred import numpy as np  # (imported after the server's start: deferred.py)

from .jsonscan import SHORT, JMember, JNode, _Parser, parse_eager, strict_string_map
from .model import Span
from .shared import share
from .shared import table as _SHARED

_KEY = rb'("[^"\\]*+(?:\\.[^"\\]*+)*+")[ \t\n\r]*+:[ \t\n\r]*+'
_FIRST_KEY = re.compile(rb"[ \t\n\r]*+" + _KEY, re.DOTALL)  # (bytes: the walk's offsets are UTF-8's)
_NEXT_KEY = re.compile(rb"[ \t\n\r]*+,[ \t\n\r]*+" + _KEY, re.DOTALL)
_FIRST_ITEM = re.compile(rb"[ \t\n\r]*+")
_NEXT_ITEM = re.compile(rb"[ \t\n\r]*+,[ \t\n\r]*+")
_CLOSE = re.compile(rb"[ \t\n\r]*+[]}]")
_WS_CHARS = " \t\n\r"

Decode = Callable[[Any], Any]
_DECODERS: tuple[Decode, Decode, Decode] | None = None
_REFUSED = (0, 0, 0, 0)  # id and length of a text, end and start of the last refused value


def _decoders() -> tuple[Decode, Decode, Decode] | None:
    """msgspec's decoders (value, object of raws, array of raws), made on first use."""
    global _DECODERS
    if _DECODERS is None:
        try:
            import msgspec
        except ImportError:  # pragma: no cover - a dependency
            return None
        _DECODERS = (
            msgspec.json.Decoder().decode,
            msgspec.json.Decoder(dict[str, msgspec.Raw]).decode,
            msgspec.json.Decoder(list[msgspec.Raw]).decode,
        )
    return _DECODERS


class _Doc:
    """What the nodes of one lazily made tree share: the text and its UTF-8 bytes from the
    root's start on (``base``: the root's offset in the text; ``stop``: its end). A long
    document (:data:`EXTENTS`) is walked by its separators instead (:func:`_separators`, made
    at the first expansion; its bytes are let go then), and a node's ``_be`` is then the depth
    of its members."""

    __slots__ = ("ascii", "base", "buf", "parser", "seps", "stop", "text", "unique", "view")

    def __init__(self, text: str, base: int, stop: int, buf: bytes) -> None:
        self.unique: bool | None = None  # no object in the text has a key twice (None: not known yet)
        self.text = text
        self.base = base
        self.stop = stop
        self.buf = buf
        self.view = memoryview(buf)
        self.ascii = len(buf) == stop - base
        self.parser = _Parser(text, stop)
        self.seps: Separators | None = None  # every comma and closing bracket, by depth (_separators)


class LazyNode(JNode):
    """A node of a strict JSON document whose ``members`` (objects), ``items`` (arrays) or
    ``source_map`` (strings) are made when first read; otherwise a :class:`JNode` like any
    other. ``_doc`` is what makes them: the tree's :class:`_Doc` for a container, the text
    for a string."""

    __slots__ = ("_b", "_be", "_doc")
    _b: int
    _be: int
    _doc: Any

    def __getattr__(self, name: str) -> Any:
        # Called only for an unset slot: what is not made yet.
        if name == "source_map":
            # (the decoded value given: a lazy map keeps the one copy the tree keeps; and its end,
            # in a text msgspec decoded: strict JSON, no body left to check)
            made = strict_string_map(self._doc, self.span.start, self.value, self.span.end)
            self.source_map = made
            return made
        if name != "members" and name != "items":
            raise AttributeError(name)
        _expand(self)
        return object.__getattribute__(self, name)


_new = LazyNode.__new__


def _lazy(kind: str, span: Span, value: Any, doc: _Doc, b: int, be: int) -> LazyNode:
    node = _new(LazyNode)
    node.kind = kind  # type: ignore[assignment]
    node.span = span
    node.value = value
    node.source_map = None
    if kind == "object":
        node.items = None
    else:
        node.members = None
    node._doc = doc
    node._b = b
    node._be = be
    return node


def _leaf(head: int, span: Span, value: Any, text: str) -> JNode:
    """The node of a string, number or literal (``head``: its first byte) whose decoded value
    is ``value``; a string's source map is made when first read."""
    if head == 0x22:  # "
        node = _new(LazyNode)
        node.kind = "string"
        node.span = span
        node.value = value if len(value) > SHORT else share(value)
        node.members = None
        node.items = None
        node._doc = text
        return node
    if head == 0x74 or head == 0x66:  # true false
        return JNode("bool", span, value)
    if head == 0x6E:  # null
        return JNode("null", span, None)
    return JNode("number", span, value)


def lazy_tree(text: str, start: int, stop: int) -> tuple[JNode, int] | None:
    """(root, end) of the JSON value that is all of ``text[start:stop]`` but whitespace, when
    it is a strict JSON object or array; else None (the tolerant parser reads it)."""
    decoders = _decoders()
    if decoders is None:
        return None
    while start < stop and text[start] in _WS_CHARS:
        start += 1
    if start >= stop or text[start] not in "{[":
        return None
    end = stop
    while end > start and text[end - 1] in _WS_CHARS:
        end -= 1
    if text[end - 1] != ("}" if text[start] == "{" else "]"):
        return None
    global _REFUSED
    if _REFUSED[0] == id(text) and _REFUSED[1] == len(text) and _REFUSED[2] == end and _REFUSED[3] <= start:
        return None  # a text from before this one to the same end was no one value: nor is this one
    made = _tree(text, start, end, decoders[0])
    if made is None:
        # Prose offers value after value up to the same bound: try each text once. (A wrong
        # match, an id reused, only sends a text to the tolerant parser.)
        _REFUSED = (id(text), len(text), end, start)
    return made


def strict_tree(text: str) -> tuple[JNode, int] | None:
    """:func:`lazy_tree` of all of a short ``text`` (a tool call's decoded ``arguments``
    string), whatever its length and without the memo of refused texts (each string is read
    once). None when it is not one strict JSON object or array."""
    decoders = _decoders()
    if decoders is None:
        return None
    start, end = 0, len(text)
    while start < end and text[start] in _WS_CHARS:
        start += 1
    if start >= end or text[start] not in "{[":
        return None
    while text[end - 1] in _WS_CHARS:
        end -= 1
    if text[end - 1] != ("}" if text[start] == "{" else "]"):
        return None
    return _tree(text, start, end, decoders[0])


def _tree(text: str, start: int, end: int, decode: Decode) -> tuple[JNode, int] | None:
    """The lazy root of ``text[start:end]``, a strict JSON object or array, and its end."""
    paused = gc.isenabled()
    if paused:
        gc.disable()  # (no cycles in the decoded values)
    try:
        buf = text[start:end].encode("utf-8")
        value = decode(buf)
    except Exception:  # not strict JSON (or a lone surrogate): the tolerant parser decides
        return None
    finally:
        if paused:
            gc.enable()
    doc = _Doc(text, start, end, buf)
    kind = "object" if isinstance(value, dict) else "array"
    return _lazy(kind, Span(start, end), value, doc, 0, len(buf)), end


def keys_unique(node: JNode) -> bool:
    """Is ``node`` the root of a tree made as read in whose text no object
    has a key twice? Then its decoded value shows every member of every object it holds (a
    decoded object keeps the last of two members with one key) and a reader may decide from
    the value what to leave unread.

    Decided by counting colons, C all the way: outside strings a strict JSON text has one
    colon per member, and inside them the colons its strings decode to (a ``\\u003a`` escape
    aside). The decoded value written out again (msgspec) has one per member it kept and the
    same colons in its strings, less those of any member a duplicate key dropped: the counts
    are equal exactly when no key is written twice. A text with an escaped colon is asked of
    the standard library's decoder instead, which hands each object's pairs, duplicates kept,
    to ``list.append`` (:func:`keys_unique_by_pairs`)."""
    if not isinstance(node, LazyNode) or node.kind == "string" or node._b != 0:
        return False
    doc = node._doc
    assert isinstance(doc, _Doc)
    if doc.unique is None:
        text, base, stop = doc.text, doc.base, doc.stop
        # (colons are ASCII: the text's count is its UTF-8 bytes' count)
        counted = _written_colons(node.value) if text.find("\\u003", base, stop) < 0 else None
        doc.unique = text.count(":", base, stop) == counted if counted is not None else keys_unique_by_pairs(text[base:stop])
    return doc.unique


_ENCODE: Callable[[Any], bytes] | None = None


def _written_colons(value: Any) -> int | None:
    """The colons of ``value`` written out as JSON (None: it cannot be)."""
    global _ENCODE
    if _ENCODE is None:
        import msgspec

        _ENCODE = msgspec.json.Encoder().encode
    try:
        return _ENCODE(value).count(b":")
    except Exception:  # pragma: no cover - what msgspec decoded it encodes
        return None


def keys_unique_by_pairs(buf: bytes | str) -> bool:
    """Does no object of the JSON text ``buf`` have a key twice (the standard library's
    decoder; False when it cannot decode it, nested too deep for it among others)?"""
    pairs: list[list[tuple[str, Any]]] = []
    try:
        json.loads(buf, object_pairs_hook=pairs.append)
    except (ValueError, RecursionError):
        return False
    return sum(map(len, pairs)) == sum(map(len, map(dict, pairs)))


def _expand(node: LazyNode) -> None:
    """Make ``node``'s members or items (see the module's docstring)."""
    doc = node._doc
    made = _walk_extents(node, doc) if len(doc.buf) >= EXTENTS or doc.seps is not None else _walk(node, doc)
    if made is None:  # not the eager parse's shape: the tolerant parser makes this subtree
        eager = parse_eager(doc.text, node.span.start, node.span.end).node
        assert eager is not None
        made = eager.members if node.kind == "object" else eager.items
    if node.kind == "object":
        node.members = made  # type: ignore[assignment]
    else:
        node.items = made  # type: ignore[assignment]
    if node._b:
        node._doc = None  # (the root keeps it: keys_unique asks it after other readers expanded it)


def descendants(node: JNode, found: Sequence[tuple[tuple[int, ...], Any]]) -> list[JNode] | None:
    """The nodes of containers below ``node`` (``found``: each one's path of member or item
    indices from ``node`` and its decoded value), made straight from a long document's
    separators (:data:`EXTENTS`): no node made for the containers on the way, nor for their
    other members (through a container whose members are made already: those). None when
    ``node`` is not walked by separators, or a container on a path is not as its decoded value
    says (the reader then reads ``node`` member by member).
    Indices of an object's members are those of its decoded keys: no key written twice (see
    :func:`keys_unique`)."""
    if not isinstance(node, LazyNode):
        return None
    out: list[JNode] = []
    for path, value in found:
        start = node
        k = 0
        while start._doc is None and k < len(path):  # (made already: through the members made)
            kids: Any = start.members if start.kind == "object" else start.items
            start = kids[path[k]].value if start.kind == "object" else kids[path[k]]
            k += 1
            if not isinstance(start, LazyNode):
                return None
        if k == len(path):
            if start.value is not value:
                return None
            out.append(start)
            continue
        doc = start._doc
        if not isinstance(doc, _Doc) or (doc.seps is None and len(doc.buf) < EXTENTS):
            return None
        seps, runs = _table(doc)
        text = doc.text
        at = start.span.start
        end = start.span.end
        here = start.value
        depth = start._be if start._b else 1
        for i in path[k:]:
            n = len(here)
            if depth + 1 >= len(runs):
                return None
            lo = bisect_left(seps, at, runs[depth], runs[depth + 1])
            hi = bisect_left(seps, end, lo, runs[depth + 1])
            if type(here) is dict:
                if hi - lo != n:
                    return None
                m = _S_NEXT_KEY.match(text, seps[lo + i - 1]) if i else _S_FIRST_KEY.match(text, at + 1)
                if m is None:
                    return None
                key = list(here)[i]
                kb, kbe = m.span(1)
                if not (kbe - kb - 2 == len(key) and text.startswith(key, kb + 1)):
                    ks = doc.parser.string(kb)
                    if ks.value != key or ks.span.end != kbe:
                        return None
                at = m.end()
                end = seps[lo + i]
                here = here[key]
            else:
                if hi - lo != n:
                    return None
                if i:
                    m = _S_NEXT_ITEM.match(text, seps[lo + i - 1])
                    if m is None:
                        return None
                    at = m.end()
                else:
                    at = _S_WS.match(text, at + 1).end()  # type: ignore[union-attr]
                end = seps[lo + i]
                here = here[i]
            depth += 1
        if here is not value or text[at] != ("{" if type(value) is dict else "["):
            return None
        out.append(_lazy("object" if type(value) is dict else "array", Span(at, end), value, doc, 1, depth))
    return out


def _member_value(doc: _Doc, pos: int, raw: Any, be: int, shift: int, decoded: Any) -> tuple[JNode, int, int] | None:
    """The node of a member's (or an item's) value, whose ``Raw`` is ``raw``, at the byte
    offset ``pos`` of a container ending at ``be``: (node, the byte offset after it, ``shift``
    grown by its non-ASCII characters); None when its bytes are not ``raw`` there."""
    buf = doc.buf
    vend = pos + len(raw)
    if vend > be or not buf.startswith(raw, pos):  # (a memoryview compares byte by byte)
        return None
    head = buf[pos]
    start = pos + shift
    if not doc.ascii and (head == 0x22 or head == 0x7B or head == 0x5B):
        chunk = buf[pos:vend]
        if not chunk.isascii():
            shift += len(str(chunk, "utf-8")) - (vend - pos)
    if head == 0x7B or head == 0x5B:  # { [
        return _lazy("object" if head == 0x7B else "array", Span(start, vend + shift), decoded, doc, pos, vend), vend, shift
    return _leaf(head, Span(start, vend + shift), decoded, doc.text), vend, shift


def _walk(node: LazyNode, doc: _Doc) -> list[Any] | None:
    buf = doc.buf
    b, be = node._b, node._be
    is_object = node.kind == "object"
    decoders = _decoders()
    assert decoders is not None
    raws = (decoders[1] if is_object else decoders[2])(doc.view[b:be])
    value = node.value
    ascii_ = doc.ascii
    # Separators and whitespace are ASCII: between values a character is a byte. `shift` is
    # the character offset minus the byte offset, grown by each non-ASCII key or value.
    shift = node.span.start - b
    out: list[Any] = []
    append = out.append
    pos = b + 1
    if is_object:
        sep = _FIRST_KEY
        for key, raw in raws.items():
            m = sep.match(buf, pos)
            sep = _NEXT_KEY
            if m is None:
                return None
            kb, kbe = m.span(1)
            kstart = kb + shift
            body = buf[kb + 1:kbe - 1]
            if b"\\" in body:
                ks = doc.parser.string(kstart)
                if ks.value != key:
                    return None
                kspan = ks.span
                shift = kspan.end - kbe
            else:
                decoded = body.decode("utf-8")
                if decoded != key:
                    return None
                if not ascii_:
                    shift += len(decoded) - len(body)
                kspan = Span(kstart, kbe + shift)
            made = _member_value(doc, m.end(), raw, be, shift, value[key])
            if made is None:
                return None
            child, pos, shift = made
            append(JMember(share(key), kspan, child))
    else:
        sep = _FIRST_ITEM
        for k, raw in enumerate(raws):
            m = sep.match(buf, pos)
            sep = _NEXT_ITEM
            if m is None:
                return None
            made = _member_value(doc, m.end(), raw, be, shift, value[k])
            if made is None:
                return None
            child, pos, shift = made
            append(child)
    m = _CLOSE.match(buf, pos)
    if m is None or m.end() != be or buf[be - 1] != (0x7D if is_object else 0x5D):
        return None
    return out


#: A tree whose text has this many UTF-8 bytes or more is walked by its separators.
EXTENTS = 65536

_S_KEY = r'("[^"\\]*+(?:\\.[^"\\]*+)*+")[ \t\n\r]*+:[ \t\n\r]*+'
_S_FIRST_KEY = re.compile(r"[ \t\n\r]*+" + _S_KEY, re.DOTALL)
_S_NEXT_KEY = re.compile(r"[ \t\n\r]*+,[ \t\n\r]*+" + _S_KEY, re.DOTALL)
_S_NEXT_ITEM = re.compile(r"[ \t\n\r]*+,[ \t\n\r]*+")
_S_WS = re.compile(r"[ \t\n\r]*+")

Separators = tuple[list[int], list[int]]  # offsets by depth then position; where each depth's run starts


def _separators(buf: bytes, base: int) -> Separators:
    """Every comma and closing bracket outside the strings of the strict JSON text ``buf`` (its
    UTF-8 bytes), each as the offset where the value before it ends (whitespace aside) in the
    text ``buf`` starts at ``base`` of, sorted by the depth of the container it separates the
    members of or closes (the outermost one's: 1), then by offset; and where the run of each
    depth starts in that list (and its end). A container's separators are then one run, found
    by two bisections, its closing bracket last.

    One pass of NumPy over the bytes, none decoded: the quotes not escaped (a quote after an
    odd run of backslashes is escaped: in strict JSON a backslash is only ever in a string and
    starts an escape) delimit the strings; the brackets and commas outside them are
    those after an even number of quotes, and a separator's depth is the brackets opened and
    not closed before it."""
    a = np.frombuffer(buf, np.uint8)
    low = a | 0x20  # ([ and ] are { and } less 0x20: no other byte becomes either)
    found = low == 0x7B
    found |= low == 0x7D
    found |= a == 0x22
    found |= a == 0x2C
    events = np.flatnonzero(found)  # quotes, brackets and separators, in order (one search of the bytes)
    kinds = a[events]
    is_quote = kinds == 0x22
    at = np.flatnonzero(is_quote)
    if at.size and 0x5C in buf:
        quotes = events[at]
        after = np.flatnonzero(a[quotes - 1] == 0x5C)  # (a string's opening quote comes first: index >= 1)
        if after.size:
            escaped = np.zeros(quotes.size, dtype=bool)
            run = 1  # backslashes seen before each quote of `after`
            while after.size:
                more = a[quotes[after] - run - 1] == 0x5C
                if run & 1:
                    escaped[after[~more]] = True
                after = after[more]
                run += 1
            is_quote[at[escaped]] = False
    # (a bracket or separator with an even number of quotes before it is outside the strings)
    outside = (np.cumsum(is_quote) & 1) == 0
    outside[at] = False  # (no quote is any of them, escaped or not)
    kept = events[outside]
    low_kept = kinds[outside] | 0x20
    step = (low_kept == 0x7B).astype(np.int64)
    step -= low_kept == 0x7D
    depth = np.cumsum(step)  # after each
    sep = step <= 0  # (the separators and the closing brackets)
    offsets = kept[sep]
    if not offsets.size:
        return [], [0]
    # (each moved back over the whitespace before it: where the value before it ends)
    back = np.flatnonzero(a[offsets - 1] <= 0x20)  # (outside strings, a byte <= 0x20 is whitespace)
    while back.size:
        offsets[back] -= 1
        back = back[a[offsets[back] - 1] <= 0x20]
    if not buf.isascii():  # a byte offset less the continuation bytes before it: a character offset
        high = np.flatnonzero(a >= 0x80)
        tails = high[(a[high] & 0xC0) == 0x80]
        offsets = offsets - np.searchsorted(tails, offsets)
    depths = depth[sep] - step[sep]  # (a closing bracket's: the depth of what it closes)
    top = int(depths.max())
    # (a stable sort of small integers is a radix sort: linear)
    order = np.argsort(depths.astype(np.int16) if top < 32768 else depths, kind="stable")
    runs = np.searchsorted(depths[order], np.arange(top + 2))  # runs[d]: the first of depth d or more
    return (offsets[order] + base).tolist(), runs.tolist()


def _table(doc: _Doc) -> Separators:
    """The document's separators, found at the first need (its bytes let go then: the table is
    all a walk needs)."""
    if doc.seps is None:
        doc.seps = _separators(doc.buf, doc.base)
        doc.buf = b""
        doc.view = memoryview(doc.buf)
    return doc.seps


def _walk_extents(node: LazyNode, doc: _Doc) -> list[Any] | None:
    """:func:`_walk` by the document's separators, in the text's own offsets: the members (or
    items) made from the run of separators of ``node``'s depth inside its span, no container's
    bytes decoded again. Member ``i`` starts after the comma before it (or the opening bracket)
    and its value ends where the table says for the one after it (or the closing bracket).

    Exactness: there must be a comma between each two members of the decoded value (a key
    written twice, which a decoded ``dict`` merges, makes one comma more), and each member's key
    must decode to the decoded object's key in that place."""
    seps, runs = _table(doc)
    text = doc.text
    span = node.span
    start, end = span.start, span.end
    value = node.value
    n = len(value)
    depth = node._be if node._b else 1
    if depth + 1 < len(runs):
        lo = bisect_left(seps, start, runs[depth], runs[depth + 1])
        hi = bisect_left(seps, end, lo, runs[depth + 1])
    else:
        lo = hi = 0
    is_object = node.kind == "object"
    if hi - lo != (n or 1):
        return None
    keys = list(value) if is_object else value
    # (a separator's offset in the table is where the value before it ends: see _separators)
    ends = seps[lo:hi]
    next_key, next_item = _S_NEXT_KEY.match, _S_NEXT_ITEM.match
    # (the nodes, spans and members are made by ``__new__`` and their slots set here: a
    # dataclass's ``__init__`` is a Python call each, and a walk makes a few per member)
    new, lazy_node, span_type, member_type = _new, LazyNode, Span, JMember
    table = _SHARED
    inner = depth + 1
    out: list[Any] = []
    append = out.append
    for i in range(n):
        if is_object:
            m = next_key(text, ends[i - 1]) if i else _S_FIRST_KEY.match(text, start + 1)
            if m is None:
                return None
            kb, kbe = m.span(1)
            key = keys[i]
            if kbe - kb - 2 == len(key) and text.startswith(key, kb + 1):
                key_span = new(span_type)  # (an escape decodes to fewer characters: none here)
                key_span.start = kb
                key_span.end = kbe
            else:
                ks = doc.parser.string(kb)
                if ks.value != key or ks.span.end != kbe:
                    return None
                key_span = ks.span
            child = value[key]
            vb = m.end()
        else:
            if i:
                m = next_item(text, ends[i - 1])
                if m is None:
                    return None
                vb = m.end()
            else:
                vb = start + 1
                if text[vb] in _WS_CHARS:
                    vb = _S_WS.match(text, vb).end()  # type: ignore[union-attr]
            child = keys[i]
        ve = ends[i]
        head = text[vb]
        span = new(span_type)
        span.start = vb
        span.end = ve
        if head == '"':
            if type(child) is not str:
                return None
            made: JNode = new(lazy_node)
            made.kind = "string"
            made.span = span
            if len(child) <= SHORT:
                child = table.get(child) or share(child)
            made.value = child
            made.members = None
            made.items = None
            made._doc = text  # type: ignore[attr-defined]
        elif head == "{" or head == "[":
            made = new(lazy_node)
            made.span = span
            made.value = child
            made.source_map = None
            if head == "{":
                made.kind = "object"
                made.items = None
            else:
                made.kind = "array"
                made.members = None
            made._doc = doc
            made._b = 1
            made._be = inner
        else:
            made = _leaf(ord(head), span, child, text)
        if is_object:
            member = new(member_type)
            member.key = table.get(key) or share(key)
            member.key_span = key_span
            member.value = made
            append(member)
        else:
            append(made)
    return out
