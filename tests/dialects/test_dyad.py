"""The dyad dialect: Dyad's own e2e responses, its documented tags, and their breakages.

The fixtures in ``tests/fixtures/dialects/dyad/`` are Dyad's e2e responses (Apache-2.0, see the
README there). ``_dyad_reference`` re-implements the regex approach of Dyad's extractor
(``src/ipc/utils/dyad_tag_parser.ts``) so that every response is checked against what Dyad
itself would extract.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from action_lsp.dialects import DialectSet, by_name
from action_lsp.document import Analysis, analyze
from action_lsp.model import ActionKind, Severity

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dialects" / "dyad"
RESPONSES = sorted(p for p in FIXTURES.glob("*.md") if p.name != "README.md")

_ATTRS = r'((?:[^>"]|"[^"]*")*)'  # Dyad uses [^>]*; its e2e snapshot shows `>` inside a value works


def _unescape(s: str) -> str:
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _unfence(s: str) -> str:
    lines = s.split("\n")
    if lines and lines[0].startswith("```"):
        lines.pop(0)
    if lines and lines[-1].startswith("```"):
        lines.pop()
    return "\n".join(lines)


def _attr(attrs: str, name: str) -> str | None:
    m = re.search(rf'{name}="([^"]+)"', attrs)
    return html.unescape(m.group(1)) if m else None


def _blocks(body: str) -> list[tuple[str, str]]:
    pattern = re.compile(
        r"(?:^|\n)<<<<<<<\s+SEARCH>?\s*\n([\s\S]*?)\n?(?<=\n)=======\s*\n([\s\S]*?)\n?(?<=\n)>>>>>>>\s+REPLACE(?=\n|$)"
    )
    return [(m.group(1), m.group(2)) for m in pattern.finditer(body)]


def _dyad_reference(text: str) -> list[tuple]:
    """What Dyad extracts, in document order: (type, ...values)."""
    found: list[tuple[int, tuple]] = []
    for m in re.finditer(rf"<dyad-write{_ATTRS}>([\s\S]*?)</dyad-write>", text):
        path = _attr(m.group(1), "path")
        if path:
            found.append((m.start(), ("dyad-write", path, _unfence(_unescape(m.group(2).strip())))))
    for m in re.finditer(r'<dyad-rename from="([^"]+)" to="([^"]+)"[^>]*>[\s\S]*?</dyad-rename>', text):
        found.append((m.start(), ("dyad-rename", m.group(1), m.group(2))))
    for m in re.finditer(r'<dyad-delete path="([^"]+)"[^>]*>[\s\S]*?</dyad-delete>', text):
        found.append((m.start(), ("dyad-delete", m.group(1))))
    for m in re.finditer(r'<dyad-add-dependency packages="([^"]+)">[^<]*</dyad-add-dependency>', text):
        found.append((m.start(), ("dyad-add-dependency", m.group(1))))
    for m in re.finditer(rf"<dyad-execute-sql{_ATTRS}>([\s\S]*?)</dyad-execute-sql>", text):
        found.append((m.start(), ("dyad-execute-sql", _unfence(_unescape(m.group(2).strip())))))
    for m in re.finditer(r'<dyad-command type="([^"]+)"[^>]*></dyad-command>', text):
        found.append((m.start(), ("dyad-command", m.group(1))))
    for m in re.finditer(rf"<dyad-search-replace{_ATTRS}>([\s\S]*?)</dyad-search-replace>", text):
        path = _attr(m.group(1), "path")
        if path:
            body = _unfence(_unescape(m.group(2).strip()))
            found.append((m.start(), ("dyad-search-replace", path, _blocks(body))))
    m = re.search(r"<dyad-chat-summary>([\s\S]*?)</dyad-chat-summary>", text)
    if m:
        found.append((m.start(), ("dyad-chat-summary", _unescape(m.group(1).strip()))))
    return [v for _, v in sorted(found, key=lambda x: x[0])]


def _ours(analysis: Analysis) -> list[tuple]:
    out: list[tuple] = []
    for a in analysis.actions:
        if a.type == "dyad-write":
            out.append((a.type, a.get("path"), a.get("content")))
        elif a.type == "dyad-rename":
            out.append((a.type, a.get("from"), a.get("to")))
        elif a.type == "dyad-delete":
            out.append((a.type, a.get("path")))
        elif a.type == "dyad-add-dependency":
            out.append((a.type, a.get("packages")))
        elif a.type == "dyad-execute-sql":
            out.append((a.type, a.get("sql")))
        elif a.type == "dyad-command":
            out.append((a.type, a.get("type")))
        elif a.type == "dyad-search-replace":
            # Dyad's blocks leave out the line break before each marker; ours are whole lines.
            blocks = [(e.search.value.removesuffix("\n"), e.replace.value.removesuffix("\n")) for e in a.edits]
            out.append((a.type, a.get("path"), blocks))
        elif a.type == "dyad-chat-summary":
            out.append((a.type, a.get("summary")))
    return out


def test_the_fixtures_are_all_there() -> None:
    assert len(RESPONSES) == 38


@pytest.mark.parametrize("path", RESPONSES, ids=lambda p: p.stem)
def test_every_dyad_response_parses_to_what_dyad_extracts(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    analysis = analyze(text)
    assert _ours(analysis) == _dyad_reference(text)
    assert all(a.dialect == "dyad" for a in analysis.actions if a.type.startswith("dyad-"))


def test_the_corpus_has_no_false_alarms() -> None:
    """Only the streamed, unclosed write and a file that is not JavaScript are reported."""
    found = {
        (p.name, d.code)
        for p in RESPONSES
        for d in analyze(p.read_text(encoding="utf-8")).diagnostics
        if (d.severity or Severity.ERROR) <= Severity.WARNING
    }
    assert found == {
        ("partial-write.md", "unclosed-tag"),
        ("version-integrity-add-edit-delete.md", "syntax-error"),
    }


def test_an_attribute_holding_angle_brackets() -> None:
    text = (FIXTURES / "dyad-write-angle.md").read_text()
    (a,) = analyze(text).actions
    assert a.get("description") == "page to use <a> and <b> tags."
    assert a.get("content") == "// BEGINNING OF FILE"
    f = a.fields["content"]
    assert text[f.span.start : f.span.end] == "// BEGINNING OF FILE"


def test_a_write_still_streaming_in_is_no_action() -> None:
    text = (FIXTURES / "partial-write.md").read_text()
    analysis = analyze(text)
    assert analysis.actions == []
    (d,) = analysis.diagnostics
    assert d.code == "unclosed-tag" and text[d.span.start : d.span.end] == "dyad-write"
    fixed = text
    for e in d.fixes[0].edits:
        fixed = fixed[: e.span.start] + e.new_text + fixed[e.span.end :]
    (a,) = analyze(fixed).actions
    assert a.type == "dyad-write" and a.get("content") == 'const a = "[[STRING_TO_BE_FINISHED]]'


def test_write_body_fences_and_entities() -> None:
    text = (
        '<dyad-write path="src/a.ts" description="x &amp; y">\n'
        "```tsx\n"
        "if (a &lt; b &amp;&amp; c) {}\n"
        "```\n"
        "</dyad-write>\n"
    )
    (a,) = analyze(text).actions
    assert a.kind is ActionKind.WRITE_FILE
    assert a.get("content") == "if (a < b && c) {}"
    assert a.get("description") == "x & y"
    f = a.fields["content"]
    # `<` maps to the `&lt;` that wrote it.
    at = a.get("content").index("<")
    assert text[f.value_span(at, at + 1).start :].startswith("&lt;")
    view = by_name("dyad").file_view(a)
    assert view is not None and view.to_json() == {
        "op": "write", "path": "src/a.ts", "content": "if (a < b && c) {}",
    }


def test_search_replace_blocks_with_exact_ranges() -> None:
    text = (
        '<dyad-search-replace path="src/App.tsx" description="rename">\n'
        "<<<<<<< SEARCH\n"
        "const a = 1;\n"
        "=======\n"
        "const b = 1;\n"
        ">>>>>>> REPLACE\n"
        "<<<<<<< SEARCH\n"
        "old();\n"
        "=======\n"
        ">>>>>>> REPLACE\n"
        "</dyad-search-replace>\n"
    )
    analysis = analyze(text)
    assert analysis.diagnostics == []
    (a,) = analysis.actions
    assert a.kind is ActionKind.MODIFY_FILE
    assert [(e.search.value, e.replace.value) for e in a.edits] == [
        ("const a = 1;\n", "const b = 1;\n"),
        ("old();\n", ""),
    ]
    s = a.edits[0].search
    assert text[s.span.start : s.span.end] == "const a = 1;\n"
    view = by_name("dyad").file_view(a)
    assert view is not None and view.to_json() == {
        "op": "modify",
        "path": "src/App.tsx",
        "edits": [
            {"search": "const a = 1;\n", "replace": "const b = 1;\n"},
            {"search": "old();\n", "replace": ""},
        ],
    }


@pytest.mark.parametrize(
    ("body", "marker", "words"),
    [
        ("<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", "<<<<<< SEARCH", "wrong number of `<`"),
        ("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>>> REPLACE\n", ">>>>>>>> REPLACE", "wrong number of `>`"),
        ("<<<<<<< SEARCH\na\nb\n>>>>>>> REPLACE\n", ">>>>>>> REPLACE", "no `=======`"),
        ("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n>>>>>>> REPLACE\n", ">>>>>>> REPLACE", "doubled REPLACE"),
        ("<<<<<<< SEARCH\na\n=======\nb\n", "<<<<<<< SEARCH", "never ends"),
        ("<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", "=======", "a second `=======`"),
    ],
)
def test_malformed_markers_are_reported_where_written(body: str, marker: str, words: str) -> None:
    text = f'<dyad-search-replace path="a.ts">\n{body}</dyad-search-replace>\n'
    analysis = analyze(text)
    bad = [d for d in analysis.diagnostics if d.code == "bad-marker"]
    assert len(bad) == 1, analysis.diagnostics
    (d,) = bad
    assert words in d.message
    assert text[d.span.start : d.span.end] == marker
    if words == "doubled REPLACE":  # the last REPLACE is the extra one
        assert d.span.start == text.rindex(marker)
    if words == "a second `=======`":
        assert d.span.start == text.rindex(marker)


def test_a_wrong_marker_count_is_fixed_by_rewriting_it() -> None:
    text = '<dyad-search-replace path="a.ts">\n<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n</dyad-search-replace>\n'
    (d,) = [d for d in analyze(text).diagnostics if d.code == "bad-marker"]
    (edit,) = d.fixes[0].edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    analysis = analyze(fixed)
    assert analysis.diagnostics == [] and len(analysis.actions[0].edits) == 1


def test_missing_path_traversal_and_unknown_tags() -> None:
    text = (
        "<dyad-write>\nx\n</dyad-write>\n"
        '<dyad-delete path="../../etc/passwd"></dyad-delete>\n'
        '<dyad-rename from="a.ts" to="/tmp/b.ts"></dyad-rename>\n'
        "<dyad-teleport>\n</dyad-teleport>\n"
        '<dyad-command type="reboot"></dyad-command>\n'
    )
    analysis = analyze(text)
    by_code = {d.code: d for d in analysis.diagnostics}
    assert by_code["missing-field"].data == {"field": "path", "type": "dyad-write"}
    assert text[by_code["path-traversal"].span.start :].startswith("../../etc/passwd")
    assert text[by_code["absolute-path"].span.start :].startswith("/tmp/b.ts")
    unknown = by_code["unknown-action"]
    assert unknown.severity is Severity.HINT and "dyad-teleport" in unknown.message
    assert "must be one of" in by_code["invalid-value"].message
    missing = by_name("dyad").insert_field_fix(text, analysis.actions[0], "path")
    assert missing is not None and missing.edits[0].new_text == ' path=""'
    assert missing.edits[0].span.start == len("<dyad-write")


def test_rename_and_delete_views() -> None:
    text = (FIXTURES / "create-ts-errors-complex.md").read_text()
    d = by_name("dyad")
    views = [v.to_json() for a in analyze(text).actions if (v := d.file_view(a))]
    assert views == [
        {"op": "delete", "path": "src/main.tsx"},
        {"op": "rename", "path": "src/App.tsx", "to": "src/main.tsx"},
        {"op": "write", "path": "src/main.tsx", "content": "finalMainTsxFileWithError();"},
    ]


def test_tags_inside_an_example_fence_are_not_actions() -> None:
    text = 'Use it like this:\n\n```xml\n<dyad-write path="a.ts">x</dyad-write>\n```\n'
    analysis = analyze(text)
    assert analysis.actions == [] and analysis.diagnostics == []


def test_only_the_dyad_dialect_reads_dyad_tags() -> None:
    text = '<dyad-write path="a.ts">x</dyad-write>\n'
    others = DialectSet([d for d in DialectSet().dialects if d.name != "dyad"])
    assert analyze(text, others).actions == []


def test_search_replace_body_in_a_fence() -> None:
    text = (
        '<dyad-search-replace path="a.ts">\n```ts\n'
        "<<<<<<< SEARCH\nlet a = 1;\n=======\nlet a = 2;\n>>>>>>> REPLACE\n"
        "```\n</dyad-search-replace>\n"
    )
    analysis = analyze(text)
    assert analysis.diagnostics == []
    assert [(e.search.value, e.replace.value) for e in analysis.actions[0].edits] == [("let a = 1;\n", "let a = 2;\n")]


@pytest.mark.parametrize("typo", ["<<<<<<< SERACH", "<<<<<<< search", "<<<<<<< SEARCHH"])
def test_a_misspelt_marker_is_reported_and_fixed(typo: str) -> None:
    text = f'<dyad-search-replace path="a.ts">\n{typo}\na\n=======\nb\n>>>>>>> REPLACE\n</dyad-search-replace>\n'
    bad = [d for d in analyze(text).diagnostics if d.code == "bad-marker"]
    assert len(bad) == 1 and "misspelt" in bad[0].message
    assert text[bad[0].span.start : bad[0].span.end] == typo
    (edit,) = bad[0].fixes[0].edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    assert analyze(fixed).diagnostics == []


def test_marker_like_text_is_not_a_marker() -> None:
    text = '<dyad-search-replace path="a.md">\n<<<<<<< SEARCH\n--- Summary\n=======\n--- Summary!\n>>>>>>> REPLACE\n</dyad-search-replace>\n'
    analysis = analyze(text)
    assert analysis.diagnostics == []
    assert analysis.actions[0].edits[0].search.value == "--- Summary\n"
