"""An old Aider block a code formatter spaced out, as Aider's own example page ``add-test.md``
holds it (committed in tests/fixtures/realworld/aider-website, Apache-2.0): Aider applied it, so
it is read as the block the model wrote -- and only that exact mangling is."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.document import analyze

FIXTURE = Path(__file__).parent.parent / "fixtures" / "realworld" / "aider-website" / "add-test.md"

BLOCK = (
    "#### add a test for cmd_add  \n\n"
    "Here's the code change:\n\n"
    "```python\n"
    "tests / test_commands.py\n"
    "<< << << < ORIGINAL\n"
    "== == == =\n"
    "import os\n"
    "\n"
    "\n"
    "class TestCommands(TestCase):\n"
    "    pass\n"
    "\n"
    ">> >> >> > UPDATED\n"
    "```\n\n"
    "> Applied edit to tests/test_commands.py  \n"
)


def test_the_spaced_out_block_of_aiders_example_page_is_its_edit() -> None:
    actions = analyze(FIXTURE.read_text(encoding="utf-8")).actions
    assert [(a.path, a.kind.value) for a in actions] == [("tests/test_commands.py", "modify_file")] * 2
    first = actions[0]
    assert first.text("search") == "" and first.text("replace").startswith("import os\nimport tempfile\n")


def test_it_applies_as_aider_applied_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "tests").mkdir(parents=True)
    (root / "tests" / "test_commands.py").write_text("")  # Aider had just created it empty
    t = tmp_path / "history.md"
    t.write_text(BLOCK)
    main(["apply", "--root", str(root), "--write", str(t)])
    assert (root / "tests" / "test_commands.py").read_text() == (
        "import os\n\n\nclass TestCommands(TestCase):\n    pass\n\n"
    )


def test_only_that_mangling_is_read() -> None:
    # New-style markers spaced out, a name that keeps a blank, a division in code: no block.
    assert analyze(BLOCK.replace("ORIGINAL", "SEARCH").replace("UPDATED", "REPLACE")).actions == []
    assert analyze(BLOCK.replace("tests / test_commands.py", "tests / test commands.py")).actions == []
    assert analyze(BLOCK.replace("== == == =\n", "")).actions == []
    code = "```python\nx = a / b\ny = x << 2\nz = y == 3\n```\n"
    assert analyze(code).actions == [] and analyze(code).diagnostics == []
