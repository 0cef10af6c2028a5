"""``unsafe-code`` and ``syntax-error`` with exact ranges in the transcript, through JSON escapes."""

from __future__ import annotations

import pytest

from action_lsp.dialects import DialectSet
from action_lsp.document import analyze
from action_lsp.model import Action, ActionKind, Field, SourceMap, Span
from action_lsp.rules import RuleContext, code
from action_lsp.text import LineIndex, Position


def execute(code_as_written: str) -> str:
    """A transcript with one execute_code action; ``code_as_written`` is the JSON string body."""
    return (
        "Let me run some code.\n\n```actions\n"
        '{"actions": [{"type": "execute_code", "code": "' + code_as_written + '"}]}\n```\n'
    )


def of(text: str, code_name: str) -> list[Span]:
    return [d.span for d in analyze(text).diagnostics if d.code == code_name]


def test_unsafe_call_after_escapes_covers_exactly_the_name() -> None:
    text = execute(r"x = \"a\"\nopen('f')")
    (span,) = of(text, "unsafe-code")
    at = text.index("open")
    assert span == Span(at, at + 4)
    assert text[span.start : span.end] == "open"


def test_several_unsafe_uses_after_mixed_escapes() -> None:
    written = r"s = \"tab\\t\u00e9\"\nv = eval(s)\n\tm = __import__('os')\nexec(\"print(1)\")"
    text = execute(written)
    spans = of(text, "unsafe-code")
    names = [text[s.start : s.end] for s in spans]
    assert names == ["eval", "__import__", "exec"]
    for s, name in zip(spans, names, strict=True):
        assert s.start == text.index(name, text.index(written))


def test_unsafe_code_message_and_severity() -> None:
    text = execute(r"open('f')")
    (d,) = [d for d in analyze(text).diagnostics if d.code == "unsafe-code"]
    assert "open" in d.message
    assert d.data == {"name": "open"}


def test_safe_gb_code_is_clean() -> None:
    written = (
        r"tasks = ['a', 'b']\nfor t in tasks:\n    r = gb.create_task(t, notes=\"auto\")\n"
        r"    gb.log(f\"created {r['task_id']}\")\nprint(len(tasks))"
    )
    assert analyze(execute(written)).diagnostics == []


def test_syntax_error_inside_escaped_code() -> None:
    """Seed 000: ``gb.create_task('test'`` -- the unclosed parenthesis, after escapes."""
    written = r"x = \"\u00e9\"\ngb.create_task('test'"
    text = execute(written)
    (span,) = of(text, "syntax-error")
    paren = text.index("(", text.index("create_task"))
    assert span == Span(paren, paren + 1)
    # Where the user sees it: the JSON line, UTF-16 column of the parenthesis.
    line = text.count("\n", 0, paren)
    assert LineIndex(text).range(span).start == Position(
        line, paren - (text.rfind("\n", 0, paren) + 1)
    )


def test_syntax_error_on_a_later_line_of_escaped_code() -> None:
    written = r"a = 1\nb = \"q\\\"uote\"\nif a\n    b = 2"
    text = execute(written)
    spans = of(text, "syntax-error")
    assert spans
    at = text.index("if a")
    assert spans[0].start == at
    assert text[spans[0].start : spans[0].end].startswith("if")


def test_syntax_error_count_is_capped() -> None:
    written = r"\n".join(["f(("] * 10)
    assert 1 <= len(of(execute(written), "syntax-error")) <= code.MAX_SYNTAX_ERRORS


def test_code_in_raw_newline_string() -> None:
    """Raw newlines (tolerated) keep a 1:1 mapping: the range is still exact."""
    text = execute("x = 1\nprint(x)\neval('2')")
    (span,) = of(text, "unsafe-code")
    at = text.index("eval")
    assert span == Span(at, at + 4)


def test_empty_code_is_missing_not_syntax() -> None:
    text = execute("")
    assert [d.code for d in analyze(text).diagnostics] == ["missing-field"]


def _file_action(path: str, content: str, at: int, language: str | None = None) -> Action:
    fields = {
        "path": Field("path", path, Span(0, len(path))),
        "content": Field(
            "content",
            content,
            Span(at, at + len(content)),
            None,
            SourceMap.verbatim(at, at + len(content)),
        ),
    }
    if language:
        fields["language"] = Field("language", language, Span(0, 0))
    return Action(
        "x", "write", ActionKind.CREATE_FILE, Span(0, at + len(content)), Span(0, 1), fields
    )


@pytest.mark.parametrize(
    ("path", "language", "content", "bad"),
    [
        ("app.py", None, "def f(:\n    pass\n", ":"),
        ("app.js", None, "function f( {\n}\n", "("),
        ("notes", "python", "x = (1,\n", "("),
    ],
)
def test_file_content_syntax_errors(
    path: str, language: str | None, content: str, bad: str
) -> None:
    action = _file_action(path, content, 100, language)
    diags = list(code.check([action], RuleContext(DialectSet())))
    assert diags and all(d.code == "syntax-error" for d in diags)
    assert any(d.span.start == 100 + content.index(bad) for d in diags), [
        (d.span, d.message) for d in diags
    ]


@pytest.mark.parametrize(
    ("path", "content"),
    [
        ("app.py", "def f():\n    return 1\n"),
        ("README.md", "# (unbalanced\n"),
        ("data.unknownext", "(((("),
    ],
)
def test_valid_or_unknown_file_content_is_fine(path: str, content: str) -> None:
    action = _file_action(path, content, 0)
    assert list(code.check([action], RuleContext(DialectSet()))) == []


def test_file_content_is_not_checked_for_unsafe_calls() -> None:
    """A file that calls open() is ordinary code; only code to execute is checked for reach."""
    action = _file_action("io_utils.py", "def read(p):\n    return open(p).read()\n", 0)
    assert list(code.check([action], RuleContext(DialectSet()))) == []
