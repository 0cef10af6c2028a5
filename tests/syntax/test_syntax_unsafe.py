import pytest

from action_lsp.syntax import Lang, language_for, unsafe_code


def lang(name: str) -> Lang:
    found = language_for(language=name)
    assert found is not None
    return found


def uses(code: str, name: str) -> list[tuple[str, str]]:
    """(text at the range, name) of each unsafe use; checks the range holds the name."""
    found = unsafe_code(code, lang(name))
    return [(code[u.start : u.end], u.name) for u in found]


CLEAN_GB = """\
import json
import threading
from datetime import datetime

# Create tasks from a list é 😀
tasks = ['Review PR #123', 'Update documentation', 'Fix bug in authentication']
created_ids = []
for task_content in tasks:
    result = gb.create_task(task_content, notes='Auto-generated', status="pending")
    created_ids.append(result['task_id'])
    gb.log(f"Created task: {result['task_id']}")

summary = json.dumps({'created_tasks': created_ids, 'total': len(created_ids)})
gb.datavault_store(summary, filetype='json', notes='Task creation summary')
name = getattr(result, 'get')
print(f"Created {len(created_ids)} tasks at {datetime.now()}", type(summary).__name__)
if __name__ == "__main__":
    pass
"""


def test_clean_gb_code() -> None:
    assert unsafe_code(CLEAN_GB, lang("py")) == []
    assert unsafe_code("gb.create_task('x', notes='y')", lang("python")) == []


@pytest.mark.parametrize(
    "name",
    [
        "open",
        "eval",
        "exec",
        "compile",
        "__import__",
        "globals",
        "locals",
        "vars",
        "breakpoint",
        "input",
    ],
)
def test_python_builtin_calls(name: str) -> None:
    code = f"s = '😀 é'\nx = {name}('a')\n"
    (use,) = unsafe_code(code, lang("py"))
    assert (use.start, use.end, use.name) == (code.index(name), code.index(name) + len(name), name)
    assert use.message.startswith(f"`{name}()`")


def test_open_message() -> None:
    (use,) = unsafe_code("open('/etc/passwd')", lang("py"))
    assert use.message == "`open()` reads or writes files outside the gb API"


def test_method_calls_with_builtin_names_are_fine() -> None:
    assert uses("repo.open('x'); gb.eval(1); obj.input", "py") == []


def test_getattr_family() -> None:
    code = (
        "getattr(x, 'name')\n"
        "getattr(x, attr)\n"
        "setattr(x, '__class__', y)\n"
        "delattr(x, f'{a}')\n"
        "getattr(x, 'a' + b)\n"
        "hasattr(x, attr)\n"
    )
    found = unsafe_code(code, lang("py"))
    assert [(code[u.start : u.end], u.start) for u in found] == [
        ("getattr", code.index("getattr(x, attr)")),
        ("setattr", code.index("setattr")),
        ("delattr", code.index("delattr")),
        ("getattr", code.index("getattr(x, 'a'")),
    ]
    assert "computed name" in found[0].message
    assert "`__class__`" in found[1].message


def test_dunder_access() -> None:
    code = "s = '中文'\nescape = ().__class__.__bases__[0].__subclasses__()\nb = __builtins__\nf = __import__\n"
    assert uses(code, "py") == [
        ("__class__", "__class__"),
        ("__bases__", "__bases__"),
        ("__subclasses__", "__subclasses__"),
        ("__builtins__", "__builtins__"),
        ("__import__", "__import__"),
    ]
    code = "x = f'{fn.__globals__}'"
    assert uses(code, "py") == [("__globals__", "__globals__")]


def test_everyday_dunders_are_fine() -> None:
    code = (
        "class A(B):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "    def __repr__(self):\n"
        "        return type(self).__name__ + self.__doc__\n"
        "if __name__ == '__main__':\n"
        "    A()\n"
    )
    assert uses(code, "py") == []


def test_python_imports() -> None:
    code = (
        "import os.path as p, json, threading\n"
        "import sys\n"
        "from subprocess import run\n"
        "from . import helpers\n"
        "from .os import thing\n"
        "import requests, urllib.request\n"
        "from pathlib import Path\n"
        "import io, pickle, ctypes, importlib, socket, shutil, marshal, builtins, pty, multiprocessing, http.client\n"
    )
    assert [name for _, name in uses(code, "py")] == [
        "os.path",
        "sys",
        "subprocess",
        "requests",
        "urllib.request",
        "pathlib",
        "io",
        "pickle",
        "ctypes",
        "importlib",
        "socket",
        "shutil",
        "marshal",
        "builtins",
        "pty",
        "multiprocessing",
        "http.client",
    ]
    found = unsafe_code(code, lang("py"))
    assert code[found[0].start : found[0].end] == "os.path"
    assert found[3].message == "`requests` reaches the network"
    assert code[found[2].start : found[2].end] == "subprocess"


def test_python2_exec_statement() -> None:
    assert uses("exec 'x = 1'\n", "py") == [("exec", "exec")]


def test_javascript() -> None:
    code = (
        "// é 😀\n"
        "import { exec } from 'node:child_process';\n"
        "import path from 'path';\n"
        "const fs = require('fs');\n"
        'const net = await import("net");\n'
        "export * from 'https';\n"
        "eval('1'); obj.eval('2');\n"
        "const f = new Function('a', 'return a'); Function('x');\n"
        "console.log(process.env.HOME, process.argv); process.exit(1);\n"
        "globalThis.x = 1; require(`fs/promises`); require(name);\n"
    )
    assert uses(code, "js") == [
        ("node:child_process", "node:child_process"),
        ("fs", "fs"),
        ("net", "net"),
        ("https", "https"),
        ("eval", "eval"),
        ("Function", "Function"),
        ("Function", "Function"),
        ("process.env", "process.env"),
        ("process.exit", "process.exit"),
        ("globalThis", "globalThis"),
        ("fs/promises", "fs/promises"),
    ]


def test_typescript_import_require() -> None:
    code = "import cp = require('child_process');\nconst x: number = 1;\n"
    assert uses(code, "ts") == [("child_process", "child_process")]
    assert uses("const App = () => <div>{process.env.KEY}</div>;", "tsx") == [
        ("process.env", "process.env")
    ]


def test_clean_javascript() -> None:
    code = "import React from 'react';\nconst x = await fetchData('/api');\nconsole.log(x);\n"
    assert unsafe_code(code, lang("js")) == []


def test_other_languages_are_not_checked() -> None:
    assert unsafe_code('package main\nimport "os"\nfunc main() { os.Exit(1) }', lang("go")) == []
    assert unsafe_code("fn main() { std::process::exit(1) }", lang("rust")) == []
    assert unsafe_code("open('x')", None) == []
