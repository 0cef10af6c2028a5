"""The command line as a user at a terminal and a CI job see it: colour, source excerpts,
per-code summaries, ``--statistics``, stdin, the GitHub and SARIF formats, and usage mistakes."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.cli.output import Style, clean, excerpt, github_annotation, use_color

BAD = (
    "# Reply\n"
    "\n"
    "Sure 😀, here you go.\n"
    "```actions\n"
    '{"actions": [{"notes": "😀 x", "type": "create_tsk"}, {"type": "create_task"}]}\n'
    "```\n"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
CONCISE = re.compile(r"^.+:\d+:\d+: (error|warning|information|hint): .+ \[[a-z-]+\]$")


def run_module(*args: str, cwd: Path, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "action_lsp", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env=env,
    )


def run_in_terminal(*args: str, cwd: Path, env: dict[str, str]) -> str:
    """Run the CLI with stdout on a pseudo-terminal, as a user at a shell does."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "action_lsp", *args],
        cwd=cwd,
        stdout=follower,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO once the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8").replace("\r\n", "\n")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TERM")}
    env["TERM"] = "xterm-256color"
    env.update(extra)
    return env


@pytest.fixture
def bad(tmp_path: Path) -> Path:
    p = tmp_path / "bad.md"
    p.write_text(BAD, encoding="utf-8")
    return p


# -- a terminal --------------------------------------------------------------------------------


def test_terminal_gets_colour_excerpts_and_a_summary_per_code(bad: Path) -> None:
    out = run_in_terminal("check", bad.name, cwd=bad.parent, env=_env())
    assert "\x1b[1;31merror\x1b[0m" in out
    plain = ANSI.sub("", out)
    lines = plain.splitlines()
    head = next(i for i, line in enumerate(lines) if "[unknown-action]" in line)
    assert lines[head].startswith("bad.md:5:")
    # the source line, then carets under `"create_tsk"` -- after an emoji two columns wide
    assert lines[head + 2] == '5 | {"actions": [{"notes": "😀 x", "type": "create_tsk"}, {"type": "create_task"}]}'
    carets = lines[head + 3]
    source = lines[head + 2]
    col = source.index("create_tsk") + 1  # one more column: the emoji is two cells wide
    assert carets.index("^") == col and carets.count("^") == len("create_tsk")
    assert any(re.fullmatch(r"1 × unknown-action\s+error", line) for line in lines)
    assert any(re.fullmatch(r"1 × missing-field\s+error", line) for line in lines)
    assert lines[-1] == "Found 2 errors in 1 file."


def test_no_color_keeps_the_excerpt_without_escapes(bad: Path) -> None:
    out = run_in_terminal("check", bad.name, cwd=bad.parent, env=_env(NO_COLOR="1"))
    assert "\x1b[" not in out
    assert "  | " in out and "^" in out
    out = run_in_terminal("check", "--color", "never", bad.name, cwd=bad.parent, env=_env())
    assert "\x1b[" not in out


def test_piped_output_is_the_contract_one_line_per_diagnostic(bad: Path) -> None:
    proc = run_module("check", bad.name, cwd=bad.parent, env=_env())
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert "\x1b[" not in proc.stdout
    assert all(CONCISE.match(line) for line in lines[:-1]), lines
    assert lines[-1] == "Found 2 errors in 1 file."
    forced = run_module("check", "--color", "always", bad.name, cwd=bad.parent, env=_env())
    assert "\x1b[1;31merror\x1b[0m" in forced.stdout


def test_full_and_concise_formats(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--output-format", "full", str(bad)]) == 1
    full = capsys.readouterr().out
    assert "^^^" in full and "5 | " in full
    assert main(["check", "--output-format", "concise", str(bad)]) == 1
    concise = capsys.readouterr().out.splitlines()
    assert len(concise) == 3 and all(CONCISE.match(line) for line in concise[:2])


def test_use_color_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    class Pipe:
        def isatty(self) -> bool:
            return False

    for name in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)
    assert use_color("auto", Tty()) and not use_color("auto", Pipe())  # type: ignore[arg-type]
    assert use_color("always", Pipe()) and not use_color("never", Tty())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color("auto", Tty())  # type: ignore[arg-type]
    assert use_color("always", Tty())  # type: ignore[arg-type]
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not use_color("auto", Tty())  # type: ignore[arg-type]


def test_excerpt_of_a_long_line_is_cut_around_the_range() -> None:
    line = "x" * 500 + "NEEDLE" + "y" * 500
    rows = excerpt(3, line, 500, 506, Style(False), "error")
    assert rows[1].startswith("3 | …") and rows[1].endswith("…")
    assert len(rows[1]) < 140
    assert rows[1][rows[2].index("^") : rows[2].index("^") + 6] == "NEEDLE"


# -- statistics and summaries ------------------------------------------------------------------


def test_statistics(bad: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "two.md"
    other.write_text('```actions\n{"actions": [{"type": "create_task"}]}\n```\n', encoding="utf-8")
    assert main(["check", "--statistics", str(bad), str(other)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:3] for line in out] == [
        ["2", "missing-field", "error"],
        ["1", "unknown-action", "error"],
    ]
    assert "A required field is absent or empty." in out[0] or out[0].rstrip().endswith(".")
    assert main(["check", "--statistics", "--output-format", "json", str(bad), str(other)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(d["code"], d["count"]) for d in data] == [("missing-field", 2), ("unknown-action", 1)]


def test_statistics_respects_severity_overrides(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--statistics", "--severity", "missing-field=off", str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[:2] for line in out] == [["1", "unknown-action"]]


# -- standard input ----------------------------------------------------------------------------


def test_check_parse_and_apply_read_stdin(tmp_path: Path) -> None:
    proc = run_module("check", "-", "--stdin-filename", "chat/reply.md", cwd=tmp_path, stdin=BAD)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("chat/reply.md:5:")
    proc = run_module("check", "-", cwd=tmp_path, stdin=BAD)
    assert proc.stdout.splitlines()[0].startswith("-:5:")
    proc = run_module("parse", "-", "--format", "json", cwd=tmp_path, stdin=BAD)
    assert proc.returncode == 0, proc.stderr
    assert [a["type"] for a in json.loads(proc.stdout)["actions"]] == ["create_tsk", "create_task"]
    (tmp_path / "a.txt").write_text("old\n", encoding="utf-8")
    transcript = "<modify_file>\n<path>a.txt</path>\n<search>\nold\n</search>\n<replace>\nnew\n</replace>\n</modify_file>\n"
    proc = run_module("apply", "-", "--stdin-filename", "t.md", "--write", cwd=tmp_path, stdin=transcript)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "new\n"
    assert "modified a.txt" in proc.stderr


def test_stdin_only_once(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "-", "-"]) == 2
    assert "once" in capsys.readouterr().err


# -- usage -------------------------------------------------------------------------------------


def test_a_mistake_shows_the_subcommand_usage(tmp_path: Path) -> None:
    for args, prog in (
        (["check", "--bogus", "x.md"], "action-lsp check"),
        (["apply", "--nope", "t.md"], "action-lsp apply"),
        (["parse", "--format", "yaml", "t.md"], "action-lsp parse"),
    ):
        proc = run_module(*args, cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stderr.startswith(f"usage: {prog} "), proc.stderr
        assert "error:" in proc.stderr


def test_output_format_and_format_are_the_same_option(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    main(["check", "--format", "json", str(bad)])
    one = capsys.readouterr().out
    main(["check", "--output-format", "json", str(bad)])
    assert capsys.readouterr().out == one
    main(["parse", "--output-format", "json", str(bad)])
    assert json.loads(capsys.readouterr().out)["actions"]


def test_apply_help_describes_only_what_exists(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["apply", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    # every kind of change the planner makes is named, and nothing else
    from typing import get_args

    from action_lsp.edit.plan import ChangeKind

    assert set(get_args(ChangeKind)) == {"create", "modify", "mkdir", "delete"}
    assert "(create, write, modify, rename or delete a file, create a directory)" in text
    assert "execute" not in text.lower() or "nothing is ever run" in text


def test_check_force_lets_creates_overwrite(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    t = tmp_path / "t.md"
    t.write_text("<create_file>\n<path>a.py</path>\n<content>\nx = 2\n</content>\n</create_file>\n", encoding="utf-8")
    main(["check", "--root", str(tmp_path), str(t)])
    assert "[file-exists]" in capsys.readouterr().out
    main(["check", "--root", str(tmp_path), "--force", str(t)])
    assert "[file-exists]" not in capsys.readouterr().out
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Command line", 1)[1].split("\n## ", 1)[0]
    usage = next(line for line in section.splitlines() if line.startswith("action-lsp check "))
    assert "--force" in usage and "**check**" in section and "`--force`" in section


def test_no_actions_says_so(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    t = tmp_path / "prose.md"
    t.write_text("Just prose, nothing to do.\n", encoding="utf-8")
    assert main(["parse", str(t)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{t}: no actions found (dialects: ") and "xml-tags" in out
    assert main(["parse", "--dialect", "aether", str(t)]) == 0
    assert capsys.readouterr().out == f"{t}: no actions found (dialects: aether).\n"
    assert main(["apply", "--root", str(tmp_path), str(t)]) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and f"{t}: no actions found; nothing to apply." in captured.err
    tasks = tmp_path / "tasks.md"
    tasks.write_text('```actions\n{"actions": [{"type": "create_task", "content": "x"}]}\n```\n', encoding="utf-8")
    assert main(["apply", "--root", str(tmp_path), str(tasks)]) == 0
    err = capsys.readouterr().err
    assert "skipped action 1 (create_task)" in err and "no changes" in err


# -- GitHub annotations ------------------------------------------------------------------------


def test_github_format(bad: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["check", "--output-format", "github", str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    path = str(bad).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    m = re.fullmatch(
        r"::error file=(?P<file>[^,]+),line=5,col=(?P<col>\d+),endLine=5,endColumn=(?P<end>\d+),"
        r"title=unknown-action::(?P<msg>.+)",
        next(line for line in lines if "unknown-action" in line),
    )
    assert m, lines
    assert m["file"] == path
    assert int(m["end"]) - int(m["col"]) == len("create_tsk")


def test_github_escaping() -> None:
    line = github_annotation(
        "warning", "a,b:c%.md", (1, 2), (3, 4), "bad-json", "50% done\nline two\r::error::forged"
    )
    assert line == (
        "::warning file=a%2Cb%3Ac%25.md,line=1,col=2,endLine=3,endColumn=4,title=bad-json::"
        "50%25 done%0Aline two%0D::error::forged"
    )
    assert "\n" not in line
    assert github_annotation("hint", "x", (1, 1), (1, 1), "c", "\x1b[2J").endswith("::\\x1b[2J")
    assert github_annotation("information", "x", (1, 1), (1, 1), "c", "m").startswith("::notice ")


# -- SARIF -------------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def assert_sarif_2_1_0(log: dict) -> None:  # type: ignore[type-arg]
    """The parts of the SARIF 2.1.0 schema a consumer (GitHub code scanning) relies on."""
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        rules = driver.get("rules", [])
        ids = [r["id"] for r in rules]
        assert len(ids) == len(set(ids))
        for r in rules:
            assert isinstance(r["id"], str)
            assert isinstance(r["shortDescription"]["text"], str)
            assert r["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
        assert run.get("columnKind", "utf16CodeUnits") in ("utf16CodeUnits", "unicodeCodePoints")
        for res in run["results"]:
            assert isinstance(res["message"]["text"], str)
            assert res["level"] in ("none", "note", "warning", "error")
            assert ids[res["ruleIndex"]] == res["ruleId"]
            for loc in res["locations"]:
                phys = loc["physicalLocation"]
                assert isinstance(phys["artifactLocation"]["uri"], str)
                region = phys["region"]
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    assert _is_int(region[key]) and region[key] >= 1
                assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])


def test_sarif_format(bad: Path, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    clean_file = tmp_path / "clean.md"
    clean_file.write_text("prose\n", encoding="utf-8")
    assert main(["check", "--output-format", "sarif", str(bad), str(clean_file)]) == 1
    log = json.loads(capsys.readouterr().out)
    assert_sarif_2_1_0(log)
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "action-lsp"
    assert {r["ruleId"] for r in run["results"]} == {"unknown-action", "missing-field"}
    unknown = next(r for r in run["results"] if r["ruleId"] == "unknown-action")
    assert unknown["level"] == "error"
    region = unknown["locations"][0]["physicalLocation"]["region"]
    line = BAD.splitlines()[4]
    col16 = len(line[: line.index("create_tsk")].encode("utf-16-le")) // 2 + 1
    assert (region["startLine"], region["startColumn"]) == (5, col16)
    assert region["endColumn"] - region["startColumn"] == len("create_tsk")
    uri = unknown["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == bad.as_uri()


def test_sarif_relative_paths_are_uri_references(tmp_path: Path) -> None:
    (tmp_path / "my reply.md").write_text(BAD, encoding="utf-8")
    proc = run_module("check", "--format", "sarif", "my reply.md", cwd=tmp_path)
    log = json.loads(proc.stdout)
    assert_sarif_2_1_0(log)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for r in log["runs"][0]["results"]
        for loc in r["locations"]
    }
    assert uris == {"my%20reply.md"}


def test_clean_escapes_what_a_terminal_acts_on() -> None:
    assert clean("a\x1b[31mb\nc\u202ed\ud800\t") == "a\\x1b[31mb\\nc\\u202ed\\ud800\\t"
    assert clean("tab\there", keep="\t") == "tab\there"
    assert clean("naïve 😀 ok") == "naïve 😀 ok"
