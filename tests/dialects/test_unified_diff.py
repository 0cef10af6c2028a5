"""The unified-diff dialect: fences, bare `diff --git` sections, file views, ranges, broken
diffs and their fixes, and applying through the CLI (hunks located by their text)."""

from __future__ import annotations

from pathlib import Path

from action_lsp.cli import main
from action_lsp.dialects import DialectSet, file_view
from action_lsp.document import analyze

GIT_DIFF = (
    "diff --git a/src/app.py b/src/app.py\n"
    "index 83db48f..bf269f4 100644\n"
    "--- a/src/app.py\n"
    "+++ b/src/app.py\n"
    "@@ -1,4 +1,4 @@\n"
    " def greet(name):\n"
    "-    return 'hi ' + name\n"
    "+    return 'héllo ' + name\n"
    " \n"
    " \n"
    "@@ -8,3 +8,4 @@ def main():\n"
    "     greet('a')\n"
    "+    greet('b')\n"
    "     return 0\n"
    " # end\n"
)


def only(text: str):
    return analyze(text, DialectSet.named(["unified-diff"]))


def test_a_diff_fence_is_a_modify_with_one_edit_per_hunk() -> None:
    text = "Here is the fix:\n\n```diff\n" + GIT_DIFF + "```\n\nDone.\n"
    a = only(text)
    assert [x.type for x in a.actions] == ["modify"]
    action = a.actions[0]
    view = file_view(action)
    assert view is not None and view.op == "modify"
    assert view.path.value == "src/app.py"
    assert text[view.path.span.start : view.path.span.end] == "src/app.py"
    assert text.index("+++ b/src/app.py") + 6 == view.path.span.start
    first, second = view.edits
    assert first.search.value == "def greet(name):\n    return 'hi ' + name\n\n\n"
    assert first.replace.value == "def greet(name):\n    return 'héllo ' + name\n\n\n"
    assert first.line == 1
    assert second.search.value == "    greet('a')\n    return 0\n# end\n"
    assert second.line == 8  # the first hunk adds no line
    # Every character of a value maps to where it is written (after the line's prefix).
    v = first.replace.value
    i = v.index("héllo")
    span = first.replace.value_span(i, i + len("héllo"))
    assert text[span.start : span.end] == "héllo"
    # The fields' range is the hunk: header to last line.
    hunk_start = text.index("@@ -1,4")
    assert first.search.span.start == hunk_start
    assert text[first.search.span.end - 1] == " "  # the last line (an empty context line)
    assert not a.diagnostics


def test_bare_git_diff_in_prose_ends_at_the_prose() -> None:
    text = "I changed two files.\n\n" + GIT_DIFF + "\nThat is all.\n- a list item\n"
    a = only(text)
    assert [x.type for x in a.actions] == ["modify"]
    assert text[a.actions[0].span.start :].startswith("diff --git")
    assert text[a.actions[0].span.end :].startswith("\nThat is all.")
    assert not a.diagnostics


def test_new_deleted_renamed_files_and_no_newline() -> None:
    text = (
        "```patch\n"
        "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n"
        "@@ -0,0 +1,2 @@\n+naïve\n+café\n\\ No newline at end of file\n"
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"
        "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        "diff --git a/c.py b/d.py\nsimilarity index 100%\nrename from c.py\nrename to d.py\n"
        "```\n"
    )
    a = only(text)
    views = [file_view(x) for x in a.actions]
    assert [(v.op, v.path.value) for v in views if v] == [
        ("create", "n.txt"), ("delete", "old.txt"), ("modify", "a.py"), ("rename", "a.py"),
        ("rename", "c.py"),
    ]
    assert views[0].content.value == "naïve\ncafé"
    assert views[3].to.value == "b.py" and views[4].to.value == "d.py"
    to = views[4].to
    assert text[to.span.start : to.span.end] == "d.py"
    assert not a.diagnostics


def test_a_diff_fence_of_bare_lines_is_an_illustration() -> None:
    text = "Compare:\n\n```diff\n- old way\n+ new way\n```\n"
    a = analyze(text)
    assert not a.actions and not a.diagnostics


def test_miscounted_hunk_header_is_reported_and_recounted() -> None:
    text = "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n a\n-b\n+c\n d\n```\n"
    a = only(text)
    (d,) = [d for d in a.diagnostics if d.code == "bad-hunk"]
    assert text[d.span.start : d.span.end] == "@@ -3,2 +3,2 @@"
    (fix,) = d.fixes
    assert fix.title == "Recount hunk header"
    (edit,) = fix.edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    assert "@@ -3,3 +3,3 @@" in fixed
    assert not [d for d in only(fixed).diagnostics if d.code == "bad-hunk"]
    # Still applied by its text.
    assert file_view(a.actions[0]).edits[0].search.value == "a\nb\nd\n"


def test_missing_plus_line_and_orphan_hunk() -> None:
    text = "```diff\n--- a/f.txt\n@@ -1 +1 @@\n-x\n+y\n```\n"
    a = only(text)
    (d,) = [d for d in a.diagnostics if d.code == "bad-patch"]
    assert text[d.span.start : d.span.end] == "--- a/f.txt"
    fixed = text[: d.fixes[0].edits[0].span.start] + d.fixes[0].edits[0].new_text + text[d.fixes[0].edits[0].span.start :]
    assert "--- a/f.txt\n+++ b/f.txt\n@@" in fixed
    assert not only(fixed).diagnostics
    orphan = only("```diff\n@@ -1 +1 @@\n-x\n+y\n```\n")
    assert [d.code for d in orphan.diagnostics] == ["bad-patch"] and not orphan.actions


def test_mixed_files_without_rename() -> None:
    text = "```diff\n--- a/one.txt\n+++ b/two.txt\n@@ -1 +1 @@\n-x\n+y\n```\n"
    a = only(text)
    (d,) = a.diagnostics
    assert d.code == "bad-patch" and text[d.span.start : d.span.end] == "two.txt"
    assert file_view(a.actions[0]).path.value == "two.txt"


def test_hunk_without_numbers_is_a_warning_but_applies(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "f.py").write_text("a = 1\nb = 2\n")
    text = "```diff\n--- a/f.py\n+++ b/f.py\n@@ ... @@\n a = 1\n-b = 2\n+b = 3\n```\n"
    assert [d.code for d in only(text).diagnostics] == ["bad-hunk"]
    t = tmp_path / "t.md"
    t.write_text(text)
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 0
    assert (root / "f.py").read_text() == "a = 1\nb = 3\n"


def _ws(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content, encoding="utf-8")
    root.mkdir(exist_ok=True)
    return root


def test_apply_with_offset_new_delete_and_rename(tmp_path: Path) -> None:
    # The file has grown 3 lines above the hunk since the diff was made: `patch` applies it
    # with an offset; so do we.
    body = "".join(f"line {i}\n" for i in range(1, 21))
    root = _ws(tmp_path, {"src/app.py": "# one\n# two\n# three\n" + body, "old.txt": "bye\n",
                          "a.py": "x = 1\n"})
    diff = (
        "```diff\n"
        "--- a/src/app.py\n+++ b/src/app.py\n@@ -9,3 +9,3 @@\n line 9\n-line 10\n+line ten\n line 11\n"
        "--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1 @@\n+# Nouveau ✅\n"
        "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
        "diff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n--- a/a.py\n+++ b/b.py\n"
        "@@ -1 +1 @@\n-x = 1\n+x = 2\n"
        "```\n"
    )
    t = tmp_path / "t.md"
    t.write_text("Apply this:\n\n" + diff, encoding="utf-8")
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 0
    assert (root / "src/app.py").read_text().splitlines()[12] == "line ten"
    assert (root / "docs/new.md").read_text(encoding="utf-8") == "# Nouveau ✅\n"
    assert not (root / "old.txt").exists() and not (root / "a.py").exists()
    assert (root / "b.py").read_text() == "x = 2\n"


def test_a_hunk_whose_context_is_not_found_is_reported_at_that_hunk(tmp_path: Path, capsys) -> None:
    root = _ws(tmp_path, {"f.txt": "a\nb\nc\nd\ne\nf\n"})
    text = (
        "```diff\n--- a/f.txt\n+++ b/f.txt\n"
        "@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
        "@@ -4,2 +4,2 @@\n zzz\n-e\n+E\n"
        "```\n"
    )
    t = tmp_path / "t.md"
    t.write_text(text)
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 1
    assert (root / "f.txt").read_text() == "a\nb\nc\nd\ne\nf\n"  # all or none
    err = capsys.readouterr().err
    line = text[: text.index("@@ -4,2")].count("\n") + 1
    assert f"t.md:{line}:1:" in err and "search-not-found" in err


def test_many_files_in_one_diff_and_crlf(tmp_path: Path) -> None:
    text = ("```diff\r\n--- a/x.txt\r\n+++ b/x.txt\r\n@@ -1 +1 @@\r\n-1\r\n+2\r\n"
            "--- a/y.txt\r\n+++ b/y.txt\r\n@@ -1 +1 @@\r\n-3\r\n+4\r\n```\r\n")
    a = only(text)
    assert [file_view(x).path.value for x in a.actions] == ["x.txt", "y.txt"]
    assert file_view(a.actions[1]).edits[0].replace.value == "4\n"
    assert not a.diagnostics


def test_removed_line_that_looks_like_a_header_inside_counts() -> None:
    text = "```diff\n--- a/f.md\n+++ b/f.md\n@@ -1,2 +0,0 @@\n--- a\n-+++ b\n```\n"
    a = only(text)
    assert file_view(a.actions[0]).edits[0].search.value == "-- a\n+++ b\n"
    assert not a.diagnostics


PATCH_BLOCKS = [
    "Some prose.\n\n",
    "```diff\n" + GIT_DIFF + "```\n\n",
    GIT_DIFF + "\nAfter the diff.\n\n",
    "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n a\n-b\n+c\n d\n```\n",
    "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n\n",
    "*** Begin Patch\n*** Add File: n.txt\n+x\n\nno end\n\n",
    "```\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n```\n",
    "```diff\n- illustration\n+ only\n```\n",
]
PATCH_SNIPPETS = ["\n", "\n\n", "```", "@@", "-", "+", " ", "diff --git a/x b/x\n", "*** End Patch\n",
                  "*** Begin Patch\n", "é😀", "--- a/z\n"]


def test_random_edits_in_diffs_match_full_analysis() -> None:
    import random

    from action_lsp.document import IncrementalDocument

    def signature(a):  # type: ignore[no-untyped-def]
        acts = [(x.dialect, x.type, x.span, sorted((k, f.span) for k, f in x.fields.items()),
                 [(e.search.value, e.replace.value, e.line) for e in x.edits]) for x in a.actions]
        return acts, sorted((d.code, d.span.start, d.span.end, d.message) for d in a.diagnostics)

    rng = random.Random(99)
    for _ in range(40):
        text = "".join(rng.choice(PATCH_BLOCKS) for _ in range(rng.randint(2, 8)))
        doc = IncrementalDocument(text)
        for _ in range(20):
            n = len(doc.text)
            start = rng.randint(0, n)
            end = min(n, start + rng.choice([0, 0, 1, 3, 20]))
            doc.edit(start, end, rng.choice(PATCH_SNIPPETS) if rng.random() < 0.8 else "")
            assert signature(doc.analysis()) == signature(analyze(doc.text)), (start, end)


def test_a_hunk_with_no_old_lines_inserts_after_its_old_start(tmp_path: Path) -> None:
    # `diff -U0` output: a pure insertion after line 1, then one after the (new) line 3.
    root = _ws(tmp_path, {"f.txt": "a\nb\nc\n"})
    t = tmp_path / "t.md"
    t.write_text("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,0 +2 @@\n+x\n@@ -2,0 +4 @@\n+y\n```\n")
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 0
    assert (root / "f.txt").read_text() == "a\nx\nb\ny\nc\n"


def test_the_hunk_line_picks_among_identical_places(tmp_path: Path) -> None:
    root = _ws(tmp_path, {"f.txt": "x\ny\nx\ny\n"})
    t = tmp_path / "t.md"
    t.write_text("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -3,2 +3,2 @@\n x\n-y\n+z\n```\n")
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 0
    assert (root / "f.txt").read_text() == "x\ny\nx\nz\n"
    # Numbers that point at neither place: refused as ambiguous, nothing written.
    t.write_text("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -9,2 +9,2 @@\n x\n-z\n+w\n x\n```\n")
    (root / "f.txt").write_text("x\nz\nx\nz\nx\n")
    assert main(["apply", str(t), "--root", str(root), "--write"]) == 1
    assert (root / "f.txt").read_text() == "x\nz\nx\nz\nx\n"


def test_a_diff_fence_still_streaming_in_is_in_progress() -> None:
    from action_lsp.model import IN_PROGRESS

    text = "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-x\n+y"
    a = only(text)
    (d,) = [d for d in a.diagnostics if d.code == "unclosed-block"]
    assert d.data and d.data.get(IN_PROGRESS)


def test_a_hunk_found_where_it_says_has_no_note(tmp_path: Path, capsys) -> None:
    """A hunk's line (its `@@ -12` start) is a hint: it is not a line-number prefix that was
    removed, and a hunk found exactly, where it says or with an offset, deserves no note (every
    hunk was told "found ... after removing its line-number prefixes; review the diff")."""
    body = "".join(f"line {i}\n" for i in range(1, 21))
    root = _ws(tmp_path, {"src/app.py": body})
    for start in (9, 12):  # where it is, and three lines off
        t = tmp_path / "t.md"
        t.write_text(f"```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -{start},3 +{start},3 @@\n line 9\n-line 10\n+line ten\n line 11\n```\n")
        assert main(["check", str(t), "--root", str(root)]) == 0
        out = capsys.readouterr()
        assert "search-fuzzy" not in out.out + out.err and "prefixes" not in out.out + out.err
