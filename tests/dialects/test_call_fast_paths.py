"""The cheaper ways a tool call is read give what the plain ways give, value for value.

A call-dense session (a written file every 1.5 KB) pays the per-call work once per call, so
the readers of a call's arguments take shortcuts: SEARCH/REPLACE blocks are parsed by visiting
only the lines that can be markers, a field read from a decoded value takes its range from its
composed map's ends, an input's members are looked up by key once, and a patch's lines are
joined in one pass. Each is compared here
with the plain way it replaces, on generated input: blocks and malformed markers of every
style, escapes of every kind, duplicate keys.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp import model
from action_lsp.dialects import hunks, search_replace
from action_lsp.dialects.hunks import Line
from action_lsp.dialects.search_replace import CLINE, DYAD, ROO, parse_blocks
from action_lsp.dialects.tool_use import Input, decode_arguments, map_field
from action_lsp.jsonscan import parse_json
from action_lsp.model import Field, SourceMap, Span

_LINES = st.sampled_from([
    "<<<<<<< SEARCH", "------- SEARCH", "=======", ">>>>>>> REPLACE", "+++++++ REPLACE", "<<<<< SEARCH",
    "--- SEARCH", "-------", "======", "========", "=", "==", ">>>>>>> REPLAEC", "<<<<<<< SERACH",
    "+++ REPLACE", "\\=======", ":start_line: 12", ":end_line: 3", "x = 1", "", " ", "- item", "+ added",
    "-- note", "<tag>", "> quote", "=> arrow", "++i;", "a\r", "=======\r", "------- SEARCH\r",
    "+++++++ REPLACE  ", "<<<<<<< SEARCH>", "é 🌍",
])


def _every_line(text: str, start: int, end: int) -> Iterator[int]:
    """The plain visit: every line start of ``text[start:end]``."""
    pos = start
    while pos < end:
        yield pos
        nl = text.find("\n", pos, end)
        pos = end if nl < 0 else nl + 1


def _blocks_key(found: search_replace.Blocks) -> Any:
    return ([(b.search, b.replace, b.span, b.start_line, b.hint_span) for b in found.blocks],
            found.diagnostics, found.markers)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINES, max_size=14), eol=st.booleans(), cut=st.integers(0, 3),
       style=st.sampled_from([CLINE, ROO, DYAD]))
def test_blocks_are_read_from_the_marker_lines_alone_as_from_every_line(
    lines: list[str], eol: bool, cut: int, style: search_replace.MarkerStyle, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "\n".join(lines) + ("\n" if eol else "")
    text = "ab\n" + body + "\nzz"  # (parsed from an offset to one before the end, as in a document)
    start, end = 3 - min(cut, 1), 3 + len(body) - (cut > 1)
    fast = _blocks_key(parse_blocks(text, start, end, style))
    with monkeypatch.context() as patched:  # (undone before the next example)
        patched.setattr(search_replace, "_marker_lines", _every_line)
        plain = _blocks_key(parse_blocks(text, start, end, style))
    assert fast == plain


_PIECES = st.sampled_from(["a", "x = 1", "\n", "\t", '"', "\\", "/", "é", "🌍", "\r\n", "\u2028", "\x08"])
_BODY = st.lists(_PIECES, max_size=10).map("".join)


def _plain_map_field(f: Field, outer: SourceMap) -> Field:
    """:func:`map_field` as it was: every range mapped through ``outer`` one by one."""
    smap = outer.compose(f.source_map) if f.source_map is not None else None
    span = outer.span(f.span.start, f.span.end)
    key = outer.span(f.key_span.start, f.key_span.end) if f.key_span is not None else None
    return Field(f.name, f.value, span, key, smap)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(search=_BODY, replace=_BODY, before=_BODY, ascii_=st.booleans(), twice=st.booleans(), lazy=st.booleans())
def test_a_block_s_range_through_the_call_s_escapes_is_its_map_s_ends(
    search: str, replace: str, before: str, ascii_: bool, twice: bool, lazy: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Cline UI message: a diff inside tool JSON inside a JSON string (``twice``), or a diff
    argument written once: each block's fields mapped to the document, cheaply and plainly."""
    monkeypatch.setattr(model, "LAZY", lazy)
    diff = f"{before}\n------- SEARCH\n{search}\n=======\n{replace}\n+++++++ REPLACE\n"
    tool = json.dumps({"tool": "editedExistingFile", "path": "a.py", "diff": diff}, ensure_ascii=ascii_)
    text = json.dumps({"say": "tool", "text": tool}, ensure_ascii=ascii_) if twice else tool
    doc = parse_json(text).node
    assert doc is not None
    if twice:
        message = doc.get("text")
        assert message is not None
        inp, _ = decode_arguments(message.value, "tool")
        assert inp is not None
    else:
        inp = Input(doc)
    found = inp.member("diff")
    assert found is not None
    diff_field = inp.as_field("diff", found[1], found[2])
    assert diff_field.source_map is not None
    for b in parse_blocks(diff, 0, len(diff), CLINE).blocks:
        for f in (b.search, b.replace):
            fast = map_field(f, diff_field.source_map)
            plain = _plain_map_field(f, diff_field.source_map)
            assert (fast.span, fast.key_span, fast.value) == (plain.span, plain.key_span, plain.value)
            assert fast.source_map == plain.source_map


@given(keys=st.lists(st.sampled_from(["path", "file_path", "content", "diff", "x"]), max_size=8),
       names=st.lists(st.sampled_from(["path", "file_path", "content", "diff", "y"]), min_size=1, max_size=3))
def test_an_input_s_member_is_the_last_of_its_name_as_json_get_finds_it(keys: list[str], names: list[str]) -> None:
    """Duplicate keys: the last one counts (as ``json.loads`` keeps it), looked up by key."""
    text = "{" + ", ".join(f'"{k}": "{k}{n}"' for n, k in enumerate(keys)) + "}"
    node = parse_json(text).node
    assert node is not None
    inp = Input(node)
    plain = next(((n, m.value) for n in names if (m := node.get(n)) is not None), None)
    found = inp.member(*names)
    assert (found[:2] if found is not None else None) == plain


def test_a_tool_json_read_twice_is_parsed_once_and_only_for_that_string(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cline's UI log: a message's tool JSON is read for the tool's name, then for its input,
    from one parse; any other string read next is parsed afresh, and the kept parse is let go."""
    from action_lsp.dialects import tool_use

    parsed: list[str] = []
    real = tool_use.parse_json
    monkeypatch.setattr(tool_use, "parse_json", lambda v, *a: parsed.append(v) or real(v, *a))
    strict = tool_use.strict_tree  # (strict JSON is read through the tree made as read)
    monkeypatch.setattr(tool_use, "strict_tree", lambda v: parsed.append(v) or strict(v))
    one = json.dumps({"tool": "newFileCreated", "path": "a.py", "content": "x"})
    other = "".join(one)  # (an equal string, another object: not what was kept)
    assert other == one and other is not one
    first = tool_use.parse_arguments(one, keep=True)
    assert tool_use.parse_arguments(one) is first and parsed == [one]
    assert tool_use.parse_arguments(one) is not first  # (kept for one read only)
    tool_use.parse_arguments(one, keep=True)
    again = tool_use.parse_arguments(other)
    assert again.node is not None and again.node.value == first.node.value  # type: ignore[union-attr]
    assert len(parsed) == 4 and tool_use._kept_parse is None


def _plain_joined(text: str, name: str, lines: list[tuple[Line, bool]], skip: int, span: Span,
                  outer: SourceMap) -> Field:
    """:func:`hunks.joined` through ``outer`` as it was: the value, then each line's cuts."""
    from array import array

    parts: list[str] = []
    for line, eol in lines:
        parts.append(text[min(line.start + skip, line.end) : line.end])
        if eol:
            parts.append("\n")
    value = "".join(parts)
    span = outer.span(span.start, span.end)
    if not lines:
        return Field(name, value, span, None, SourceMap(span.start, 0, span.start))
    last, eol = lines[-1]
    base = outer.to_source(min(lines[0][0].start + skip, lines[0][0].end))
    source_end = outer.to_source(last.next if eol else last.end)
    cuts = array("q")
    for line, eol in lines:
        cuts.extend((min(line.start + skip, line.end), line.end, 1 if eol else 0))
    made = model.Breaks.from_arrays(*hunks._joined_breaks(cuts, outer))
    return Field(name, value, span, None, SourceMap(base, len(value), source_end, made))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.lists(_BODY, max_size=8), flags=st.lists(st.booleans(), min_size=8, max_size=8),
       skip=st.integers(0, 2), ascii_=st.booleans(), lazy=st.booleans())
def test_a_patch_s_lines_joined_through_its_escapes_are_what_they_were(
    body: list[str], flags: list[bool], skip: int, ascii_: bool, lazy: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Codex patch inside a JSON string: its `+` lines joined into a file's content (a lone
    line without its break, a line shorter than its prefix), mapped through the escapes."""
    monkeypatch.setattr(model, "LAZY", lazy)
    patch = "\n".join("+" + b.replace("\n", " ").replace("\r", " ") for b in body)
    node = parse_json(json.dumps(patch, ensure_ascii=ascii_)).node
    assert node is not None and node.source_map is not None
    lines = [(ln, flags[k]) for k, ln in enumerate(hunks.lines_of(patch, 0, len(patch)))]
    span = Span(0, len(patch))
    fast = hunks.joined(patch, "content", lines, skip, span, node.source_map)
    assert fast == _plain_joined(patch, "content", lines, skip, span, node.source_map)


@settings(max_examples=200, deadline=None)
@given(patch=_BODY, more=_BODY, cut=st.tuples(st.integers(0, 30), st.integers(0, 30)), ascii_=st.booleans())
def test_a_patch_s_plain_field_through_a_composed_map_is_made_when_read(
    patch: str, more: str, cut: tuple[int, int], ascii_: bool
) -> None:
    """A path or a diff of a Codex patch inside a call's ``arguments`` (a JSON string inside a
    JSON string): its field's breaks are made when first read, and it maps every index as the
    field made at once does."""
    value = patch + more
    arguments = json.dumps({"patch": value}, ensure_ascii=ascii_)
    text = json.dumps({"arguments": arguments}, ensure_ascii=ascii_)
    doc = parse_json(text).node
    assert doc is not None
    message = doc.get("arguments")
    assert message is not None
    inp, _ = decode_arguments(message.value, "call")
    assert inp is not None
    found = inp.member("patch")
    assert found is not None
    outer = inp.as_field("patch", found[1], found[2]).source_map
    assert outer is not None
    start = min(cut[0], len(value))
    end = min(len(value), start + cut[1])
    lazy = hunks.plain(value, "path", start, end, outer)
    assert lazy.source_map is not None
    mapped = [lazy.source_map.to_source(i) for i in range(end - start + 1)]  # (before anything is made)
    model.LAZY = False
    try:
        at_once = hunks.plain(value, "path", start, end, outer)
    finally:
        model.LAZY = True
    assert at_once.source_map is not None
    assert mapped == [at_once.source_map.to_source(i) for i in range(end - start + 1)]
    assert lazy == at_once
