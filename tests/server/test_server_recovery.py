"""A server started on a root where an `apply --write` was interrupted finishes it first and
tells the user (window/showMessage and the log)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from action_lsp.edit import Workspace, plan_changes, write_plan
from action_lsp.model import Action, ActionKind, Edit, Field, Span

from .conftest import make_params

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "action_lsp", "serve"])


def _modify(path: str, search: str, replace: str, at: int) -> Action:
    fields = {"path": Field("path", path, Span(at, at + len(path)))}
    a = Action("test", "modify_file", ActionKind.MODIFY_FILE, Span(at, at + 50),
               Span(at, at + 1), fields)
    a.edits = [Edit(Field("search", search, Span(at + 10, at + 20)),
                    Field("replace", replace, Span(at + 30, at + 40)))]
    return a


def interrupt_after_commit(root: Path) -> None:
    """A write SIGKILLed after its journal is committed and one file renamed."""
    for name in ("a.py", "b.py"):
        (root / name).write_text(f"{name[0]} = 1\n")
    plan = plan_changes(
        [_modify("a.py", "a = 1\n", "a = 2\n", 0), _modify("b.py", "b = 1\n", "b = 2\n", 100)],
        Workspace(root),
    )
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            real = os.replace
            renamed: list[str] = []

            def dying(src, dst, *a, **k):  # type: ignore[no-untyped-def]
                if ".action-lsp." in os.fspath(src) and "/journal/" not in os.fspath(src):
                    if renamed:
                        os.kill(os.getpid(), signal.SIGKILL)
                    renamed.append(os.fspath(dst))
                return real(src, dst, *a, **k)

            os.replace = dying  # type: ignore[assignment]
            write_plan(plan, root=root, label="apply --write big.md")
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status)
    assert (root / ".action-lsp-journal/committed").exists()
    assert (root / "b.py").read_text() == "b = 1\n"


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_server_start_finishes_an_interrupted_apply(
    client: LanguageClient, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    interrupt_after_commit(root)
    await client.initialize_session(make_params("neovim", root))
    for _ in range(200):
        if client.messages:
            break
        await asyncio.sleep(0.02)
    [shown] = [m.message for m in client.messages]
    assert "interrupted apply (apply --write big.md)" in shown and "was finished" in shown
    assert any("was finished" in m.message for m in client.log_messages)
    assert (root / "a.py").read_text() == "a = 2\n"
    assert (root / "b.py").read_text() == "b = 2\n"
    assert sorted(os.listdir(root)) == ["a.py", "b.py"]
