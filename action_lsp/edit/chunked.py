"""A text edited many times, searched for whole without reading all of it each time (issue 21).

A MultiEdit of N edits, a diff of N hunks or a Codex patch of N chunks on one file looks for
each edit's search text in the text the edits before it left, and checks that it occurs only
once there. Done on a ``str``, every edit searched the whole text, counted the lines before
its place and rebuilt the text: N edits of a file N lines long took time in N squared.

:class:`ChunkedText` keeps the text in small chunks with their lengths and line counts in
Fenwick trees (an offset's chunk and line in O(log n)), and indexes every chunk by the
:data:`GRAM`-long substrings starting at every :data:`STEP`-th of its characters. Any
occurrence of a text at least :data:`MIN_INDEXED` long holds one of those substrings at one of
its first :data:`STEP` characters (the first indexed position at or after its start), so the
chunks that hold one of the text's first :data:`STEP` substrings (by their hashes: a collision
only adds a chunk to read) are the only places it can start near: :meth:`find` reads a window around each of them, which answers exactly what
``str.find`` on the whole text answers (shorter texts, and texts whose substrings are in too
many chunks, are searched in the whole text). An edit re-indexes the chunks it changed.
"""

from __future__ import annotations

import re

CHUNK = 128  # characters a chunk starts with
MAX_CHUNK = 4 * CHUNK  # a chunk grown past this is split
GRAM = 8
STEP = 4
MIN_INDEXED = GRAM + STEP - 1
#: Candidate chunks beyond which a search reads the whole text instead (and a fraction of
#: the chunks: a text common enough to be in many chunks is cheaper to search at C speed).
MAX_CANDIDATES = 64

_SPACE = re.compile(r"\s")


def _spaces(text: str) -> int:
    return len(text) - len(_SPACE.sub("", text))


class _Fenwick:
    __slots__ = ("tree",)

    def __init__(self, values: list[int]) -> None:
        tree = [0, *values]
        n = len(tree)
        for i in range(1, n):
            j = i + (i & -i)
            if j < n:
                tree[j] += tree[i]
        self.tree = tree

    def add(self, slot: int, delta: int) -> None:
        tree, i, n = self.tree, slot + 1, len(self.tree)
        while i < n:
            tree[i] += delta
            i += i & -i

    def before(self, slot: int) -> int:
        """The sum of the values of the slots before ``slot``."""
        tree, i, total = self.tree, slot, 0
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def slot_of(self, x: int) -> tuple[int, int]:
        """``(slot, sum before it)``: the first slot whose values so far exceed ``x`` (the
        last slot when none does)."""
        tree, n = self.tree, len(self.tree)
        pos, total = 0, 0
        step = 1 << (n.bit_length() - 1)
        while step:
            nxt = pos + step
            if nxt < n and total + tree[nxt] <= x:
                pos = nxt
                total += tree[nxt]
            step >>= 1
        if pos >= n - 1:  # x at (or past) the end: the last slot
            pos = n - 2
            total = self.before(pos)
        return pos, total


class ChunkedText:
    """A text that :meth:`replace` edits in place and :meth:`find` searches by its index."""

    def __init__(self, text: str) -> None:
        self._flat: str | None = None
        self._load(text)
        self._flat = text
        #: Characters the searches read (a measure for tests, never a result).
        self.read = 0

    # -- building -----------------------------------------------------------------------
    def _load(self, text: str) -> None:
        chunks = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)] or [""]
        self.chunks = chunks
        self.length = len(text)
        self.labels = list(range(len(chunks)))  # each slot's chunk, by a name a split keeps
        self.slots = {label: slot for slot, label in enumerate(self.labels)}
        self.next_label = len(chunks)
        self.lens = _Fenwick([len(c) for c in chunks])
        self.nls = _Fenwick([c.count("\n") for c in chunks])
        self.spaces: _Fenwick | None = None  # whitespace characters, once asked (spaces_before)
        #: The hash of each indexed gram: the chunk (or the chunks) holding it, by label.
        self.index: dict[int, int | set[int]] = {}
        self.keys: dict[int, set[int]] = {}
        follow = ""
        for slot in range(len(chunks) - 1, -1, -1):
            self._index(slot, chunks[slot] + follow[: GRAM - 1])
            follow = chunks[slot] + follow[: GRAM - 1]

    def _index(self, slot: int, body: str) -> None:
        """Index chunk ``slot`` (``body``: its text and the text after it, up to a gram)."""
        label = self.labels[slot]
        stop = min(len(self.chunks[slot]), len(body) - GRAM + 1)
        keys = {hash(body[p : p + GRAM]) for p in range(0, stop, STEP)}
        old = self.keys.get(label)
        index = self.index
        for key in keys if old is None else keys - old:  # (an edit changes some of them)
            held = index.get(key)
            if held is None:
                index[key] = label  # most grams are in one chunk: no set for those
            elif isinstance(held, int):
                if held != label:
                    index[key] = {held, label}
            else:
                held.add(label)
        if old is not None:
            self._drop(label, old - keys)
        self.keys[label] = keys

    def _drop(self, label: int, keys: set[int]) -> None:
        index = self.index
        for key in keys:
            held = index.get(key)
            if held is None:
                continue
            if isinstance(held, int):
                if held == label:
                    del index[key]
                continue
            held.discard(label)
            if len(held) == 1:
                index[key] = next(iter(held))

    def _unindex(self, slot: int) -> None:
        label = self.labels[slot]
        self._drop(label, self.keys.pop(label, set()))

    def _reindex(self, slot: int) -> None:
        self._index(slot, self.chunks[slot] + self._after(slot, GRAM - 1))

    def _after(self, slot: int, size: int) -> str:
        """Up to ``size`` characters of the text after chunk ``slot``."""
        out, chunks = "", self.chunks
        slot += 1
        while len(out) < size and slot < len(chunks):
            out += chunks[slot][: size - len(out)]
            slot += 1
        return out

    def _split(self, slot: int) -> None:
        """Cut chunk ``slot`` (grown past :data:`MAX_CHUNK`) into chunks of :data:`CHUNK`."""
        self._unindex(slot)
        text = self.chunks[slot]
        pieces = [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]
        labels = list(range(self.next_label, self.next_label + len(pieces)))
        self.next_label += len(pieces)
        self.chunks[slot : slot + 1] = pieces
        self.labels[slot : slot + 1] = labels
        self.slots = {label: s for s, label in enumerate(self.labels)}
        self.lens = _Fenwick([len(c) for c in self.chunks])
        self.nls = _Fenwick([c.count("\n") for c in self.chunks])
        if self.spaces is not None:
            self.spaces = _Fenwick([_spaces(c) for c in self.chunks])
        for s in range(slot, slot + len(pieces)):
            self._reindex(s)

    # -- reading ------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.length

    def __str__(self) -> str:
        if self._flat is None:
            self._flat = "".join(self.chunks)
        return self._flat

    def _start(self, slot: int) -> int:
        return self.lens.before(slot)

    def slice(self, a: int, b: int) -> str:
        """``str(self)[a:b]`` for ``0 <= a <= b``, reading only the chunks it spans."""
        b = min(b, self.length)
        if a >= b:
            return ""
        if self._flat is not None:
            return self._flat[a:b]
        slot, start = self.lens.slot_of(a)
        chunks, parts = self.chunks, []
        while start < b and slot < len(chunks):
            c = chunks[slot]
            parts.append(c[max(0, a - start) : b - start])
            start += len(c)
            slot += 1
        return "".join(parts)

    def line_of(self, x: int) -> int:
        """The line breaks before offset ``x`` (``str(self).count("\\n", 0, x)``)."""
        slot, start = self.lens.slot_of(x)
        return self.nls.before(slot) + self.chunks[slot].count("\n", 0, x - start)

    def spaces_before(self, x: int) -> int:
        """The whitespace characters (``\\s``) before offset ``x``."""
        if self.spaces is None:
            self.spaces = _Fenwick([_spaces(c) for c in self.chunks])
        slot, start = self.lens.slot_of(x)
        return self.spaces.before(slot) + _spaces(self.chunks[slot][: x - start])

    def newline_near(self, at: int, lo: int = 0) -> str | None:
        """The line ending of the first line break at or after ``at`` (``\\r\\n`` when a
        ``\\r`` at or after ``lo`` precedes it), when one is within a chunk's reach (None: ask
        the whole text)."""
        window = self.slice(at, at + 2 * MAX_CHUNK)
        nl = window.find("\n")
        if nl < 0:
            return None
        if nl > 0:
            return "\r\n" if window[nl - 1] == "\r" else "\n"
        return "\r\n" if at > lo and self.slice(at - 1, at) == "\r" else "\n"

    def find(self, sub: str, start: int = 0) -> int:
        """``str(self).find(sub, start)`` for a non-empty ``sub``."""
        size = len(sub)
        candidates: set[int] = set()
        if size >= MIN_INDEXED:
            index = self.index
            for j in range(STEP):
                held = index.get(hash(sub[j : j + GRAM]))
                if held is None:
                    continue
                if isinstance(held, int):
                    candidates.add(held)
                else:
                    candidates |= held
                if len(candidates) > MAX_CANDIDATES:
                    break
        if size < MIN_INDEXED or len(candidates) > MAX_CANDIDATES:
            self.read += self.length - start
            return str(self).find(sub, start)
        best = -1
        slots = self.slots
        for slot in sorted(slots[label] for label in candidates):
            cs = self._start(slot)
            ce = cs + len(self.chunks[slot])
            lo = max(start, cs - STEP + 1)
            if ce <= lo or (best >= 0 and lo >= best):
                continue
            window = self.slice(lo, ce + size - 1)
            self.read += len(window)
            at = window.find(sub)
            if at >= 0 and (best < 0 or lo + at < best):
                best = lo + at
        return best

    def endswith(self, suffix: str) -> bool:
        return self.slice(max(0, self.length - len(suffix)), self.length) == suffix

    # -- editing ------------------------------------------------------------------------
    def replace(self, a: int, b: int, new: str) -> None:
        """Replace ``[a, b)`` by ``new``."""
        chunks = self.chunks
        sa, ca = self.lens.slot_of(a)
        sb, cb = (sa, ca) if b <= ca + len(chunks[sa]) else self.lens.slot_of(b)
        text = chunks[sa][: a - ca] + new + chunks[sb][b - cb :]
        for slot in range(sa, sb + 1):
            old = chunks[slot]
            body = text if slot == sa else ""
            self.lens.add(slot, len(body) - len(old))
            self.nls.add(slot, body.count("\n") - old.count("\n"))
            if self.spaces is not None:
                self.spaces.add(slot, _spaces(body) - _spaces(old))
            chunks[slot] = body
        self.length += len(new) - (b - a)
        self._flat = None
        for slot in range(sa, sb + 1):
            self._reindex(slot)
        if a - ca < GRAM - 1:  # the chunks before, whose last grams read the edit's start
            slot, reach = sa - 1, 0
            while slot >= 0 and reach < GRAM - 1:
                self._reindex(slot)
                reach += len(chunks[slot])
                slot -= 1
        if len(text) > MAX_CHUNK:
            self._split(sa)
