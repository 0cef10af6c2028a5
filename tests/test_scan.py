"""The scanner: what is an action and what is an example, message groups, and positions."""

from __future__ import annotations

import itertools
import random

import pytest

from action_lsp.dialects import DialectSet
from action_lsp.document import analyze
from action_lsp.model import Span
from action_lsp.scan import MAX_UNIT_LINES, scan
from action_lsp.scan_state import ScanState
from action_lsp.text import LineIndex, Position

# Ordinary prose with code examples that *show* actions without performing any.
PROSE = """\
# Notes on agent output formats

Agents answer in many formats. Here is how one would build an action list in Python:

```python
actions = {"actions": [{"type": "create_task", "content": "x"}]}
print("```actions")
if x < 3 and y > 2:
    pass
```

A shell example (single quotes keep the JSON intact):

```bash
echo '{"type": "create_task", "content": "x"}' | jq .
cat <<EOF > out.txt
<create_file><path>a.txt</path></create_file>
EOF
```

The XML format, as documented:

```xml
<create_file>
<path>../../etc/passwd</path>
<content>hello</content>
</create_file>
<execute_command><command></command></execute_command>
```

And the JSON object an agent emits, shown as JSON:

```json
{"type": "create_task", "content": "test"}
```

```json
{"actions": [1, 2, 3], "name": "not a plan"}
```

A tilde fence holding a broken actions block:

~~~
```actions
{"actions": [{"type": "creat_task"}]}
~~~

A four-backtick fence holding a three-backtick one:

````markdown
```actions
{"actions": [{"type": "create_task"}]}
```
<aether-write path="/etc/x">x</aether-write>
````

Inline code is an example too: `<create_file>` and `{"type": "create_task", "content": "x"}`,
and so is `<execute_command>ls</execute_command>` and ``<read_file>`` in double backticks.
Comparisons such as a < b or {braces} and {"note": 1} in prose are just prose.

The end.
"""


def test_prose_and_code_examples_yield_nothing() -> None:
    a = analyze(PROSE)
    assert a.actions == []
    assert a.diagnostics == [], [
        (d.code, PROSE[d.span.start : d.span.end][:40]) for d in a.diagnostics
    ]
    assert a.groups == []


def test_the_same_constructs_outside_fences_are_found() -> None:
    """The examples above are ignored because of their fences, not because they are unreadable."""
    text = '```actions\n{"actions": [{"type": "creat_task"}]}\n```\n'
    assert [d.code for d in analyze(text).diagnostics] == ["unknown-action"]


def test_an_unclosed_example_fence_hides_everything_after_it() -> None:
    """CommonMark: an unclosed fence runs to the end of the document."""
    text = "```python\nprint(1)\n\n" + '```actions\n{"actions": [{"type": "creat_task"}]}\n'
    a = analyze(text)
    assert a.actions == [] and a.diagnostics == []


def test_fence_indented_by_up_to_three_spaces_is_still_a_fence() -> None:
    text = '   ```actions\n{"actions": [{"type": "create_task", "content": "x"}]}\n   ```\n'
    a = analyze(text)
    assert [x.type for x in a.actions] == ["create_task"]
    assert a.diagnostics == []


# --- groups -------------------------------------------------------------------------------------


def test_each_actions_block_is_its_own_group() -> None:
    text = (
        "# Message one\n\n"
        '```actions\n{"actions": [{"type": "create_task", "content": "a"}]}\n```\n\n'
        "# Message two\n\n"
        '```actions\n{"actions": [{"type": "create_task", "content": "b"},'
        ' {"type": "create_goal", "content": "c"}]}\n```\n'
    )
    a = analyze(text)
    assert [x.get("content") for x in a.actions] == ["a", "b", "c"]
    first = text.index("```actions")
    second = text.index("```actions", first + 1)
    assert [(g.span, g.actions) for g in a.groups] == [
        (Span(first, text.index("\n\n# Message two") + 1), [0]),
        (Span(second, len(text)), [1, 2]),
    ]
    assert all(x.group == g.span for g in a.groups for x in (a.actions[i] for i in g.actions))


def test_headings_separate_message_groups_of_tag_actions(fake_dialects: DialectSet) -> None:
    text = (
        "## User\n\nPlease write two files.\n\n"
        "## Assistant\n\n"
        "<fake-write>a.txt</fake-write>\n"
        "Some words.\n\n"
        "<fake-write>b.txt</fake-write>\n\n"
        "---\n\n"
        "<fake-write>c.txt</fake-write>\n"
        "## Assistant again\n"
        "<fake-write>d.txt</fake-write>\n"
    )
    a = analyze(text, fake_dialects)
    assert [x.path for x in a.actions] == ["a.txt", "b.txt", "c.txt", "d.txt"]
    assert [g.actions for g in a.groups] == [[0, 1], [2], [3]]
    assistant = text.index("## Assistant\n")
    rule = text.index("---")
    again = text.index("## Assistant again")
    assert [g.span for g in a.groups] == [
        Span(assistant, rule),
        Span(rule, again),
        Span(again, len(text)),
    ]
    assert a.groups[0].label == "message: Assistant"
    assert a.groups[2].label == "message: Assistant again"
    assert a.actions[1].group == a.groups[0].span


def test_tag_actions_without_any_heading_form_one_message(fake_dialects: DialectSet) -> None:
    text = "<fake-write>a</fake-write>\n\ntext\n\n<fake-write>b</fake-write>\n"
    a = analyze(text, fake_dialects)
    (g,) = a.groups
    assert g.span == Span(0, len(text)) and g.actions == [0, 1] and g.label == "message"


def test_fake_tags_inside_fences_and_inline_code_are_examples(fake_dialects: DialectSet) -> None:
    text = "```xml\n<fake-write>a</fake-write>\n```\nuse `<fake-write>b</fake-write>` like so\n"
    a = analyze(text, fake_dialects)
    assert a.actions == [] and a.diagnostics == []


def test_double_backtick_code_span_is_an_example(fake_dialects: DialectSet) -> None:
    text = "Write ``<fake-write>x</fake-write>`` to create x; ``a`` <fake-write>y</fake-write>\n"
    a = analyze(text, fake_dialects)
    assert [x.path for x in a.actions] == ["y"]


def test_unmatched_backtick_does_not_hide_a_tag(fake_dialects: DialectSet) -> None:
    text = "A stray ` backtick, then <fake-write>y</fake-write>\n"
    assert [x.path for x in analyze(text, fake_dialects).actions] == ["y"]


def test_unclosed_tag_recovery_stops_at_a_code_fence(fake_dialects: DialectSet) -> None:
    """An unclosed tag must not carry the scan into a code fence: the example inside it would
    become an action, and the real block after it an example."""
    text = (
        "<fake-write>notes.txt\n\n"
        "```xml\n<fake-write>example.txt</fake-write>\n```\n\n"
        'Now the real block:\n\n```actions\n{"actions": [{"type": "creat_task"}]}\n```\n'
    )
    a = analyze(text, fake_dialects)
    assert [x.type for x in a.actions] == ["fake-write", "creat_task"]
    assert a.actions[0].span == Span(0, text.index("```xml"))
    assert [d.code for d in a.diagnostics] == ["unknown-action"]


# --- positions ----------------------------------------------------------------------------------


def _expect(text: str, offset: int) -> Position:
    """The LSP position by hand: lines end at \\r\\n, \\r or \\n only; columns in UTF-16."""
    line = 0
    start = 0
    i = 0
    while i < offset:
        ch = text[i]
        if ch == "\r" and i + 1 < len(text) and text[i + 1] == "\n":
            i += 2
            if i > offset:  # inside a CRLF: not a valid place for a diagnostic
                raise AssertionError
            line, start = line + 1, i
            continue
        if ch in "\r\n":
            line, start = line + 1, i + 1
        i += 1
    col = sum(2 if ord(c) > 0xFFFF else 1 for c in text[start:offset])
    return Position(line, col)


@pytest.mark.parametrize(
    "newline",
    ["\n", "\r\n", "\r"],
    ids=["lf", "crlf", "cr"],
)
def test_positions_follow_lsp_line_endings(newline: str) -> None:
    lines = [
        "Intro with a line separator \u2028 and a paragraph separator \u2029 inside 😀.",
        "Form feed \f and vertical tab \v and NEL \x85 are not line breaks either.",
        "```actions",
        '{"actions": [{"type": "create_task", "content": "x"}, {"notes": "😀", "type": "creat_task"}]}',
        "```",
        "",
    ]
    text = newline.join(lines)
    a = analyze(text)
    (d,) = a.diagnostics
    assert d.code == "unknown-action"
    at = text.index("creat_task")
    assert d.span == Span(at, at + len("creat_task"))
    index = LineIndex(text)
    r = index.range(d.span)
    assert r.start == _expect(text, at) == Position(3, lines[3].index("creat_task") + 1)
    assert r.end == Position(3, r.start.character + len("creat_task"))
    # utf-32 columns count code points; utf-8 counts bytes
    assert index.position(at, "utf-32") == Position(3, lines[3].index("creat_task"))
    assert index.position(at, "utf-8").character == len(
        lines[3][: lines[3].index("creat_task")].encode()
    )
    # and back
    assert index.offset(r.start) == at


def test_mixed_line_endings_in_one_document() -> None:
    text = (
        "a\r\nb\rc\u2028d\ne\r\n" + '```actions\r\n{"actions": [{"type": "creat_task"}]}\r\n```\r\n'
    )
    a = analyze(text)
    (d,) = a.diagnostics
    at = text.index("creat_task")
    assert (
        LineIndex(text).range(d.span).start
        == _expect(text, at)
        == Position(5, at - text.index('{"actions'))
    )


def test_lone_cr_fences_are_recognised() -> None:
    text = (
        'Reply.\r```actions\r{"actions": [{"type": "create_task", "content": "x"}]}\r```\rAfter.\r'
    )
    a = analyze(text)
    assert [x.type for x in a.actions] == ["create_task"]
    assert a.diagnostics == []
    assert a.groups[0].span == Span(text.index("```actions"), text.index("After."))


# --- units --------------------------------------------------------------------------------------


def test_units_cover_the_text_without_gaps() -> None:
    text = PROSE + "\n".join(f"line {i}" for i in range(3 * MAX_UNIT_LINES)) + "\n" + PROSE
    units = list(scan(text, DialectSet()))
    assert units[0].start == 0 and units[-1].end == len(text)
    for u, v in itertools.pairwise(units):
        assert u.end == v.start
        assert u.lookahead >= u.end
    # long prose is cut so that an edit re-scans a paragraph, not the whole document
    assert max(text.count("\n", u.start, u.end) for u in units) <= MAX_UNIT_LINES + 1


def test_code_spans_of_short_lines_are_counted_as_the_cached_pairing_says() -> None:
    """``in_code_span`` answers short single-backtick lines by counting backticks; every
    position of random lines gets the answer of the full pairing (which a text holding
    ``\\r`` always uses)."""
    rng = random.Random(11)
    pieces = ["`", "``", "a", "<t>", "\n", " ", "```", "x" * 40, "y" * 700]
    for _ in range(400):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        fast = ScanState(text, DialectSet())
        full = ScanState(text, DialectSet())
        full.cr = True  # the per-line pairing, cached
        assert [fast.in_code_span(p) for p in range(len(text))] == [full.in_code_span(p) for p in range(len(text))], text


def test_prose_is_cut_at_some_fences_and_long_prose_at_paragraphs() -> None:
    """Not every blank line ends a unit (that cost a Python step and a unit each): short
    prose between example fences is cut at the fences whose hash says so, a long stretch of
    prose at paragraph starts; never inside a fence, and headings stay with their unit."""
    fences = [f"```python\nprint({i})\n```\n\n" for i in range(200)]
    text = "#### user\n\n" + "".join(f"Paragraph {i}.\n\n{f}" for i, f in enumerate(fences))
    units = list(scan(text, DialectSet()))
    assert 10 < len(units) < 150
    assert all(text.startswith("```python", u.start) for u in units[1:])
    assert [s for u in units for s, _ in u.separators] == [0]
    prose = "".join(f"Paragraph {i} says something about item {i * 7 % 13}.\n\n" for i in range(400))
    units = list(scan(prose, DialectSet()))
    assert 10 < len(units) < 200
    assert all(prose[u.start - 2 : u.start] == "\n\n" for u in units[1:])


def test_fence_body_dialects_declare_the_markers_the_scanner_checks() -> None:
    """The scanner offers a fence to a ``fence_bodies`` dialect only when the fence is unclosed
    or holds one of its marker lines: each such dialect must declare its markers."""
    for d in DialectSet().dialects:
        if d.fence_bodies:
            assert d.line_markers, d.name


def test_a_json_fence_skipped_by_its_text_is_still_read_when_escapes_spell_the_key() -> None:
    """``fence_body_needs`` skips the parse of a ```json example without an ``action`` key;
    a key spelled with escapes is still read (the filter lets any backslash through)."""
    plan = '```json\n{"actions": [{"\\u0061ction": "THINK", "context": "x"}], "can_extend": false, "reasoning": "r"}\n```\n'
    example = '```json\n{"name": "cfg", "actions": ["lint", "test"]}\n```\n'
    a = analyze("Plan:\n\n" + plan + "\nConfig:\n\n" + example)
    assert [(x.dialect, x.type) for x in a.actions] == [("action-plan", "THINK")]
    assert a.diagnostics == []


@pytest.mark.parametrize("seed", range(30))
def test_line_cut_points_of_lf_text_are_found_in_c_as_line_by_line(seed: int) -> None:
    """The cut points of a long paragraph (lines whose hash says so) are the same whether its
    lines are walked one by one or split and hashed in C (non-ASCII lines, empty lines, a range
    that starts or ends inside a line or right after a line break)."""
    from action_lsp.scan import _line_points

    rng = random.Random(seed)
    words = ["x = 1", "", "def f():", "    return 2", "é😀 text", "a" * 300, "}", "# note"]
    text = "".join(rng.choice(words) + "\n" for _ in range(rng.randint(1, 400)))
    for _ in range(20):
        a = rng.randint(0, len(text))
        b = rng.randint(a, len(text))
        assert _line_points(text, a, b, False) == _line_points(text, a, b)
