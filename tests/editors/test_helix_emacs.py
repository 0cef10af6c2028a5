"""The Helix and Emacs (Eglot) integrations start the real server and their settings work.

The test reads what each editor file sends (editors/helix/languages.toml with tomllib; the
defcustom defaults of editors/emacs/action-lsp.el with a small reader of Emacs Lisp data) and
speaks LSP to ``action-lsp serve`` the way that editor does: the same command line, the same
``initializationOptions``, the same ``workspace/didChangeConfiguration`` and answers to
``workspace/configuration`` (Helix digs the section out of its ``config`` table, which gives null
for ``actionLsp``; Eglot answers it from ``eglot-workspace-configuration``), and the same position
encodings (Helix offers utf-8 first; Eglot 1.9 offers none, so utf-16). When Emacs is installed,
the .el is also loaded in ``emacs --batch`` to check that Eglot would send exactly what this test
sends, and a real Eglot session checks what reaches Flymake (Emacs is optional: without it those
two tests are skipped and say so; ``apt-get install emacs-nox elpa-eglot`` on Debian 12).
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]
HELIX_TOML = REPO / "editors" / "helix" / "languages.toml"
EMACS_EL = REPO / "editors" / "emacs" / "action-lsp.el"
FIXTURE = Path(__file__).resolve().parent / "fixtures" / "workspace" / "session.md"
TIMEOUT_S = 60.0
QUIET_S = 0.75  # diagnostics are settled once none arrived for this long
COMMANDS = {"action-lsp.apply", "action-lsp.applyAll", "action-lsp.previewDiff"}


# --------------------------------------------------------------------------- a tiny LSP client


class LspClient:
    """JSON-RPC over the server's stdio with Content-Length framing; answers server requests."""

    def __init__(self, argv: list[str], cwd: Path, on_request: Callable[[str, Any], Any]) -> None:
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.on_request = on_request
        self.responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self.notifications: queue.Queue[dict[str, Any]] = queue.Queue()
        self.server_requests: list[tuple[str, Any]] = []
        self.next_id = 0
        self.lock = threading.Lock()
        self.stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(
            target=lambda: self.stderr.extend(self.proc.stderr or []), daemon=True
        ).start()

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        with self.lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            headers: dict[str, str] = {}
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            message = json.loads(out.read(int(headers["content-length"])))
            if "method" in message and "id" in message:  # a request from the server
                self.server_requests.append((message["method"], message.get("params")))
                try:
                    self._send(
                        {
                            "id": message["id"],
                            "result": self.on_request(message["method"], message.get("params")),
                        }
                    )
                except Exception as exc:  # answer, never hang the server
                    self._send(
                        {"id": message["id"], "error": {"code": -32603, "message": str(exc)}}
                    )
            elif "method" in message:
                self.notifications.put(message)
            else:
                self.responses.setdefault(message["id"], queue.Queue()).put(message)

    def request(self, method: str, params: Any) -> Any:
        with self.lock:
            self.next_id += 1
            rid = self.next_id
            self.responses.setdefault(rid, queue.Queue())
        self._send({"id": rid, "method": method, "params": params})
        try:
            reply = self.responses[rid].get(timeout=TIMEOUT_S)
        except queue.Empty:
            pytest.fail(f"no answer to {method} within {TIMEOUT_S} s; server stderr:\n{self.log()}")
        assert "error" not in reply, f"{method} failed: {reply['error']}\n{self.log()}"
        return reply["result"]

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def diagnostics(
        self, uri: str, ready: Callable[[list[dict[str, Any]]], bool]
    ) -> list[dict[str, Any]]:
        """The diagnostics of ``uri`` once ``ready`` holds and no new ones came for QUIET_S."""
        deadline = time.monotonic() + TIMEOUT_S
        latest: list[dict[str, Any]] | None = None
        settled_at = 0.0
        while True:
            now = time.monotonic()
            if latest is not None and ready(latest) and now - settled_at >= QUIET_S:
                return latest
            if now > deadline:
                pytest.fail(
                    f"diagnostics of {uri} never settled as expected; last: {latest}\n{self.log()}"
                )
            try:
                message = self.notifications.get(timeout=0.05)
            except queue.Empty:
                continue
            if (
                message["method"] == "textDocument/publishDiagnostics"
                and message["params"]["uri"] == uri
            ):
                latest = message["params"]["diagnostics"]
                settled_at = time.monotonic()

    def log(self) -> str:
        return b"".join(self.stderr).decode(errors="replace")[-4000:]

    def close(self) -> None:
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def _resolve(argv: list[str]) -> list[str]:
    """The editor's command, found the way the editor would: on PATH (this Python's scripts first)."""
    scripts = Path(sys.executable).parent
    found = shutil.which(argv[0], path=f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}")
    assert found, f"{argv[0]} is not on PATH nor in {scripts}"
    return [found, *argv[1:]]


def _workspace(tmp_path: Path) -> tuple[Path, str, str]:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".git").mkdir()
    doc = ws / "session.md"
    shutil.copyfile(FIXTURE, doc)
    return ws, doc.as_uri(), doc.read_text(encoding="utf-8")


def _codes(diagnostics: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["code"]: d for d in diagnostics}


def _session(
    argv: list[str],
    tmp_path: Path,
    *,
    init_options: Any,
    capabilities: dict[str, Any],
    settings_notification: Any,
    configuration: Callable[[str | None], Any],
    expect: Callable[[dict[str, dict[str, Any]]], bool],
) -> tuple[dict[str, Any], list[dict[str, Any]], str, LspClient]:
    """Initialize, open the fixture, return (initialize result, settled diagnostics, text, client)."""
    ws, uri, text = _workspace(tmp_path)

    def on_request(method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [configuration(item.get("section")) for item in params["items"]]
        if method == "workspace/applyEdit":
            return {"applied": False, "failureReason": "this test applies nothing"}
        return None  # client/registerCapability, window/workDoneProgress/create, ...

    client = LspClient(argv, ws, on_request)
    init = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": ws.as_uri(),
            "workspaceFolders": [{"uri": ws.as_uri(), "name": ws.name}],
            "capabilities": capabilities,
            "initializationOptions": init_options,
        },
    )
    client.notify("initialized", {})
    client.notify("workspace/didChangeConfiguration", {"settings": settings_notification})
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "markdown", "version": 1, "text": text}},
    )
    diagnostics = client.diagnostics(uri, lambda ds: expect(_codes(ds)))
    return init, diagnostics, text, client


def _assert_capabilities(init: dict[str, Any], encodings: list[str]) -> str:
    caps = init["capabilities"]
    assert set(caps["executeCommandProvider"]["commands"]) >= COMMANDS
    assert caps.get("codeActionProvider")
    assert caps.get("codeLensProvider") is not None
    encoding = caps.get("positionEncoding", "utf-16")
    assert encoding in encodings
    return encoding


def _status_col(text: str, encoding: str) -> tuple[int, int]:
    """(line, column) of the invalid "done" in the fixture, in ``encoding``."""
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if '"status": "done"' in t)
    prefix = lines[line][: lines[line].index('"status": "done"') + len('"status": "')]
    width = {"utf-8": len(prefix.encode()), "utf-16": len(prefix.encode("utf-16-le")) // 2}
    return line, width.get(encoding, len(prefix))


# --------------------------------------------------------------------------- Helix


def _helix() -> tuple[list[str], dict[str, Any], dict[str, Any]]:
    conf = tomllib.loads(HELIX_TOML.read_text(encoding="utf-8"))
    server = conf["language-server"]["action-lsp"]
    return [server["command"], *server.get("args", [])], server.get("config"), conf


HELIX_CAPABILITIES: dict[str, Any] = {  # what Helix offers, in short
    "general": {"positionEncodings": ["utf-8", "utf-32", "utf-16"]},
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "applyEdit": True,
        "executeCommand": {"dynamicRegistration": False},
        "didChangeConfiguration": {"dynamicRegistration": False},
    },
    "textDocument": {
        "publishDiagnostics": {"versionSupport": True},
        "codeAction": {
            "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["", "quickfix", "source"]}}
        },
    },
}


def _helix_dig(config: dict[str, Any]) -> Callable[[str | None], Any]:
    """Helix's answer to workspace/configuration: walk the section's dotted path into `config`."""

    def answer(section: str | None) -> Any:
        value: Any = config
        for part in (section or "").split(".") if section else []:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        return value

    return answer


def test_helix_languages_toml_shape() -> None:
    argv, config, conf = _helix()
    assert argv == ["action-lsp", "serve"]
    assert config == {"allowOverwrite": False, "workspaceRoots": [], "severity": {}}
    markdown = next(lang for lang in conf["language"] if lang["name"] == "markdown")
    assert "action-lsp" in markdown["language-servers"]
    # sessions: *.jsonl (a glob, which wins over the json language's "jsonl" extension), not *.json
    jsonl = next(lang for lang in conf["language"] if lang["name"] == "jsonl")
    assert jsonl["file-types"] == [{"glob": "*.jsonl"}]
    assert jsonl["language-servers"] == ["action-lsp"] and jsonl["grammar"] == "json"
    assert not any(lang["name"] == "json" for lang in conf["language"])
    _resolve(argv)


@pytest.mark.parametrize("override", [False, True], ids=["shipped", "missing-field-off"])
def test_helix_settings_reach_the_server(tmp_path: Path, override: bool) -> None:
    argv, config, _ = _helix()
    if override:  # the user edits [language-server.action-lsp.config.severity]
        config["severity"]["missing-field"] = "off"
        config["severity"]["invalid-value"] = "warning"

    def expect(codes: dict[str, dict[str, Any]]) -> bool:
        return "invalid-value" in codes and (override or "missing-field" in codes)

    init, diagnostics, text, client = _session(
        _resolve(argv),
        tmp_path,
        init_options=config,
        capabilities=HELIX_CAPABILITIES,
        settings_notification=config,
        configuration=_helix_dig(config),
        expect=expect,
    )
    try:
        encoding = _assert_capabilities(init, ["utf-8", "utf-32", "utf-16"])
        assert encoding == "utf-8", "the server should take Helix's first choice, utf-8"
        codes = _codes(diagnostics)
        line, col = _status_col(text, encoding)
        assert codes["invalid-value"]["range"]["start"] == {"line": line, "character": col}
        if override:
            assert "missing-field" not in codes, f"severity off was ignored: {diagnostics}"
            assert codes["invalid-value"]["severity"] == 2
        else:
            assert codes["missing-field"]["severity"] == 1
            assert codes["invalid-value"]["severity"] == 1
    finally:
        client.close()


# --------------------------------------------------------------------------- Emacs (Eglot)

_TOKEN = re.compile(
    r"""\s+|;[^\n]*|(?P<open>[(\[])|(?P<close>[)\]])|(?P<str>"(?:[^"\\]|\\.)*")|(?P<quote>')"""
    r"""|(?P<atom>[^\s()\[\]";']+)""",
    re.S,
)


def _read_elisp(source: str, at: int) -> tuple[Any, int]:
    """Read one Emacs Lisp datum at ``at`` as Eglot would serialize it to JSON.

    A plist (keyword, value, ...) is an object with the keywords' names as keys, a vector an
    array, ``:json-false`` false, ``t`` true, ``nil`` null, strings and numbers themselves.
    """
    while True:
        m = _TOKEN.match(source, at)
        assert m, f"cannot read Emacs Lisp at {source[at : at + 40]!r}"
        at = m.end()
        if m.lastgroup:
            break
    kind = m.lastgroup
    if kind == "quote":
        return _read_elisp(source, at)
    if kind == "str":
        return json.loads(m.group("str").replace("\\\n", "")), at  # same escapes as JSON here
    if kind == "atom":
        atom = m.group("atom")
        if atom == ":json-false":
            return False, at
        if atom in ("t", "nil"):
            return (True if atom == "t" else None), at
        if re.fullmatch(r"-?\d+", atom):
            return int(atom), at
        return _Symbol(atom), at
    if kind == "open":
        closer = "]" if m.group("open") == "[" else ")"
        items: list[Any] = []
        while True:
            m2 = _TOKEN.match(source, at)
            while m2 and not m2.lastgroup:
                at = m2.end()
                m2 = _TOKEN.match(source, at)
            assert m2, "unbalanced Emacs Lisp"
            if m2.lastgroup == "close":
                assert m2.group("close") == closer
                at = m2.end()
                break
            item, at = _read_elisp(source, at)
            items.append(item)
        if closer == "]":
            return items, at
        if not items:
            return None, at
        if (
            all(isinstance(k, _Symbol) and k.startswith(":") for k in items[::2])
            and len(items) % 2 == 0
        ):
            return {k[1:]: v for k, v in zip(items[::2], items[1::2], strict=True)}, at
        return items, at
    raise AssertionError(f"unexpected {m.group(0)!r}")


class _Symbol(str):
    pass


def _defcustom(name: str) -> Any:
    source = EMACS_EL.read_text(encoding="utf-8")
    at = source.index(f"(defcustom {name}") + len(f"(defcustom {name}")
    value, _ = _read_elisp(source, at)
    return value


def _emacs() -> tuple[list[str], dict[str, Any]]:
    return _defcustom("action-lsp-command"), _defcustom("action-lsp-settings")


EGLOT_CAPABILITIES: dict[str, Any] = {  # Eglot 1.9 offers no positionEncodings: utf-16
    "workspace": {
        "configuration": True,
        "workspaceFolders": True,
        "applyEdit": True,
        "executeCommand": {"dynamicRegistration": False},
        "didChangeConfiguration": {"dynamicRegistration": False},
    },
    "textDocument": {
        "publishDiagnostics": {"relatedInformation": False},
        "codeAction": {
            "codeActionLiteralSupport": {
                "codeActionKind": {"valueSet": ["quickfix", "refactor", "source"]}
            }
        },
    },
}


def test_emacs_el_shape() -> None:
    argv, settings = _emacs()
    assert argv == ["action-lsp", "serve"]
    assert settings == {"allowOverwrite": False, "workspaceRoots": []}
    source = EMACS_EL.read_text(encoding="utf-8")
    assert (
        "(add-to-list 'eglot-server-programs (cons action-lsp-modes #'action-lsp-contact))"
        in source
    )
    assert ":initializationOptions #'action-lsp--initialization-options" in source
    assert _defcustom("action-lsp-modes") == [
        _Symbol("markdown-mode"),
        _Symbol("gfm-mode"),
        _Symbol("text-mode"),
        _Symbol("action-lsp-jsonl-mode"),
    ]
    assert """(add-to-list 'auto-mode-alist '("\\\\.jsonl\\\\'" . action-lsp-jsonl-mode))""" in source
    _resolve(argv)


@pytest.mark.parametrize("override", [False, True], ids=["shipped", "missing-field-off"])
def test_emacs_settings_reach_the_server(tmp_path: Path, override: bool) -> None:
    argv, settings = _emacs()
    if override:  # (setq action-lsp-settings '(... :severity (:missing-field "off")))
        settings["severity"] = {"missing-field": "off"}
    workspace = {"actionLsp": settings}  # what action-lsp-workspace-configuration answers

    def expect(codes: dict[str, dict[str, Any]]) -> bool:
        return "invalid-value" in codes and (override or "missing-field" in codes)

    init, diagnostics, text, client = _session(
        _resolve(argv),
        tmp_path,
        init_options=settings,
        capabilities=EGLOT_CAPABILITIES,
        settings_notification=workspace,
        configuration=lambda section: workspace.get(section or ""),
        expect=expect,
    )
    try:
        encoding = _assert_capabilities(init, ["utf-16"])
        codes = _codes(diagnostics)
        line, col = _status_col(text, encoding)
        assert codes["invalid-value"]["range"]["start"] == {"line": line, "character": col}
        assert ("missing-field" in codes) is not override, diagnostics
    finally:
        client.close()


def test_emacs_batch_sends_what_the_test_sends() -> None:
    """Load action-lsp.el in a real Emacs and compare what Eglot would send with what we send."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (optional: apt-get install emacs-nox elpa-eglot)")
    probe = r"""
(progn
  (let* ((entry (seq-find (lambda (e) (and (listp (car e)) (memq 'markdown-mode (car e))))
                          eglot-server-programs))
         (contact (funcall (cdr entry) nil))
         (program (seq-take-while #'stringp contact))
         (init (funcall (plist-get (seq-drop-while #'stringp contact) :initializationOptions) nil))
         (ws (action-lsp-workspace-configuration nil)))
    (princ (json-serialize
            (list :modes (vconcat (mapcar #'symbol-name (car entry)))
                  :program (vconcat program)
                  :init init
                  :workspace ws)
            :false-object :json-false :null-object nil))))
"""
    proc = subprocess.run(
        [emacs, "--batch", "-l", str(EMACS_EL), "--eval", probe],
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    sent = json.loads(proc.stdout)
    argv, settings = _emacs()
    assert sent == {
        "modes": ["markdown-mode", "gfm-mode", "text-mode", "action-lsp-jsonl-mode"],
        "program": argv,
        "init": settings,
        "workspace": {"actionLsp": settings},
    }


EGLOT_PROBE = r"""
(progn
  (when %(override)s
    (setq action-lsp-settings
          (append action-lsp-settings '(:severity (:missing-field "off")))))
  (find-file %(doc)s)
  (text-mode)
  (apply #'eglot (eglot--guess-contact))
  (let ((deadline (+ (float-time) %(timeout)d)) (seen nil))
    (while (and (< (float-time) deadline)
                (not (seq-find (lambda (d) (string-match-p "\\[invalid-value\\]"
                                                           (flymake-diagnostic-text d)))
                               (flymake-diagnostics))))
      (accept-process-output nil 0.1))
    (accept-process-output nil %(quiet)s)
    (princ (json-serialize
            (vconcat
             (mapcar (lambda (d)
                       (let ((beg (flymake-diagnostic-beg d)))
                         (list :line (1- (line-number-at-pos beg))
                               :column (save-excursion (goto-char beg) (- beg (line-beginning-position)))
                               :type (symbol-name (flymake-diagnostic-type d))
                               :text (flymake-diagnostic-text d))))
                     (flymake-diagnostics)))))))
"""


@pytest.mark.parametrize("override", [False, True], ids=["shipped", "missing-field-off"])
def test_emacs_eglot_batch(tmp_path: Path, override: bool) -> None:
    """A real Eglot (Emacs in batch mode) with action-lsp.el: Flymake gets the diagnostics, at
    the right characters, and a severity override in `action-lsp-settings` takes effect."""
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (optional: apt-get install emacs-nox elpa-eglot)")
    ws, _, text = _workspace(tmp_path)
    probe = EGLOT_PROBE % {
        "override": "t" if override else "nil",
        "doc": json.dumps(str(ws / "session.md")),
        "timeout": int(TIMEOUT_S),
        "quiet": QUIET_S,
    }
    scripts = Path(sys.executable).parent
    env = dict(os.environ, PATH=f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(
        [emacs, "--batch", "-l", str(EMACS_EL), "--eval", probe],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S + 30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    found = json.loads(proc.stdout)
    by_code = {re.search(r"\[([a-z-]+)\]", d["text"]).group(1): d for d in found}  # type: ignore[union-attr]
    lines = text.split("\n")
    line = next(i for i, t in enumerate(lines) if '"status": "done"' in t)
    column = lines[line].index('"status": "done"') + len('"status": "')  # in characters
    assert by_code["invalid-value"]["line"] == line
    assert by_code["invalid-value"]["column"] == column
    assert by_code["invalid-value"]["type"] == "eglot-error"
    assert ("missing-field" in by_code) is not override, found
