"""The aether dialect (seed 003) through the whole analysis."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from action_lsp.document import Analysis, analyze
from action_lsp.model import Action, ActionKind, Diagnostic, Severity, Span

SEED = Path(__file__).resolve().parents[1] / "fixtures" / "seeds" / "003_a0d35d1808570646.txt"


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


def test_seed_003_example_response() -> None:
    seed = SEED.read_text(encoding="utf-8")
    start = seed.index('User: "Create a web scraper for Hacker News"')
    response = seed[start : seed.index("\n```", start)]
    analysis = analyze(response)
    assert [(a.type, a.kind) for a in analysis.actions] == [
        ("think", ActionKind.OTHER),
        ("aether-install", ActionKind.OTHER),
        ("aether-write", ActionKind.CREATE_FILE),
        ("aether-sandbox", ActionKind.CODE),
        ("aether-chat-summary", ActionKind.OTHER),
    ]
    think, install, write, sandbox, summary = analysis.actions
    thought = think.text("thought")
    assert thought is not None and "**Identify requirements**" in thought.splitlines()[0]
    assert thought.endswith("- Check output format")
    assert install.text("packages") == "requests beautifulsoup4"
    assert (write.path, write.text("language"), write.text("description")) == (
        "hn_scraper.py",
        "python",
        "Hacker News scraper",
    )
    assert write.text("content").startswith("import requests\n")  # type: ignore[union-attr]
    assert write.text("content").endswith("print(f\"{article['title']}: {article['url']}\")\n")  # type: ignore[union-attr]
    assert (sandbox.text("language"), sandbox.text("test")) == ("python", "true")
    assert sandbox.text("code").startswith("from hn_scraper import HNScraper\n")  # type: ignore[union-attr]
    assert summary.text("summary") == "Created HN scraper"
    assert not [d for d in analysis.diagnostics if d.code not in ("syntax-error",)]


def test_seed_003_whole_document() -> None:
    # The seed shows its examples in fences; one aether-write sits between escaped backticks
    # (\`\`\`xml), which are no fence, so it is an action.
    analysis = analyze(SEED.read_text(encoding="utf-8"))
    assert [(a.type, a.path) for a in analysis.actions] == [("aether-write", "hello.py")]


def test_write_fields_and_spans() -> None:
    text = (
        '<aether-write path="src/a.py" language="python" description="A">\nx = 1\n</aether-write>\n'
    )
    action, analysis = only(text)
    assert action.span == Span(0, len(text) - 1)
    assert action.name_span == span_of(text, "aether-write")
    path = action.fields["path"]
    assert path.span == span_of(text, "src/a.py")
    assert path.key_span == span_of(text, "path")
    assert action.text("content") == "x = 1\n"
    assert action.fields["content"].span == span_of(text, "x = 1\n")
    assert analysis.diagnostics == []


def test_attribute_edge_cases() -> None:
    text = (
        "<aether-write path=src/a.py description='has \"quotes\" and > arrows' "
        'language="python">\nx = 1\n</aether-write>'
    )
    action, analysis = only(text)
    assert action.path == "src/a.py"
    assert action.fields["path"].span == span_of(text, "src/a.py")
    assert action.text("description") == 'has "quotes" and > arrows'
    assert action.text("content") == "x = 1\n"
    assert analysis.diagnostics == []


def test_entities_in_attributes_map_back() -> None:
    text = '<aether-research query="a &lt; b &amp;&amp; c" namespace="n"></aether-research>'
    action, _ = only(text)
    assert action.text("query") == "a < b && c"
    f = action.fields["query"]
    i = action.text("query").index("c")  # type: ignore[union-attr]
    assert f.value_span(i, i + 1) == span_of(text, "c", text.index("&amp;&amp;"))


def test_tags_without_attributes_and_self_closing() -> None:
    text = (
        "<aether-chat-summary>\n  Built it.\n</aether-chat-summary>\n\n"
        '<aether-command type="refresh"/>\n\n'
        "<aether-command type=restart></aether-command>\n"
    )
    analysis = analyze(text)
    assert [(a.type, a.fields.get("type") and a.text("type")) for a in analysis.actions] == [
        ("aether-chat-summary", None),
        ("aether-command", "refresh"),
        ("aether-command", "restart"),
    ]
    assert analysis.actions[0].text("summary") == "Built it."
    assert analysis.actions[1].span == span_of(text, '<aether-command type="refresh"/>')
    assert analysis.diagnostics == []


def test_command_type_must_be_refresh_or_restart() -> None:
    text = '<aether-command type="reboot"></aether-command>'
    _, analysis = only(text)
    d = diag(analysis, "invalid-value")
    assert d.span == span_of(text, "reboot")
    assert "`refresh`" in d.message


def test_install_needs_packages() -> None:
    analysis = analyze(
        '<aether-install packages=""></aether-install>\n\n<aether-install></aether-install>\n'
    )
    assert codes(analysis) == ["missing-field", "missing-field"]
    assert analysis.diagnostics[0].data == {
        "field": "packages",
        "type": "aether-install",
        "empty": True,
    }


def test_unknown_aether_tag_is_a_hint() -> None:
    text = '<aether-memory-store key="k" value="v">anything</aether-memory-store>'
    action, analysis = only(text)
    assert action.type == "aether-memory-store"
    assert action.kind is ActionKind.OTHER
    assert action.text("body") == "anything"
    d = diag(analysis, "unknown-action")
    assert d.severity is Severity.HINT
    assert d.span == span_of(text, "aether-memory-store")
    assert codes(analysis) == ["unknown-action"]


def test_forge_body_is_checked_as_json() -> None:
    text = '<aether-forge tool="t" action="generate">\n{"name": "t",\n "deps": ["a",]}\n</aether-forge>'
    action, analysis = only(text)
    assert action.text("spec") == '{"name": "t",\n "deps": ["a",]}\n'
    d = diag(analysis, "bad-json")
    assert d.span.start == text.index(",]")
    good, ok = only('<aether-forge tool="t" action="generate">{"a": 1}</aether-forge>')
    assert ok.diagnostics == [] and good.text("tool") == "t"


def test_forge_needs_tool_and_action() -> None:
    _, analysis = only("<aether-forge>{}</aether-forge>")
    assert sorted(d.data["field"] for d in analysis.diagnostics if d.data) == ["action", "tool"]


def test_sandbox_code_is_checked() -> None:
    text = '<aether-sandbox language="python" test>\nimport os\nos.system("rm -rf x")\n</aether-sandbox>'
    action, analysis = only(text)
    assert action.kind is ActionKind.CODE
    assert action.get("test") is True
    assert action.text("code") == 'import os\nos.system("rm -rf x")\n'
    assert any(
        d.code == "unsafe-code" and text.index("import os") <= d.span.start
        for d in analysis.diagnostics
    )
    _, bad = only('<aether-sandbox test="maybe">print(1)</aether-sandbox>')
    assert codes(bad) == ["invalid-value"]


def test_body_keeps_exact_bytes_and_closing_lookalikes() -> None:
    body = "  s = '</aether-write>'\n\n\n"
    # a nested pair (a prompt file documenting the tag) is skipped whole
    doc = 'PROMPT = """\n<aether-write path="x">\nbody\n</aether-write>\n"""\n'
    text = f'<aether-write path="a.py">\r\n{body}</aether-write>\n\n<aether-write path="p.py">\n{doc}</aether-write>\n'
    analysis = analyze(text)
    assert [a.path for a in analysis.actions] == ["a.py", "p.py"]
    assert analysis.actions[1].text("content") == doc


def test_crlf_body() -> None:
    text = '<aether-write path="a.py">\r\nx = 1\r\ny = 2\r\n</aether-write>\r\n'
    action, analysis = only(text)
    assert action.text("content") == "x = 1\r\ny = 2\r\n"
    assert analysis.diagnostics == []


def test_unclosed_body_tag_recovers_at_the_next_tag() -> None:
    text = (
        '<aether-write path="a.py">\nx = 1\n\n<aether-install packages="flask"></aether-install>\n'
    )
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["aether-write", "aether-install"]
    assert analysis.actions[0].text("content") == "x = 1"
    d = diag(analysis, "unclosed-tag")
    assert d.span == span_of(text, "aether-write")
    fixed = apply_fix(text, d)
    assert "x = 1\n</aether-write>\n\n<aether-install" in fixed
    assert codes(analyze(fixed)) == []


def test_unclosed_bodyless_tag_is_just_its_start_tag() -> None:
    text = '<aether-research query="q" namespace="n">\n\nSome prose after it.\n'
    action, analysis = only(text)
    assert action.span == span_of(text, '<aether-research query="q" namespace="n">')
    d = diag(analysis, "unclosed-tag")
    assert apply_fix(text, d).startswith(
        '<aether-research query="q" namespace="n"></aether-research>'
    )


def test_mismatched_closing_tag() -> None:
    text = '<aether-write path="a.py">\nx = 1\n</aether-sandbox>\n\n<think>ok</think>\n<aether-command type="refresh" />'
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["aether-write", "think", "aether-command"]
    assert analysis.actions[0].text("content") == "x = 1\n"
    d = diag(analysis, "mismatched-tag")
    assert d.span == span_of(text, "aether-sandbox")
    assert "</aether-write>" in apply_fix(text, d)


def test_start_tag_without_gt() -> None:
    text = '<aether-write path="a.py"\n<think>hm</think>\n<aether-command type="refresh" />'
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["think", "aether-command"]
    d = diag(analysis, "unclosed-tag")
    assert apply_fix(text, d).startswith('<aether-write path="a.py">')


def test_near_miss_and_examples() -> None:
    text = (
        '<aether_write path="a.py">x</aether_write>\n\n'
        '```xml\n<aether-write path="ex.py">x</aether-write>\n```\n\n'
        "Use `<aether-write>` and `<think>` tags.\n"
    )
    action, analysis = only(text)
    assert (action.type, action.path) == ("aether-write", "a.py")
    assert codes(analysis) == ["wrong-block-name"]


@pytest.mark.slow  # a stress test: run by CI and `make test-all`
def test_pathological_inputs_finish() -> None:
    code = (
        "from action_lsp.document import analyze\n"
        "a = analyze('<aether-write \\n' * 150000)\n"  # ~2 MB of start tags that never end
        "assert a.actions == [] and len(a.diagnostics) == 150000\n"
        "a = analyze('<think>\\n' * 20000 + '<aether-command type=\"refresh\" />')\n"
        "assert len(a.actions) == 20001\n"
        "a = analyze(\"<aether-write path='a'>x</aether-sandbox>\\n\" * 20000)\n"
        "assert len(a.actions) == 20000\n"
        "print('ok')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
