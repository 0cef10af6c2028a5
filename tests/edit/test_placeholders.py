"""The placeholder comments of chat answers (``action_lsp.placeholders``): what stands for
code left out, in every comment syntax and in the languages answers are written in, and what
is only a comment."""

from __future__ import annotations

import pytest

from action_lsp.placeholders import find_placeholders, has_placeholder, placeholder_text

PLACEHOLDERS = [
    "// ... existing code ...",
    "// ...existing code...",
    "    // ...existing code... (resto del código sin cambios)",
    "# ... rest of the code unchanged ...",
    "# rest of the code unchanged",
    "<!-- ... -->",
    "<!-- ... existing content ... -->",
    "/* ... */",
    "/* ... existing styles ... */",
    "{/* ... existing code ... */}",
    "-- ... existing queries ...",
    "// ...",
    "# …",
    "// existing methods here",
    "// omitted for brevity",
    "    // ... 现有代码保持不变 ...",
    "// ... 既存のコード ...",
    "// ... 기존 코드 ...",
    "# ... código existente ...",
    "// ... reste du code inchangé ...",
    "// ... bestehender Code ...",
    "// ... остальной код без изменений ...",
]

NOT_PLACEHOLDERS = [
    "// Loading...",
    "# TODO: handle errors ...",
    "x = 1  # ...",
    "print('... existing code ...')",
    "// Enhanced API methods (won't break existing code)",
    "...",
    "// Wait for it...",
    "",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_a_placeholder_comment_stands_for_code_left_out(line: str) -> None:
    assert placeholder_text(line) is not None


@pytest.mark.parametrize("line", NOT_PLACEHOLDERS)
def test_an_ordinary_comment_or_code_is_no_placeholder(line: str) -> None:
    assert placeholder_text(line) is None


def test_find_placeholders_gives_each_line_with_its_place_and_indentation() -> None:
    text = "class A {\n  // ... existing code ...\n  run() {}\n\t// ...\n}\n"
    found = find_placeholders(text)
    assert [(p.line, p.indent, p.text) for p in found] == [
        (1, "  ", "... existing code ..."), (3, "\t", "...")]
    assert [text[p.start : p.end] for p in found] == ["  // ... existing code ...", "\t// ..."]
    assert has_placeholder(text) and not has_placeholder("def f():\n    return 1  # ok\n")


def test_a_crlf_answer_has_its_placeholders_found() -> None:
    (p,) = find_placeholders("a = 1\r\n# ... existing code ...\r\nb = 2\r\n")
    assert p.line == 1 and p.text == "... existing code ..."
