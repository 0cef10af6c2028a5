"""Adversarial input shapes: inputs that made the scanner quadratic once, and their relatives.

Each shape is a function ``n -> text`` whose size grows linearly with ``n``. Used by
``bench/bench_stress.py`` (two sizes and their time ratio) and by ``tests/test_linear.py``
(small sizes under an operation-count bound). Generated, never read from disk.
"""

from __future__ import annotations

from collections.abc import Callable

Shape = Callable[[int], str]


def _cycle(parts: list[str], n: int, sep: str = "") -> str:
    return sep.join(parts[i % len(parts)] for i in range(n))


_OPENERS = [
    "<create_file>",
    "<modify_file>",
    "<execute_command>",
    "<aether-write>",
    '<aether-write path="a.py">',
    "<aether-sandbox>",
    "<think>",
    "<aether-unknown>",
    "```actions\n{\n",
    "```json\n{\"actions\": [",
    '{"type": "create_task", ',
    "<create-file>",
]

SHAPES: dict[str, Shape] = {
    # The shapes, on one line.
    "closers": lambda n: "</create_file>" * n,
    "openers": lambda n: "<create_file>" * n,
    "cdata": lambda n: "<create_file><path>a</path><content><![CDATA[" * n,
    "content-of-openers": lambda n: "<create_file><path>a</path><content>\n"
    + "<create_file>" * n
    + "\n</content></create_file>\n",
    "actions-fences": lambda n: "```actions\n{\n" * n,
    "unterminated-string": lambda n: '```actions\n{"actions": [{"type": "create_task", "content": "'
    + 'a\\"' * n
    + "\n```\n",
    # Their multi-line variants.
    "closers-lines": lambda n: "</create_file>\n" * n,
    "openers-lines": lambda n: "<create_file>\n" * n,
    "cdata-lines": lambda n: "<create_file>\n<path>a</path>\n<content><![CDATA[\n" * n,
    "unterminated-string-lines": lambda n: '```actions\n{"actions": [{"type": "x", "content": "'
    + 'a\\"\n' * n
    + "```\n",
    # Mixed: every dialect's openers repeated, on one line and on lines.
    "all-openers": lambda n: _cycle(_OPENERS, n),
    "all-openers-lines": lambda n: _cycle(_OPENERS, n, "\n"),
    "all-openers-paragraphs": lambda n: _cycle(_OPENERS, n, "\n\n"),
    # Our own.
    "deep-json": lambda n: "```actions\n" + '{"actions": [' * n + "\n```\n",
    "deep-json-closed": lambda n: "```actions\n" + "[" * n + "]" * n + "\n```\n",
    "prose-braces": lambda n: '{"type": "create_task", "content": ' * n,
    "prose-brace-lines": lambda n: '{"type": "create_task", "content": "x"\n' * n,
    "long-line-one-tag": lambda n: "x" * (20 * n) + "<create_file>" + "y" * (20 * n),
    "long-line-lt": lambda n: "a < b " * (4 * n),
    "backticks": lambda n: "`<create_file>" * n,
    "backtick-runs": lambda n: "".join("`" * (1 + i % 7) + "<think>" for i in range(n)),
    "attr-quotes": lambda n: '<aether-write path="' * n,
    "attr-unclosed": lambda n: "<aether-write path=a.py " * n,
    "nested-same": lambda n: "<aether-write path=\"a\">" * n + "</aether-write>" * n,
    "nested-children": lambda n: "<modify_file><search>" * n,
    "unclosed-children": lambda n: "<create_file><path>a<content>b" * n,
    "unclosed-fences": lambda n: "```python\n" * n,
    "tildes-and-ticks": lambda n: "~~~\n```\n" * n,
    "entities": lambda n: '<aether-write path="' + "&amp;&#x41;&bogus;" * n + '">x</aether-write>',
    "stray-closers-mixed": lambda n: _cycle(["</aether-write>", "</think>", "</path>", "</content>"], n),
    "forge-json": lambda n: '<aether-forge tool="t">' + '{"a": ' * n + "</aether-forge>",
    "plan-items": lambda n: '{"actions": [' + '{"action": "THINK", "context": "x"}, ' * n,
    "fences-open-strings": lambda n: '```actions\n{"a": "\n' * n + "```\n",
    "blocks-one-close": lambda n: '```actions\n{"actions": []}\n' * n + "```\n",
    "json-fences-one-close": lambda n: '```json\n{"actions": [{"action": "THINK"}]}\n' * n + "```\n",
    "forge-one-close": lambda n: '<aether-forge tool="t">{"a": 1}\n' * n + "</aether-forge>\n",
    "aether-openers": lambda n: "<think>" * n,
    "aether-openers-lines": lambda n: "<aether-write path='a.py'>\n" * n,
    "prose-objects-one-line": lambda n: '{"type": "create_task", "content": "x"} ' * n,
    "iteration-blocks": lambda n: "```iteration\n{\n" * n,
    "rules-and-roles": lambda n: "---\nUser: <create_file>\n" * n,
    "crlf-closers": lambda n: "</create_file>\r\n<create_file>\r" * n,
    "lone-crs": lambda n: "<create_file>\r" * n,
    "non-ascii": lambda n: "\u00e9\U0001f600<create_file>" * n,
    # The dialects added later: Dyad, bolt.new, Cline/Roo, SEARCH/REPLACE blocks.
    "dyad-openers": lambda n: '<dyad-write path="a.ts">' * n,
    "dyad-openers-lines": lambda n: '<dyad-write path="a.ts" description="x">\n' * n,
    "bolt-openers": lambda n: '<boltArtifact id="a"><boltAction type="file" filePath="a.js">' * n,
    "cline-openers": lambda n: "<write_to_file><path>a</path><content>" * n,
    "cline-diff-lines": lambda n: "<apply_diff>\n<path>a.py</path>\n<diff>\n<<<<<<< SEARCH\n" * n,
    "search-replace-markers": lambda n: "<<<<<<< SEARCH\n" * n,
    "search-replace-halves": lambda n: "a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\n" * n,
    # Sessions read as JSON records (Claude Code, Codex): broken and unfinished records.
    "session-records": lambda n: '{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "tool_use", "name": "Write", "input": {"file_path": "a.py", "content": "x"}}]}}\n'
    + '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write", "input": {"file_path": "\n' * n,
    "tool-call-args": lambda n: '{"tool_calls": [{"function": {"name": "write_file", "arguments": "{\\"path\\": \\"' * n,
    "comments": lambda n: "```actions\n{" + "/* c */ // d\n" * n + "\n```\n",
    "headings": lambda n: "# user:\n<create_file>\n" * n,
}
