"""Started in the server process by ``test_server_check_race.py``: the first workspace check's
plan (in its worker thread) writes the file ``ACTION_LSP_TEST_CHECK_STARTED`` names, then takes
two seconds, so that an Apply lands while it runs -- what a busy machine does now and then.
Then the server runs as ``action-lsp serve`` does."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any


def main() -> int:
    from action_lsp.server import diagnostics

    started = Path(os.environ["ACTION_LSP_TEST_CHECK_STARTED"])
    plan = diagnostics._check_plan
    calls = [0]

    def slow_first(*args: Any) -> Any:
        calls[0] += 1
        if calls[0] == 1:
            found = plan(*args)  # (made from the files as they are now)
            started.write_text("started")
            time.sleep(2.0)
            return found
        return plan(*args)

    diagnostics._check_plan = slow_first  # type: ignore[assignment]
    from action_lsp.cli import main as cli

    return cli(["serve"])


if __name__ == "__main__":
    sys.exit(main())
