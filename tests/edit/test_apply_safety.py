"""`action-lsp apply` never writes an edit a reviewer would call wrong without being told to.

Every case of issue 8's "a match is either certain or it is a question" runs through the real
command line on real transcripts (the xml-tags dialect): a close match whose content differs,
a new syntax error, several matches, Roo Code's line-number prefixes, the transcript's own
errors, creates over modified files, and file/directory conflicts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import NAMES

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

ADD = "def add(a, b):\n    return a + b\n"


def modify(path: str, search: str, replace: str) -> str:
    return (f"<modify_file>\n<path>{path}</path>\n<search>\n{search}</search>\n"
            f"<replace>\n{replace}</replace>\n</modify_file>\n\n")


def create(path: str, content: str, tag: str = "create_file") -> str:
    return f"<{tag}>\n<path>{path}</path>\n<content>\n{content}</content>\n</{tag}>\n\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def apply(ws: Path, transcript: str, *flags: str) -> int:
    t = ws.parent / "t.md"
    t.write_text(transcript, encoding="utf-8")
    return main(["apply", "--root", str(ws), *flags, str(t)])


def tree(root: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root) + "/"] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            out[os.path.relpath(p, root)] = Path(p).read_bytes()
    return out


# --------------------------------------------------------------------------- close matches


def test_search_for_sub_never_replaces_add(ws: Path, capsys) -> None:
    (ws / "m.py").write_text(ADD)
    tx = modify("m.py", "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return b - a\n")
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    # `add` is another definition: no candidate at all (issue 19), said plainly.
    assert "[search-not-found]" in err and "`sub` is not defined in m.py; nothing close" in err
    assert "closest" not in err and "nothing written" in err
    assert (ws / "m.py").read_text() == ADD
    # The dry run says the same and prints no diff for it.
    assert apply(ws, tx) == 1
    out, err = capsys.readouterr()
    assert out == "" and "[search-not-found]" in err
    # Asked for a close match explicitly, there is still none to write over `add`.
    assert apply(ws, tx, "--write", "--accept-fuzzy") == 1
    assert (ws / "m.py").read_text() == ADD


def test_one_line_search_for_sub_finds_nothing(ws: Path, capsys) -> None:
    (ws / "m.py").write_text(ADD)
    tx = modify("m.py", "def sub(a, b): return a - b\n", "def sub(a, b): return b - a\n")
    assert apply(ws, tx, "--write", "--accept-fuzzy") == 1
    assert "[search-not-found]" in capsys.readouterr().err
    assert (ws / "m.py").read_text() == ADD


def test_search_for_sub_never_replaces_divide(ws: Path, capsys) -> None:
    text = ADD + "\n\ndef divide(a, b):\n    if b == 0:\n        raise ZeroDivisionError\n    return a / b\n"
    (ws / "m.py").write_text(text)
    tx = modify("m.py", "def sub(a, b):\n    return a - b\n", "def sub(a, b):\n    return 0\n")
    assert apply(ws, tx, "--write") == 1
    assert "[search-not-found]" in capsys.readouterr().err
    assert (ws / "m.py").read_text() == text


def test_subtotal_does_not_break_total(ws: Path, capsys) -> None:
    text = "import math\n\n\ndef total(items):\n    return sum(\n        item.price for item in items\n    )\n"
    (ws / "m.py").write_text(text)
    tx = modify("m.py", "def subtotal(items):\n    return 0\n", "def subtotal(items):\n    return 1\n")
    assert apply(ws, tx, "--write") == 1
    # `total` is another definition than `subtotal`: never offered, not even asked and forced.
    assert "`subtotal` is not defined in m.py; nothing close" in capsys.readouterr().err
    assert (ws / "m.py").read_text() == text
    assert apply(ws, tx, "--write", "--accept-fuzzy", "--force") == 1
    assert (ws / "m.py").read_text() == text


def test_string_literal_difference_is_a_question(ws: Path, capsys) -> None:
    text = "def greet(name):\n    print(\"hello\", name)\n    return name\n"
    (ws / "g.py").write_text(text)
    tx = modify("g.py", "def greet(name):\n    print(\"wrong\", name)\n    return name\n",
                "def greet(name):\n    print(\"hi\", name)\n    return name\n")
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    assert "definition strategy" in err and "[search-not-found]" in err
    assert (ws / "g.py").read_text() == text
    # Choosing the candidate by its line applies it.
    assert apply(ws, tx, "--write", "--accept-candidate", "1=1") == 0
    assert (ws / "g.py").read_text() == "def greet(name):\n    print(\"hi\", name)\n    return name\n"


def test_accept_fuzzy_is_per_selected_action(ws: Path, capsys) -> None:
    near = "total = add(a, b)\nprint(total)\n"
    (ws / "a.py").write_text(near)
    (ws / "b.py").write_text(near)
    close = ("total = add(a, c)\nprint(total)\n", "total = add(a, c)\nprint(-total)\n")
    tx = modify("a.py", *close) + modify("b.py", *close)
    assert apply(ws, tx, "--write", "--accept-fuzzy", "--select", "2") == 0
    assert (ws / "a.py").read_text() == near
    assert (ws / "b.py").read_text() == "total = add(a, c)\nprint(-total)\n"


def test_check_json_gives_the_candidate(ws: Path, capsys) -> None:
    (ws / "m.py").write_text(ADD)
    t = ws.parent / "t.md"
    t.write_text(modify("m.py", "def sub(a, b):\n    return a - b\n", "x = 1\n"))
    assert main(["check", "--root", str(ws), "--format", "json", str(t)]) == 1
    (d,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert d["code"] == "search-not-found" and d["severity"] == "error"


def test_layout_only_drift_still_applies(ws: Path, capsys) -> None:
    (ws / "m.py").write_text("class A:\n    def f(self):\n        return compute(1,\n                       2)\n")
    tx = modify("m.py", "def f(self):\n    return compute(1, 2)\n", "def f(self):\n    return 3\n")
    assert apply(ws, tx, "--write") == 0
    assert "syntax strategy" in capsys.readouterr().err
    assert (ws / "m.py").read_text() == "class A:\n    def f(self):\n        return 3\n"


# --------------------------------------------------------------------------- several matches


def test_ambiguous_lists_every_line_and_a_candidate_can_be_chosen(ws: Path, capsys) -> None:
    text = "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"
    (ws / "a.py").write_text(text)
    tx = modify("a.py", "x = 1\n", "x = 9\n")
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    assert "matches 3 places, at lines 1, 3, 5" in err and "[search-ambiguous]" in err
    assert (ws / "a.py").read_text() == text
    assert apply(ws, tx, "--write", "--accept-candidate", "1.1=3") == 0
    assert (ws / "a.py").read_text() == "x = 1\ny = 2\nx = 9\nz = 3\nx = 1\n"
    assert apply(ws, tx, "--write", "--accept-candidate", "1=2") == 1
    assert "no candidate place at line 2" in capsys.readouterr().err


@pytest.mark.parametrize("bad", ["x", "1", "1=", "0=3", "9=1", "1.0=2"])
def test_accept_candidate_usage(ws: Path, bad: str, capsys) -> None:
    (ws / "a.py").write_text("x = 1\n")
    assert apply(ws, modify("a.py", "x = 1\n", "x = 2\n"), "--accept-candidate", bad) == 2
    assert "--accept-candidate" in capsys.readouterr().err


# --------------------------------------------------------------------------- line numbers


def test_roo_line_number_prefixes_are_stripped(ws: Path, capsys) -> None:
    (ws / "m.py").write_text(ADD)
    tx = modify("m.py", "1 | def add(a, b):\n2 |     return a + b\n",
                "1 | def add(a, b):\n2 |     return b + a\n")
    assert apply(ws, tx, "--write") == 0
    assert "line-number prefixes" in capsys.readouterr().err
    assert (ws / "m.py").read_text() == "def add(a, b):\n    return b + a\n"


def test_line_numbers_in_part_of_the_replacement_are_not_written(ws: Path, capsys) -> None:
    (ws / "m.py").write_text(ADD)
    # New lines without numbers, old ones with: every line or none must carry them.
    tx = modify("m.py", "1 | def add(a, b):\n2 |     return a + b\n",
                "1 | def add(a, b):\n    c = 0\n2 |     return a + b + c\n")
    assert apply(ws, tx, "--write") == 1
    assert (ws / "m.py").read_text() == ADD
    tx = modify("m.py", "1 | def add(a, b):\n2 |     return a + b\n",
                "def add(a, b):\n    return a + b + 1\n")
    assert apply(ws, tx, "--write") == 0
    assert (ws / "m.py").read_text() == "def add(a, b):\n    return a + b + 1\n"


def test_line_numbers_choose_among_matches(ws: Path, capsys) -> None:
    text = "def f():\n    pass\n\n\ndef g():\n    pass\n"
    (ws / "m.py").write_text(text)
    tx = modify("m.py", "6 |     pass\n", "6 |     return 1\n")
    assert apply(ws, tx, "--write") == 0
    assert (ws / "m.py").read_text() == "def f():\n    pass\n\n\ndef g():\n    return 1\n"
    # Numbers that point at no match leave it ambiguous.
    (ws / "m.py").write_text(text)
    assert apply(ws, modify("m.py", "4 |     pass\n", "4 |     return 1\n"), "--write") == 1
    assert "[search-ambiguous]" in capsys.readouterr().err


# --------------------------------------------------------------------------- transcript errors


def test_unclosed_create_is_not_applied_unless_forced(ws: Path, capsys) -> None:
    tx = "<create_file>\n<path>y.py</path>\n<content>\ny = 1\n</content>\n\nThe end.\n"
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    assert "not applied because of the transcript's unclosed-tag" in err and "t.md:1:2:" in err
    assert tree(ws) == {}
    assert apply(ws, tx, "--write", "--force") == 0
    assert (ws / "y.py").read_text() == "y = 1\n"


def test_misspelled_create_file_is_not_applied(ws: Path, capsys) -> None:
    tx = create("x.py", "x = 1\n", tag="create-file")
    assert apply(ws, tx, "--write") == 1
    assert "[wrong-block-name]" in capsys.readouterr().err
    assert tree(ws) == {}


# --------------------------------------------------------------------------- creates


def test_create_after_modify_does_not_overwrite(ws: Path, capsys) -> None:
    (ws / "a.py").write_text("x = 1\ny = 2\n")
    tx = modify("a.py", "x = 1\n", "x = 10\n") + create("a.py", "z = 3\n")
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    assert "[file-exists]" in err and "modified earlier in this transcript" in err
    assert (ws / "a.py").read_text() == "x = 1\ny = 2\n"
    assert apply(ws, tx, "--write", "--force") == 0
    assert (ws / "a.py").read_text() == "z = 3\n"


def test_create_after_create_may_replace(ws: Path) -> None:
    assert apply(ws, create("n.py", "a = 1\n") + create("n.py", "a = 2\n"), "--write") == 0
    assert (ws / "n.py").read_text() == "a = 2\n"


# --------------------------------------------------------------------------- conflicts


def test_file_then_child_of_it(ws: Path, capsys) -> None:
    tx = create("a", "file\n") + create("a/b", "child\n")
    assert apply(ws, tx, "--write") == 1
    err = capsys.readouterr().err
    assert err.count("[file-exists]") == 1
    assert "a/b needs a to be a directory, but a is created as a file by action 1" in err
    assert tree(ws) == {}  # no empty directory left behind
    t = ws.parent / "t.md"
    assert main(["check", "--root", str(ws), str(t)]) == 1
    assert "a/b needs a to be a directory" in capsys.readouterr().out


def test_child_then_file_of_it(ws: Path, capsys) -> None:
    assert apply(ws, create("a/b", "child\n") + create("a", "file\n"), "--write") == 1
    assert "a cannot be a file: action 1 puts something inside it" in capsys.readouterr().err
    assert tree(ws) == {}


def test_file_on_disk_used_as_parent(ws: Path, capsys) -> None:
    (ws / "a").write_text("file\n")
    assert apply(ws, create("a/b.txt", "x\n"), "--write") == 1
    err = capsys.readouterr().err
    assert err.count("a/b.txt") == 1 and "a is a file" in err
    assert tree(ws) == {"a": b"file\n"}


def test_directory_as_target(ws: Path, capsys) -> None:
    (ws / "d").mkdir()
    assert apply(ws, create("d", "x\n") + modify("d", "a\n", "b\n"), "--write") == 1
    err = capsys.readouterr().err
    assert "d is a directory" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_as_target(ws: Path, capsys) -> None:
    os.mkfifo(ws / "pipe")
    assert apply(ws, create("pipe", "x\n") + modify("pipe", "a\n", "b\n"), "--write", "--force") == 1
    err = capsys.readouterr().err
    assert err.count("not a regular file") == 2


def test_overlong_name_is_a_diagnostic(ws: Path, capsys) -> None:
    long = "x" * 300
    assert apply(ws, create(f"{long}/y.txt", "x\n") + create(f"{long}.txt", "x\n"), "--write") == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "[invalid-path]" in err
    t = ws.parent / "t.md"
    assert main(["check", "--root", str(ws), str(t)]) == 1
    assert tree(ws) == {}


def test_check_root_says_what_apply_would_do(ws: Path, capsys) -> None:
    (ws / "a.py").write_text("def f():\n    return 1\n")
    tx = modify("a.py", "    return 1\n", "    return (1\n")
    t = ws.parent / "t.md"
    t.write_text(tx)
    assert main(["check", "--root", str(ws), str(t)]) == 1
    assert "error: a.py parsed before this edit but not after it" in capsys.readouterr().out
    assert apply(ws, tx) == 1
    assert main(["check", "--root", str(ws), "--force", str(t)]) == 0
    assert "warning: a.py parsed before" in capsys.readouterr().out
    assert apply(ws, tx, "--write", "--force") == 0


def test_a_path_outside_the_workspace_is_not_offered_force(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The message of a path problem never tells the user to apply with --force: nothing is
    ever written outside the workspace, forced or not."""
    transcript = create("../outside.py", "x = 1\n") + create("ok.py", "y = 2\n")
    assert apply(ws, transcript) == 1
    said = capsys.readouterr()
    text = said.out + said.err
    assert "path-traversal" in text and "--force" not in text
    assert apply(ws, transcript, "--write", "--force") == 1
    assert not (ws.parent / "outside.py").exists()
