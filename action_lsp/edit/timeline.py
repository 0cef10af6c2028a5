"""A transcript as a timeline: where the workspace stands on each file's chain of actions.

The file actions of a transcript on one file form a chain in document order. A workspace that
holds the transcript's end state (the usual case: a chat history in its own repository) must
not be replayed from its start: the first edits' search text was rewritten by the later ones.
:func:`judge` finds the *position* of a file on its chain -- the latest step whose result the
file reflects -- and judges every step at or before it as history:

- ``applied``: its result is in the file;
- ``superseded``: a later step of the chain rewrote that text (``by`` names the first), or
  its result is gone and nothing in the transcript explains it (``by`` is None);

The steps after the position are pending: the planner checks them in order against the file,
as it always did. So is a step before the position whose result is absent, that no later step
touched and whose search text is still in the file: it was never applied (a user who applied a
later action alone), and it is applied as any pending one.

The file is read once; each step is judged with substring tests on the file's lines with their
indentation and blank lines dropped (no locating, no syntax trees), so a chain of hundreds of
steps over a large file is judged in milliseconds.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .chunked import ChunkedText

StepOp = Literal["create", "write", "modify", "delete", "merge"]

_WORD = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Step:
    """One file action of a chain: ``index`` in the transcript, what it does to the file."""

    index: int
    op: StepOp
    content: str = ""  # create, write, merge
    pairs: Sequence[tuple[str, str]] = ()  # modify: (search, replace)
    path: str = ""  # merge: the file's path (its grammar)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A history step: its result is in the file (``applied``), or it was ``superseded``."""

    kind: Literal["applied", "superseded"]
    by: int | None = None  # superseded: the index of the first later step that rewrote it


def _lines(text: str) -> list[str]:
    return [s for s in (line.strip() for line in text.replace("\r\n", "\n").split("\n")) if s]


def layout_only(search: str, replace: str) -> bool:
    """Whether a replacement changes only indentation or blank lines: invisible to the
    timeline's comparisons, so such an edit is left to the planner."""
    return _collapsed(search) == _collapsed(replace)


def _collapse(text: str) -> str:
    """The text's non-blank lines without their indentation, one per line, framed by line
    breaks: a piece is present when its own collapsed form, framed the same, is a substring."""
    return "\n" + "\n".join(_lines(text)) + "\n"


#: :func:`_collapse` of the transcript's pieces (search and replace texts), each collapsed
#: once however many steps and points compare it (a file's text is collapsed once per judge).
_collapsed = functools.lru_cache(maxsize=4096)(_collapse)


def _blank(text: str) -> bool:
    return not text.strip()


def _words(text: str) -> set[str]:
    """The lines that say something (a lone ``}`` or ``)`` never links two steps)."""
    return {s for s in _collapsed(text).split("\n") if _WORD.search(s)}


#: Searches of a text, in multiples of its length, after which it is searched through an index
#: (:class:`ChunkedText`, issue 21). Building the index costs about as much as 400 plain
#: searches of the text (a 46 KB collapsed file: 7 ms, against 17-40 us a search), so a text
#: searched fewer times is searched as it is; one searched (or, in a replay, edited) more
#: often is indexed, and what either way reads stays linear in its length. Same answers.
INDEX_AFTER = 256


class _Text:
    """A text searched, and edited by a replay: one ``str`` until its plain searches and
    copies have read :data:`INDEX_AFTER` times its length, then a :class:`ChunkedText`.

    :meth:`has_line` answers ``find(f"\\n{line}\\n") >= 0`` from a count of the text's
    lines (made when first asked, then kept up to date by :meth:`swap` and :meth:`append`):
    an appended text's lines are each asked for, and searching the text for each one was
    lines times the text."""

    __slots__ = ("_lines", "chunked", "flat", "read")

    def __init__(self, text: str) -> None:
        self.flat: str | None = text
        self.chunked: ChunkedText | None = None
        #: Characters the plain searches and copies read (a measure for tests, never a result).
        self.read = 0
        self._lines: Counter[str] | None = None

    def __len__(self) -> int:
        if self.flat is not None:
            return len(self.flat)
        assert self.chunked is not None
        return len(self.chunked)

    def __str__(self) -> str:
        return self.flat if self.flat is not None else str(self.chunked)

    def _plain(self, cost: int) -> str | None:
        """The text as one ``str`` when an operation reading ``cost`` characters of it still
        fits the budget (counted); None once it is indexed."""
        flat = self.flat
        if flat is None:
            return None
        if self.read + cost > INDEX_AFTER * max(len(flat), 256):
            self.chunked, self.flat = ChunkedText(flat), None
            return None
        self.read += cost
        return flat

    def find(self, sub: str) -> int:
        """``str(self).find(sub)``."""
        if not sub:
            return 0
        flat = self._plain(len(self))
        if flat is not None:
            return flat.find(sub)
        assert self.chunked is not None
        return self.chunked.find(sub)

    def swap(self, at: int, old: str, new: str) -> None:
        """Replace ``old``, found at ``at``, by ``new``."""
        flat = self._plain(len(self))
        if flat is not None:
            self.flat = flat[:at] + new + flat[at + len(old):]
        else:
            assert self.chunked is not None
            self.chunked.replace(at, at + len(old), new)
        lines = self._lines
        if lines is None:
            return
        if not (old[:1] == old[-1:] == new[:1] == new[-1:] == "\n"):
            self._lines = None  # (a replay swaps collapsed pieces, framed by line breaks)
            return
        lines.subtract(old.split("\n")[1:-1])
        lines.update(new.split("\n")[1:-1])

    def append(self, body: str) -> None:
        """Add ``body`` at the end."""
        end = len(self)
        lines = self._lines
        if lines is not None and self._ends_line():
            lines.update(body.split("\n")[:-1])
        else:
            self._lines = None
        flat = self._plain(end + len(body))
        if flat is not None:
            self.flat = flat + body
        else:
            assert self.chunked is not None
            self.chunked.replace(end, end, body)

    def _ends_line(self) -> bool:
        if self.flat is not None:
            return self.flat.endswith("\n")
        assert self.chunked is not None
        return self.chunked.endswith("\n")

    def has_line(self, line: str) -> bool:
        """Whether ``line`` (no line break in it) is a whole line of the text, between two
        line breaks: ``find(f"\\n{line}\\n") >= 0``."""
        lines = self._lines
        if lines is None:
            whole = str(self)
            self.read += len(whole)
            lines = self._lines = Counter(whole.split("\n")[1:-1])
        return lines[line] > 0


@dataclass(slots=True)
class _File:
    text: str | None
    collapsed: str = ""
    cache: dict[str, bool] = field(default_factory=dict)
    merges: dict[int, tuple[bool | None, bool]] = field(default_factory=dict)
    #: The file and its collapsed form as searched (see :class:`_Text`), made when first asked.
    _texts: dict[str, _Text] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.text is not None:
            self.collapsed = _collapse(self.text)

    def still_has(self, search: str) -> bool:
        """Whether a search text may still stand in the file: :meth:`has`, or, for text within
        one line (``keep `` of ``keep me``), found in the file as written. Looser than
        :meth:`has` on purpose: it only ever keeps a step pending, never judges it applied."""
        if self.has(search):
            return True
        one = search.strip()
        return self.text is not None and bool(one) and "\n" not in one and self._in(one, self.text)

    def has(self, piece: str) -> bool:
        """Whether ``piece`` (non-blank) stands in the file, up to indentation and blank lines."""
        found = self.cache.get(piece)
        if found is None:
            found = self.cache[piece] = self.text is not None and self._in(_collapsed(piece), self.collapsed)
        return found

    def _in(self, piece: str, whole: str) -> bool:
        """``piece in whole`` (``whole``: the text or its collapsed form)."""
        if not piece:
            return True
        key = "collapsed" if whole is self.collapsed else "text"
        searched = self._texts.get(key)
        if searched is None:
            searched = self._texts[key] = _Text(whole)
        return searched.find(piece) >= 0


def _contains(outer: str, inner: str) -> bool:
    return _collapsed(inner) in _collapsed(outer)


def _added(search: str, replace: str, f: _File) -> bool:
    """Whether every line an insertion adds is in the file (other lines put between since)."""
    new = _words(replace) - _words(search)
    return bool(new) and all(f.has(line) for line in new)


def _partly_held(appended: str, holds: Callable[[str], bool]) -> bool:
    """Whether the text holds a good part of the lines an empty search's text writes (at
    least 3, a third of them; ``holds`` tells for each line): the file that text made, changed
    since (by hand, or by the steps after it). Appending it again would write it twice -- as a
    replay, where the later steps would then find their search text in that copy."""
    words = _words(appended)
    there = sum(1 for line in words if holds(line))
    return there >= 3 and 3 * there >= len(words)


def _reflects(step: Step, f: _File) -> tuple[bool | None, bool]:
    """Whether the file is past ``step``, and whether it holds all of its result.

    True: its result (some of it) is in the file and no text it removed is. None: nothing of
    it is left to see -- the text it removed is gone, and what it wrote is gone too (rewritten
    by a later step, or it only removed text); the file may be past it or at a point where its
    text never was. False: text it removed (or kept and wrote after) is there without its
    result: the file is not past it (unless a later step put that text back)."""
    if step.op == "delete":
        return f.text is None, f.text is None
    if f.text is None:
        return False, False
    if step.op == "merge":
        return _merged(step, f)
    if step.op in ("create", "write"):
        same = f.collapsed == _collapse(step.content)
        return (True if same else None), same
    strong = weak = 0
    for search, replace in step.pairs:
        kept = not _blank(search) and _contains(replace, search)
        if not _blank(search) and not kept and f.still_has(search):
            return False, False
        if _blank(replace):
            weak += 1
        elif f.has(replace) or (kept and _added(search, replace, f)):
            strong += 1
        elif _blank(search) and _partly_held(replace, f.has):
            strong += 1  # a file it made (or text it appended), changed since: never again
            weak += 1
        elif _blank(search) or (kept and f.has(search)):
            return False, False  # an insertion (or an append) whose lines are not there
        else:
            weak += 1
    return (True if strong else None), strong > 0 and weak == 0


def _merged(step: Step, f: _File) -> tuple[bool | None, bool]:
    """A chat answer's snippet (``merge``): the file is past it when merging it into the file
    changes nothing (every definition it shows is there as it shows it); a whole-file answer
    is judged as a write."""
    from .lazymerge import merge_snippet

    assert f.text is not None
    found = f.merges.get(step.index)
    if found is None:
        m = merge_snippet(f.text, step.content, step.path)
        if m.shape == "whole":
            same = f.collapsed == _collapse(step.content)
            found = (True if same else None), same
        else:
            same = m.certain and m.text == f.text.replace("\r\n", "\n")
            found = same, same
        f.merges[step.index] = found
    return found


@dataclass(slots=True)
class _Lines:
    """The lines that say something a modify step wrote (new lines, not those its search
    text had), and those it removed."""

    whole: bool  # a create, write or delete: it rewrites everything before it
    wrote: set[str]
    removed: set[str]
    searched: set[str]
    replaced: set[str]

    @classmethod
    def of(cls, step: Step) -> _Lines:
        if step.op != "modify":
            return cls(True, set(), set(), set(), set())
        wrote: set[str] = set()
        removed: set[str] = set()
        searched: set[str] = set()
        replaced: set[str] = set()
        for search, replace in step.pairs:
            r, s = _words(replace), _words(search)
            wrote |= r - s
            removed |= s - r
            searched |= s
            replaced |= r
        return cls(False, wrote, removed, searched, replaced)


def _rewrites(later: _Lines, earlier: _Lines) -> bool:
    """Whether ``later`` changed text ``earlier`` wrote (or put back text it removed)."""
    if later.whole or earlier.whole:
        return True
    return bool(later.searched & earlier.wrote or later.replaced & earlier.removed)


def _unapplied(step: Step, f: _File) -> bool:
    """A modify whose search text is all still in the file: it can still be applied."""
    return step.op == "modify" and bool(step.pairs) and all(
        not _blank(s) and f.still_has(s) for s, _ in step.pairs)


def position(steps: Sequence[Step], text: str | None) -> int:
    """How many steps of the chain the file is past (see :func:`judge`)."""
    return _position(steps, _File(text), [_Lines.of(x) for x in steps])


def _only_removes(step: Step) -> bool:
    return step.op == "modify" and all(_blank(r) for _, r in step.pairs)


def _removes_own(k: int, lines: Sequence[_Lines]) -> bool:
    """Whether step ``k``'s search text was written by an earlier step of the chain."""
    return any(earlier.whole or earlier.wrote & lines[k].searched for earlier in lines[:k])


def _explained(k: int, steps: Sequence[Step], lines: Sequence[_Lines]) -> bool:
    """Whether the chain explains why nothing of step ``k`` is left in the file: a later step
    rewrote what it wrote, or it only removed text an earlier step wrote. A search text that
    is simply not there (the model's own mistake, a hand edit) is not explained."""
    if any(_rewrites(later, lines[k]) for later in lines[k + 1 :]):
        return True
    return _only_removes(steps[k]) and _removes_own(k, lines)


def _base_removed(k: int, lines: Sequence[_Lines]) -> set[str]:
    """The lines step ``k`` removed that no earlier step wrote."""
    own: set[str] = set()
    for earlier in lines[:k]:
        own |= earlier.wrote
    return lines[k].removed - own


def _contradicted(k: int, f: _File, lines: Sequence[_Lines]) -> bool:
    """Whether a line step ``k`` removed, one no earlier step wrote, is still in the file."""
    return any(f.has(line) for line in _base_removed(k, lines))


def _points(steps: Sequence[Step], f: _File, lines: Sequence[_Lines]) -> list[int]:
    """The points the file may be at, earliest first (0, the base, always): after a step
    whose result is there, or after one the chain explains is gone (see :func:`_explained`)
    with no step the file is not past between it and the last one whose result is there (or
    the base). A removal of the base's text whose text is gone counts as its result there
    (the file at the base would still hold it)."""
    out = [0]
    open_ = True
    for k, step in enumerate(steps):
        past, _ = _reflects(step, f)
        if (past is None and _only_removes(step) and not _removes_own(k, lines)
                and not _contradicted(k, f, lines)):
            past = True  # the base's text it removed is gone
        if past:
            out.append(k + 1)
            open_ = True
        elif (past is None and open_ and _explained(k, steps, lines)
              and not _contradicted(k, f, lines)):
            out.append(k + 1)
        else:
            open_ = False
    return out


def _position(steps: Sequence[Step], f: _File, lines: Sequence[_Lines]) -> int:
    """The latest point the file may be at after which the pending steps replay; the latest
    point when none does (the file was changed since: the first pending step says so)."""
    points = _points(steps, f, lines)
    for tried, k in enumerate(reversed(points)):
        if tried >= MAX_TRIES:
            break
        if _replays(steps[k:], f):
            return k
    return points[-1]


#: How many points are tried, latest first, for one after which the pending steps replay.
MAX_TRIES = 8


def _replays(steps: Sequence[Step], f: _File) -> bool:
    """Whether ``steps`` apply one after the other to the file (compared as :func:`_collapsed`
    texts: a quick replay, not the planner's). The text is searched and edited as a
    :class:`_Text`: indexed once that is cheaper, with the same answers."""
    text = _Text(f.collapsed) if f.text is not None else None
    for step in steps:
        if step.op == "merge":
            return True  # merged by syntax, not on collapsed lines: what follows is the plan's
        if step.op in ("create", "write"):
            text = _Text(_collapsed(step.content))
            continue
        if step.op == "delete":
            if text is None:
                return False
            text = None
            continue
        for search, replace in step.pairs:
            s, r = _collapsed(search), _collapsed(replace)
            if text is None:
                if not _blank(search):
                    return False
                text = _Text(r)
            elif _blank(search):
                if _partly_held(replace, text.has_line):
                    return False  # it would write that text twice: not how the file got here
                text.append(r[1:])
            elif (at := text.find(s)) >= 0:
                text.swap(at, s, r if not _blank(replace) else "\n")
            elif _blank(replace) or text.find(r) < 0:
                return False
    return True


def judge(steps: Sequence[Step], text: str | None) -> dict[int, Judgement]:
    """The history steps of a chain (by transcript index) on a file holding ``text`` (None:
    the file does not exist); every other step is pending."""
    f = _File(text)
    lines = [_Lines.of(x) for x in steps]
    at = _position(steps, f, lines)
    out: dict[int, Judgement] = {}
    for k in range(at):
        step = steps[k]
        if _reflects(step, f)[1] or (_only_removes(step) and not _removes_own(k, lines)
                                     and _reflects(step, f)[0] is None
                                     and not _contradicted(k, f, lines)):
            out[step.index] = Judgement("applied")
            continue
        by = next((steps[j].index for j in range(k + 1, len(steps))
                   if _rewrites(lines[j], lines[k])), None)
        if by is None and _unapplied(step, f):
            continue  # never applied, and nothing since touched it: pending
        out[step.index] = Judgement("superseded", by)
    return out
