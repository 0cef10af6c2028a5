"""The server's start imports only what answering ``initialize`` needs. A cold open in an editor
waits for every import before that answer, and the client sends the document only after it:

- the edit engine (the workspace checks, which come later), msgspec (JSON session records),
  json-repair (a quick fix's resolve) and tomllib (a root's configuration file) are imported on
  first use;
- NumPy (the open document's line index), tree-sitter (the code checks), rapidfuzz (the
  rules) and msgspec (a long ``didOpen``'s decoder) are imported once ``initialize`` is answered, while the client prepares its first
  ``didOpen`` (``server.warm_up``; a client that asks for work at once gets them imported
  before its work), and by their first use without a server.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

DEFERRED = ("numpy", "tree_sitter", "rapidfuzz", "msgspec", "action_lsp.edit", "json_repair", "tomllib")

CODE = """
import sys
from action_lsp.server.server import create_server
create_server()
print(sorted(m for m in DEFERRED if m in sys.modules))
from action_lsp.records import loads
print(loads('{"a": [1, "x\\\\ty"]}'), loads('{"a": "x\\ty"}'))  # (C decoder; refused: the standard one)
print("msgspec" in sys.modules)
""".replace("DEFERRED", repr(DEFERRED))


def test_the_server_starts_without_numpy_tree_sitter_the_edit_engine_or_msgspec() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "{'a': [1, 'x\\ty']} {'a': 'x\\ty'}", "True"]


OPEN = """
import sys
from action_lsp.document import IncrementalDocument
print(sorted(m for m in ("numpy", "tree_sitter") if m in sys.modules))
doc = IncrementalDocument('```actions\\n{"actions": [{"type": "execute_code", "code": "print((1)"}]}\\n```\\n')
print([d.code for d in doc.analysis().diagnostics])
print(sorted(m for m in ("numpy", "tree_sitter") if m in sys.modules))
"""


def test_what_is_deferred_is_imported_by_its_first_use() -> None:
    """Without a server (the command line, a test) the first use imports it: a deferred module
    behaves as the module itself."""
    out = subprocess.run([sys.executable, "-c", OPEN], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "[]"
    assert "syntax-error" in lines[1]
    assert lines[2] == "['numpy', 'tree_sitter']"


INITIALIZE = """
import asyncio, sys
from action_lsp.server.server import create_server

class Writer:
    def write(self, data):
        print("answered" if b'"capabilities"' in data else "wrote", sorted(m for m in ("numpy", "tree_sitter") if m in sys.modules))

async def main():
    ls = create_server()
    ls.protocol.set_writer(Writer())
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
    ls.protocol.handle_message(ls.protocol.structure_message(message))
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    if OPEN_AT_ONCE:
        ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "untitled:t.md", "languageId": "markdown", "version": 1, "text": "Hello.\\n"}}}))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if not ls.warm_names:
            break
    print("later", sorted(m for m in ("msgspec", "numpy", "tree_sitter", "rapidfuzz") if m in sys.modules))

asyncio.run(main())
"""


def test_once_initialize_is_answered_the_server_imports_what_the_first_open_needs() -> None:
    code = INITIALIZE.replace("OPEN_AT_ONCE", "False")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["answered []", "later ['msgspec', 'numpy', 'rapidfuzz', 'tree_sitter']"]


@pytest.mark.parametrize("large", [False, True])
def test_a_client_that_sends_its_document_at_once_gets_the_imports_before_its_document_is_read(large: bool) -> None:
    """A client that opens its document right after ``initialized`` (as VS Code and the benches
    do, and Neovim when the server started with the open and answered ``initialize`` early):
    what the warm-up had not imported yet is imported before the document is read, not in the
    middle of its scan (where the same imports cost more) -- but for NumPy, imported right after
    the ``didOpen``'s handler: a large document's first diagnostics are published without it
    (its line index is made lazily), a small one imports it where it is first used."""
    times = 100_000 if large else 1  # (over DEFER_CHARS: opened in steps)
    code = INITIALIZE.replace("OPEN_AT_ONCE", "True").replace('"text": "Hello.\\n"', f'"text": "Hello.\\n" * {times}').replace(
        "from action_lsp.server.server import create_server",
        "from action_lsp.server.server import create_server\n"
        "import action_lsp.document as d\n"
        "_read = d.IncrementalDocument.__init__\n"
        "def _spy(self, *a, **k):\n"
        "    print('read', sorted(m for m in ('numpy', 'tree_sitter', 'rapidfuzz') if m in sys.modules))\n"
        "    _read(self, *a, **k)\n"
        "d.IncrementalDocument.__init__ = _spy")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "answered []"
    assert "read ['rapidfuzz', 'tree_sitter']" in lines
    published = next(line for line in lines if line.startswith("wrote"))
    assert published == ("wrote ['tree_sitter']" if large else "wrote ['numpy', 'tree_sitter']")
    assert lines[-1] == "later ['msgspec', 'numpy', 'rapidfuzz', 'tree_sitter']"


NOT_NEEDED = ("importlib.metadata", "email", "zipfile", "csv", "tempfile", "shutil", "hashlib")

UNNEEDED = """
import sys
from action_lsp.server.server import create_server
create_server()
print(sorted(m for m in NOT_NEEDED if m in sys.modules))
from action_lsp.dialects import NAMES
from action_lsp.server.preview import PreviewFiles
previews = PreviewFiles()
written = previews.write("calc.py", "x = 1\\n")
print(len(NAMES) > 10, written.read_text() == "x = 1\\n", "tempfile" in sys.modules)
previews.remove()
print(written.exists())
""".replace("NOT_NEEDED", repr(NOT_NEEDED))


def test_the_start_imports_no_module_only_other_work_needs() -> None:
    """``importlib.metadata`` (with ``email``, ``zipfile``, ``csv``: the dialects' entry points
    are read by ``action_lsp.entry_points``) and ``tempfile`` (with ``shutil``: a diff preview's
    directory) and ``hashlib`` (OpenSSL's digests: the ledger's, the edit engine's; the code
    cache takes blake2b from ``_blake2``) are not imported by the start; the dialects are all
    found, and a preview written and removed, when asked."""
    out = subprocess.run([sys.executable, "-c", UNNEEDED], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "True True True", "False"]


COLLECTOR = """
import asyncio, gc, sys, weakref
from action_lsp import collector
collector.pause()
class Cycle:
    pass
garbage = Cycle()
garbage.me = garbage
garbage = weakref.ref(garbage)  # (a cycle the start left)
from action_lsp.server.server import create_server
import action_lsp.document as d
_read = d.IncrementalDocument.__init__
def _spy(self, *a, **k):
    print("read", gc.isenabled())
    _read(self, *a, **k)
d.IncrementalDocument.__init__ = _spy

class Writer:
    def write(self, data):
        if b'"capabilities"' in data:
            print("answered", gc.isenabled())

async def main():
    ls = create_server()
    print("started", gc.isenabled())
    ls.protocol.set_writer(Writer())
    ls.protocol.handle_message(ls.protocol.structure_message(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    if OPEN_AT_ONCE:
        ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": "untitled:t.md", "languageId": "markdown", "version": 1, "text": "Hello.\\n"}}}))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if gc.isenabled():
            break
    young = len(gc.get_objects(0)) + len(gc.get_objects(1))
    print("later", gc.isenabled(), young < 10000 < len(gc.get_objects(2)), garbage() is not None)
    gc.collect()
    print("full collection", garbage() is None)

asyncio.run(main())
"""


@pytest.mark.parametrize("at_once", [False, True])
def test_the_collector_is_paused_until_initialize_is_answered(at_once: bool) -> None:
    """``action-lsp serve`` pauses the cyclic garbage collector for its start (its passes over
    the start's long-lived objects were a fifth of it); it runs again once ``initialize`` is
    answered and the warm-up's imports are done, or before a document is read when the client
    sends one at once: the start's objects are then in the oldest generation (no young
    collection walks them), and its garbage is freed by the next full collection."""
    code = COLLECTOR.replace("OPEN_AT_ONCE", str(at_once))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[:2] == ["started False", "answered False"]
    assert lines[-2:] == ["later True True True", "full collection True"]
    # (the warm-up's sample is read before the resume; a document sent at once too, the
    # collector resumed right after its handler: see ActionLanguageServer.warm_up_now)
    assert "read False" in lines and "read True" not in lines


SERVE = """
import gc
import action_lsp.server.stdio as stdio
stdio.serve_stdio = lambda server, **kw: print("serving", gc.isenabled())
from action_lsp.cli import main
main(["serve"])
"""


def test_serve_starts_with_the_collector_paused() -> None:
    out = subprocess.run([sys.executable, "-c", SERVE], capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL).stdout
    assert out.splitlines() == ["serving False"]


WARM_MESSAGES = """
import asyncio, sys
from action_lsp.server.server import create_server

class Writer:
    def write(self, data):
        pass

async def main():
    ls = create_server()
    ls.protocol.set_writer(Writer())
    ls.protocol.handle_message(ls.protocol.structure_message(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if not getattr(ls, "warm_messages", ()) and not ls.warm_names:
            break
    await asyncio.sleep(0.05)
    hooks = ls.protocol._converter._structure_func.dispatch
    made = hooks.cache_info().misses
    uri = "file:///tmp/history.md"
    message = ls.protocol.structure_message({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": "Hello."}}})
    symbols = ls.protocol.structure_message({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol",
        "params": {"textDocument": {"uri": uri}}})
    print(hooks.cache_info().misses - made, message.params.text_document.text, symbols.params.text_document.uri)
    print(len(ls.documents))

asyncio.run(main())
"""


def test_the_warm_up_makes_the_hooks_of_the_first_open_s_messages() -> None:
    """While the client prepares its first document, the warm-up structures one message of
    each kind an editor sends at the open (``server.FIRST_MESSAGES``): the converter's hooks
    for them, 2-5 ms each at a type's first use, are made then, not on the way to the first
    diagnostics and the outline. Nothing is opened by it."""
    out = subprocess.run([sys.executable, "-c", WARM_MESSAGES], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "0 Hello. file:///tmp/history.md"
    assert lines[1] == "0"


def test_a_warm_up_message_that_cannot_be_read_sends_nothing() -> None:
    """The warm-up's messages are the server's own: one that could not be structured (a
    type lsprotocol changed) must not answer the client a request it never sent."""
    from action_lsp.server.server import create_server

    written: list[bytes] = []

    class Writer:
        def write(self, data: bytes) -> None:
            written.append(bytes(data))

        def close(self) -> None:
            pass

    ls = create_server()
    ls.protocol.set_writer(Writer())
    ls.warm_names, ls.warm_scan = [], False
    ls.warm_messages = [{"jsonrpc": "2.0", "id": 0, "method": "textDocument/documentSymbol", "params": {"textDocument": {}}}]
    assert ls.warm_up_step()
    assert not ls.warm_messages
    assert written == []


WAITS = """
import asyncio, sys
from action_lsp.server.server import create_server

class Writer:
    def write(self, data):
        pass

async def main():
    ls = create_server()
    ls.protocol.set_writer(Writer())
    ls.protocol.handle_message(ls.protocol.structure_message(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
    ls.protocol.body_pending = 4 << 20  # (what framing.run_messages says while a 4 MB didOpen arrives)
    await asyncio.sleep(0.5)
    print("reading", sorted(m for m in ("msgspec", "numpy", "rapidfuzz") if m in sys.modules))
    ls.protocol.body_pending = 0
    for _ in range(300):
        await asyncio.sleep(0.01)
        if not ls.warm_names:
            break
    print("read", sorted(m for m in ("msgspec", "numpy", "rapidfuzz") if m in sys.modules))

asyncio.run(main())
"""


def test_the_warm_up_waits_while_a_document_arrives() -> None:
    """A long message being read (a document's ``didOpen`` arrives in pieces) pauses the
    warm-up: its handler imports what its first diagnostics need, NumPy after them, instead of
    the warm-up importing NumPy between two pieces, on their way."""
    out = subprocess.run([sys.executable, "-c", WAITS], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["reading []", "read ['msgspec', 'numpy', 'rapidfuzz']"]
