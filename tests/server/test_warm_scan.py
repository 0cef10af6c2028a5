"""What the first open of a process used to pay for once, paid by the warm-up instead
(``server/warm.py``): the scanner's patterns built from the dialects' markers are compiled by
the scan of a sample of the server's own once ``initialize`` is answered, and kept between
starts (``codecache.keeping``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# An Aider turn other than the sample's: the first slice of a history.
HISTORY = (
    "# aider chat started at 2025-01-02 09:00:00\n\n#### rename it\n\ncalc.py\n```python\n"
    "<<<<<<< SEARCH\ndef add(a, b):\n=======\ndef plus(a, b):\n>>>>>>> REPLACE\n```\n\n"
    "> Applied edit to calc.py\n"
)

FIRST_OPEN = """
import asyncio, json, re, sys
from action_lsp import codecache
cache = codecache.install()
from action_lsp.server.server import create_server

class Writer:
    def write(self, data):
        pass

compiled = []  # (patterns parsed and compiled, not found in re's cache nor in the kept ones)
def counted(p, flags=0, _args=codecache._pattern_args):
    compiled.append(str(p))
    return _args(p, flags)

async def main():
    ls = create_server()
    ls.protocol.set_writer(Writer())
    ls.protocol.handle_message(ls.protocol.structure_message(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}))
    if AT_ONCE:
        ls.warm_up_now()
    for _ in range(300):
        await asyncio.sleep(0.01)
        if not ls.warm_scan and not ls.warm_messages and not ls.warm_names:
            break
    await asyncio.sleep(0.05)
    in_store = len(ls.documents)
    before = cache.patterns_found
    codecache._pattern_args = counted
    ls.protocol.handle_message(ls.protocol.structure_message({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": "untitled:h.md", "languageId": "markdown", "version": 1, "text": HISTORY}}}))
    actions = len(ls.documents.get("untitled:h.md").analysis().actions)
    codecache._pattern_args = counted.__defaults__[0]
    print(json.dumps([in_store, actions, compiled, cache.patterns_found - before, cache.save()]))

asyncio.run(main())
""".replace("HISTORY", repr(HISTORY))


def _first_open(cache: Path, at_once: bool) -> list[object]:
    env = {**os.environ, "ACTION_LSP_CACHE_DIR": str(cache)}
    code = FIRST_OPEN.replace("AT_ONCE", str(at_once))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    result: list[object] = json.loads(out.stdout)
    return result


def test_after_the_warm_up_the_first_open_compiles_no_pattern(tmp_path: Path) -> None:
    """The warm-up scans its sample (nothing of it stays open); a history opened after it
    compiles none of the scanner's patterns: they were made, and ``re`` finds them again."""
    in_store, actions, compiled, _, _ = _first_open(tmp_path, at_once=False)
    assert in_store == 0 and actions == 1
    assert compiled == []


def test_a_later_start_finds_the_patterns_of_the_warm_up_kept(tmp_path: Path) -> None:
    """A client that sends its document at once skips the sample (its scan would only come
    first); the patterns an earlier start's warm-up compiled are then found in the code cache,
    not compiled, and finding them calls for no save of the cache."""
    first = _first_open(tmp_path, at_once=False)
    assert first[2] == []
    at_once = _first_open(tmp_path, at_once=True)
    assert at_once[1] == 1
    scanner = [p for p in at_once[2] if "SEARCH" in p or "#### " in p.replace("\\", "")]
    assert scanner == [] and isinstance(at_once[3], int) and at_once[3] >= 5
    assert at_once[4] is False
