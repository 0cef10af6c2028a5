"""End-to-end test of the VS Code extension (vscode-client/) in a real, headless VS Code.

vscode-client/e2e/install.sh installs what it needs (chromium and build tools from Debian, Node 24
and code-server's VS Code server from npm; ~100 s the first time, seconds afterwards) and builds the
extension; vscode-client/e2e/run.js then opens a transcript in VS Code with the extension, which
starts `action-lsp serve` from the `actionLsp.server.command` user setting (the extension host's
PATH does not contain it), waits for the diagnostics, previews and applies create actions (palette
command and code lens) and checks the disk, turns a diagnostic off through `actionLsp.severity`,
restarts the server, and switches to `actionLsp.server.pythonPath`.

Nothing is skipped: if a prerequisite cannot be installed, the test fails and says why.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]
E2E = REPO / "vscode-client" / "e2e"
INSTALL_TIMEOUT_S = 1500
RUN_TIMEOUT_S = 240


def _server_command() -> list[str]:
    """The server command line of the Python running the tests, as an absolute path."""
    script = Path(sys.executable).parent / "action-lsp"
    if script.exists():
        return [str(script), "serve"]
    return [sys.executable, "-m", "action_lsp", "serve"]


def _run(
    cmd: list[str], timeout: float, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            cmd,
            cwd=E2E,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        pytest.fail(f"{' '.join(cmd)} timed out after {timeout} s\n{out[-6000:]}")


@pytest.fixture(scope="module")
def harness() -> None:
    for tool in ("bash",):
        if shutil.which(tool) is None:
            pytest.fail(
                f"{tool} is required to run the VS Code end-to-end test and was not found on PATH"
            )
    start = time.monotonic()
    proc = _run(["bash", str(E2E / "install.sh")], INSTALL_TIMEOUT_S)
    print(f"install.sh took {time.monotonic() - start:.1f} s\n{proc.stdout[-3000:]}")
    if proc.returncode != 0:
        pytest.fail(
            f"vscode-client/e2e/install.sh failed (exit {proc.returncode}):\n{proc.stdout[-6000:]}"
        )


def test_vscode_extension_end_to_end(harness: None, tmp_path: Path) -> None:
    command = _server_command()
    run_dir = tmp_path / "run"
    env = dict(
        os.environ,
        ACTION_LSP_SERVER_COMMAND=json.dumps(command),
        ACTION_LSP_E2E_PYTHON=sys.executable,
        E2E_RUN_DIR=str(run_dir),
    )
    start = time.monotonic()
    # run.js runs on the Node 24 that install.sh fetched (any Node >= 18 would do)
    proc = _run(
        [str(E2E / ".cache" / "node24" / "bin" / "node"), str(E2E / "run.js")], RUN_TIMEOUT_S, env
    )
    print(f"run.js took {time.monotonic() - start:.1f} s\n{proc.stdout[-4000:]}")
    assert proc.returncode == 0, (
        f"VS Code end-to-end test failed (exit {proc.returncode}):\n{proc.stdout[-12000:]}"
    )

    ws = run_dir / "ws"
    assert (ws / "hello.txt").read_text().strip() == "hi"
    assert "- ship it" in (ws / "notes" / "todo.md").read_text()
    assert not (run_dir / "escape.txt").exists()

    result = json.loads((ws / "out" / "result.json").read_text())
    assert result["ok"] is True
    # the extension started the server from the setting, not from PATH
    assert result["serverCommand"] == command
    assert result["serverCommandSource"] == "server.command"
    # ... and, after the settings changed, from actionLsp.server.pythonPath
    assert result["pythonPathCommand"] == [sys.executable, "-m", "action_lsp", "serve"]
    codes = {d["code"] for d in result["diagnostics"]}
    assert {"path-traversal", "missing-field"} <= codes
