"""Hostile input never hangs, crashes or fools the terminal (issue 8): special files in a walked
directory, lone surrogates in every output format, control characters from the transcript."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.cli import main

# JSON escapes a model can write: a lone surrogate, a newline and ESC, all inside an action type
# that ends up in a diagnostic's message and in `parse`'s listing.
FORGE = "x\\nforged.md:1:1: error: all is fine [bad-json]\\u001b[2J\\u001b]0;pwned\\u0007"
SURROGATE = '```actions\n{"actions": [{"type": "create_task", "content": "\\ud800"}, {"type": "nope\\udfff"}]}\n```\n'
CONTROL = '```actions\n{"actions": [{"type": "' + FORGE + '"}]}\n```\n'
FORMATS = ("text", "full", "concise", "json", "github", "sarif")


def run_module(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="strict",
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_check_dir_skips_fifos_devices_and_sockets(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text('```actions\n{"actions": [{"type": "nope"}]}\n```\n', encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")  # a device: reading it never ends
    (tmp_path / "gone.md").symlink_to(tmp_path / "missing")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s.md"))
        proc = run_module("check", ".", cwd=tmp_path, timeout=60)  # hangs before the fix
    finally:
        sock.close()
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[-1] == "Found 1 error in 1 file."
    err = proc.stderr
    assert "pipe.md: skipped, not a regular file (FIFO)" in err
    assert "zero.md: skipped, not a regular file (device)" in err
    assert "s.md: skipped, not a regular file (socket)" in err
    assert "gone.md: skipped" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_directory_of_only_fifos_is_a_clear_error(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    os.mkfifo(tmp_path / "pipe.md")
    assert main(["check", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "skipped, not a regular file (FIFO)" in err and "no transcript files found" in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_lone_surrogates_in_every_check_format(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "a.md").write_text(SURROGATE, encoding="utf-8")
    proc = run_module("check", "--format", fmt, "a.md", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr and "UnicodeEncodeError" not in proc.stderr
    assert "\\udfff" in proc.stdout  # shown as an escape, never as a raw surrogate
    if fmt in ("json", "sarif"):
        json.loads(proc.stdout)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_lone_surrogates_in_parse(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "a.md").write_text(SURROGATE, encoding="utf-8")
    proc = run_module("parse", "--format", fmt, "a.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    if fmt == "json":
        actions = json.loads(proc.stdout)["actions"]
        assert actions[0]["fields"]["content"] == "\ud800"
    else:
        assert "nope\\udfff" in proc.stdout


def test_a_surrogate_does_not_abort_a_directory(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(SURROGATE, encoding="utf-8")
    (tmp_path / "b.md").write_text('```actions\n{"actions": [{"type": "nada"}]}\n```\n', encoding="utf-8")
    proc = run_module("check", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert any(line.startswith("b.md:") for line in proc.stdout.splitlines())
    assert proc.stdout.splitlines()[-1].endswith("in 2 files.")


@pytest.mark.parametrize("fmt", ["text", "full", "concise", "github"])
def test_control_characters_cannot_forge_lines_or_reach_the_terminal(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "a.md").write_text(CONTROL, encoding="utf-8")
    proc = run_module("check", "--format", fmt, "--color", "never", "a.md", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    out = proc.stdout
    assert "\x1b" not in out and "\x07" not in out
    assert not any(line.startswith("forged.md") for line in out.splitlines())
    assert "\\x1b[2J" in out


def test_control_characters_in_parse_and_apply(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(CONTROL, encoding="utf-8")
    proc = run_module("parse", "a.md", cwd=tmp_path)
    assert "\x1b" not in proc.stdout and "\\x1b[2J" in proc.stdout
    assert not any(line.startswith("forged.md") for line in proc.stdout.splitlines())
    proc = run_module("apply", "a.md", cwd=tmp_path)
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert not any(line.startswith("forged.md") for line in proc.stderr.splitlines())


def test_json_keeps_the_exact_text(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.md").write_text(CONTROL, encoding="utf-8")
    main(["parse", "--format", "json", str(tmp_path / "a.md")])
    (action,) = json.loads(capsys.readouterr().out)["actions"]
    assert action["type"] == json.loads('"' + FORGE + '"')  # escaped by JSON, not altered


@pytest.mark.parametrize("depth", [50, 3000])
def test_parse_json_of_a_value_nested_deeper_than_python_recurses(tmp_path: Path, capsys, depth: int) -> None:  # type: ignore[no-untyped-def]
    # Found by the fuzz test: an argument of a call in a session export holding thousands of
    # nested arrays was read (the JSON reader does not recurse) and `parse --format json` died
    # of a RecursionError while writing it.
    deep = "[" * depth + "]" * depth
    text = (
        "### 🤖 Assistant\n\n🔧 **Tool Use: Edit** (ID: toolu_1)\n```json\n"
        '{\n  "file_path": "a.py",\n  "old_string": "x = 1",\n  "new_string": ' + deep + "\n}\n```\n"
    )
    path = tmp_path / "export.md"
    path.write_text(text, encoding="utf-8")
    main(["parse", "--format", "json", str(path)])
    out = capsys.readouterr().out
    data = json.loads(out)  # one valid JSON document, whatever the depth
    assert [a["type"] for a in data["actions"]]
    assert "RecursionError" not in out
