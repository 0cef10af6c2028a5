"""The codex-patch dialect: Codex's apply_patch envelope in prose and fences, exact ranges,
broken patches, a patch inside a decoded string (parse_patch with a SourceMap), and apply."""

from __future__ import annotations

import json
from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import DialectSet, file_view
from action_lsp.dialects.codex_patch import parse_patch
from action_lsp.document import analyze
from action_lsp.jsonscan import parse_json

PATCH = (
    "*** Begin Patch\n"
    "*** Add File: docs/note.md\n"
    "+# Café ✅\n"
    "+\n"
    "*** Delete File: old.txt\n"
    "*** Update File: src/app.py\n"
    "*** Move to: src/main.py\n"
    "@@ def greet():\n"
    "-    return 'hi'\n"
    "+    return 'héllo'\n"
    "@@\n"
    " x = 1\n"
    "-y = 2\n"
    "+y = 3\n"
    "*** End of File\n"
    "*** End Patch\n"
)


def only(text: str):
    return analyze(text, DialectSet.named(["codex-patch"]))


def test_patch_in_prose_with_every_operation() -> None:
    text = "I'll make the change.\n\n" + PATCH + "\nDone.\n"
    a = only(text)
    assert not a.diagnostics
    views = [file_view(x) for x in a.actions]
    assert [(v.op, v.path.value) for v in views if v] == [
        ("write", "docs/note.md"), ("delete", "old.txt"), ("modify", "src/app.py"),
        ("rename", "src/app.py"),
    ]
    add, _, upd, move = views
    assert add.content.value == "# Café ✅\n\n"
    i = add.content.value.index("✅")
    s = add.content.value_span(i, i + 1)
    assert text[s.start : s.end] == "✅"
    assert [(e.search.value, e.replace.value) for e in upd.edits] == [
        ("    return 'hi'\n", "    return 'héllo'\n"),
        ("x = 1\ny = 2\n", "x = 1\ny = 3\n"),
    ]
    assert text[upd.path.span.start : upd.path.span.end] == "src/app.py"
    assert move.to.value == "src/main.py"
    assert text[move.to.span.start : move.to.span.end] == "src/main.py"
    first = upd.edits[0].search
    assert text[first.span.start :].startswith("@@ def greet():")
    # The patch ends at its End Patch line; the prose after it is no action.
    assert text[a.actions[0].group.end :] == "\nDone.\n"


def test_patch_in_a_fence_of_any_info() -> None:
    for info in ("", "text", "diff", "patch"):
        text = f"```{info}\n" + PATCH + "```\n"
        a = analyze(text)
        assert [x.dialect for x in a.actions] == ["codex-patch"] * 4, info
        assert not a.diagnostics


def test_unterminated_patch_is_reported_with_a_fix() -> None:
    text = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n\nSo that is it.\n"
    a = only(text)
    (d,) = a.diagnostics
    assert d.code == "unclosed-block" and text[d.span.start : d.span.end] == "*** Begin Patch"
    (edit,) = d.fixes[0].edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    assert "+b\n*** End Patch\n" in fixed
    assert not only(fixed).diagnostics


def test_invalid_header_empty_update_and_empty_patch() -> None:
    a = only("*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n")
    (d,) = a.diagnostics
    assert d.code == "bad-patch" and "not a valid hunk header" in d.message
    assert not a.actions
    a = only("*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n")
    assert [d.code for d in a.diagnostics] == ["bad-patch"] and not a.actions
    a = only("*** Begin Patch\n*** End Patch\n")
    assert "empty" in a.diagnostics[0].message


def test_bad_chunk_line_is_reported_where_written() -> None:
    text = "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n?b\n+c\n*** End Patch\n"
    (d,) = only(text).diagnostics
    assert text[d.span.start : d.span.end] == "?b"


def test_parse_patch_inside_a_json_string_maps_to_the_document() -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-s = \"naïve\"\n+s = \"café\"\n*** End Patch\n"
    doc = '{"name": "apply_patch", "input": ' + json.dumps(patch, ensure_ascii=False) + "}"
    node = parse_json(doc, 0, len(doc)).node
    assert node is not None
    member = node.get("input")
    assert member is not None
    value = member.value
    smap = value.source_map
    found = parse_patch(value.value, 0, len(value.value), outer=smap)
    assert not found.diagnostics
    (action,) = found.actions
    edit = action.edits[0]
    assert edit.replace.value == 's = "café"\n'
    i = edit.replace.value.index("café")
    s = edit.replace.value_span(i, i + 4)
    assert doc[s.start : s.end] == "café"
    q = edit.replace.value_span(4, 5)  # the `"` written as \" in the JSON
    assert doc[q.start : q.end] == '\\"'
    p = action.fields["path"]
    assert doc[p.span.start : p.span.end] == "a.py"


def test_apply_through_the_cli(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src/app.py").write_text("def greet():\n    return 'hi'\n\nx = 1\ny = 2\n")
    (root / "old.txt").write_text("bye\n")
    t = tmp_path / "t.md"
    t.write_text("```\n" + PATCH + "```\n", encoding="utf-8")
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 0
    assert not (root / "old.txt").exists() and not (root / "src/app.py").exists()
    assert (root / "src/main.py").read_text() == "def greet():\n    return 'héllo'\n\nx = 1\ny = 3\n"
    assert (root / "docs/note.md").read_text(encoding="utf-8") == "# Café ✅\n\n"


def test_patch_in_codex_shell_heredoc_form() -> None:
    text = "```bash\napply_patch <<'EOF'\n" + PATCH + "EOF\n```\n"
    a = analyze(text)
    assert [x.type for x in a.actions] == ["add-file", "delete-file", "update-file", "move-file"]
    assert not a.diagnostics
    # Any other shell fence stays an ordinary example.
    assert not analyze("```bash\napply_patch <<'EOF'\necho hi\nEOF\n```\n").actions


def test_parse_patch_through_a_shifted_source_map() -> None:
    """A map shifted by an edit above it (an O(1) offset on its breaks) maps the same way."""
    patch = "*** Begin Patch\n*** Update File: a.py\n@@\n-s = \"x\"\n+s = \"é\tz\"\n*** End Patch\n"
    doc = '{"input": ' + json.dumps(patch, ensure_ascii=False) + "}"
    node = parse_json(doc, 0, len(doc)).node
    assert node is not None
    member = node.get("input")
    assert member is not None
    shifted_doc = "12345" + doc
    smap = member.value.source_map.shift(5)
    found = parse_patch(member.value.value, 0, len(member.value.value), outer=smap)
    (action,) = found.actions
    r = action.edits[0].replace
    i = r.value.index("z")
    s = r.value_span(i, i + 1)
    assert shifted_doc[s.start : s.end] == "z"
    t = r.value.index("\t")
    s = r.value_span(t, t + 1)
    assert shifted_doc[s.start : s.end] == "\\t"


def test_a_patch_still_streaming_in_is_in_progress() -> None:
    from action_lsp.model import IN_PROGRESS

    text = "Sure:\n\n*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b"
    (d,) = only(text).diagnostics
    assert d.code == "unclosed-block" and d.data and d.data.get(IN_PROGRESS)
    assert all(a.in_progress for a in only(text).actions)
    # Prose after it: the patch is over, and unterminated.
    (d,) = only(text + "\n\nThat's it.\n").diagnostics
    assert not (d.data or {}).get(IN_PROGRESS)
