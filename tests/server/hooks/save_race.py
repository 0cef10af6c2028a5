"""Started in the server process by ``test_server_save_race.py``: the user's save during a
write, made deterministic with the kill-point interceptor of ``tests/edit/conftest.py`` -- a line
appended to the file ``ACTION_LSP_TEST_SAVE_TO`` names, at the first file-system call after
``journal.json`` is in place. Then the server runs as ``action-lsp serve`` does."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "edit"))

from conftest import intercept  # tests/edit/conftest.py

SAVED = b"# the user's line, saved during the apply\n"
_open, _write, _close = os.open, os.write, os.close


def main() -> int:
    target = os.environ["ACTION_LSP_TEST_SAVE_TO"]
    state = {"seen": False, "done": False}

    def before(name: str, args: tuple) -> None:
        if state["done"]:
            return
        if state["seen"]:
            state["done"] = True
            fd = _open(target, os.O_WRONLY | os.O_APPEND)
            try:
                _write(fd, SAVED)
            finally:
                _close(fd)
        elif name in ("replace", "rename") and os.fspath(args[1]).endswith("journal.json"):
            state["seen"] = True

    intercept(before)
    from action_lsp.cli import main as cli

    return cli(["serve"])


if __name__ == "__main__":
    sys.exit(main())
