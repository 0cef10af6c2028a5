"""`make demo` and `make test` as a newcomer runs them: the demo leaves examples/ as it was, the
VS Code harness without root is one line and a skip (not a failure of the whole run), and pytest
says which test file is done instead of sitting at 99 %."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "vscode-client" / "e2e" / "install.sh"


def _snapshot(top: Path) -> dict[str, str]:
    return {str(p.relative_to(top)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(top.rglob("*")) if p.is_file()}


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_demo_applies_into_a_copy_and_leaves_examples_as_it_was() -> None:
    before = _snapshot(REPO / "examples")
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "action-lsp").exists():
        pytest.skip("the action-lsp script is not beside this Python (make demo runs .venv/bin/action-lsp)")
    proc = subprocess.run(
        ["make", "--no-print-directory", "demo", f"BIN={bin_dir}", "RUNTIME="],
        cwd=REPO, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _snapshot(REPO / "examples") == before
    written = next(line for line in proc.stdout.splitlines() if line.strip().startswith("written into "))
    copy = Path(written.split("written into ", 1)[1].split(" (", 1)[0])
    try:
        assert "def farewell" in (copy / "src" / "app.py").read_text(encoding="utf-8")
        assert (copy / "tests" / "test_app.py").is_file()
    finally:
        shutil.rmtree(copy.parent)


def _as_a_user_without_root(tmp_path: Path) -> dict[str, str]:
    """PATH with stand-ins: not root, no Debian package installed, no sudo."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    (stubs / "id").write_text("#!/bin/sh\necho 1000\n")
    (stubs / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")
    (stubs / "sudo").write_text("#!/bin/sh\necho 'sudo: a password is required' >&2\nexit 1\n")
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PATH"] = f"{stubs}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_vscode_harness_without_root_says_what_it_needs_in_one_line(tmp_path: Path) -> None:
    env = _as_a_user_without_root(tmp_path)
    proc = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 3, proc.stdout + proc.stderr  # skipped, not failed
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert "chromium" in line and "sudo apt-get install" in line and "as root" in line
    # CI (CI=true) must run the VS Code test: there it is an error
    proc = subprocess.run(["bash", str(INSTALL)], capture_output=True, text=True, timeout=60, env={**env, "CI": "true"})
    assert proc.returncode == 1 and "chromium" in proc.stderr


def test_a_step_that_cannot_run_here_is_skipped_not_failed(tmp_path: Path) -> None:
    step = REPO / "scripts" / "step.sh"
    proc = subprocess.run(["bash", str(step), "VS Code test harness", "sh", "-c", "exit 3"], capture_output=True, text=True)
    assert proc.returncode == 0 and "VS Code test harness: skipped" in proc.stdout
    proc = subprocess.run(["bash", str(step), "tests", "sh", "-c", "exit 1"], capture_output=True, text=True)
    assert proc.returncode == 1 and "FAILED" in proc.stderr


def test_make_test_says_which_file_is_done(tmp_path: Path) -> None:
    (tmp_path / "test_quick.py").write_text("def test_a():\n    pass\n\ndef test_b():\n    pass\n")
    (tmp_path / "test_other.py").write_text(
        "import pytest\n\ndef test_c():\n    pass\n\n@pytest.mark.skip(reason='x')\ndef test_d():\n    pass\n\n"
        "@pytest.mark.xfail(reason='y', strict=False)\ndef test_e():\n    assert False\n")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "--progress-per-file" in makefile and "-q " not in makefile.split("PYTEST :=", 1)[1].split("\n", 1)[0]
    env = {**os.environ, "PYTHONPATH": str(REPO / "tests")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "progress_per_file", "--progress-per-file", "--no-header", "-rfEs",
         "-o", "console_output_style=classic", "-p", "no:cacheprovider", "-p", "no:randomly", str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("test_quick.py: 2 passed (") for line in lines), proc.stdout
    assert any(line.startswith("test_other.py: 1 passed, 1 skipped, 1 xfailed (") for line in lines), proc.stdout
    assert "1 xfailed" in lines[-1], proc.stdout  # an xfail is not a skip (the -rs summary crashed on it)
    assert not any(set(line) <= {".", "s"} and line for line in lines), proc.stdout  # no rows of dots
    assert "bringing up nodes" not in proc.stdout


def test_the_install_steps_run_through_step_sh(tmp_path: Path) -> None:
    """`$(STEP) LABEL VAR=value cmd` fails (step.sh runs "$@": no shell to read the
    assignment); an environment for a step goes through `env`. A fresh clone's first `make test`
    stopped at "PYTHONWARNINGS=...: command not found"."""
    import shlex

    venv = tmp_path / "venv"
    proc = subprocess.run(
        ["make", "-n", "--no-print-directory", f"{venv}/.installed-dev", f"{venv}/.installed-runtime", f"VENV={venv}"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.replace("\\\n", " ").splitlines()  # recipe lines continued with \\
    steps = [shlex.split(line) for line in lines if line.startswith("bash scripts/step.sh")]
    assert len(steps) >= 3, proc.stdout  # create the venv, upgrade pip, install
    for words in steps:
        command = words[3]  # bash scripts/step.sh LABEL COMMAND ...
        assert "=" not in command, words
