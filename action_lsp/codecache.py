"""The code that attrs and cattrs write at run time, kept between starts of the language server.

lsprotocol declares the LSP's 561 types with attrs, which writes the source of each class's
``__init__``, ``__eq__``, ``__repr__`` ... and compiles it as the class is made: 554 calls of
``compile``, 0.15-0.17 s of the 0.3 s that importing lsprotocol costs, at every start of the
server, while the editor waits for the answer to ``initialize`` (measured: docs/server.md).
cattrs does the same for each type it first converts, and ``dataclasses`` for action-lsp's own
classes (311 methods, 30-50 ms). Python keeps the bytecode of modules in
``__pycache__``, not this code; this module keeps it: :func:`install` puts a ``compile`` that
remembers what it compiled into the modules of attrs and cattrs that write code (and an
``exec`` that compiles with it into ``dataclasses``), and
:func:`save` writes what was compiled to a file in the user's cache directory, read back at the
next start (one ``marshal.loads``, a few ms).

What is kept is exactly what ``compile`` gave: a code object is found by a hash of everything
``compile`` reads (the source, the file name, the mode, the ``__future__`` flags in effect where
it was called, the optimization level), and the file is specific to the interpreter (its bytecode
magic number), as ``.pyc`` files are. A file that cannot be read is ignored (and replaced at the
next save); one that cannot be written is not written. Only ``action-lsp serve`` installs it.

The scanner's regular expressions are kept the same way: ``re`` parses and compiles each pattern
in Python (``re._compiler.compile``: 0.1-0.2 ms a pattern, 40-55 ms for the 239 the server
compiles before it answers ``initialize``) before handing its code to ``_sre.compile``;
:func:`install` puts :meth:`CodeCache.compile_pattern` in its place, which keeps those arguments
(found by the pattern and its flags; kept per interpreter build, ``sys.version`` and
``_sre.MAGIC``), so a later start gives ``_sre.compile`` the same code without parsing. A
pattern made from kept code equals (``==``) the one ``re`` makes. Only the patterns compiled
while a module is imported are kept: those come from code; one compiled later may come from a
document (a file name searched for), which is not written to the cache. The one exception is
asked for by name: the server's warm-up scans a sample of its own (``server/warm.py``) inside
:func:`keeping`, and the patterns the scanner builds from the enabled dialects there are kept.

``ACTION_LSP_CACHE_DIR`` names the directory (empty: keep nothing); otherwise
``$XDG_CACHE_HOME/action-lsp``, ``~/.cache/action-lsp`` (``~/Library/Caches/action-lsp`` on macOS,
``%LOCALAPPDATA%\\action-lsp\\cache`` on Windows).
"""

from __future__ import annotations
import __future__

import atexit
import builtins
import contextlib
import functools
import importlib
import importlib.util
import marshal
import operator
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import CodeType
from typing import Any

try:  # (hashlib's blake2b itself, without the OpenSSL library hashlib loads: 3-12 ms of the start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover  (an interpreter built without it)
    from hashlib import blake2b

# The modules whose ``compile`` calls make the code kept: attrs's classes, cattrs's converters;
# and those whose ``exec`` of a source text does: the dataclasses (action-lsp's own, 311 methods).
MODULES = ("attr._make", "cattrs.gen", "cattrs.gen.typeddicts")
EXEC_MODULES = ("dataclasses",)
# The file's layout, in its name: two versions of action-lsp sharing the directory (one keeping
# code only, the next code and patterns) each keep a file of their own instead of replacing
# each other's at every start.
FORMAT = "v2"
# The Python versions whose ``re._compiler.compile`` :func:`_pattern_args` restates (read and
# tested); on any other, patterns are compiled by ``re`` itself and none is kept.
RE_VERSIONS = ((3, 11), (3, 12), (3, 13))
MAX_BYTES = 64 << 20  # a cache file larger than this is not read (not one this module wrote)

# The interpreter build whose ``re`` wrote a kept pattern's code (a bug-fix release may change it).
_RE_BUILD = (sys.version, getattr(re._compiler._sre, "MAGIC", 0))  # type: ignore[attr-defined]
# What ``_sre.compile`` takes after the pattern: flags, code, groups, group index, index group.
PatternArgs = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]

# Every ``from __future__`` flag: the ones ``compile`` inherits from the code that calls it.
_FUTURE = functools.reduce(operator.or_, (getattr(__future__, f).compiler_flag for f in __future__.all_feature_names))


def cache_dir() -> Path | None:
    """Where the cache is kept (None: nowhere, see the module doc)."""
    named = os.environ.get("ACTION_LSP_CACHE_DIR")
    if named is not None:
        return Path(named) if named else None
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "action-lsp"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "action-lsp" / "cache"
    try:
        home = Path.home()
    except (RuntimeError, KeyError, OSError):  # no HOME and no user entry: keep nothing
        return None
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "action-lsp"
    return home / ".cache" / "action-lsp"


def cache_file(directory: Path) -> Path:
    """The file for this interpreter (its implementation, version and bytecode magic number)."""
    return directory / f"generated-code-{FORMAT}-{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}.marshal"


class CodeCache:
    """A ``compile`` that gives back the code it (or an earlier run) made for the same input."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.known: dict[bytes, CodeType]
        self.patterns: dict[tuple[str | bytes, int], PatternArgs]  # (the regular expressions: see the module doc)
        self.known, self.patterns = _read(path) if path is not None else ({}, {})
        self.used: dict[bytes, CodeType] = {}  # (what this run compiled or found: what is saved)
        self.patterns_used: dict[tuple[str | bytes, int], PatternArgs] = {}
        self.compiled = 0  # compiled by this run (not found): a save is due
        self.found = 0
        self.patterns_compiled = 0  # (the same for the regular expressions)
        self.patterns_found = 0
        self.keep = 0  # > 0: inside :func:`keeping` (patterns kept as an import's are)

    def compile(self, source: Any, filename: Any, mode: str, flags: int = 0, dont_inherit: bool = False,
                optimize: int = -1, **kwargs: Any) -> Any:
        if not dont_inherit:  # what the builtin would inherit from its caller, not from here
            flags |= sys._getframe(1).f_code.co_flags & _FUTURE
        if type(source) is not str or type(filename) is not str or flags & ~_FUTURE or kwargs:
            return builtins.compile(source, filename, mode, flags, True, optimize, **kwargs)
        level = optimize if optimize != -1 else sys.flags.optimize
        head = f"{mode}\0{flags}\0{level}\0{filename}\0".encode("utf-8", "surrogatepass")
        key = blake2b(head + source.encode("utf-8", "surrogatepass"), digest_size=20).digest()
        code = self.known.get(key)
        if code is None:
            code = builtins.compile(source, filename, mode, flags, True, optimize)
            self.known[key] = code
            self.compiled += 1
        else:
            self.found += 1
        self.used[key] = code
        return code

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        """``exec``, with a source text compiled by :meth:`compile` (as ``exec`` compiles it:
        file name ``<string>``, the caller's ``__future__`` flags)."""
        caller = sys._getframe(1)
        if globals is None:  # (the caller's namespaces, as the builtin takes them)
            globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
        if type(source) is str and not kwargs:
            source = self.compile(source, "<string>", "exec", caller.f_code.co_flags & _FUTURE, True)
        builtins.exec(source, globals, locals, **kwargs)

    def compile_pattern(self, p: Any, flags: int = 0) -> Any:
        """``re._compiler.compile``, with the code of a pattern compiled before found, not made.
        (What it does when not found is that function's body, the same in Python 3.11-3.13.)"""
        if type(p) not in (str, bytes) or not isinstance(flags, int) or flags & re.DEBUG:
            return _RE_COMPILE(p, flags)
        flags = int(flags)  # (a RegexFlag: re.compile passes ints, a direct call may not)
        key = (p, flags)
        args = self.patterns.get(key)
        if args is not None:
            try:
                pattern = _sre.compile(p, *args)
            except Exception:  # (not code this interpreter takes: made again below)
                del self.patterns[key]
            else:
                self.patterns_found += 1
                self.patterns_used[key] = args
                return pattern
        try:
            args = _pattern_args(p, flags)
            pattern = _sre.compile(p, *args)
        except Exception:  # (a bad pattern, or re's internals not as read: re's own compile, nothing kept)
            return _RE_COMPILE(p, flags)
        if self.keep:  # (kept, but no save of its own is due: see keeping)
            self.patterns[key] = self.patterns_used[key] = args
        elif _importing():  # (see the module doc: none made from a document is kept)
            self.patterns[key] = self.patterns_used[key] = args
            self.patterns_compiled += 1
        return pattern

    def save(self) -> bool:
        """Write what this run used, if it compiled anything new (the file then holds no code
        that an upgraded attrs or lsprotocol no longer writes). All or nothing: a temporary
        file renamed over the old one (two servers saving at once: one of them wins)."""
        if self.path is None or not (self.compiled or self.patterns_compiled):
            return False
        import tempfile  # (not at the start: it imports random, shutil ...)

        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".generated-code-", dir=self.path.parent)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(marshal.dumps((self.used, _RE_BUILD, self.patterns_used)))
                os.replace(tmp, self.path)
            except BaseException:
                os.unlink(tmp)
                raise
        except (OSError, ValueError):  # (ValueError: nothing marshal can write, a bug: keep nothing)
            return False
        self.compiled = self.patterns_compiled = 0
        return True


def _pattern_args(p: str | bytes, flags: int) -> PatternArgs:
    """What ``re._compiler.compile`` hands to ``_sre.compile`` after the pattern (its body in
    Python 3.11-3.13: see :data:`RE_VERSIONS`)."""
    parsed = re._parser.parse(p, flags)  # type: ignore[attr-defined]
    code = list(map(int, re._compiler._code(parsed, flags)))  # type: ignore[attr-defined]  # (named opcodes)
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, i in groupindex.items():
        indexgroup[i] = name
    return (flags | parsed.state.flags, code, parsed.state.groups - 1, groupindex, tuple(indexgroup))


def _importing() -> bool:
    """Whether the import system is running a module's code (somewhere up the stack)."""
    frame = sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "_call_with_frames_removed" and "importlib._bootstrap" in code.co_filename:
            return True
        frame = frame.f_back  # type: ignore[assignment]
    return False


def _read(path: Path) -> tuple[dict[bytes, CodeType], dict[tuple[str | bytes, int], PatternArgs]]:
    """The kept code and patterns (nothing of what is not as :meth:`CodeCache.save` writes it;
    no patterns written by another build of the interpreter)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return {}, {}
        found = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return {}, {}
    if type(found) is not tuple or len(found) != 3:
        return {}, {}
    code, build, patterns = found
    if type(code) is not dict or not all(type(k) is bytes and type(v) is CodeType for k, v in code.items()):
        return {}, {}
    if build != _RE_BUILD or type(patterns) is not dict or not all(map(_pattern_entry, patterns.items())):
        return code, {}
    return code, patterns


def _pattern_entry(item: tuple[Any, Any]) -> bool:
    key, args = item
    return (type(key) is tuple and len(key) == 2 and type(key[0]) in (str, bytes) and type(key[1]) is int
            and type(args) is tuple and len(args) == 5 and type(args[1]) is list and type(args[3]) is dict)


_installed: CodeCache | None = None
_sre: Any = re._compiler._sre  # type: ignore[attr-defined]
_RE_COMPILE = re._compiler.compile  # type: ignore[attr-defined]


def install() -> CodeCache | None:
    """Put the remembering ``compile`` into the modules that write code (importing them), once;
    saved at exit. None when the cache is kept nowhere or those modules are not there."""
    global _installed
    if _installed is not None:
        return _installed
    directory = cache_dir()
    if directory is None:
        return None
    try:
        modules = [importlib.import_module(name) for name in MODULES]
        exec_modules = [importlib.import_module(name) for name in EXEC_MODULES]
    except ImportError:
        return None
    cache = CodeCache(cache_file(directory))
    for module in modules:
        module.compile = cache.compile  # type: ignore[attr-defined]  # (shadows the builtin there)
    for module in exec_modules:
        module.exec = cache.exec  # type: ignore[attr-defined]
    if sys.version_info[:2] in RE_VERSIONS and re._compiler.compile is _RE_COMPILE:  # type: ignore[attr-defined]
        re._compiler.compile = cache.compile_pattern  # type: ignore[attr-defined]
    _installed = cache
    atexit.register(cache.save)
    return cache


@contextlib.contextmanager
def keeping() -> Iterator[None]:
    """Keep the patterns compiled meanwhile, as those compiled by an import are (for code that
    compiles only patterns made from code: the warm-up's scan of its own sample). They are
    written with the next save, but call for none of their own: one of them changes from run to
    run (``markdown.glued_closer`` lists a set's tag names in the set's order, which follows
    the strings' hashes), and a save, 10-20 ms, would come at every start."""
    cache = _installed
    if cache is None:
        yield
        return
    cache.keep += 1
    try:
        yield
    finally:
        cache.keep -= 1


def save() -> bool:
    """Save the installed cache now if it compiled anything new (see :meth:`CodeCache.save`)."""
    return _installed.save() if _installed is not None else False
