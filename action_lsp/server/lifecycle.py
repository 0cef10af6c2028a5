"""Initialize, settings, document synchronisation and workspace events.

Everything here only updates shared state and emits internal events (``opened``, ``changed``,
``closed``, ``files_changed``, ``reconfigured``) that the feature modules subscribe to.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from .config import SECTION, Settings
from .documents import uri_path

if TYPE_CHECKING:
    from .server import ActionLanguageServer

WATCH_ID = "action-lsp/watched-files"
CONFIG_ID = "action-lsp/configuration"


def _section(data: Any) -> dict[str, Any]:
    if isinstance(data, Mapping):
        inner = data.get(SECTION)
        if isinstance(inner, Mapping):
            return dict(inner)
        return dict(data)
    return {}


class Lifecycle:
    def __init__(self, ls: ActionLanguageServer) -> None:
        self.ls = ls

    # -- settings ------------------------------------------------------------------------
    async def pull_settings(self, pushed: Any = None) -> None:
        """Re-read the settings: ``workspace/configuration`` when the client has it, else what
        ``didChangeConfiguration`` pushed; both over the ``initializationOptions``."""
        ls = self.ls
        merged = dict(ls.init_options)
        if ls.client_has("workspace.configuration"):
            try:
                got = await ls.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
                )
            except Exception as exc:
                ls.log_info(f"action-lsp: workspace/configuration failed: {exc}")
                got = None
            if got and isinstance(got[0], Mapping):
                merged.update(_section(got[0]))
        elif pushed is not None:
            merged.update(_section(pushed))
        self.apply(merged)

    def apply(self, data: Mapping[str, Any]) -> None:
        ls = self.ls
        problems: list[str] = []
        new = Settings.from_dict(data, problems)
        for p in problems:
            ls.window_log_message(
                types.LogMessageParams(type=types.MessageType.Warning, message=f"action-lsp settings: {p}")
            )
        old = ls.settings
        if new == old:
            return
        ls.settings = new
        if new.analysis_key() != old.analysis_key():
            dialects = new.dialect_set()
            roots = ls.roots()
            for od in ls.documents:
                od.doc.reconfigure(dialects, roots)
                od.revision += 1
        settle_memory()
        ls.emit("reconfigured")

    # -- handlers ------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        ls = self.ls
        from .server import set_encoding

        set_encoding(ls)
        uris = [f.uri for f in params.workspace_folders or []]
        if not uris and params.root_uri:
            uris = [params.root_uri]
        elif not uris and params.root_path:
            from pygls.uris import from_fs_path

            uri = from_fs_path(params.root_path)
            if uri:
                uris = [uri]
        ls.set_folders(uris)
        ls.init_options = _section(params.initialization_options)
        ls.settings = Settings.from_dict(ls.init_options)
        ls.emit("initialize", params)

    async def initialized(self, params: types.InitializedParams) -> None:
        ls = self.ls
        ls.emit("initialized")
        from . import recovery

        # An apply killed earlier: finish or undo it (its files may lie in the extra roots),
        # in the background: another process may hold its lock.
        recovery.start(ls)
        await self.pull_settings()
        registrations: list[types.Registration] = []
        if ls.client_has("workspace.did_change_watched_files.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id=WATCH_ID,
                    method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=types.DidChangeWatchedFilesRegistrationOptions(
                        watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
                    ),
                )
            )
        if ls.client_has("workspace.did_change_configuration.dynamic_registration"):
            registrations.append(
                types.Registration(
                    id=CONFIG_ID,
                    method=types.WORKSPACE_DID_CHANGE_CONFIGURATION,
                    register_options=types.DidChangeConfigurationRegistrationOptions(
                        section=SECTION
                    ),
                )
            )
        if registrations:
            try:
                await ls.client_register_capability_async(
                    types.RegistrationParams(registrations=registrations)
                )
            except Exception as exc:
                ls.log_info(f"action-lsp: client/registerCapability failed: {exc}")

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        od = self.ls.open_document(params.text_document)
        if od.path is not None:
            self.ls.ledger.forget(od.path)  # the editor's buffer tells its text from now on
        settle_memory()
        self.ls.emit("opened", od)
        if od.path is not None:
            self.ls.emit("files_changed", [od.path])

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        ls = self.ls
        od = ls.documents.change(
            params.text_document.uri,
            params.text_document.version,
            params.content_changes,
            ls.encoding,
        )
        if od is None:
            return
        ls.emit("changed", od)
        if od.path is not None:
            ls.emit("files_changed", [od.path])

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        od = self.ls.documents.close(params.text_document.uri)
        if od is not None:
            self.ls.emit("closed", od)
            if od.path is not None:
                self.ls.emit("files_changed", [od.path])
            del od
            release_memory()

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        od = self.ls.documents.get(params.text_document.uri)
        if od is not None:
            self.ls.emit("saved", od)
        path = uri_path(params.text_document.uri)
        if path is not None:
            self.ls.emit("written", [path])
        # A save often comes with others the server is not told about (``:wall`` writes the
        # targets of an applied edit, buffers Neovim does not sync): check every transcript
        # again, this one included, against the disk and the ledger of unsaved edits.
        self.ls.ledger.snapshot()  # a saved target ends its ledger entry
        self.ls.emit("files_changed", [])

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [p for p in (uri_path(c.uri) for c in params.changes) if p is not None]
        for p in paths:
            self.ls.ledger.pending(p)  # settle each unsaved edit against the disk as it is now
        self.ls.emit("written", paths)
        self.ls.emit("files_changed", paths)

    async def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        await self.pull_settings(params.settings)

    def did_change_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        ls = self.ls
        current = [str(p) for p in ls.folders]
        removed = {str(uri_path(f.uri)) for f in params.event.removed}
        kept = [p for p in current if p not in removed]
        from pygls.uris import from_fs_path

        uris = [u for u in (from_fs_path(p) for p in kept) if u]
        uris += [f.uri for f in params.event.added]
        ls.set_folders(uris)
        ls.emit("files_changed", [])


def settle_memory() -> None:
    """After a full scan: nothing to do.

    This used to ``gc.freeze()`` what a scan allocated, to spare keystrokes the occasional
    full collection; but what is frozen is never collected, so every open/close cycle leaked
    the garbage cycles of its time (1,000 cycles of a 45 KB transcript: 60 -> 147 MB). Full
    collections are rare anyway: CPython runs one only when the objects that survived since
    the last one reach a quarter of all long-lived ones."""


def release_memory() -> None:
    """After a document closed: collect its garbage and give free heap pages back to the OS.

    CPython frees most of a closed document by reference counting at once, but its allocator
    keeps the emptied pages; ``malloc_trim`` (glibc) returns them, so the server's resident
    size falls back after closing a large transcript instead of staying at its peak."""
    gc.collect()
    trim_memory()


def trim_memory() -> None:
    """Give the heap's free pages back to the OS (glibc's ``malloc_trim``; elsewhere nothing)."""
    global _TRIM
    if _TRIM is None:
        try:
            import ctypes
            import ctypes.util

            name = ctypes.util.find_library("c")
            libc = ctypes.CDLL(name) if name else None
            _TRIM = getattr(libc, "malloc_trim", None) or False
        except (OSError, AttributeError):
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM: Any = None


def register(ls: ActionLanguageServer) -> Lifecycle:
    lc = Lifecycle(ls)
    ls.handle(types.INITIALIZE)(lc.initialize)
    ls.handle(types.INITIALIZED, is_request=False)(lc.initialized)
    ls.handle(types.TEXT_DOCUMENT_DID_OPEN, is_request=False)(lc.did_open)
    ls.handle(types.TEXT_DOCUMENT_DID_CHANGE, is_request=False)(lc.did_change)
    ls.handle(types.TEXT_DOCUMENT_DID_CLOSE, is_request=False)(lc.did_close)
    ls.handle(types.TEXT_DOCUMENT_DID_SAVE, is_request=False)(lc.did_save)
    ls.handle(types.WORKSPACE_DID_CHANGE_WATCHED_FILES, is_request=False)(
        lc.did_change_watched_files
    )
    ls.handle(types.WORKSPACE_DID_CHANGE_CONFIGURATION, is_request=False)(
        lc.did_change_configuration
    )
    ls.handle(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, is_request=False)(
        lc.did_change_folders
    )
    return lc
