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
    # A long string with a bad escape (``\q``) in every other record: the C decoder refuses
    # each, and its error counts the lines before it from the start of the text.
    "session-bad-escapes": lambda n: (
        '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write", "input": '
        '{"file_path": "a.py", "content": "x = \\n1\\ny = \\q2 and a long line of text to read"}}]}}\n'
        '{"type": "assistant", "message": {"content": [{"type": "tool_use", "name": "Write", "input": '
        '{"file_path": "b.py", "content": "x = \\n1\\ny = \\t2 and a long line of text to read"}}]}}\n') * n,
    "tool-call-args": lambda n: '{"tool_calls": [{"function": {"name": "write_file", "arguments": "{\\"path\\": \\"' * n,
    "comments": lambda n: "```actions\n{" + "/* c */ // d\n" * n + "\n```\n",
    "headings": lambda n: "# user:\n<create_file>\n" * n,
    # chat-answer: path lines before fences, each looking back for its turn's role line
    "chat-path-lines": lambda n: "**a.py**\n```python\nx\n```\n" * n,
    "chat-path-lines-in-turn": lambda n: "_**Assistant**_\n\n" + "src/a.py\n```\nx\n```\n" * n,
    "chat-unclosed-path-lines": lambda n: "### Assistant\n" + "**a.py**\n```python\n" * n,
    "chat-unclosed-sources": lambda n: "# aider chat started at 2025\n" + "a.py\n<source>\nx\n" * n,
    # Aider's user-line marker many times in one line after a block: each is not a user line,
    # and telling so must not read back to the line's start every time.
    "aider-user-markers-one-line": lambda n: "# aider chat started at 2025\n#### a  \n\nfoo.py\n```python\n"
    "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n\n" + "y #### " * (4 * n) + "\n",
    "specstory-unclosed-tool-uses": lambda n: '<tool-use data-tool-type="write" data-tool-name="write">\n' * n,
    "specstory-tool-uses-one-close": lambda n: '<tool-use data-tool-type="write">\n<details>\n' * n + "</tool-use>\n",
    # SpecStory's 2025 Cursor diffs: fences closed only by an indented ``` (no closing line of
    # their own form), and many unnamed diffs in one long assistant turn.
    "specstory-diffs-indented-closers": lambda n: "_**Assistant**_\n\n" + "---\n\n```diff\n+ a\n  ```\n\n" * n,
    "specstory-diffs-one-turn": lambda n: "_**Assistant**_\n\n" + "Read file: a.py\n\n---\n\n```diff\n  a\n- b\n+ c\n```\n\n---\n\n" * n,
}


# -- Whole documents and workspaces for the commands (issue 21) ---------------------------------
# Measured by ``bench/bench_commands.py`` (parse, check, apply and the server's outline, at two
# sizes, with peak RSS) and counted by ``tests/test_linear.py``.


def _json_line(value: object) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


def openai_export(n: int) -> str:
    """A compact OpenAI chat export: ``n`` write_file calls on one line."""
    import json

    calls = [{"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function",
              "function": {"name": "write_file", "arguments": json.dumps({"path": f"f{i}.py", "content": "x = 1\n"})}}]}
             for i in range(n)]
    return _json_line({"messages": calls})


def swe_agent_traj(n: int) -> str:
    """A SWE-agent trajectory (``.traj``) of ``n`` create steps, on one line."""
    steps = [{"action": f"str_replace_editor create /repo/f{i}.py --file_text 'x = 1\n'", "observation": "File created",
              "state": {"working_dir": "/repo"}, "thought": "t"} for i in range(n)]
    return _json_line({"trajectory": steps})


def _claude_record(content: list[object]) -> str:
    return _json_line({"type": "assistant", "sessionId": "s", "uuid": "u", "cwd": "/w",
                       "message": {"role": "assistant", "content": content}})


def session_blank_lines(n: int) -> str:
    """A Claude Code session: one Write, then ``100 n`` blank lines, then another Write."""
    write = {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/w/a.py", "content": "x\n"}}
    return _claude_record([write]) + "\n" + "\n" * (100 * n) + _claude_record([{**write, "id": "t2"}]) + "\n"


def blocks_no_cwd(n: int) -> str:
    """A Claude Code session re-saved one content block per line, as its real exports are: ``n``
    Write calls with absolute paths, and no record that gives a working directory."""
    lines = [_json_line({"timestamp": "t", "role": "assistant", "content": {
        "type": "tool_use", "tool_name": "Write", "tool_id": f"t{i}",
        "input": {"file_path": f"/Users/dev/p/f{i}.py", "content": "x = 1\n"}}}) for i in range(n)]
    return "\n".join(lines) + "\n"


DOCUMENTS: dict[str, Shape] = {
    "openai-export-one-line": openai_export,
    "swe-agent-traj-one-line": swe_agent_traj,
    "session-blank-lines": session_blank_lines,
    "claude-blocks-no-cwd": blocks_no_cwd,
}
"""Transcripts for ``parse``, ``check`` and the server (no workspace needed)."""

SHAPES["openai-export-one-line"] = openai_export
SHAPES["swe-agent-traj-one-line"] = swe_agent_traj
SHAPES["claude-blocks-no-cwd"] = blocks_no_cwd


def _lines_file(n: int) -> str:
    return "".join(f"v{i:07d} = {i}\n" for i in range(2 * n))


def _shuffled(n: int) -> list[int]:
    import random

    order = list(range(0, 2 * n, 2))
    random.Random(3).shuffle(order)
    return order


def multiedit(n: int) -> tuple[str, dict[str, str]]:
    """One MultiEdit of ``n`` edits (every other line of a ``2n``-line file, shuffled)."""
    edits = [{"old_string": f"v{i:07d} = {i}\n", "new_string": f"v{i:07d} = {i + 1}\n"} for i in _shuffled(n)]
    call = {"type": "tool_use", "id": "t1", "name": "MultiEdit", "input": {"file_path": "/w/a.py", "edits": edits}}
    return _claude_record([call]) + "\n", {"a.py": _lines_file(n)}


def diff_hunks(n: int) -> tuple[str, dict[str, str]]:
    """A unified diff of ``n`` one-line hunks on one ``2n``-line file."""
    hunks = "".join(f"@@ -{i + 1},1 +{i + 1},1 @@\n-v{i:07d} = {i}\n+v{i:07d} = {i + 1}\n" for i in range(0, 2 * n, 2))
    return "```diff\n--- a/a.py\n+++ b/a.py\n" + hunks + "```\n", {"a.py": _lines_file(n)}


def codex_chunks(n: int) -> tuple[str, dict[str, str]]:
    """A Codex patch of ``n`` chunks on one ``2n``-line file."""
    chunks = "".join(f"@@\n-v{i:07d} = {i}\n+v{i:07d} = {i + 1}\n" for i in range(0, 2 * n, 2))
    return "*** Begin Patch\n*** Update File: a.py\n" + chunks + "*** End Patch\n", {"a.py": _lines_file(n)}


WORKSPACES: dict[str, Callable[[int], tuple[str, dict[str, str]]]] = {
    "multiedit-one-file": multiedit,
    "diff-hunks-one-file": diff_hunks,
    "codex-chunks-one-file": codex_chunks,
}
"""Transcripts with the files they edit, for ``apply`` (``n`` edits of one file)."""
