"""The incremental document agrees with a full analysis for the tag dialects added on the
TagDialect base (dyad, bolt, cline): random and half-typed edits of their constructs."""

from __future__ import annotations

import random

import pytest

from action_lsp import document
from action_lsp.document import IncrementalDocument, analyze

BLOCKS = [
    "Some prose about the change.\n\n",
    '<dyad-write path="src/a.ts" description="x">\nconst a = 1;\n</dyad-write>\n\n',
    '<dyad-search-replace path="p.json">\n<<<<<<< SEARCH\n"dev": "vite",\n=======\n"dev": "x",\n>>>>>>> REPLACE\n</dyad-search-replace>\n',
    '<dyad-rename from="a.ts" to="b.ts"></dyad-rename>\n<dyad-delete path="c.ts"></dyad-delete>\n',
    '<dyad-write path="partial.ts">\nconst s = "unfinished\n',
    '<boltArtifact id="a" title="A">\n  <boltAction type="file" filePath="i.js">\n    x();\n  </boltAction>\n'
    '  <boltAction type="shell">\n    npm i\n  </boltAction>\n</boltArtifact>\n\n',
    '<boltArtifact id="b" title="B">\n  <boltAction type="file" filePath="j.js">\n    y();\n',
    "<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\nx = 1\n=======\nx = 2\n+++++++ REPLACE\n</diff>\n</replace_in_file>\n\n",
    "<apply_diff>\n<path>b.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:3\n-------\ny\n=======\nz\n>>>>>>> REPLACE\n</diff>\n</apply_diff>\n",
    "<write_to_file>\n<path>n.md</path>\n<content>\n# N\n</content>\n</write_to_file>\n",
    "<execute_command>\n<command>ls</command>\n<requires_approval>false</requires_approval>\n</execute_command>\n",
    "```xml\n<dyad-write path=\"ex.ts\">x</dyad-write>\n```\n\n",
    "line\n" * 40,
]
SNIPPETS = [
    "\n", "\n\n", "<", ">", '"', "```", "</dyad-write>", "<dyad-write path=\"q\">", "</boltAction>",
    "<boltAction type=\"shell\">", "</boltArtifact>", "=======\n", ">>>>>>> REPLACE\n", "<<<<<<< SEARCH\n",
    "+++++++ REPLACE\n", "</diff>", "<diff>", "</replace_in_file>", "x", "é😀",
]


def _signature(analysis):  # type: ignore[no-untyped-def]
    actions = [
        (a.dialect, a.type, a.span, a.group, sorted((k, f.span) for k, f in a.fields.items()),
         [(e.search.span, e.replace.span, e.line) for e in a.edits])
        for a in analysis.actions
    ]
    diags = sorted((d.code, d.span.start, d.span.end, d.message) for d in analysis.diagnostics)
    return actions, diags, [(g.span, g.label, g.actions) for g in analysis.groups]


@pytest.mark.parametrize("seed", range(0, 240, 8))
def test_edits_match_full_analysis(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(document, "WINDOW", rng.choice([64, 256, 1 << 14]))
    doc = IncrementalDocument("".join(rng.choice(BLOCKS) for _ in range(rng.randint(3, 12))))
    for _ in range(30):
        n = len(doc.text)
        start = rng.randint(0, n)
        end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
        doc.edit(start, end, rng.choice(SNIPPETS) if rng.random() < 0.85 else "")
        assert _signature(doc.analysis()) == _signature(analyze(doc.text)), (start, end)
