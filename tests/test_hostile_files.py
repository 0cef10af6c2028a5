"""A hostile repository's files never crash a command (issue 21): a configuration with a value of
the wrong type or nested deeper than the parser's recursion limit is one line and exit 2 (the
configuration is unreadable input); a planted journal nested 200,000 deep is one line naming the
journal, and a write under it is refused (exit 1) with nothing written."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import set_declared
from action_lsp.project_config import ConfigError, load

ACTION = "[dialects.x.actions.a]\nkind = 'create'\npath = 'p'\ncontent = 'c'\n"
DEEP = 100_000


@pytest.fixture(autouse=True)
def no_declared() -> Iterator[None]:
    set_declared(())
    yield
    set_declared(())


BAD_CONFIG = [
    (f"[dialects.x]\ndefault-type = ['a']\n{ACTION}", "dialects.x.default-type: expected"),
    (f"[dialects.x]\ndefault-type = {{ a = 1 }}\n{ACTION}", "dialects.x.default-type: expected"),
    (f"[dialects.x]\nsyntax = 'json'\nfences = ['f']\ndefault-type = [[1]]\n{ACTION}",
     "dialects.x.default-type: expected"),
    ("a = " + "[" * DEEP + "]" * DEEP + "\n", "nested too deeply"),
    ("a = " + "{ b = " * DEEP + "1" + " }" * DEEP + "\n", "nested too deeply"),
]


@pytest.mark.parametrize(("config", "message"), BAD_CONFIG, ids=["list", "table", "json-list", "arrays", "tables"])
def test_a_hostile_configuration_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], config: str, message: str
) -> None:
    (tmp_path / ".action-lsp.toml").write_text(config, encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("hello\n", encoding="utf-8")
    for command in (["check"], ["parse"], ["apply", "--root", str(tmp_path)]):
        assert main([*command, str(t)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and ".action-lsp.toml" in err, err
    with pytest.raises(ConfigError):
        load(tmp_path / ".action-lsp.toml")


def test_a_deep_pyproject_is_one_line_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text(
        "[tool.action-lsp]\nx = " + "[" * DEEP + "]" * DEEP + "\n", encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("hello\n", encoding="utf-8")
    assert main(["check", str(t)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pyproject.toml" in err and "nested too deeply" in err, err


def _plant_deep_journal(root: Path, depth: int = 200_000) -> None:
    jdir = root / ".action-lsp-journal"
    jdir.mkdir()
    (jdir / "journal.json").write_text("[" * depth + "]" * depth, encoding="utf-8")


TRANSCRIPT = "<create_file>\n<path>new.txt</path>\n<content>\nx\n</content>\n</create_file>\n"


def test_a_deeply_nested_journal_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    (tmp_path / ".action-lsp").mkdir()
    _plant_deep_journal(tmp_path)
    (tmp_path / "t.md").write_text(TRANSCRIPT, encoding="utf-8")
    dry = subprocess.run([sys.executable, "-m", "action_lsp", "apply", "t.md"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert "Traceback" not in dry.stderr and "RecursionError" not in dry.stderr, dry.stderr
    said = [line for line in dry.stderr.splitlines() if "journal" in line]
    assert len(said) == 1 and "cannot read the journal: nested too deeply" in said[0], dry.stderr
    assert dry.returncode == 0 and "+x" in dry.stdout  # the dry run still shows the plan
    wet = subprocess.run([sys.executable, "-m", "action_lsp", "apply", "--write", "t.md"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120)
    assert wet.returncode == 1, wet.stderr
    assert "Traceback" not in wet.stderr and "nothing written" in wet.stderr, wet.stderr
    assert not (tmp_path / "new.txt").exists()
    assert (tmp_path / ".action-lsp-journal" / "journal.json").exists()  # left for the user


def test_recover_messages_says_one_line_for_a_deep_journal(tmp_path: Path) -> None:
    from action_lsp.edit.journal import recover_messages

    _plant_deep_journal(tmp_path)
    (message,) = recover_messages([tmp_path])
    assert "cannot read the journal: nested too deeply" in message and "\n" not in message
    assert len(message) < 1000


def test_a_journal_that_is_valid_but_deep_inside_is_refused(tmp_path: Path) -> None:
    """Nested just below the JSON decoder's limit: reading it works, naming what is in it
    must not recurse either."""
    from action_lsp.edit.journal import recover_messages

    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir()
    st = jdir.stat()
    rel: object = "a"
    for _ in range(900):
        rel = [rel]
    record = {"version": 1, "id": "0123456789ab", "place": [st.st_dev, st.st_ino],
              "entries": [{"op": "rename", "rel": rel, "target": "../x"}], "dirs": []}
    (jdir / "journal.json").write_text(json.dumps(record), encoding="utf-8")
    (message,) = recover_messages([tmp_path])
    assert "journal" in message and "\n" not in message and len(message) < 1000


def test_an_integer_over_the_digit_limit_in_the_configuration_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by tests/test_fuzz.py: tomllib raises a ValueError of its own for it."""
    (tmp_path / ".action-lsp.toml").write_text(
        f"[dialects.x]\nsyntax = {'9' * 4_400}\n{ACTION}", encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("hello\n", encoding="utf-8")
    assert main(["check", str(t)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".action-lsp.toml" in err and "4,300 digits" in err, err


@pytest.mark.parametrize("field", ["mode", "uid", "gid", "backup"])
def test_a_journal_field_of_the_wrong_type_is_one_line(tmp_path: Path, field: str) -> None:
    """Found by tests/test_fuzz.py: a journal in its own place whose entry has a mode (owner,
    group, backup range) that is no integer made the recovery raise TypeError."""
    import hashlib

    from action_lsp.edit.journal import recover_messages

    old, new = b"old\n", b"new\n"
    (tmp_path / "a.txt").write_bytes(new)
    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir()
    st = jdir.stat()
    entry = {"op": "rename", "rel": "a.txt", "target": "a.txt", "temp": ".action-lsp.0123456789ab.0.tmp",
             "old_sha": hashlib.sha256(old).hexdigest(), "new_sha": hashlib.sha256(new).hexdigest(),
             "backup": [0, len(old)], "mode": 0o644, "uid": None, "gid": None}
    entry[field] = "\udfff" if field != "backup" else ["0", {}]
    record = {"version": 1, "id": "0123456789ab", "place": [st.st_dev, st.st_ino],
              "entries": [entry], "dirs": []}
    (jdir / "journal.json").write_text(json.dumps(record), encoding="utf-8")
    (jdir / "backup").write_bytes(old)
    (jdir / "committed").write_bytes(b"")
    (jdir / "restoring").write_bytes(b"")
    (message,) = recover_messages([tmp_path])
    assert "cannot read the journal" in message and "\n" not in message, message
    assert (tmp_path / "a.txt").read_bytes() == new  # left as it is


@pytest.mark.parametrize(("key", "value"), [
    ("started", "create"), ("started", 1e300), ("started", [1]), ("label", "x" * 100_000),
    ("label", {"a": [1, 2]}),
])
def test_a_journal_with_an_odd_label_or_start_time_still_recovers(tmp_path: Path, key: str, value: object) -> None:
    """Found by tests/test_fuzz.py: a start time that is not a number made the recovery's
    message raise TypeError after the files were settled."""
    from action_lsp.edit.journal import recover_messages

    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir()
    st = jdir.stat()
    record = {"version": 1, "id": "0123456789ab", "place": [st.st_dev, st.st_ino],
              "entries": [], "dirs": [], key: value}
    (jdir / "journal.json").write_text(json.dumps(record), encoding="utf-8")
    (message,) = recover_messages([tmp_path])
    assert "was rolled back" in message and len(message) < 1000, message
    assert not jdir.exists()


@pytest.mark.parametrize("target", ["a\x00b", "dir\x00/a.txt", "a\ud800b"])
def test_a_journal_naming_a_path_with_a_nul_is_refused(tmp_path: Path, target: str) -> None:
    """Found by tests/test_fuzz.py: the recovery raised ValueError (embedded null byte) or
    UnicodeEncodeError (a lone surrogate)."""
    from action_lsp.edit.journal import recover_messages

    jdir = tmp_path / ".action-lsp-journal"
    jdir.mkdir()
    st = jdir.stat()
    record = {"version": 1, "id": "0123456789ab", "place": [st.st_dev, st.st_ino], "dirs": [],
              "entries": [{"op": "delete", "rel": "a", "target": target, "old_sha": "0" * 64}]}
    if "\ud800" in target:
        record["entries"], record["dirs"] = [], [target]
    (jdir / "journal.json").write_text(json.dumps(record), encoding="utf-8")
    (message,) = recover_messages([tmp_path])
    assert "names a" in message and "it may not" in message and "\n" not in message, message
