"""CI and `make test` as a stranger meets them: `.ci/run` tests a fresh clone with nothing beside
it, `make` says what each step does and how long it took, and a failing step (pytest's exit 5,
"no tests collected", included) fails the run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    first_block = readme.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines()]
    assert commands[:2] == ["make demo", "make test"]
    return commands[1]


def test_ci_runs_the_readme_test_command_in_a_fresh_clone() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "git clone" in script and "mktemp -d" in script
    assert re.search(rf"\b{re.escape(readme_test_command())} </dev/null", script)
    assert "|| true" not in script and "set -euo pipefail" in script


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize(("ci", "slow_skipped"), [("", True), ("true", False)])
def test_make_test_skips_the_slow_tests_only_outside_ci(ci: str, slow_skipped: bool, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = ci
    proc = subprocess.run(
        ["make", "-n", "test", f"VENV={tmp_path / 'venv'}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    pytest_line = next(line for line in proc.stdout.splitlines() if "-m pytest" in line)
    assert ('-m "not slow"' in pytest_line) is slow_skipped
    assert "-n auto" in pytest_line
    steps = [line for line in proc.stdout.splitlines() if "scripts/step.sh" in line]
    assert any("install.sh" in line for line in steps)  # the long VS Code install is a step


def test_a_step_says_what_it_does_and_how_long_it_took() -> None:
    ok = subprocess.run(
        ["bash", "scripts/step.sh", "say hi", "true"], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0
    assert re.fullmatch(r"==> say hi\n    say hi: done in \d+s\n", ok.stdout)


def test_a_failing_step_fails_with_its_exit_code() -> None:
    # pytest exits 5 when it collected no test: that must fail `make test`, not pass silently.
    proc = subprocess.run(
        ["bash", "scripts/step.sh", "run the tests", "bash", "-c", "exit 5"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 5
    assert "run the tests: FAILED (exit 5)" in proc.stderr


def test_slow_marker_is_registered_and_used() -> None:
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert '"slow: ' in pyproject
    marked = [
        p for p in (REPO / "tests").rglob("test_*.py")
        if p.name != "test_ci.py" and "@pytest.mark.slow" in p.read_text(encoding="utf-8")
    ]
    assert marked
