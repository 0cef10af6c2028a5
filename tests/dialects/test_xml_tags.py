"""The xml-tags dialect (seeds 001, 002) through the whole analysis."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.document import Analysis, analyze
from action_lsp.model import Action, ActionKind, Diagnostic, Span

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEEDS = FIXTURES / "seeds"
DYAD = FIXTURES / "dyad"


def span_of(text: str, needle: str, start: int = 0) -> Span:
    at = text.index(needle, start)
    return Span(at, at + len(needle))


def codes(analysis: Analysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def diag(analysis: Analysis, code: str) -> Diagnostic:
    found = [d for d in analysis.diagnostics if d.code == code]
    assert len(found) == 1, analysis.diagnostics
    return found[0]


def only(text: str) -> tuple[Action, Analysis]:
    analysis = analyze(text)
    assert len(analysis.actions) == 1, analysis.actions
    return analysis.actions[0], analysis


def apply_fix(text: str, d: Diagnostic) -> str:
    for e in sorted(d.fixes[0].edits, key=lambda e: e.span.start, reverse=True):
        text = text[: e.span.start] + e.new_text + text[e.span.end :]
    return text


# ---------------------------------------------------------------------------------------------
# Each tag


def test_create_file_fields_and_exact_spans() -> None:
    text = "Intro.\n\n<create_file>\n<path>src/app.py</path>\n<content>\nx = 1\n</content>\n</create_file>\n\nBye.\n"
    action, analysis = only(text)
    assert (action.dialect, action.type, action.kind) == (
        "xml-tags",
        "create_file",
        ActionKind.CREATE_FILE,
    )
    assert action.span == Span(
        text.index("<create_file>"), text.index("</create_file>") + len("</create_file>")
    )
    assert action.name_span == span_of(text, "create_file")
    path = action.fields["path"]
    assert path.value == "src/app.py"
    assert path.span == span_of(text, "src/app.py")
    assert path.key_span == span_of(text, "path")
    content = action.fields["content"]
    assert content.value == "x = 1\n"
    assert content.span == span_of(text, "x = 1\n")
    assert content.key_span == span_of(text, "content")
    assert content.value_span(4, 5) == span_of(text, "1")
    assert action.group is not None  # the document groups tag actions by message
    assert analysis.diagnostics == []


def test_modify_file_with_several_pairs() -> None:
    text = (
        "<modify_file>\n<path>app.py</path>\n"
        "<search>\nprint('a')\n</search>\n<replace>\nprint('b')\n</replace>\n"
        "<search>x = 1</search>\n<replace>x = 2</replace>\n"
        "</modify_file>\n"
    )
    action, analysis = only(text)
    assert action.kind is ActionKind.MODIFY_FILE
    assert [(e.search.value, e.replace.value) for e in action.edits] == [
        ("print('a')\n", "print('b')\n"),
        ("x = 1", "x = 2"),
    ]
    assert action.edits[1].search.span == span_of(text, "x = 1")
    assert action.edits[1].replace.key_span == span_of(text, "replace", text.index("x = 1"))
    assert action.text("search") == "print('a')\n"  # the fields hold the first pair
    assert action.fields["search"].span == action.edits[0].search.span
    assert analysis.diagnostics == []


def test_search_text_holding_its_own_closing_tag() -> None:
    text = "<modify_file><path>a.xml</path><search><a></search></a></search><replace><b/></replace></modify_file>"
    action, _ = only(text)
    assert action.edits[0].search.value == "<a></search></a>"
    assert action.edits[0].replace.value == "<b/>"


def test_directory_read_and_command() -> None:
    text = (
        "<create_directory><path>pkg/models</path></create_directory>\n"
        "<read_file>\n  <path> config.yaml </path>\n</read_file>\n"
        "<execute_command>\n<command>  go mod tidy\n</command>\n<description>Download</description>\n</execute_command>\n"
        "<execute_command><command>echo '<b>hi</b>' > x.html && sort < in.txt</command></execute_command>\n"
    )
    analysis = analyze(text)
    assert [(a.type, a.kind) for a in analysis.actions] == [
        ("create_directory", ActionKind.CREATE_DIRECTORY),
        ("read_file", ActionKind.READ_FILE),
        ("execute_command", ActionKind.COMMAND),
        ("execute_command", ActionKind.COMMAND),
    ]
    read = analysis.actions[1]
    assert read.path == "config.yaml"
    assert read.fields["path"].span == span_of(text, "config.yaml")
    cmd = analysis.actions[2]
    assert cmd.text("command") == "go mod tidy"
    assert cmd.fields["command"].span == span_of(text, "go mod tidy")
    assert cmd.text("description") == "Download"
    assert analysis.actions[3].text("command") == "echo '<b>hi</b>' > x.html && sort < in.txt"
    assert analysis.diagnostics == []


def test_self_closing_and_empty_elements() -> None:
    analysis = analyze("<read_file/>\n\n<read_file><path></path></read_file>\n")
    assert [a.type for a in analysis.actions] == ["read_file", "read_file"]
    assert codes(analysis).count("missing-field") == 2


# ---------------------------------------------------------------------------------------------
# Content bytes


def test_content_keeps_exact_bytes() -> None:
    body = "    indented first line\n\n  trailing spaces   \n\n\n"
    text = f"<create_file><path>a.txt</path><content>\n{body}</content></create_file>"
    action, _ = only(text)
    assert action.text("content") == body


def test_crlf_content_preserved() -> None:
    text = "<create_file>\r\n<path>a.py</path>\r\n<content>\r\ndef f():\r\n    return 1\r\n</content>\r\n</create_file>\r\n"
    action, analysis = only(text)
    assert action.text("content") == "def f():\r\n    return 1\r\n"
    assert action.path == "a.py"
    assert analysis.diagnostics == []


def test_content_without_line_breaks_is_exact() -> None:
    action, _ = only("<create_file><path>a</path><content>  x  </content></create_file>")
    assert action.text("content") == "  x  "


def test_cdata_inside_raw_and_entities_kept() -> None:
    text = "<create_file><path>a.html</path><content><![CDATA[<p>a &amp; b</p></content>]]></content></create_file>"
    action, _ = only(text)
    assert action.text("content") == "<p>a &amp; b</p></content>"
    plain, _ = only("<create_file><path>a</path><content>a &lt; b</content></create_file>")
    assert plain.text("content") == "a &lt; b"


def test_closing_content_tag_inside_an_html_file() -> None:
    html = (
        "<html>\n<body>\n<content>nested</content>\n<div>x</div>\n</content>\n"
        "<create_directory>not an action</create_directory>\n</body>\n</html>\n"
    )
    text = f"Here:\n\n<create_file>\n<path>index.html</path>\n<content>\n{html}</content>\n</create_file>\n\n<read_file><path>b.txt</path></read_file>\n"
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["create_file", "read_file"]
    assert analysis.actions[0].text("content") == html
    assert analysis.actions[0].fields["content"].span == span_of(text, html)


def test_a_file_documenting_the_format_holds_whole_actions() -> None:
    doc = (
        "Use `<create_file>` tags like this:\n<create_file>\n<path>x</path>\n"
        "<content>y</content>\n</create_file>\n"
    )
    text = f"<create_file><path>README.md</path><content>\n{doc}</content></create_file>\n\n<read_file><path>z</path></read_file>\n"
    analysis = analyze(text)
    assert [(a.type, a.path) for a in analysis.actions] == [
        ("create_file", "README.md"),
        ("read_file", "z"),
    ]
    assert analysis.actions[0].text("content") == doc
    assert analysis.diagnostics == []


def test_syntax_error_points_into_the_content() -> None:
    text = "<create_file><path>a.py</path><content>\ndef f(:\n    pass\n</content></create_file>"
    _, analysis = only(text)
    d = diag(analysis, "syntax-error")
    assert text.index("def f(") <= d.span.start < text.index("pass")


# ---------------------------------------------------------------------------------------------
# Broken tags


def test_unclosed_action_is_reported_and_the_next_is_found() -> None:
    text = (
        "<create_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n\n"
        "Then:\n\n<create_file>\n<path>b.py</path>\n<content>\ny = 2\n</content>\n</create_file>\n"
    )
    analysis = analyze(text)
    assert [(a.type, a.path) for a in analysis.actions] == [
        ("create_file", "a.py"),
        ("create_file", "b.py"),
    ]
    assert analysis.actions[0].text("content") == "x = 1\n"
    assert analysis.actions[1].text("content") == "y = 2\n"
    d = diag(analysis, "unclosed-tag")
    assert d.span == span_of(text, "create_file")
    assert "</create_file>" in d.message
    assert d.fixes and d.fixes[0].preferred
    fixed = apply_fix(text, d)
    assert "</content>\n</create_file>\n\nThen:" in fixed
    assert "unclosed-tag" not in codes(analyze(fixed))


def test_unclosed_action_at_the_end_of_the_text() -> None:
    text = "<execute_command>\n<command>ls</command>\n"
    action, analysis = only(text)
    assert action.text("command") == "ls"
    assert codes(analysis) == ["unclosed-tag"]


def test_tag_named_in_prose_gives_no_empty_action() -> None:
    text = "I will use <create_file> next.\n\n<read_file><path>a</path></read_file>\n"
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["read_file"]
    assert codes(analysis) == ["unclosed-tag"]


def test_mismatched_closing_action_tag() -> None:
    text = "<create_file><path>a.py</path><content>x = 1\n</content></modify_file>\nok\n<read_file><path>b</path></read_file>"
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["create_file", "read_file"]
    d = diag(analysis, "mismatched-tag")
    at = text.index("</modify_file>")
    assert d.span == Span(at + 2, at + 2 + len("modify_file"))
    assert "unclosed-tag" not in codes(analysis)
    assert apply_fix(text, d).count("</create_file>") == 1


def test_unclosed_and_mismatched_children() -> None:
    text = "<create_file><path>a.py</content><content>x</content></create_file>"
    action, analysis = only(text)
    assert action.path == "a.py"
    assert action.text("content") == "x"
    d = diag(analysis, "mismatched-tag")
    assert d.span == span_of(text, "content", text.index("a.py"))
    assert apply_fix(text, d).startswith("<create_file><path>a.py</path>")

    text = "<create_file>\n<path>src/a.py\n<content>x</content>\n</create_file>"
    action, analysis = only(text)
    assert action.path == "src/a.py"
    assert action.fields["path"].span == span_of(text, "src/a.py")
    d = diag(analysis, "unclosed-tag")
    assert d.span == span_of(text, "path")
    assert apply_fix(text, d).startswith("<create_file>\n<path>src/a.py</path>\n")


def test_unknown_child_is_an_unknown_field() -> None:
    text = "<create_file><path>a.py</path><contents>x = 1</contents></create_file>"
    action, analysis = only(text)
    assert action.text("contents") == "x = 1"
    unknown = diag(analysis, "unknown-field")
    assert unknown.span == span_of(text, "contents")
    assert "did you mean `content`" in unknown.message
    assert diag(analysis, "missing-field").data == {"field": "content", "type": "create_file"}


def test_attributes_on_the_action_tag_are_not_read() -> None:
    text = '<read_file path="a.py"></read_file>'
    _, analysis = only(text)
    assert diag(analysis, "unknown-field").span == span_of(text, "path")
    assert diag(analysis, "missing-field").data == {"field": "path", "type": "read_file"}


def test_near_miss_tag_name() -> None:
    text = "<create-file>\n<path>a.py</path>\n<content>x = 1\n</content>\n</create-file>\n"
    action, analysis = only(text)
    assert action.type == "create_file"
    assert action.name_span == span_of(text, "create-file")
    assert action.text("content") == "x = 1\n"
    d = diag(analysis, "wrong-block-name")
    assert apply_fix(text, d).count("create_file") == 2


def test_text_between_children_is_ignored() -> None:
    text = "<read_file>\nplease read\n<path>a.py</path> thanks\n</read_file>"
    action, analysis = only(text)
    assert action.path == "a.py" and analysis.diagnostics == []


# ---------------------------------------------------------------------------------------------
# Examples are not actions


def test_tags_inside_fences_and_code_spans_are_examples() -> None:
    text = (
        "Example:\n\n```xml\n<create_file>\n<path>ex.py</path>\n<content>x</content>\n</create_file>\n```\n\n"
        "Write `<create_file>` and `<read_file>` tags.\n\n"
        "<read_file><path>real.py</path></read_file>\n"
    )
    analysis = analyze(text)
    assert [(a.type, a.path) for a in analysis.actions] == [("read_file", "real.py")]
    assert analysis.diagnostics == []


def test_document_order_across_dialects() -> None:
    text = (
        '```actions\n{"actions": [{"type": "create_task", "content": "t"}]}\n```\n\n'
        "<create_file><path>a.py</path><content>x = 1\n</content></create_file>\n\n"
        '<aether-write path="b.py">\ny = 2\n</aether-write>\n\n'
        "<read_file><path>c.py</path></read_file>\n\n"
        '```json\n{"actions": [{"action": "THINK", "context": "c"}], "can_extend": false, "reasoning": "r"}\n```\n\n'
        "<think>done</think>\n\n"
        '<aether-command type="refresh" />\n'
    )
    analysis = analyze(text)
    assert [(a.dialect, a.type) for a in analysis.actions] == [
        ("actions-json", "create_task"),
        ("xml-tags", "create_file"),
        ("aether", "aether-write"),
        ("xml-tags", "read_file"),
        ("action-plan", "THINK"),
        ("aether", "think"),
        ("aether", "aether-command"),
    ]
    starts = [a.span.start for a in analysis.actions]
    assert starts == sorted(starts)


# ---------------------------------------------------------------------------------------------
# Seeds and corpus


def test_seed_001_example_response() -> None:
    seed = (SEEDS / "001_e0bf2e158d800d9e.txt").read_text(encoding="utf-8")
    start = seed.index("I'll create a simple web server with proper structure.")
    response = seed[start : seed.index("\n```\n\n**Notice:**", start)]
    analysis = analyze(response)
    assert [(a.type, a.path or a.text("command")) for a in analysis.actions] == [
        ("create_directory", "cmd/server"),
        ("create_file", "cmd/server/main.go"),
        ("create_file", "go.mod"),
        ("execute_command", "go mod tidy"),
        ("execute_command", "go run cmd/server/main.go"),
    ]
    main = analysis.actions[1].text("content")
    assert main is not None and main.startswith("package main\n\nimport (") and main.endswith("}\n")
    assert analysis.actions[2].text("content") == "module webserver\n\ngo 1.21\n"
    assert analysis.actions[4].text("description") == "Start the server"
    assert analysis.diagnostics == []


def test_seed_001_system_prompt_examples_are_not_actions() -> None:
    seed = (SEEDS / "001_e0bf2e158d800d9e.txt").read_text(encoding="utf-8")
    head = seed[: seed.index("## Usage in REPL")]
    assert analyze(head).actions == []


def test_seed_002_diagram_response() -> None:
    seed = (SEEDS / "002_9e9f6572173cf4d2.txt").read_text(encoding="utf-8")
    lines = seed[
        seed.index("  <create_file>") : seed.index("Regular markdown for explanations only.")
    ]
    response = "\n".join(line.split("\u2502")[0].rstrip() for line in lines.splitlines())
    analysis = analyze(response)
    assert [(a.type, a.path or a.text("command")) for a in analysis.actions] == [
        ("create_file", "main.go"),
        ("execute_command", "go mod tidy"),
    ]
    assert analysis.actions[0].text("content") == "package main..."
    assert analyze(seed).actions == []  # in the seed itself they sit inside a fence


def test_dyad_corpus_analyzes() -> None:
    files = sorted(DYAD.glob("*.md"))
    assert files
    for path in files:
        analysis = analyze(path.read_text(encoding="utf-8"))
        for a in analysis.actions:
            assert 0 <= a.span.start < a.span.end <= len(analysis.text)


# ---------------------------------------------------------------------------------------------
# Linear time


def _runs_quickly(code: str) -> None:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"


@pytest.mark.slow  # a stress test: run by CI and `make test-all`
def test_many_unclosed_tags_finish() -> None:
    _runs_quickly(
        "from action_lsp.document import analyze\n"
        "a = analyze('<create_file>\\n<path>a</path>\\n' * 20000)\n"
        "assert len(a.actions) == 20000, len(a.actions)\n"
        "a = analyze('<modify_file><path>a</path>' + '<search>x</search>junk' * 20000 + '</modify_file>')\n"
        "assert len(a.actions[0].edits) == 0\n"
        "a = analyze('<create_file>' + '<x>a</y>' * 20000 + '</create_file>')\n"
        "print('ok')\n"
    )
