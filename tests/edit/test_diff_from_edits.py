"""The dry run's diff of a change made of many edits is worked out around each edit (difflib
over the whole file compared each edit's lines with all the others: minutes for 20,000 edits).
Whatever it aligns, the diff must take the old text to the new one."""

from __future__ import annotations

import random
import re
from pathlib import Path

from action_lsp.edit.compose import ComposedEdits
from action_lsp.edit.diff import NO_EOL, file_diff
from action_lsp.edit.plan import FileChange

_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@\n")


def _lines(text: str) -> list[str]:
    """Lines ended by ``\n`` only (a ``\r`` is part of its line, as in the diff)."""
    return [line + "\n" for line in text.split("\n")[:-1]] + ([text.rsplit("\n", 1)[-1]] if not text.endswith("\n") and text else [])


def _patch(old: str, diff: str) -> str:
    """Apply a unified diff of one file (strictly: context and removed lines must match)."""
    lines = _lines(old)
    body = diff.split("\n", 2)[2]  # after the ---/+++ lines
    out: list[str] = []
    at = 0
    rows = _lines(body)
    k = 0
    while k < len(rows):
        m = _HUNK.fullmatch(rows[k])
        assert m, rows[k]
        start = int(m.group(1)) - (1 if m.group(2) != "0" else 0)
        out.extend(lines[at:start])
        at = start
        k += 1
        while k < len(rows) and not rows[k].startswith("@@"):
            tag, text = rows[k][0], rows[k][1:]
            if k + 1 < len(rows) and rows[k + 1] == NO_EOL:
                text = text[:-1]
                k += 1
            if tag in " -":
                assert lines[at] == text, (lines[at], text)
                at += 1
            if tag in " +":
                out.append(text)
            k += 1
    out.extend(lines[at:])
    return "".join(out)


def test_a_diff_made_from_the_edits_takes_the_old_text_to_the_new() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(1500):
        old = "".join(rng.choice(["a\n", "b\n", "c\n", "xyz\n", "\n", "q", "\r\n"]) for _ in range(rng.randrange(0, 30)))
        edits, new = ComposedEdits(), old
        for _ in range(rng.randrange(2, 8)):
            s = rng.randrange(len(new) + 1)
            e = min(len(new), s + rng.choice([0, 1, 2, 4, 9]))
            t = "".join(rng.choice(["a", "\n", "b\n", "z"]) for _ in range(rng.choice([0, 1, 3])))
            edits.add(s, e, t, new)
            new = new[:s] + t + new[e:]
        if new == old:
            continue
        diff = file_diff(FileChange(Path("f"), "f", "modify", old.encode(), new.encode(), old, new, edits.items))
        assert _patch(old, diff) == new, (old, new, diff)
        checked += 1
    assert checked > 1000


def test_many_edits_far_apart_give_one_hunk_each() -> None:
    old = "".join(f"line {i}\n" for i in range(100))
    edits, new = ComposedEdits(), old
    for i in (80, 10, 50):
        at = new.index(f"line {i}\n")
        edits.add(at, at + len(f"line {i}"), f"LINE {i}", new)
        new = new[:at] + f"LINE {i}" + new[at + len(f"line {i}"):]
    diff = file_diff(FileChange(Path("f"), "f", "modify", old.encode(), new.encode(), old, new, edits.items))
    assert diff.count("@@ -") == 3
    assert "@@ -8,7 +8,7 @@\n line 7\n line 8\n line 9\n-line 10\n+LINE 10\n" in diff
    assert _patch(old, diff) == new
