"""README.md against the registries it documents: every dialect has a row in one table."""

from __future__ import annotations

import re
from pathlib import Path

from action_lsp import dialects

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _dialect_table() -> list[str]:
    """The rows of the table under "## Dialects", up to its first non-table line."""
    section = README.split("\n## Dialects\n", 1)[1]
    lines = section.lstrip("\n").split("\n")
    rows = []
    for line in lines:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows[2:]  # header and rule


def test_every_dialect_has_a_row_in_the_one_dialect_table() -> None:
    named = [m.group(1) for row in _dialect_table() if (m := re.match(r"\| `([\w-]+)` \|", row))]
    assert sorted(named) == sorted(dialects.NAMES), "README's dialect table (one table, no blank line) vs the registry"
