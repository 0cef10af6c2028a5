"""Static check of code an agent wants executed: what it reaches beyond its sandbox's API.

The code is parsed, never run. For Python (``execute_code`` calling the ``gb`` API, or an
``aether-sandbox`` block) we flag builtins that touch files, run strings as code or expose the
interpreter, dunder access (the classic way out of a restricted ``exec``) and imports of modules
that reach the system, files or network. For JavaScript/TypeScript: ``eval``, the ``Function``
constructor, modules that reach the system, ``process.env``/``process.exit`` and ``globalThis``.
Ranges are the exact name (call name, attribute, module), as code-point indices.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from action_lsp.syntax.languages import Lang
from action_lsp.syntax.parse import Parsed, Results, parse

if TYPE_CHECKING:
    from tree_sitter import Node


@dataclass(frozen=True, slots=True)
class UnsafeUse:
    """One reach outside the sandbox: ``name`` is what is used, ``message`` why it matters."""

    start: int
    end: int
    name: str
    message: str


_FOUND = Results()


def unsafe_code(code: str, lang: Lang | None) -> list[UnsafeUse]:
    """The unsafe uses in ``code``, in document order; [] for languages without a check."""
    if lang is None:
        return []
    check = _CHECKS.get(lang.name)
    if check is None:
        return []
    # Every use the checks report is named by text that contains one of these strings (the
    # name is a slice of ``code``): code without any of them has none, and is not walked.
    if not _TRIGGERS[lang.name].search(code):
        return []
    key = (lang.name, code, 0)
    found = _FOUND.get(key)
    if not isinstance(found, tuple):
        found = tuple(_walk(code, lang, check))
        _FOUND.put(key, found)
    return list(found)


def _walk(code: str, lang: Lang, check: Callable[[Parsed, Node, list[UnsafeUse]], None]) -> list[UnsafeUse]:
    parsed = parse(code, lang)
    out: list[UnsafeUse] = []
    stack: list[Node] = [parsed.root]
    while stack:
        node = stack.pop()
        check(parsed, node, out)
        stack.extend(reversed(node.named_children))
    out.sort(key=lambda use: (use.start, use.end))
    return out


def _use(parsed: Parsed, node: Node, name: str, message: str) -> UnsafeUse:
    return UnsafeUse(parsed.start(node), parsed.end(node), name, message)


# --- Python -------------------------------------------------------------------------------

_PY_CALLS = {
    "open": "`open()` reads or writes files outside the gb API",
    "eval": "`eval()` runs a string as code, out of reach of any check",
    "exec": "`exec()` runs a string as code, out of reach of any check",
    "compile": "`compile()` turns a string into code, out of reach of any check",
    "__import__": "`__import__()` imports any module, past the import check",
    "globals": "`globals()` exposes the interpreter's namespace, builtins included",
    "locals": "`locals()` exposes the interpreter's namespace",
    "vars": "`vars()` exposes an object's or the interpreter's namespace",
    "breakpoint": "`breakpoint()` starts a debugger and blocks the run",
    "input": "`input()` waits for console input that the sandbox never gives",
}
_PY_ATTR_CALLS = frozenset({"getattr", "setattr", "delattr"})

_SYSTEM = "runs commands or changes the process and its environment"
_INTERPRETER = "reaches interpreter state (loaded modules, exit, standard streams)"
_FILES = "reads or writes files outside the gb API"
_NETWORK = "reaches the network"
_ESCAPE = "reaches interpreter internals, a way out of the restricted globals"
_UNPICKLE = "loading its data can run arbitrary code"
_PY_MODULES = {
    "os": _SYSTEM,
    "sys": _INTERPRETER,
    "subprocess": _SYSTEM,
    "pty": _SYSTEM,
    "multiprocessing": _SYSTEM,
    "signal": _SYSTEM,
    "resource": _SYSTEM,
    "shutil": _FILES,
    "pathlib": _FILES,
    "io": _FILES,
    "tempfile": _FILES,
    "glob": _FILES,
    "fileinput": _FILES,
    "socket": _NETWORK,
    "ssl": _NETWORK,
    "requests": _NETWORK,
    "urllib": _NETWORK,
    "urllib3": _NETWORK,
    "http": _NETWORK,
    "httpx": _NETWORK,
    "aiohttp": _NETWORK,
    "ftplib": _NETWORK,
    "smtplib": _NETWORK,
    "webbrowser": _NETWORK,
    "ctypes": _ESCAPE,
    "importlib": _ESCAPE,
    "builtins": _ESCAPE,
    "runpy": _ESCAPE,
    "code": _ESCAPE,
    "inspect": _ESCAPE,
    "gc": _ESCAPE,
    "pickle": _UNPICKLE,
    "marshal": _UNPICKLE,
    "shelve": _UNPICKLE,
    "dill": _UNPICKLE,
}
_PY_NOT_A_REFERENCE = frozenset(
    {"attribute", "function_definition", "class_definition", "keyword_argument", "dotted_name"}
)
# Dunders that are everyday Python and reach nothing dangerous.
_PY_HARMLESS_DUNDERS = frozenset({"__name__", "__doc__", "__init__", "__qualname__", "__main__"})


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _check_python(parsed: Parsed, node: Node, out: list[UnsafeUse]) -> None:
    kind = node.type
    if kind == "call":
        function = node.child_by_field_name("function")
        if function is None or function.type != "identifier":
            return
        name = parsed.text(function)
        message = _PY_CALLS.get(name)
        if message is not None:
            out.append(_use(parsed, function, name, message))
        elif name in _PY_ATTR_CALLS:
            message = _attr_call_message(parsed, node, name)
            if message is not None:
                out.append(_use(parsed, function, name, message))
    elif kind == "attribute":
        attribute = node.child_by_field_name("attribute")
        if attribute is not None:
            name = parsed.text(attribute)
            if _is_dunder(name) and name not in _PY_HARMLESS_DUNDERS:
                out.append(_use(parsed, attribute, name, f"`.{name}` {_ESCAPE}"))
    elif kind == "identifier":
        name = parsed.text(node)
        if not _is_dunder(name) or name in _PY_HARMLESS_DUNDERS:
            return
        parent = node.parent
        if parent is None or parent.type in _PY_NOT_A_REFERENCE:
            return  # attributes are checked above; definitions and keywords reach nothing
        if parent.type == "call" and parent.child_by_field_name("function") == node:
            return  # `__import__(...)` is reported as a call
        message = _PY_CALLS.get(name) or f"`{name}` {_ESCAPE}"
        out.append(_use(parsed, node, name, message))
    elif kind == "exec_statement":  # Python 2 `exec "code"`, which tree-sitter also accepts
        keyword = node.child(0)
        if keyword is not None:
            out.append(_use(parsed, keyword, "exec", _PY_CALLS["exec"]))
    elif kind == "import_statement":
        for child in node.children_by_field_name("name"):
            module = child.child_by_field_name("name") if child.type == "aliased_import" else child
            if module is not None:
                _check_python_module(parsed, module, out)
    elif kind == "import_from_statement":
        module = node.child_by_field_name("module_name")
        if module is not None and module.type == "dotted_name":
            _check_python_module(parsed, module, out)


def _check_python_module(parsed: Parsed, module: Node, out: list[UnsafeUse]) -> None:
    name = parsed.text(module)
    why = _PY_MODULES.get(name.split(".", 1)[0].strip())
    if why is not None:
        out.append(_use(parsed, module, name, f"`{name}` {why}"))


def _attr_call_message(parsed: Parsed, call: Node, name: str) -> str | None:
    """Why a getattr/setattr/delattr call is unsafe, or None when its name is a plain literal."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    positional = [
        a for a in arguments.named_children if a.type not in ("keyword_argument", "comment")
    ]
    if len(positional) < 2:
        return None
    attr = _python_literal(parsed, positional[1])
    if attr is None:
        return f"`{name}()` with a computed name can reach any attribute, dunders included"
    if _is_dunder(attr) and attr not in _PY_HARMLESS_DUNDERS:
        return f"`{name}()` of `{attr}` {_ESCAPE}"
    return None


def _python_literal(parsed: Parsed, node: Node) -> str | None:
    """The value of a plain string literal (no interpolation), else None."""
    if node.type != "string":
        return None
    parts = [c for c in node.named_children if c.type not in ("string_start", "string_end")]
    if any(c.type != "string_content" for c in parts):
        return None
    start = node.child(0)
    if start is not None and "f" in parsed.text(start).lower():
        return None
    return "".join(parsed.text(c) for c in parts)


# --- JavaScript / TypeScript --------------------------------------------------------------

_JS_MODULES = {
    "child_process": "runs shell commands",
    "fs": "reads or writes files",
    "net": "opens network connections",
    "dgram": "opens network connections",
    "tls": "opens network connections",
    "http": "opens network connections",
    "https": "opens network connections",
    "http2": "opens network connections",
    "vm": "runs strings as code",
}
_JS_PROCESS = {
    "env": "`process.env` reads the environment (secrets, tokens)",
    "exit": "`process.exit` ends the host process",
    "kill": "`process.kill` signals other processes",
    "chdir": "`process.chdir` changes the working directory",
    "binding": "`process.binding` reaches Node internals",
    "dlopen": "`process.dlopen` loads native code",
}
_JS_IMPORT_PARENTS = frozenset({"import_statement", "export_statement", "import_require_clause"})


def _check_javascript(parsed: Parsed, node: Node, out: list[UnsafeUse]) -> None:
    kind = node.type
    if kind == "call_expression":
        function = node.child_by_field_name("function")
        if function is None:
            return
        name = parsed.text(function)
        if function.type == "identifier" and name == "eval":
            out.append(
                _use(
                    parsed,
                    function,
                    name,
                    "`eval()` runs a string as code, out of reach of any check",
                )
            )
        elif function.type == "identifier" and name == "Function":
            out.append(
                _use(
                    parsed,
                    function,
                    name,
                    "`Function()` builds a function from a string, like eval",
                )
            )
        elif (function.type == "identifier" and name == "require") or function.type == "import":
            arguments = node.child_by_field_name("arguments")
            first = arguments.named_children[0] if arguments and arguments.named_children else None
            if first is not None:
                _check_js_module(parsed, first, out)
    elif kind == "new_expression":
        constructor = node.child_by_field_name("constructor")
        if (
            constructor is not None
            and constructor.type == "identifier"
            and parsed.text(constructor) == "Function"
        ):
            out.append(
                _use(
                    parsed,
                    constructor,
                    "Function",
                    "`new Function()` builds a function from a string, like eval",
                )
            )
    elif kind == "string":
        parent = node.parent
        if (
            parent is not None
            and parent.type in _JS_IMPORT_PARENTS
            and parent.child_by_field_name("source") == node
        ):
            _check_js_module(parsed, node, out)
    elif kind == "member_expression":
        target = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if (
            target is not None
            and prop is not None
            and target.type == "identifier"
            and parsed.text(target) == "process"
        ):
            message = _JS_PROCESS.get(parsed.text(prop))
            if message is not None:
                out.append(_use(parsed, node, parsed.text(node), message))
    elif kind == "identifier" and parsed.text(node) == "globalThis":
        out.append(
            _use(
                parsed,
                node,
                "globalThis",
                "`globalThis` reaches every global of the host, past any sandbox",
            )
        )


def _check_js_module(parsed: Parsed, literal: Node, out: list[UnsafeUse]) -> None:
    """Flag a module specifier (a plain string or template literal without substitutions)."""
    if literal.type not in ("string", "template_string"):
        return
    fragments = literal.named_children
    if len(fragments) != 1 or fragments[0].type != "string_fragment":
        return
    fragment = fragments[0]
    spec = parsed.text(fragment)
    base = spec.removeprefix("node:").split("/", 1)[0]
    why = _JS_MODULES.get(base)
    if why is not None:
        out.append(_use(parsed, fragment, spec, f"`{spec}` {why}"))


# What the text of every reported use contains: a call name of ``_PY_CALLS`` or
# ``_PY_ATTR_CALLS``, a dunder, an import (modules are only checked there) or Python 2's
# ``exec``; in JavaScript ``eval``, ``Function``, ``require``, ``import`` / ``export`` (module
# sources), ``process`` and ``globalThis``. Substrings, not words: a superset is harmless.
_PY_TRIGGERS = re.compile(
    "|".join(re.escape(w) for w in sorted({*_PY_CALLS, *_PY_ATTR_CALLS, "__", "import", "exec"}))
)
_JS_TRIGGERS = re.compile("eval|Function|require|import|export|process|globalThis")
_TRIGGERS = {"python": _PY_TRIGGERS, "javascript": _JS_TRIGGERS, "typescript": _JS_TRIGGERS, "tsx": _JS_TRIGGERS}

_CHECKS: dict[str, Callable[[Parsed, Node, list[UnsafeUse]], None]] = {
    "python": _check_python,
    "javascript": _check_javascript,
    "typescript": _check_javascript,
    "tsx": _check_javascript,
}
