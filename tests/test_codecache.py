"""The code attrs and cattrs write at run time, kept between starts of the server
(``action_lsp/codecache.py``): what a later start gets is what ``compile`` would have given."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from action_lsp import codecache
from action_lsp.codecache import CodeCache, cache_file

SOURCE = "def f(x: int) -> int:\n    return x + 1\n"


def _run(code: object) -> dict[str, object]:
    scope: dict[str, object] = {}
    exec(code, scope)
    return scope


def test_a_later_start_gets_the_code_an_earlier_one_compiled(tmp_path: Path) -> None:
    first = CodeCache(cache_file(tmp_path))
    code = first.compile(SOURCE, "<generated f>", "exec")
    assert (first.compiled, first.found) == (1, 0)
    assert first.save()
    second = CodeCache(cache_file(tmp_path))
    again = second.compile(SOURCE, "<generated f>", "exec")
    assert (second.compiled, second.found) == (0, 1)
    assert again == code
    assert _run(again)["f"](2) == 3  # type: ignore[operator]
    assert not second.save()  # nothing new: the file is left as it is


def test_the_future_flags_of_the_caller_are_part_of_what_is_kept(tmp_path: Path) -> None:
    """``compile`` inherits ``from __future__`` flags from the module calling it (attrs's and
    cattrs's have ``annotations``): the same source compiled with and without them is two codes."""
    cache = CodeCache(cache_file(tmp_path))
    inherited = _run(cache.compile(SOURCE, "<f>", "exec"))["f"]  # (this module has annotations)
    plain = _run(cache.compile(SOURCE, "<f>", "exec", dont_inherit=True))["f"]
    assert inherited.__annotations__ == {"x": "int", "return": "int"}  # type: ignore[attr-defined]
    assert plain.__annotations__ == {"x": int, "return": int}  # type: ignore[attr-defined]
    assert _run(compile(SOURCE, "<f>", "exec"))["f"].__annotations__ == inherited.__annotations__  # type: ignore[attr-defined]
    # A name, a mode or a flag that differs is another code, never the one kept for the first.
    assert cache.compile(SOURCE, "<g>", "exec").co_filename == "<g>"
    assert cache.compiled == 3


def test_an_unreadable_cache_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    path = cache_file(tmp_path)
    for junk in (b"", b"not marshal", b"\xe9" * 100, bytes([0x7B]) + b"\x00" * 20):
        path.write_bytes(junk)
        cache = CodeCache(path)
        assert cache.known == {}
        cache.compile(SOURCE, "<f>", "exec")
        assert cache.save()
        assert CodeCache(path).known.keys() == cache.used.keys()


def test_a_cache_that_cannot_be_written_is_not_written(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("a file where the directory would be")
    cache = CodeCache(cache_file(tmp_path / "file" / "cache"))
    cache.compile(SOURCE, "<f>", "exec")
    assert not cache.save()


def test_compile_calls_it_does_not_keep_pass_through(tmp_path: Path) -> None:
    import ast

    cache = CodeCache(cache_file(tmp_path))
    tree = cache.compile(SOURCE, "<f>", "exec", ast.PyCF_ONLY_AST)
    assert isinstance(tree, ast.Module)
    assert isinstance(cache.compile(tree, "<f>", "exec"), type(compile("", "", "exec")))
    assert cache.compiled == 0 and cache.used == {}


@pytest.mark.parametrize(("value", "expected"), [("", None), ("relative/dir", Path("relative/dir"))])
def test_the_cache_directory_is_the_one_named(monkeypatch: pytest.MonkeyPatch, value: str, expected: Path | None) -> None:
    monkeypatch.setenv("ACTION_LSP_CACHE_DIR", value)
    assert codecache.cache_dir() == expected


def test_without_a_named_directory_it_is_the_users_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ACTION_LSP_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert codecache.cache_dir() == tmp_path / "action-lsp"


def _initialize(**env: str | None) -> dict[str, object]:
    """Start ``action-lsp serve`` with ``env`` (None: unset), ask ``initialize``, end it: its answer."""
    def frame(obj: dict[str, object]) -> bytes:
        body = json.dumps(obj).encode()
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    messages = b"".join(frame(m) for m in (
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "processId": None}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ))
    environ = {**os.environ, **{k: v for k, v in env.items() if v is not None}}
    for k in (k for k, v in env.items() if v is None):
        environ.pop(k, None)
    out = subprocess.run([sys.executable, "-m", "action_lsp", "serve"], input=messages, capture_output=True,
                         env=environ, timeout=60, check=True).stdout
    body = out.split(b"\r\n\r\n", 1)[1]
    answer: dict[str, object] = json.JSONDecoder().raw_decode(body.decode())[0]
    return answer


def test_the_server_keeps_its_generated_code_and_answers_the_same_with_it(tmp_path: Path) -> None:
    compiled = _initialize(ACTION_LSP_CACHE_DIR=None, XDG_CACHE_HOME=str(tmp_path))
    kept = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    # (with the answer to initialize: early_init.py; the second start below gives it at once)
    assert kept == sorted([Path("action-lsp"), Path("action-lsp") / cache_file(tmp_path).name,
                           Path("action-lsp") / "initialize-answers-v1.json"])
    assert len(CodeCache(cache_file(tmp_path / "action-lsp")).known) > 500  # (lsprotocol's classes: 561)
    cached = _initialize(ACTION_LSP_CACHE_DIR=str(tmp_path / "action-lsp"))
    assert cached == compiled
    assert compiled["result"]["capabilities"]["textDocumentSync"]  # type: ignore[index]


def test_the_server_keeps_nothing_when_told_so(tmp_path: Path) -> None:
    answer = _initialize(ACTION_LSP_CACHE_DIR="", XDG_CACHE_HOME=str(tmp_path), HOME=str(tmp_path))
    assert answer["id"] == 1
    assert list(tmp_path.iterdir()) == []


def test_exec_of_a_source_runs_the_kept_code_in_the_namespaces_given(tmp_path: Path) -> None:
    """What ``dataclasses`` does with it: ``exec(text, globals, ns)``."""
    cache = CodeCache(cache_file(tmp_path))
    scope: dict[str, object] = {"base": 40}
    ns: dict[str, object] = {}
    cache.exec("def f(x: int):\n    return base + x\n", scope, ns)
    assert ns["f"](2) == 42  # type: ignore[operator]
    assert ns["f"].__annotations__ == {"x": "int"}  # type: ignore[attr-defined]  # (this module's future flags)
    later = CodeCache(cache_file(tmp_path)) if cache.save() else cache
    later.exec("def f(x: int):\n    return base + x\n", scope, ns)
    assert later.found == 1


def test_exec_without_namespaces_uses_the_callers() -> None:
    script = """
from action_lsp.codecache import CodeCache
here = 5
scope = {"here": 7}
CodeCache(None).exec("result = here * 2")  # (the builtin would use this module's namespace)
CodeCache(None).exec("result = here * 2", scope)
print(result, scope["result"])
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.split() == ["10", "14"]


def test_dataclasses_made_with_the_kept_code_behave_as_without(tmp_path: Path) -> None:
    script = """
import dataclasses, json, sys
from action_lsp import codecache
codecache.install()
@dataclasses.dataclass(frozen=True, order=True)
class P:
    x: int
    y: str = "a"
print(json.dumps([repr(P(1)), P(1) == P(1), P(1) < P(2), hash(P(1)) == hash(P(1)), codecache._installed.found]))
"""
    env = {**os.environ, "ACTION_LSP_CACHE_DIR": str(tmp_path)}
    first, second = (json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                               text=True, check=True, timeout=60).stdout) for _ in range(2))
    assert first[:4] == second[:4] == ["P(x=1, y='a')", True, True, True]
    assert first[4] == 0 and second[4] > 0  # (the second run found what the first kept)


def test_no_home_directory_keeps_nothing_and_the_server_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """A server started with no ``HOME`` and no user entry (a bare container): nowhere to keep
    the code, so nothing is kept -- never an error at the start."""
    import pwd

    monkeypatch.delenv("ACTION_LSP_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("HOME", raising=False)
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: (_ for _ in ()).throw(KeyError(uid)))
    assert codecache.cache_dir() is None
    assert codecache.install() is None  # (what `action-lsp serve` calls first: it goes on)


PATTERNS = [
    (r"^(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<value>.+)$", 0),
    (r"(?i)```\s*(\w+)?", 0),
    (r"<(tool|function)_(call|result)\b[^>]*>", re.IGNORECASE | re.MULTILINE),
    (r"""
        (?P<open> <<<<<<< ) \s* (?P<label>\S*)   # a merge marker
     """, re.VERBOSE),
    (rb"\r?\n(?=[^\n])", 0),
    (r"[\u00e9\u4e2d]+|\d{2,}", re.ASCII),
]


def _same(a: re.Pattern[Any], b: re.Pattern[Any]) -> bool:
    """The same pattern: ``==`` compares the flags, the pattern and ``_sre``'s code."""
    return a == b and a.groupindex == b.groupindex and a.groups == b.groups


_imports = iter(range(1_000_000))


def _compiled_by_an_import(cache: CodeCache, patterns: list[tuple[Any, int]], where: Path) -> list[Any]:
    """``patterns`` compiled by ``cache`` from the code of a module being imported (as the
    scanner's are: at the top of its modules)."""
    name = f"_patterns_{next(_imports)}"
    (where / f"{name}.py").write_text("import _holder\n_holder.made = [_holder.compile(*a) for a in _holder.patterns]\n")
    holder = types.SimpleNamespace(compile=cache.compile_pattern, patterns=patterns, made=[])
    sys.modules["_holder"] = holder  # type: ignore[assignment]
    sys.path.insert(0, str(where))
    try:
        importlib.import_module(name)
    finally:
        sys.path.remove(str(where))
        del sys.modules["_holder"], sys.modules[name]
    made: list[Any] = holder.made
    return made


def test_a_later_start_gets_the_regular_expressions_an_earlier_one_compiled(tmp_path: Path) -> None:
    first = CodeCache(cache_file(tmp_path))
    made = _compiled_by_an_import(first, PATTERNS, tmp_path)
    assert first.patterns_compiled == len(PATTERNS)
    assert first.save()
    later = CodeCache(cache_file(tmp_path))
    kept = [later.compile_pattern(p, f) for p, f in PATTERNS]
    assert later.patterns_found == len(PATTERNS) and later.patterns_compiled == 0
    for (p, f), a, b in zip(PATTERNS, made, kept, strict=True):
        assert _same(a, codecache._RE_COMPILE(p, f)) and _same(b, a)
    assert kept[0].match("x = 1").groupdict() == {"name": "x", "value": "1"}
    assert kept[2].search("<Tool_Result id=1>")  # (the flags kept with it)


def test_a_pattern_compiled_after_the_imports_is_not_kept(tmp_path: Path) -> None:
    """A pattern a function compiles at run time may hold a document's text (a file name the
    scanner searches for): it is compiled as ``re`` would, and not written to the cache."""
    cache = CodeCache(cache_file(tmp_path))
    _compiled_by_an_import(cache, PATTERNS[:1], tmp_path)
    searched = cache.compile_pattern(r"(?:[\w.@\-]+/)+" + re.escape("private_notes.py"), 0)
    assert _same(searched, codecache._RE_COMPILE(r"(?:[\w.@\-]+/)+" + re.escape("private_notes.py"), 0))
    assert cache.save()
    assert b"private_notes" not in cache_file(tmp_path).read_bytes()
    assert list(CodeCache(cache_file(tmp_path)).patterns) == [PATTERNS[0]]


def test_patterns_kept_by_another_build_of_the_interpreter_are_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The code ``re`` writes may change with a bug-fix release (the bytecode's magic number,
    in the file's name, does not): what another build kept is compiled again."""
    first = CodeCache(cache_file(tmp_path))
    first.compile(SOURCE, "<kept>", "exec")
    _compiled_by_an_import(first, PATTERNS[:1], tmp_path)
    first.save()
    monkeypatch.setattr(codecache, "_RE_BUILD", ("3.11.0 (another build)", 0))
    later = CodeCache(cache_file(tmp_path))
    assert later.patterns == {} and len(later.known) == len(first.known) == 1
    assert _same(later.compile_pattern(*PATTERNS[0]), re.compile(*PATTERNS[0]))


def test_kept_code_an_interpreter_refuses_is_compiled_again(tmp_path: Path) -> None:
    cache = CodeCache(cache_file(tmp_path))
    cache.patterns[("a+b", 0)] = (0, [999, 1, 2], 0, {}, (None,))  # (not code _sre accepts)
    (made,) = _compiled_by_an_import(cache, [("a+b", 0)], tmp_path)
    assert _same(made, re.compile("a+b"))
    assert cache.patterns_found == 0 and cache.patterns_compiled == 1


def test_the_servers_patterns_made_from_kept_code_are_the_ones_re_makes(tmp_path: Path) -> None:
    """Every regular expression the server compiles before it answers (the scanner's, about
    240), made by a second start from what the first kept: equal to what ``re`` makes."""
    script = """
import json
from action_lsp import codecache
cache = codecache.install()
import action_lsp.server.server as S
S.create_server()
print(json.dumps([cache.patterns_compiled, cache.patterns_found]))
cache.save()
"""
    env = {**os.environ, "ACTION_LSP_CACHE_DIR": str(tmp_path)}
    first, second = (json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                                               text=True, check=True, timeout=60).stdout) for _ in range(2))
    assert first[0] > 100 and second == [0, first[0] + first[1]]
    kept = CodeCache(cache_file(tmp_path)).patterns
    assert len(kept) == first[0] + first[1]
    for (p, f), args in kept.items():
        assert _same(codecache._sre.compile(p, *args), codecache._RE_COMPILE(p, f)), p


def test_when_re_s_internals_are_not_as_read_re_compiles_and_nothing_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another Python's ``re`` may write its code otherwise: whatever fails in restating it,
    the pattern is the one ``re`` makes, and a bad pattern is re's own error."""
    def changed(p: object, flags: int) -> Any:
        raise AttributeError("module 're._parser' has no attribute 'parse'")

    monkeypatch.setattr(codecache, "_pattern_args", changed)
    cache = CodeCache(cache_file(tmp_path))
    made = _compiled_by_an_import(cache, PATTERNS, tmp_path)
    assert all(_same(m, codecache._RE_COMPILE(p, f)) for m, (p, f) in zip(made, PATTERNS, strict=True))
    assert cache.patterns == {} and cache.patterns_compiled == 0
    with pytest.raises(re.error):
        cache.compile_pattern("a(b", 0)


def test_on_a_python_whose_re_was_not_read_re_is_left_as_it_is(tmp_path: Path) -> None:
    script = """
import re
from action_lsp import codecache
codecache.RE_VERSIONS = ()
before = re._compiler.compile
assert codecache.install() is not None
print(re._compiler.compile is before)
"""
    env = {**os.environ, "ACTION_LSP_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"



def test_patterns_compiled_while_keeping_are_kept_without_a_save_of_their_own(tmp_path: Path) -> None:
    """The warm-up's scan of its own sample compiles the scanner's patterns from the dialects
    (``codecache.keeping``): they are kept like an import's, written with the next save, but do
    not call for one (one of them changes from run to run: see ``keeping``)."""
    cache = CodeCache(cache_file(tmp_path))
    codecache._installed, installed = cache, codecache._installed
    try:
        with codecache.keeping():
            made = cache.compile_pattern(*PATTERNS[0])
        searched = cache.compile_pattern(r"notes\.py", 0)
    finally:
        codecache._installed = installed
    assert _same(made, codecache._RE_COMPILE(*PATTERNS[0])) and _same(searched, re.compile(r"notes\.py"))
    assert cache.patterns_compiled == 0 and not cache.save()
    cache.compile(SOURCE, "<kept>", "exec")  # (new code: a save is due, and takes the pattern along)
    assert cache.save()
    later = CodeCache(cache_file(tmp_path))
    assert list(later.patterns) == [PATTERNS[0]]


def test_keeping_without_a_cache_installed_does_nothing() -> None:
    installed, codecache._installed = codecache._installed, None
    try:
        with codecache.keeping():
            assert re.compile("k+eep").match("kkeep")
    finally:
        codecache._installed = installed
