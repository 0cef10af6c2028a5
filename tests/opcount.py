"""A deterministic measure of the work ``analyze`` does: an operation count, not a clock.

Counted while :func:`count_ops` runs:

- every Python and C function call (``sys.setprofile``), which catches loops of Python work;
- the characters each text search examines: ``str.find``/``rfind``/``count``/``startswith``...
  on the document (it is handed in as a ``str`` subclass that counts), and ``search``/
  ``finditer``/``match`` of every compiled regex in the scanning modules (module-level ones are
  replaced by counting proxies, and ``re.compile`` in ``dialects.tags`` and ``jsonscan`` makes
  counting ones), plus the C JSON string decoder;
- the characters whose columns are measured (``units`` / ``index_at_units`` of
  :mod:`action_lsp.text`): a column counted from the start of a long line each time shows.

A search counts from where it started to where its match ended (or to the end of its range when
it failed), so the same text read again and again adds up: a quadratic scan shows as an
operation count that grows like the square of the input. An anchored ``match`` that fails
counts one character (it cannot say how far it looked), except the string-body patterns of
the JSON scanner, whose failure means they read to the end of their range.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

_MODULES = (
    "action_lsp.scan",
    "action_lsp.scan_state",
    "action_lsp.markdown",
    "action_lsp.jsonscan",
    "action_lsp.dialects.tags",
    "action_lsp.dialects.xml_tags",
    "action_lsp.dialects.aether",
    "action_lsp.dialects.actions_json",
    "action_lsp.dialects.action_plan",
    "action_lsp.dialects.json_fields",
    "action_lsp.dialects.tag_dialect",
    "action_lsp.dialects.search_replace",
    "action_lsp.dialects.dyad",
    "action_lsp.dialects.bolt",
    "action_lsp.dialects.cline",
    "action_lsp.dialects.tool_calls",
    "action_lsp.dialects.tool_use",
    "action_lsp.dialects.claude_code",
    "action_lsp.records",
    "action_lsp.dialects.codex_patch",
    "action_lsp.dialects.unified_diff",
)
_READ_TO_END_WHEN_FAILED = {"_DQ_BODY", "_SQ_BODY"}


class Meter:
    def __init__(self) -> None:
        self.chars = 0
        self.calls = 0

    @property
    def total(self) -> int:
        return self.chars + self.calls


class CountingStr(str):
    """The document: its own searches are counted on ``meter`` (slices are plain ``str``)."""

    meter: Meter

    def _span(self, start: Any, end: Any) -> tuple[int, int]:
        n = len(self)
        s = 0 if start is None else (start if start >= 0 else max(0, n + start))
        e = n if end is None else (end if end >= 0 else max(0, n + end))
        return min(s, n), min(e, n)

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        r = str.find(self, sub, start, end)
        s, e = self._span(start, end)
        self.meter.chars += max(1, (r + len(sub) if r >= 0 else e) - s)
        return r

    def index(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        r = self.find(sub, start, end)
        if r < 0:
            raise ValueError("substring not found")
        return r

    def rfind(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        r = str.rfind(self, sub, start, end)
        s, e = self._span(start, end)
        self.meter.chars += max(1, e - (r if r >= 0 else s))
        return r

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        s, e = self._span(start, end)
        self.meter.chars += max(1, e - s)
        return str.count(self, sub, start, end)

    def startswith(self, prefix: Any, start: Any = None, end: Any = None) -> bool:  # type: ignore[override]
        self.meter.chars += max(len(p) for p in prefix) if isinstance(prefix, tuple) else len(prefix)
        return str.startswith(self, prefix, start, end)

    def endswith(self, suffix: Any, start: Any = None, end: Any = None) -> bool:  # type: ignore[override]
        self.meter.chars += max(len(p) for p in suffix) if isinstance(suffix, tuple) else len(suffix)
        return str.endswith(self, suffix, start, end)

    def __contains__(self, sub: object) -> bool:
        assert isinstance(sub, str)
        self.meter.chars += len(self)
        return str.__contains__(self, sub)


class CountingPattern:
    """A compiled regex whose searches are counted."""

    def __init__(self, pattern: re.Pattern[str], meter: Meter, read_to_end: bool = False) -> None:
        self._p = pattern
        self._meter = meter
        self._read_to_end = read_to_end
        self.pattern = pattern.pattern
        self.flags = pattern.flags
        self.groups = pattern.groups
        self.groupindex = pattern.groupindex

    def search(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        m = self._p.search(s, pos, endpos)
        self._meter.chars += max(1, (m.end() if m else min(endpos, len(s))) - pos)
        return m

    def match(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        m = self._p.match(s, pos, endpos)
        if m is not None:
            self._meter.chars += max(1, m.end() - pos)
        else:
            self._meter.chars += max(1, min(endpos, len(s)) - pos) if self._read_to_end else 1
        return m

    def fullmatch(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        self._meter.chars += max(1, min(endpos, len(s)) - pos)
        return self._p.fullmatch(s, pos, endpos)

    def finditer(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        last = pos
        for m in self._p.finditer(s, pos, endpos):
            self._meter.chars += max(1, m.end() - last)
            last = m.end()
            yield m
        self._meter.chars += max(1, min(endpos, len(s)) - last)

    def findall(self, s: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        self._meter.chars += max(1, min(endpos, len(s)) - pos)
        return self._p.findall(s, pos, endpos)

    def sub(self, repl: Any, s: str, count: int = 0) -> str:
        self._meter.chars += max(1, len(s))
        return self._p.sub(repl, s, count)

    def split(self, s: str, maxsplit: int = 0) -> list[str]:
        self._meter.chars += max(1, len(s))
        return self._p.split(s, maxsplit)


class _CountingRe:
    """Stands for the ``re`` module inside a scanning module: ``compile`` counts."""

    def __init__(self, meter: Meter) -> None:
        self._meter = meter

    def compile(self, pattern: str, flags: int = 0) -> CountingPattern:
        return CountingPattern(re.compile(pattern, flags), self._meter)

    def __getattr__(self, name: str) -> Any:
        return getattr(re, name)


def count_ops(fn: Callable[[str], Any], text: str) -> Meter:
    """Run ``fn(text)`` with every search and call counted."""
    import importlib

    meter = Meter()
    doc = CountingStr(text)
    doc.meter = meter
    saved: list[tuple[ModuleType, str, Any]] = []
    for name in _MODULES:
        try:
            mod = importlib.import_module(name)
        except ImportError:  # a dialect module this version does not have
            continue
        for attr, value in list(vars(mod).items()):
            if isinstance(value, re.Pattern) and value.pattern and isinstance(value.pattern, str):
                saved.append((mod, attr, value))
                setattr(mod, attr, CountingPattern(value, meter, attr in _READ_TO_END_WHEN_FAILED))
        if name == "action_lsp.dialects.tags":  # closing-tag patterns are compiled per name
            saved.append((mod, "re", mod.re))
            mod.re = _CountingRe(meter)  # type: ignore[attr-defined]
        if name == "action_lsp.scan":  # line-event patterns are compiled per dialect set, and kept
            saved.append((mod, "re", mod.re))
            mod.re = _CountingRe(meter)  # type: ignore[attr-defined]
            saved.append((mod, "_KINDS", mod._KINDS))  # type: ignore[attr-defined]
            mod._KINDS = {}  # type: ignore[attr-defined]
        if name == "action_lsp.scan_state":  # marker-line patterns too
            saved.append((mod, "re", mod.re))
            mod.re = _CountingRe(meter)  # type: ignore[attr-defined]
            saved.append((mod, "_MARKER_LINES", mod._MARKER_LINES))  # type: ignore[attr-defined]
            mod._MARKER_LINES = {}  # type: ignore[attr-defined]
    js = importlib.import_module("action_lsp.jsonscan")
    scanstring = js._scanstring
    fence_pattern = js._fence_pattern

    def counted_scanstring(s: str, end: int, strict: bool) -> tuple[str, int]:
        try:
            out = scanstring(s, end, strict)
        except ValueError:
            meter.chars += max(1, len(s) - end)
            raise
        meter.chars += max(1, out[1] - end)
        return out

    def counted_fence_pattern(char: str, length: int) -> CountingPattern:
        return CountingPattern(fence_pattern(char, length), meter)

    js._scanstring = counted_scanstring
    js._fence_pattern = counted_fence_pattern

    # Columns are measured by the C codecs (one call): count the characters handed to them.
    text_mod = importlib.import_module("action_lsp.text")
    stream_mod = importlib.import_module("action_lsp.stream")
    for mod, attr in ((text_mod, "units"), (text_mod, "index_at_units"), (stream_mod, "units")):
        original = getattr(mod, attr)

        def measured(s: str, *args: Any, _original: Any = original) -> Any:
            meter.chars += len(s)
            return _original(s, *args)

        saved.append((mod, attr, original))
        setattr(mod, attr, measured)

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            meter.calls += 1

    sys.setprofile(profile)
    try:
        fn(doc)
    finally:
        sys.setprofile(None)
        js._scanstring = scanstring
        js._fence_pattern = fence_pattern
        for mod, attr, value in reversed(saved):
            setattr(mod, attr, value)
    return meter
