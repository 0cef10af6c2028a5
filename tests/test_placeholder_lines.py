"""The placeholder-comment recogniser (action_lsp.placeholders) shared by truncated-content,
the chat-answer dialect and the snippet merge: the comment lines of a lazy snippet that stand
for code left out, in every comment syntax and in other languages; code and ordinary comments
are none."""

from __future__ import annotations

import pytest

from action_lsp.placeholders import has_placeholder, is_placeholder, placeholder_lines


@pytest.mark.parametrize(
    "line",
    [
        "// ... existing code ...",
        "    // ...existing code...",
        "# ... rest of the code unchanged ...",
        "# rest of the code unchanged",
        "/* ... */",
        "<!-- ... -->",
        "{/* ... existing nav items ... */}",
        "-- ... other queries ...",
        "// ... 现有代码保持不变 ...",
        "# … остальной код без изменений …",
        "// ... código existente ...",
        "# ...",
        "// existing code here",
        "% ... rest unchanged ...",
        "; ... other settings ...",
    ],
)
def test_placeholders(line: str) -> None:
    assert is_placeholder(line)
    text = f"a = 1\n{line}\nb = 2\n"
    [(start, end)] = list(placeholder_lines(text))
    assert text[start:end] == line.strip()
    assert has_placeholder(text)


@pytest.mark.parametrize(
    "line",
    [
        "// compute the total",
        "# the rest is tested below",
        "// foo(...args)",
        "# ... = 3",
        "print('...')",
        "x = [...items]",
        "// TODO: handle the other case",
        "<!-- navigation -->",
    ],
)
def test_not_placeholders(line: str) -> None:
    assert not is_placeholder(line)
    assert list(placeholder_lines(f"a = 1\n{line}\n")) == []


def test_crlf_ranges_exclude_the_carriage_return() -> None:
    text = "a\r\n  // ... existing code ...\r\nb\r\n"
    [(start, end)] = list(placeholder_lines(text))
    assert text[start:end] == "// ... existing code ..."
