"""End-to-end fixtures: the real server process, driven by pytest-lsp with the capability sets
of Neovim and VS Code (Neovim 0.11 can pull diagnostics but cannot be asked to pull again, so it
gets pushes, as VS Code 1.65 does; Neovim takes utf-8, VS Code utf-16).

``session``: the module's server (one per module and client profile) with a fresh workspace
folder per test. ``fresh_session``: a server of the test's own, for tests that end it."""

from __future__ import annotations

import asyncio
import copy
import inspect
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import pytest_lsp
from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from action_lsp.text import LineIndex

WORKSPACE = Path(__file__).with_name("workspace")
CLIENTS = ("neovim", "visual-studio-code")


class Session:
    """A client connected to a server over a scratch copy of ``tests/server/workspace``."""

    def __init__(self, client: LanguageClient, kind: str, root: Path) -> None:
        self.client = client
        self.kind = kind
        self.root = root
        self.versions: dict[str, int] = {}
        self.last_version: dict[str, int | None] = {}  # per uri: the version diagnostics were published for
        self.applied_edits: list[types.ApplyWorkspaceEditParams] = []
        self.registrations: list[types.Registration] = []
        self.init_result: types.InitializeResult | None = None
        # How this client answers workspace/applyEdit: refuse it, or (``buffered``) apply it to
        # "buffers" that save_all() writes later, as Neovim and VS Code do (CreateFile still
        # makes the empty file and its folders at once, as both do).
        self.refuse_edits = False
        self.buffered = False
        self.unsaved: list[types.WorkspaceEdit] = []

    @property
    def pull(self) -> bool:
        """Does the server take this client's pulls (``diagnosticProvider``) instead of pushing?"""
        assert self.init_result is not None
        return self.init_result.capabilities.diagnostic_provider is not None

    @property
    def encoding(self) -> str:
        assert self.init_result is not None
        enc = self.init_result.capabilities.position_encoding
        return str(getattr(enc, "value", enc) or "utf-16")

    def uri(self, rel: str) -> str:
        uri = from_fs_path(str(self.root / rel))
        assert uri is not None
        return uri

    def open(self, rel: str, text: str | None = None) -> str:
        path = self.root / rel
        if text is None:
            text = path.read_text(encoding="utf-8")
        uri = self.uri(rel)
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="markdown", version=1, text=text
                )
            )
        )
        return uri

    def change(self, uri: str, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=[
                    types.TextDocumentContentChangePartial(
                        range=types.Range(
                            start=types.Position(line=start[0], character=start[1]),
                            end=types.Position(line=end[0], character=end[1]),
                        ),
                        text=text,
                    )
                ],
            )
        )

    async def diagnostics(self, uri: str, timeout: float = 10.0) -> list[types.Diagnostic]:
        """The document's current diagnostics, the way this client gets them."""
        if self.pull:
            report = await self.client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
            return list(report.items)
        return await self.pushed(uri, timeout)

    async def pushed(self, uri: str, timeout: float = 10.0, settle: float = 0.0) -> list[types.Diagnostic]:
        """Wait for a push for ``uri`` at its current version (then ``settle`` more seconds)."""
        want = self.versions.get(uri)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            got = self.client.diagnostics.get(uri)
            version = self.last_version.get(uri)
            if got is not None and (want is None or version == want):
                break
            if loop.time() > deadline:
                raise TimeoutError(f"no diagnostics for {uri} at version {want}")
            await asyncio.sleep(0.02)
        if settle:
            await asyncio.sleep(settle)
        return list(self.client.diagnostics[uri])


    def save_all(self) -> None:
        """``:wall``: write what the buffered edits changed."""
        edits, self.unsaved = self.unsaved, []
        for edit in edits:
            self.apply_to_disk(edit, creating=False)

    def apply_to_disk(self, edit: types.WorkspaceEdit, *, creating: bool = True) -> None:
        """What an editor does with a workspace edit, done on the files of ``root``."""
        from pygls.uris import to_fs_path

        for change in edit.document_changes or []:
            if isinstance(change, types.CreateFile):
                if not creating:
                    continue
                p = Path(to_fs_path(change.uri) or "")
                p.parent.mkdir(parents=True, exist_ok=True)
                if not p.exists() or (change.options and change.options.overwrite):
                    p.write_text("", encoding="utf-8")
            elif isinstance(change, types.DeleteFile):
                Path(to_fs_path(change.uri) or "").unlink()
            elif isinstance(change, types.RenameFile):
                new = Path(to_fs_path(change.new_uri) or "")
                new.parent.mkdir(parents=True, exist_ok=True)
                Path(to_fs_path(change.old_uri) or "").rename(new)
            elif isinstance(change, types.TextDocumentEdit):
                p = Path(to_fs_path(change.text_document.uri) or "")
                text = p.read_text(encoding="utf-8") if p.exists() else ""
                index = LineIndex(text)
                from action_lsp.text import Position

                spans = []
                for e in change.edits:
                    assert isinstance(e, types.TextEdit)
                    s = index.offset(Position(e.range.start.line, e.range.start.character), self.encoding)  # type: ignore[arg-type]
                    t = index.offset(Position(e.range.end.line, e.range.end.character), self.encoding)  # type: ignore[arg-type]
                    spans.append((s, t, e.new_text))
                for s, t, new in sorted(spans, reverse=True):
                    text = text[:s] + new + text[t:]
                p.write_text(text, encoding="utf-8")


def make_params(kind: str, root: Path, options: Any = None) -> types.InitializeParams:
    uri = from_fs_path(str(root))
    assert uri is not None
    return types.InitializeParams(
        capabilities=client_capabilities(kind),
        root_uri=uri,
        workspace_folders=[types.WorkspaceFolder(uri=uri, name=root.name)],
        initialization_options=options,
    )


class Shared:
    """What the tests of one module share: one server process per client profile."""

    def __init__(self, client: LanguageClient, kind: str, folder: Path) -> None:
        self.client = client
        self.kind = kind
        self.folder = folder  # the workspace folder the server has now
        self.init_result: types.InitializeResult | None = None
        self.registrations: list[types.Registration] = []
        self.current: Session | None = None
        self.configuration_requests = 0


def install_handlers(client: LanguageClient, shared: Shared) -> None:
    """The editor's side, answered for whichever test (``shared.current``) is running."""

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        session = shared.current
        assert session is not None, "workspace/applyEdit outside a test"
        session.applied_edits.append(params)
        if session.refuse_edits:
            return types.ApplyWorkspaceEditResult(applied=False, failure_reason="refused by the test")
        if session.buffered:
            session.unsaved.append(params.edit)
            creates = [c for c in params.edit.document_changes or [] if isinstance(c, types.CreateFile)]
            session.apply_to_disk(types.WorkspaceEdit(document_changes=creates))
        else:
            session.apply_to_disk(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        shared.registrations.extend(params.registrations)

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params: None) -> None:
        return None

    def publish(params: types.PublishDiagnosticsParams) -> None:
        if shared.current is not None:
            shared.current.last_version[params.uri] = params.version
        client.diagnostics[params.uri] = params.diagnostics

    client.protocol.fm.features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish

    get_configuration = client.get_configuration

    def counting(*args: Any, **kwargs: Any) -> Any:
        shared.configuration_requests += 1
        return get_configuration(*args, **kwargs)

    client.get_configuration = counting  # type: ignore[method-assign]


SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "action_lsp", "serve"])


def attach(client: LanguageClient, session: Session) -> Shared:
    """The editor's side for a test with a server of its own: ``session`` answers everything."""
    shared = Shared(client, session.kind, session.root)
    shared.current = session
    session.registrations = shared.registrations
    install_handlers(client, shared)
    return shared


def _folder(root: Path) -> types.WorkspaceFolder:
    uri = from_fs_path(str(root))
    assert uri is not None
    return types.WorkspaceFolder(uri=uri, name=root.name)


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def lsp(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Shared]:
    """One server per test module and client profile (starting one per test took more than half
    of the suite's time). Each test still gets a fresh copy of the workspace as the server's
    workspace folder (see :func:`session`)."""
    first = tmp_path_factory.mktemp("ws")
    shared = Shared(lsp_client, request.param, first)
    install_handlers(lsp_client, shared)
    shared.init_result = await lsp_client.initialize_session(make_params(request.param, first))
    lsp_client.shared = shared  # type: ignore[attr-defined]
    yield shared
    if lsp_client.capabilities is not None:
        await lsp_client.shutdown_session()


@pytest_asyncio.fixture(loop_scope="module")
async def session(lsp: LanguageClient, tmp_path: Path) -> AsyncIterator[Session]:
    """A test's view of the module's server: a scratch copy of ``tests/server/workspace`` made
    the server's only workspace folder, and on the way out its documents closed and any
    configuration it changed restored."""
    shared: Shared = lsp.shared  # type: ignore[attr-defined]
    client = shared.client
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    s = Session(client, shared.kind, root)
    s.init_result = shared.init_result
    s.registrations = shared.registrations
    client.diagnostics.clear()
    client.shown_documents.clear()
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(
                added=[_folder(root)], removed=[_folder(shared.folder)]
            )
        )
    )
    shared.folder = root
    shared.current = s
    configuration = copy.deepcopy(client._configuration)
    fm = client.protocol.fm
    features = dict(fm.features)  # a test may answer more requests itself (client.feature)
    yield s
    shared.current = None
    for name in set(fm.features) - set(features):  # what it registered goes, what it replaced returns
        fm.features.pop(name, None)
        fm.feature_options.pop(name, None)
    fm.features.update(features)
    if client.capabilities is None:  # the test shut the server down
        return
    for uri in s.versions:
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    if client._configuration != configuration:
        client._configuration = configuration
        asked = shared.configuration_requests
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while shared.configuration_requests == asked and loop.time() < deadline:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # the answer is applied after it arrives


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, loop_scope="module")
async def own_server(
    request: pytest.FixtureRequest, lsp_client: LanguageClient, tmp_path: Path
) -> AsyncIterator[Session]:
    """A server of the test's own (see :func:`fresh_session`)."""
    root = tmp_path / "ws"
    shutil.copytree(WORKSPACE, root)
    s = Session(lsp_client, request.param, root)
    shared = Shared(lsp_client, request.param, root)
    shared.current = s
    s.registrations = shared.registrations
    install_handlers(lsp_client, shared)
    s.init_result = await lsp_client.initialize_session(make_params(request.param, root))
    lsp_client.session = s  # type: ignore[attr-defined]
    yield s
    if lsp_client.capabilities is not None:
        await lsp_client.shutdown_session()


@pytest.fixture
def fresh_session(own_server: LanguageClient) -> Session:
    """A server of the test's own, for tests that end it (shutdown, exit) or need it pristine."""
    return own_server.session  # type: ignore[attr-defined,no-any-return]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the shared server run in their module's event loop, where it lives (a test
    with a pytest-lsp fixture of its own keeps its own loop)."""
    here = Path(__file__).parent
    shared = {"lsp", "session", "own_server", "fresh_session"}
    for item in items:
        path = Path(str(item.fspath))
        info = getattr(item, "_fixtureinfo", None)
        # A module may define a fixture of the same name over its own server: only this
        # file's fixtures (defined for the directory, not for a module) share the module loop.
        uses_shared = info is not None and any(
            defs and not defs[-1].baseid.endswith(".py")
            for name in shared & set(getattr(item, "fixturenames", ()))
            for defs in [info.name2fixturedefs.get(name)]
        )
        if (
            path.is_relative_to(here)
            and inspect.iscoroutinefunction(getattr(item, "function", None))
            and uses_shared
        ):
            item.add_marker(pytest.mark.asyncio(loop_scope="module"), append=False)
