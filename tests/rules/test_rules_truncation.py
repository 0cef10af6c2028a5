"""``truncated-content``: whole-file writes whose content elides code."""

from __future__ import annotations

import pytest

from action_lsp.document import analyze
from action_lsp.rules.truncation import dropped_definitions, placeholder_lines


@pytest.mark.parametrize(
    "line",
    [
        "// ... rest of the code unchanged ...",
        "# existing code here",
        "    // ... existing code ...",
        "/* rest of the file remains the same */",
        "{/* ... other components ... */}",
        "<!-- ... -->",
        "# ... (remaining methods unchanged)",
        "// code remains the same",
        "// ...",
        "-- ... previous implementation ...",
        "// Omitted for brevity",
    ],
)
def test_placeholders(line: str) -> None:
    text = f"const a = 1;\n{line}\nconst b = 2;\n"
    (found,) = list(placeholder_lines(text))
    assert text[found[0] : found[1]] == line.strip()


@pytest.mark.parametrize(
    "line",
    [
        "// Keep the rest of the string short",
        "const rest = [...items];",
        "# This module holds the existing users' settings",
        "// TODO: handle the remaining cases later",
        "print('...')",
        "// Loading...",
        "// Other components",
        "# other config",
        "// existing code paths must keep working",
    ],
)
def test_ordinary_lines_are_not_placeholders(line: str) -> None:
    assert list(placeholder_lines(f"x = 1\n{line}\n")) == []


def test_the_diagnostic_points_at_the_placeholder_in_the_transcript() -> None:
    text = (
        '<dyad-write path="src/App.tsx">\n'
        "import React from 'react';\n"
        "// ... rest of the code unchanged ...\n"
        "</dyad-write>\n"
    )
    (d,) = [d for d in analyze(text).diagnostics if d.code == "truncated-content"]
    assert text[d.span.start : d.span.end] == "// ... rest of the code unchanged ..."
    assert d.data == {"line": 2}


def test_modify_replacements_are_not_checked() -> None:
    text = (
        "<modify_file>\n<path>a.py</path>\n<search>x = 1\n</search>\n"
        "<replace># existing code here\n</replace>\n</modify_file>\n"
    )
    assert [d.code for d in analyze(text).diagnostics] == []


def test_dropped_definitions() -> None:
    old = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(6))
    assert dropped_definitions(old, "def f0():\n    return 0\n", "m.py") == (1, 6)
    assert dropped_definitions(old, old + "def g():\n    pass\n", "m.py") is None
    assert dropped_definitions("def a():\n    pass\n", "", "m.py") is None  # too small to tell
