"""A search block found only by its tokens (``syntax``: comments and layout ignored) is applied
on its own only when the place holds no comment the search text lacks: replacing it would drop
a comment the model never saw (``# NOTE: teardown must run last``), text a person wrote. Such a
place is a question, as a fuzzy match is: ``search-not-found`` with the candidate, written with
``--accept-fuzzy``. A comment the search text has and the file lacks, or the same comments
re-wrapped, stay layout (applied)."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main

RUN = "def run():\n    setup()\n{between}    teardown(){after}\n"


def _block(path: str, search: str, replace: str) -> str:
    return f"{path}\n```\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n```\n"


def _apply(tmp_path: Path, files: dict[str, str], transcript: str, *extra: str) -> int:
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).write_text(text)
    t = tmp_path / "t.md"
    t.write_text(transcript)
    return main(["apply", "--root", str(root), "--write", *extra, str(t)])


SEARCH = "    setup()\n    teardown()\n"
REPLACE = "    setup()\n    teardown()\n    extra()\n"
DROPPED = {
    "comment line": RUN.format(between="    # NOTE: teardown must run last, see issue 42\n", after=""),
    "trailing comment": RUN.format(between="", after="  # keep: closes the pool"),
}


@pytest.mark.parametrize("case", sorted(DROPPED))
def test_a_comment_the_search_text_lacks_is_not_dropped(tmp_path: Path, capsys, case: str) -> None:
    before = DROPPED[case]
    assert _apply(tmp_path, {"d.py": before}, _block("d.py", SEARCH, REPLACE)) == 1
    err = capsys.readouterr().err
    assert "[search-not-found]" in err and "comment" in err and "--accept-fuzzy" in err
    assert (tmp_path / "ws" / "d.py").read_text() == before


def test_accept_fuzzy_writes_it(tmp_path: Path) -> None:
    before = DROPPED["comment line"]
    assert _apply(tmp_path, {"d.py": before}, _block("d.py", SEARCH, REPLACE), "--accept-fuzzy") == 0
    assert "extra()" in (tmp_path / "ws" / "d.py").read_text()


def test_javascript_too(tmp_path: Path, capsys) -> None:
    before = "function run() {\n  setup();\n  // the pool must close last\n  teardown();\n}\n"
    block = _block("a.js", "  setup();\n  teardown();\n", "  setup();\n  teardown();\n  extra();\n")
    assert _apply(tmp_path, {"a.js": before}, block) == 1
    assert "[search-not-found]" in capsys.readouterr().err
    assert (tmp_path / "ws" / "a.js").read_text() == before


def test_layout_and_comments_the_search_text_has_are_still_layout(tmp_path: Path) -> None:
    before = "def run():\n    setup(a,\n          b)  # two args\n    teardown()\n"
    search = "    setup(a, b)  # two args\n    teardown()\n"
    replace = "    setup(a, b)  # two args\n    teardown()\n    extra()\n"
    assert _apply(tmp_path, {"d.py": before}, _block("d.py", search, replace)) == 0
    assert (tmp_path / "ws" / "d.py").read_text().endswith("    extra()\n")


def test_a_comment_only_the_search_text_has_is_layout(tmp_path: Path) -> None:
    before = RUN.format(between="", after="")
    search = "    setup()\n    # the model's own comment\n    teardown()\n"
    assert _apply(tmp_path, {"d.py": before}, _block("d.py", search, REPLACE)) == 0
    assert (tmp_path / "ws" / "d.py").read_text().endswith("    extra()\n")
