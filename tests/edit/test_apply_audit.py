"""Every command-line apply path, audited: a place whose content differs from the search text
(`definition`, `fuzzy`) is written only when asked for it (`--accept-fuzzy`,
`--accept-candidate`), never by `--write` alone nor by `--force`; and nothing is written outside
the workspace, forced or not (`..`, absolute paths, a symlinked parent or file leading out, a
rename's target). The server's apply paths have the same matrix end to end in
tests/server/test_server_force.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import NAMES

pytestmark = pytest.mark.skipif("xml-tags" not in NAMES, reason="needs the xml-tags dialect")

ADD = "def add(a, b):\n    return a + b\n"
GREET = "def greet(name):\n    print(\"hello\", name)\n    return name\n"
# (file content, search, replace): found only by the fuzzy / definition strategy.
CLOSE = {
    # (never another definition: `sub` for `add` is no close match at all, issue 19)
    "fuzzy": ("total = add(a, b)\nprint(total)\n", "total = add(a, c)\nprint(total)\n",
              "total = add(a, c)\nprint(-total)\n"),
    "definition": (GREET, "def greet(name):\n    print(\"wrong\", name)\n    return name\n",
                   "def greet(name):\n    print(\"hi\", name)\n    return name\n"),
}


def modify(path: str, search: str, replace: str, close: bool = True) -> str:
    end = "</modify_file>\n\n" if close else "\n"
    return (f"<modify_file>\n<path>{path}</path>\n<search>\n{search}</search>\n"
            f"<replace>\n{replace}</replace>\n{end}")


def apply(ws: Path, transcript: str, *flags: str) -> int:
    t = ws.parent / "t.md"
    t.write_text(transcript, encoding="utf-8")
    return main(["apply", "--root", str(ws), *flags, str(t)])


def snapshot(*dirs: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for top in dirs:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in dirnames:
                out[os.path.join(dirpath, name) + "/"] = None
            for name in filenames:
                p = os.path.join(dirpath, name)
                out[p] = Path(p).read_bytes() if not os.path.islink(p) else None
    return out


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.mark.parametrize("strategy", sorted(CLOSE))
@pytest.mark.parametrize(
    "flags",
    [("--write",), ("--write", "--force"), ("--write", "--force", "--select", "2"),
     ("--write", "--force", "--accept-candidate", "1=1")],
    ids=["write", "force", "force-selected", "candidate-for-another-action"],
)
@pytest.mark.parametrize("closed", [True, False], ids=["closed", "unclosed"])
def test_a_close_match_is_never_written_unasked(
    ws: Path, strategy: str, flags: tuple[str, ...], closed: bool, capsys
) -> None:
    text, search, replace = CLOSE[strategy]
    (ws / "m.py").write_text(text)
    (ws / "other.py").write_text("x = 1\n")
    # Unclosed: the transcript's error too, which --force lifts; the question stays.
    tx = modify("other.py", "x = 1\n", "x = 2\n") + modify("m.py", search, replace, closed)
    assert apply(ws, tx, *flags) != 0
    err = capsys.readouterr().err
    if closed or "--force" in flags:
        assert "[search-not-found]" in err and f"{strategy} strategy" in err
    else:
        assert "[unclosed-tag]" in err
    assert (ws / "m.py").read_text() == text
    assert (ws / "other.py").read_text() == "x = 1\n"  # all or none


@pytest.mark.parametrize("strategy", sorted(CLOSE))
def test_a_close_match_is_written_when_asked(ws: Path, strategy: str) -> None:
    text, search, replace = CLOSE[strategy]
    (ws / "m.py").write_text(text)
    assert apply(ws, modify("m.py", search, replace), "--write", "--accept-candidate", "1=1") == 0
    assert (ws / "m.py").read_text() == replace


def _escapes(ws: Path, outside: Path) -> dict[str, str]:
    """Transcripts whose file action would write outside ``ws`` (into ``outside``)."""
    os.symlink(outside, ws / "link")
    os.symlink(outside / "target.txt", ws / "dangling.txt")
    (outside / "victim.txt").write_text("keep\n")
    os.symlink(outside / "victim.txt", ws / "victim.txt")
    (ws / "mine.txt").write_text("mine\n")
    rel_out = os.path.relpath(outside, ws)

    def create(path: str) -> str:
        return f"<create_file>\n<path>{path}</path>\n<content>\npwned\n</content>\n</create_file>\n"

    return {
        "dotdot": create(f"{rel_out}/new.txt"),
        "absolute": create(str(outside / "abs.txt")),
        "symlinked-parent": create("link/new.txt"),
        "symlinked-deep-parent": create("link/sub/dir/new.txt"),
        "dangling-symlink": create("dangling.txt"),
        "symlinked-file-overwrite": create("victim.txt"),
        "symlinked-file-modify": modify("victim.txt", "keep\n", "pwned\n"),
        "symlinked-file-delete": '<dyad-delete path="victim.txt"></dyad-delete>\n',
        "rename-out": '<dyad-rename from="mine.txt" to="link/mine.txt"></dyad-rename>\n',
        "rename-of-symlinked-file": '<dyad-rename from="victim.txt" to="v2.txt"></dyad-rename>\n',
        "unclosed-symlinked-parent": create("link/new.txt").removesuffix("</create_file>\n"),
    }


CASES = ["dotdot", "absolute", "symlinked-parent", "symlinked-deep-parent", "dangling-symlink",
         "symlinked-file-overwrite", "symlinked-file-modify", "symlinked-file-delete",
         "rename-out", "rename-of-symlinked-file", "unclosed-symlinked-parent"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("flags", [("--write",), ("--write", "--force"),
                                   ("--write", "--force", "--accept-fuzzy")],
                         ids=["write", "force", "force-fuzzy"])
def test_nothing_is_written_outside_the_workspace_even_forced(
    tmp_path: Path, case: str, flags: tuple[str, ...], capsys
) -> None:
    if "dyad" not in NAMES and ("delete" in case or "rename" in case):
        pytest.skip("needs the dyad dialect")
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    tx = _escapes(ws, outside)[case]
    before = snapshot(ws, outside)
    assert apply(ws, tx, *flags) != 0
    err = capsys.readouterr().err
    blocked = case.startswith("unclosed") and "--force" not in flags  # not even planned
    assert blocked or any(code in err for code in ("[path-traversal]", "[absolute-path]")), err
    assert snapshot(ws, outside) == before


def test_a_symlink_planted_between_plan_and_write_is_not_followed(tmp_path: Path) -> None:
    """The plan resolved every path inside the workspace; if a directory on the way is
    replaced by a symlink leading out before the write, the write refuses (all or none)."""
    from action_lsp.document import analyze
    from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan

    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "keep.txt").write_text("old\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    transcript = (
        "<create_file>\n<path>sub/deep/new.txt</path>\n<content>\npwned\n</content>\n</create_file>\n\n"
        + modify("keep.txt", "old\n", "new\n")
    )
    plan = plan_changes(list(analyze(transcript).actions), Workspace(ws))
    assert plan.ok and len(plan.changes) == 2
    (ws / "sub").rmdir()
    os.symlink(outside, ws / "sub")
    with pytest.raises(WriteError, match="symlink"):
        write_plan(plan, root=ws)
    assert os.listdir(outside) == []
    assert (ws / "keep.txt").read_text() == "old\n"
