"""A Codex chunk's ``@@ context`` lines anchor its search, as Codex's ``apply_patch`` reads them
(``codex-rs/apply-patch/src/lib.rs`` ``compute_replacements`` and ``seek_sequence.rs``): each
context line is sought in order from where the search stands, the chunk's old lines after the
last of them, and a chunk's search starts after the chunk before it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from action_lsp.cli import main
from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.edit import Workspace, plan_changes
from action_lsp.edit.locate import find_anchor

SHAPES = (
    "class Circle:\n"
    "    def area(self):\n"
    "        return 0\n"
    "\n"
    "\n"
    "class Square:\n"
    "    def area(self):\n"
    "        return 0\n"
    "\n"
    "    def side(self):\n"
    "        return 0\n"
)


def patch(*body: str) -> str:
    return "*** Begin Patch\n*** Update File: shapes.py\n" + "".join(body) + "*** End Patch\n"


def run(tmp_path: Path, text: str, files: dict[str, str], *args: str) -> tuple[int, dict[str, str], list]:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    for rel, content in files.items():
        (root / rel).write_text(content, encoding="utf-8")
    doc = tmp_path / "t.md"
    doc.write_text(text, encoding="utf-8")
    plan = plan_changes(analyze(text).actions, Workspace(root))
    code = main(["apply", str(doc), "--root", str(root), *args])
    got = {p.name: p.read_text(encoding="utf-8") for p in root.iterdir() if p.is_file()}
    return code, got, [d for o in plan.outcomes for d in o.diagnostics]


def test_context_lines_are_parsed_with_their_ranges() -> None:
    text = "Fix:\n\n" + patch("@@ class Square:\n@@     def area(self):\n-        return 0\n+        return self.s ** 2\n")
    a = analyze(text)
    assert not a.diagnostics
    view = file_view(a.actions[0])
    assert view is not None
    (e,) = view.edits
    assert [c.value for c in e.anchors] == ["class Square:", "    def area(self):"]
    assert [text[c.span.start : c.span.end] for c in e.anchors] == ["class Square:", "    def area(self):"]
    assert e.after_previous and view.final_newline
    assert view.to_json()["edits"][0]["anchors"] == ["class Square:", "    def area(self):"]
    # a bare `@@` is no context line
    bare = file_view(analyze(patch("@@\n-a\n+b\n")).actions[0])
    assert bare is not None and bare.edits[0].anchors == ()


def test_a_context_line_picks_the_place_among_repeated_snippets(tmp_path: Path) -> None:
    body = "@@ class Square:\n     def area(self):\n-        return 0\n+        return self.s ** 2\n"
    code, files, _ = run(tmp_path, patch(body), {"shapes.py": SHAPES}, "--write")
    assert code == 0
    assert files["shapes.py"] == SHAPES.replace(
        "class Square:\n    def area(self):\n        return 0",
        "class Square:\n    def area(self):\n        return self.s ** 2")
    # without the context line the same chunk is two places: refused, never guessed
    code, files, diags = run(tmp_path, patch(body.split("\n", 1)[1]), {"shapes.py": SHAPES}, "--write")
    assert code == 1 and files["shapes.py"] == SHAPES
    assert [d.code for d in diags] == ["search-ambiguous"]


def test_several_context_lines_narrow_class_then_method(tmp_path: Path) -> None:
    body = "@@ class Square:\n@@ def side(self):\n-        return 0\n+        return self.s\n"
    code, files, _ = run(tmp_path, patch(body), {"shapes.py": SHAPES}, "--write")
    assert code == 0
    assert files["shapes.py"].endswith("    def side(self):\n        return self.s\n")
    assert files["shapes.py"].count("return 0") == 2


def test_a_missing_context_line_is_a_diagnostic_on_it(tmp_path: Path) -> None:
    text = patch("@@ class Triangle:\n-        return 0\n+        return 1\n")
    code, files, diags = run(tmp_path, text, {"shapes.py": SHAPES}, "--write")
    assert code == 1 and files["shapes.py"] == SHAPES
    (d,) = diags
    assert d.code == "search-not-found" and "`@@ class Triangle:`" in d.message
    assert text[d.span.start : d.span.end] == "class Triangle:"


def test_snippets_still_repeated_after_the_context_line_are_refused(tmp_path: Path) -> None:
    """After `class Circle:` the snippet stands twice more (Circle's and Square's): a question
    with both places counted in the whole file, not Codex's first."""
    code, files, diags = run(tmp_path, patch("@@ class Circle:\n-        return 0\n+        return 1\n"),
                             {"shapes.py": SHAPES}, "--write")
    assert code == 1 and files["shapes.py"] == SHAPES
    (d,) = diags
    assert d.code == "search-ambiguous" and d.data is not None
    assert [c["line"] for c in d.data["candidates"]] == [3, 8, 11]
    assert "searched after its `@@` context line, from line 2" in d.message


def test_a_chunk_is_searched_after_the_chunk_before_it(tmp_path: Path) -> None:
    src = "log()\nA\nlog()\n"
    body = "@@\n-A\n+B\n@@\n-log()\n+trace()\n"
    code, files, _ = run(tmp_path, patch(body).replace("shapes.py", "s.txt"), {"s.txt": src}, "--write")
    assert code == 0 and files["s.txt"] == "log()\nB\ntrace()\n"
    # a chunk whose lines stand only before the one above it fails, as in Codex
    code, files, diags = run(tmp_path, patch("@@\n-A\n+B\n@@\n-first\n+1st\n").replace("shapes.py", "t.txt"),
                             {"t.txt": "first\nA\n"}, "--write")
    assert code == 1 and files["t.txt"] == "first\nA\n"
    assert diags[0].code == "search-not-found"


def test_a_chunk_of_context_lines_only_moves_the_search_on(tmp_path: Path) -> None:
    # Codex's applier finds a chunk with no - or + line and goes on after it; here the next
    # chunk's `X` is the one after `c` (not the first), and nothing warns that the chunk changes
    # nothing (a real opencode export has 38 such chunks).
    src = "a\nX\nb\nY\nc\nX\n"
    code, files, diags = run(tmp_path, patch("@@\n c\n@@\n-X\n+Z\n").replace("shapes.py", "s.txt"),
                             {"s.txt": src}, "--write")
    assert code == 0 and files["s.txt"] == "a\nX\nb\nY\nc\nZ\n"
    assert not [d for d in diags if d.code == "noop-edit"]
    # the chunk's lines are the next chunk's anchors, a run of lines: no edit of their own
    text = patch("@@\n c\n@@\n-X\n+Z\n").replace("shapes.py", "s.txt")
    view = file_view(analyze(text).actions[0])
    assert view is not None
    (e,) = view.edits
    assert [a.value for a in e.anchors] == ["c\n"]
    assert text[e.anchors[0].span.start : e.anchors[0].span.end] == " c"
    # context that is not in the file: Codex rejects the patch; a diagnostic on those lines,
    # nothing applied (never the next chunk's first place guessed)
    text = patch("@@\n q\n@@\n-X\n+Z\n").replace("shapes.py", "t.txt")
    code, files, diags = run(tmp_path, text, {"t.txt": src}, "--write")
    assert code == 1 and files["t.txt"] == src
    (d,) = diags
    assert d.code == "search-not-found" and "context lines" in d.message and "`q`" in d.message
    assert text[d.span.start : d.span.end] == " q"


def test_a_chunk_of_context_lines_is_a_run_of_lines(tmp_path: Path) -> None:
    """Its lines are sought together, one after the other (Codex's ``seek_sequence``): `c` alone
    on line 1 is not the place; `c` then `d` on lines 4-5 is, and the `X` after them is patched."""
    src = "c\nX\nd\nc\nd\nX\n"
    code, files, _ = run(tmp_path, patch("@@\n c\n d\n@@\n-X\n+Z\n").replace("shapes.py", "s.txt"),
                         {"s.txt": src}, "--write")
    assert code == 0 and files["s.txt"] == "c\nX\nd\nc\nd\nZ\n"
    code, files, diags = run(tmp_path, patch("@@\n c\n e\n@@\n-X\n+Z\n").replace("shapes.py", "t.txt"),
                             {"t.txt": src}, "--write")
    assert code == 1 and files["t.txt"] == src
    assert [d.code for d in diags] == ["search-not-found"] and "`c` and the 1 after it" in diags[0].message


def test_a_chunk_of_context_lines_moves_the_search_on_in_a_crlf_file(tmp_path: Path) -> None:
    src = "a\r\nX\r\nb\r\nc  \r\nX\r\n"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "s.txt").write_bytes(src.encode())
    (tmp_path / "t.md").write_text(patch("@@\n c\n@@\n-X\n+Z\n").replace("shapes.py", "s.txt"), encoding="utf-8")
    assert main(["apply", str(tmp_path / "t.md"), "--root", str(root), "--write"]) == 0
    assert (root / "s.txt").read_bytes() == b"a\r\nX\r\nb\r\nc  \r\nZ\r\n"


@pytest.mark.parametrize("written", ["class Square:", "class Square:   ", "  class Square:", "class Square:\r"])
def test_context_lines_are_sought_as_codex_seeks_them(written: str) -> None:
    text = SHAPES.replace("class Square:\n", written + "\n")
    found = find_anchor(text, "class Square:")
    assert found is not None and text[found[0] :].startswith(written)
    # typographic dashes and quotes read as ASCII (Codex's last pass)
    assert find_anchor("x\n# a – b “c”\ny\n", '# a - b "c"') == (2, 14)
    assert find_anchor(SHAPES, "class Square:", start=len(SHAPES)) is None


def test_context_lines_inside_an_apply_patch_tool_call_map_to_the_document(tmp_path: Path) -> None:
    p = patch("@@ class Square:\n     def area(self):\n-        return 0\n+        return \"é\"\n")
    doc = json.dumps({"messages": [{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "apply_patch", "arguments": json.dumps({"input": p})}}]}]})
    a = analyze(doc)
    view = file_view(a.actions[0])
    assert view is not None and view.final_newline
    (anchor,) = view.edits[0].anchors
    assert doc[anchor.span.start : anchor.span.end] == "class Square:"
    root = tmp_path / "ws"
    root.mkdir()
    (root / "shapes.py").write_text(SHAPES, encoding="utf-8")
    (tmp_path / "chat.json").write_text(doc, encoding="utf-8")
    assert main(["apply", str(tmp_path / "chat.json"), "--root", str(root), "--write"]) == 0
    assert (root / "shapes.py").read_text(encoding="utf-8").count('return "é"') == 1


def test_end_of_file_pins_a_chunk_to_the_last_lines(tmp_path: Path) -> None:
    src = "x = 1\nprint(x)\n\nx = 1\nprint(x)\n"
    body = "@@\n x = 1\n-print(x)\n+print(x + 1)\n*** End of File\n"
    text = patch(body).replace("shapes.py", "e.py")
    view = file_view(analyze(text).actions[0])
    assert view is not None and view.edits[0].at_end
    code, files, _ = run(tmp_path, text, {"e.py": src}, "--write")
    assert code == 0 and files["e.py"] == "x = 1\nprint(x)\n\nx = 1\nprint(x + 1)\n"
    # lines that are in the file but not at its end: not found, as in Codex
    code, files, diags = run(tmp_path, patch("@@\n-a\n+b\n*** End of File\n").replace("shapes.py", "f.txt"),
                             {"f.txt": "a\nz\n"}, "--write")
    assert code == 1 and files["f.txt"] == "a\nz\n"
    assert diags[0].code == "search-not-found" and "End of File" in diags[0].message


def test_a_chunk_whose_lines_stand_whole_in_one_place_only_is_applied_there(tmp_path: Path) -> None:
    """Codex compares whole lines: `}` inside the line `\\t}` is no place of a chunk's `}` line.
    Of the two places the text `}` has after `func a`, only the function's last line holds it
    whole, so the chunk is applied there, as Codex applies it (found replaying a real Codex
    rollout, where 3 of its 33 updates were refused so); a note says how it was chosen."""
    src = "package x\n\nfunc a() int {\n\tif true {\n\t\treturn 1\n\t}\n\treturn 2\n}\n"
    body = "@@\n func a() int {\n@@\n }\n+\n+func b() {}\n"
    code, files, diags = run(tmp_path, patch(body).replace("shapes.py", "a.go"), {"a.go": src}, "--write")
    assert code == 0
    assert files["a.go"] == src + "\nfunc b() {}\n"
    (d,) = diags
    assert d.code == "search-fuzzy" and "whole" in d.message
    # two places holding the lines whole are still two: refused, never the first
    code, files, diags = run(tmp_path, patch("@@\n }\n+// end\n").replace("shapes.py", "b.go"),
                             {"b.go": src + src[10:]}, "--write")
    assert code == 1 and files["b.go"] == src + src[10:]
    assert [d.code for d in diags] == ["search-ambiguous"]
