"""The incremental document agrees with a full analysis for chat answers, whose weak forms read
up to CONTEXT_LINES lines back for the turn's role line: typing or deleting a role line far above
a block, or the path line right before it, changes what the block is, in the editor as in a
full scan."""

from __future__ import annotations

import random

import pytest

from action_lsp import document
from action_lsp.dialects import chat_answer
from action_lsp.document import IncrementalDocument, analyze

BLOCKS = [
    "Some prose about the change.\n\n",
    "_**User**_\n\nfix it\n\n---\n\n",
    "_**Assistant**_\n\n",
    "### Assistant\n",
    "#### make it so\n\n",
    "> Applied edit to a.py\n",
    "**src/a.py**\n```python\nx = 1\n```\n\n",
    "src/b.ts\n```ts\nlet b;\n```\n",
    "```tsx:src/c.tsx\nexport {}\n```\n",
    "```python\n# d.py\nd = 1\n```\n",
    "```js\n// filepath: e.js\ne();\n```\n",
    "```\nplain example\n```\n\n",
    "**f.yaml**\n```yaml\nunclosed: 1\n",
    "line\n" * 40,
    "# aider chat started at 2025\n\nsrc/s.py\n<source>\ns = 1\n</source>\n",
    '<tool-use data-tool-type="write" data-tool-name="write">\n<details><summary>Tool use: **write** \u2022 Edit file: w.txt</summary>\n\n```diff\n@@ -1,1 +1,1 @@\n- \n+ w\n```\n</details>\n</tool-use>\n',
    "\U0001f527 **Tool Use: Write** (ID: toolu_1)\n```json\n{\"file_path\": \"t.py\", \"content\": \"t\"}\n```\n",
    # SpecStory's 2025 Cursor edits: unnamed diffs between --- lines, named by the prose around
    "---\n\n```diff\n  a\n- b\n+ c\n```\n\n---\n\n",
    "---\n\n```diff\n- \n+ new\n```\n\n",
    "Read file: src/r.py\n\n",
    "Now let's update the q.py file:\n\n",
    "The `done.md` has been updated.\n\n",
    "See `src/q.py`.\n\n",
    # a session export's results (matched to the calls by order) and its calls without a fence
    "\U0001f4ca **Tool Result:**\n```\nString to replace not found in file.\n```\n\n",
    "\U0001f4ca **Tool Result:**\n```\nThe file t.py has been updated.\n```\n\n",
    "\U0001f527 Using tool: Edit\nInput: {\n  \"file_path\": \"u.py\",\n  \"old_string\": \"a\",\n  \"new_string\": \"b\"\n}\n\n",
    "**Tool: Edit**\nFile: `$CLAUDE_PROJECT_DIR/v.py`\nOld: `a\nb`\nNew: `c`\n\n**Output:**\n```\nok\n```\n\n",
    "**Tool: Write**\nFile: `$CLAUDE_PROJECT_DIR/w.sh`\n```\necho hi\n```\n\n",
]
SNIPPETS = [
    "\n", "\n\n", "```", "_**Assistant**_\n", "_**User**_\n", "### Assistant\n", "**g.py**\n",
    "h.py\n", "// filepath: i.ts\n", "#### ", "> Tokens: 1k\n", "x", "*", "`", "é😀", "</source>\n", "<source>\n",
    "</tool-use>\n", '<tool-use data-tool-type="write">\n', "**Tool Use: Edit**\n",
    "---\n", "```diff\n", "+ ", "- ", "main.go", "Read file: ", "has been updated",
    "**Tool Result:**\n", "`\nNew: `", "Error: ", "\U0001f527 Using tool: Write\nInput: ", "**Tool: Edit**\n",
    "File: `v.py`\n", "Old: `",
]


def _signature(analysis):  # type: ignore[no-untyped-def]
    actions = [
        (a.dialect, a.type, a.kind, a.failure, a.span, a.group, sorted((k, f.span) for k, f in a.fields.items()))
        for a in analysis.actions
    ]
    diags = sorted((d.code, d.span.start, d.span.end, d.message) for d in analysis.diagnostics)
    return actions, diags


@pytest.mark.parametrize("seed", range(0, 160, 8))
def test_edits_match_full_analysis(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(document, "WINDOW", rng.choice([64, 256, 1 << 14]))
    monkeypatch.setattr(chat_answer, "CONTEXT_LINES", rng.choice([chat_answer.CONTEXT_LINES, 30]))
    doc = IncrementalDocument("".join(rng.choice(BLOCKS) for _ in range(rng.randint(3, 14))))
    for _ in range(30):
        n = len(doc.text)
        start = rng.randint(0, n)
        end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
        doc.edit(start, end, rng.choice(SNIPPETS) if rng.random() < 0.85 else "")
        assert _signature(doc.analysis()) == _signature(analyze(doc.text)), (start, end)


def test_a_role_line_typed_far_above_makes_the_block_an_action() -> None:
    body = "prose\n" * 100 + "**src/a.py**\n```python\nx = 1\n```\n"
    doc = IncrementalDocument("# Notes\n\n" + body)
    assert [a for a in doc.analysis().actions if a.dialect == "chat-answer"] == []
    doc.edit(len("# Notes\n\n"), len("# Notes\n\n"), "_**Assistant**_\n\n")
    assert [a.path for a in doc.analysis().actions if a.dialect == "chat-answer"] == ["src/a.py"]
    at = doc.text.index("_**Assistant**_")
    doc.edit(at, at + len("_**Assistant**_"), "_**User**_")
    assert [a for a in doc.analysis().actions if a.dialect == "chat-answer"] == []
