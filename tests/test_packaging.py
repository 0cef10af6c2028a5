"""The wheel is the product: build it from the sources, install it into a fresh virtual
environment, and run ``action-lsp check`` and ``action-lsp serve`` from there.

The new environment gets the dependencies of the running one through a ``.pth`` line (so the
test works offline and fast) but never its copy of action-lsp: ``PYTHONPATH`` is cleared and the
working directory is elsewhere, and the test checks that ``action_lsp`` is imported from the
wheel's install, with every module, ``rules.md`` and ``py.typed``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "action_lsp"


def _run(cmd: list[str], cwd: Path, env: dict[str, str], **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, **kw)  # type: ignore[call-overload,no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    """(the wheel, the fresh venv's bin directory, an environment without this checkout)."""
    tmp = tmp_path_factory.mktemp("packaging")
    src = tmp / "src"  # build from a copy: the checkout stays clean
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(PACKAGE, src / "action_lsp", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    dist = tmp / "dist"
    proc = _run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(dist)],  # wheel from sdist
        cwd=src, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SetuptoolsDeprecationWarning" not in proc.stdout + proc.stderr
    (wheel,) = dist.glob("action_lsp-*.whl")
    (sdist,) = dist.glob("action_lsp-*.tar.gz")
    assert sdist.stat().st_size > 10_000

    venv = tmp / "venv"
    proc = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp, env=env)
    assert proc.returncode == 0, proc.stderr
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bin_dir / "python"
    purelib = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=tmp, env=env
    ).stdout.strip()
    # The running environment's dependencies (pygls, tree-sitter, ...), not its action-lsp.
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "zz_test_deps.pth").write_text("\n".join(sorted(deps)) + "\n", encoding="utf-8")
    proc = _run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
         "--quiet", str(wheel)],
        cwd=tmp, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return wheel, bin_dir, env


def test_the_wheel_holds_every_module_and_data_file(installed: tuple[Path, Path, dict[str, str]]) -> None:
    wheel, _, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {
        p.relative_to(REPO).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert sources <= names, sorted(sources - names)
    assert {"action_lsp/rules.md", "action_lsp/py.typed"} <= names
    dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(wheel).read(f"{dist_info}/METADATA").decode()
    assert "License-Expression: Apache-2.0" in metadata
    assert f"{dist_info}/licenses/LICENSE" in names
    entry_points = zipfile.ZipFile(wheel).read(f"{dist_info}/entry_points.txt").decode()
    assert "action-lsp = action_lsp.cli:main" in entry_points


def test_installed_package_is_the_wheel_and_imports_whole(
    installed: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, bin_dir, env = installed
    code = (
        "import importlib, json, pkgutil, action_lsp\n"
        "from action_lsp import codes\n"
        "mods = [m.name for m in pkgutil.walk_packages(action_lsp.__path__, 'action_lsp.')\n"
        "        if m.name != 'action_lsp.__main__']\n"
        "for m in mods: importlib.import_module(m)\n"
        "print(json.dumps({'file': action_lsp.__file__, 'mods': mods,\n"
        "  'rules': codes.docs_path().is_file(),\n"
        "  'typed': (codes.docs_path().parent / 'py.typed').is_file()}))\n"
    )
    proc = _run([str(bin_dir / "python"), "-c", code], cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    assert Path(info["file"]).is_relative_to(bin_dir.parent), info["file"]
    assert not Path(info["file"]).is_relative_to(REPO)
    expected = {
        ".".join(p.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
        for p in PACKAGE.rglob("*.py")
        if p.name != "__main__.py"
    } - {"action_lsp"}
    assert expected <= set(info["mods"]), sorted(expected - set(info["mods"]))
    assert info["rules"] and info["typed"]


def test_installed_check(installed: tuple[Path, Path, dict[str, str]], tmp_path: Path) -> None:
    _, bin_dir, env = installed
    t = tmp_path / "t.md"
    t.write_text('```actions\n{"actions": [{"type": "create_tsk"}]}\n```\n', encoding="utf-8")
    proc = _run([str(bin_dir / "action-lsp"), "check", "t.md"], cwd=tmp_path, env=env)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("t.md:2:") and "[unknown-action]" in proc.stdout
    assert proc.stdout.splitlines()[-1] == "Found 1 error in 1 file."
    proc = _run([str(bin_dir / "action-lsp"), "--version"], cwd=tmp_path, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("action-lsp ")


def _message(body: dict[str, object]) -> bytes:
    data = json.dumps(body).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def _read_message(stream) -> dict[str, object]:  # type: ignore[no-untyped-def]
    length = 0
    while True:
        line = stream.readline()
        assert line, "the server closed its output"
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))  # type: ignore[no-any-return]


def test_installed_serve_answers_initialize_and_shutdown(
    installed: tuple[Path, Path, dict[str, str]], tmp_path: Path
) -> None:
    _, bin_dir, env = installed
    proc = subprocess.Popen(
        [str(bin_dir / "action-lsp"), "serve"],
        cwd=tmp_path, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(_message({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}}))
        proc.stdin.flush()
        reply = _read_message(proc.stdout)
        while "id" not in reply:  # notifications (log messages) may come first
            reply = _read_message(proc.stdout)
        assert reply["id"] == 1
        result = reply["result"]
        assert isinstance(result, dict) and result["serverInfo"]["name"] == "action-lsp"
        proc.stdin.write(_message({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        proc.stdin.write(_message({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
        proc.stdin.flush()
        reply = _read_message(proc.stdout)
        while reply.get("id") != 2:
            reply = _read_message(proc.stdout)
        assert reply.get("result") is None and "error" not in reply
        proc.stdin.write(_message({"jsonrpc": "2.0", "method": "exit"}))
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_the_readme_installs_build_before_it_runs_it() -> None:
    """`python -m build` without the `build` package fails ("'build' is a package and cannot be
    directly executed" when a build/ folder is in the way): the README installs it first."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in install.split("```sh", 1)[1].split("```", 1)[0].splitlines()]
    assert "python -m pip install build" in commands
    assert commands.index("python -m pip install build") < commands.index("python -m build")


def test_installing_from_the_sources_leaves_no_build_folder_to_shadow_build(tmp_path: Path) -> None:
    """pip and pipx build in the source tree; setuptools' build/ folder there would be found by
    `python -m build` before the build package (setup.cfg moves it to .build/)."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.cfg", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, src / name)
    shutil.copytree(PACKAGE, src / "action_lsp", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--wheel-dir", str(tmp_path / "wheels"), str(src)],
        cwd=tmp_path, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert list((tmp_path / "wheels").glob("action_lsp-*.whl"))
    assert not (src / "build").exists()


def stated_kb(pattern: str) -> list[tuple[str, int]]:
    """Every size the docs state with ``pattern`` (one group: the number of KB), per file."""
    import re

    found = []
    for doc in (REPO / "README.md", REPO / "vscode-client" / "README.md", *sorted((REPO / "docs").glob("*.md"))):
        found += [(doc.name, int(n)) for n in re.findall(pattern, doc.read_text(encoding="utf-8"))]
    return found


def about(stated: int, actual_bytes: int) -> bool:
    """A stated "≈N KB" (KiB) is within 15 % of the real size."""
    return abs(stated - actual_bytes / 1024) <= 0.15 * actual_bytes / 1024


def test_the_docs_state_the_wheels_size(installed: tuple[Path, Path, dict[str, str]]) -> None:
    wheel, _, _ = installed
    stated = stated_kb(r"whl \(≈(\d+) KB\)") + stated_kb(r"the wheel \(≈(\d+) KB\)")
    assert len(stated) >= 2, stated
    size = wheel.stat().st_size
    assert all(about(n, size) for _, n in stated), f"the wheel is {size / 1024:.0f} KB; the docs say {stated}"
