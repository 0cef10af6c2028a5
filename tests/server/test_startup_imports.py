"""The server's start imports only what the first publish of a Markdown history needs: the
edit engine (the workspace checks, which come later) and msgspec (JSON session records) are
imported on first use. A cold open in an editor waits for every import before it."""

from __future__ import annotations

import subprocess
import sys

CODE = """
import sys
from action_lsp.records import loads
from action_lsp.server.server import create_server
create_server()
print(sorted(m for m in ("msgspec", "action_lsp.edit") if m in sys.modules))
print(loads('{"a": [1, "x\\\\ty"]}'), loads('{"a": "x\\ty"}'))  # (C decoder; refused: the standard one)
print("msgspec" in sys.modules)
"""


def test_the_server_starts_without_the_edit_engine_or_msgspec() -> None:
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "{'a': [1, 'x\\ty']} {'a': 'x\\ty'}", "True"]
