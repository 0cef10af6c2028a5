"""The project's configuration file in the server: dialects declared in ``.action-lsp.toml`` or
``[tool.action-lsp]`` of ``pyproject.toml`` (:mod:`action_lsp.project_config`).

It is read at ``initialize`` from the first workspace folder that has one in the folder itself
(never from a directory above it: a folder is a workspace root, as the Neovim client picks it by
:mod:`action_lsp.project_root`), and again whenever such a file is saved or changes on disk
(``workspace/didChangeWatchedFiles``); every open document is then analysed anew. A wrong file
is shown to the user (``window/showMessage``, and in the log) and its dialects are off until it
is fixed; the server never fails on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..dialects import set_declared
from ..dialects.tool_use import set_declared_tools
from ..project_config import FILE_NAMES, ConfigError, config_in, load

if TYPE_CHECKING:
    from .server import ActionLanguageServer


class Project:
    def __init__(self, ls: ActionLanguageServer) -> None:
        self.ls = ls
        self.path: Path | None = None
        self.source: bytes | None = None  # the file's bytes last read (a reload only on change)
        self._pending: str | None = None  # an error found before the client can be told
        self._ready = False
        ls.on("initialize", self.on_initialize)
        ls.on("initialized", self.on_initialized)
        ls.on("written", self.on_written)

    def find(self) -> Path | None:
        for folder in self.ls.folders:
            try:
                found = config_in(folder)
            except OSError:
                continue
            if found is not None:
                return found
        return None

    def reload(self) -> bool:
        """Read the configuration again; True when what it declares changed."""
        path = self.find()
        try:
            source = path.read_bytes() if path is not None else None
        except OSError:
            source = None
        if path == self.path and source == self.source:
            return False
        self.path, self.source = path, source
        if path is None:
            set_declared(())
            set_declared_tools(())
            return True
        try:
            config = load(path)
        except ConfigError as exc:
            set_declared(())
            set_declared_tools(())
            self.report(f"action-lsp: {exc} (its dialects are off until it is fixed)")
            return True
        set_declared(config.dialects)
        set_declared_tools(config.tools)
        self.ls.log_info(f"action-lsp: configuration: {path}")
        if config.dialects:
            names = ", ".join(d.name for d in config.dialects)
            self.ls.log_info(f"action-lsp: dialects declared in {path}: {names}")
        return True

    def report(self, message: str) -> None:
        if not self._ready:
            self._pending = message
            return
        ls = self.ls
        ls.window_log_message(types.LogMessageParams(type=types.MessageType.Error, message=message))
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))

    # -- events --------------------------------------------------------------------------
    def on_initialize(self, params: types.InitializeParams) -> None:
        self.reload()

    def on_initialized(self) -> None:
        self._ready = True
        if self._pending is not None:
            message, self._pending = self._pending, None
            self.report(message)

    def on_written(self, paths: list[Path]) -> None:
        if not any(p.name in FILE_NAMES for p in paths):
            return
        if self.reload():
            ls = self.ls
            dialects = ls.settings.dialect_set()
            roots = ls.roots()
            for od in ls.documents:
                od.doc.reconfigure(dialects, roots)
                od.revision += 1
            ls.emit("reconfigured")


def register(ls: ActionLanguageServer) -> Project:
    return Project(ls)
