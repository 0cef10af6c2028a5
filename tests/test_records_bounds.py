"""Sessions read as records (JSON Lines): a first line that cannot be read is no reason to read
the whole file as prose, and blank lines cost no memory each."""

from __future__ import annotations

import json
import random
import tracemalloc

import pytest

from action_lsp import records
from action_lsp.document import IncrementalDocument, analyze


def _write(k: int) -> str:
    return json.dumps({
        "type": "assistant", "sessionId": "s", "uuid": f"u{k}", "cwd": "/w",
        "message": {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{k}", "name": "Write", "input": {"file_path": f"/w/f{k}.py", "content": "x\n"}},
        ]},
    })


def _user(**extra: object) -> str:
    return json.dumps({"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user", "content": "hi"}, **extra})


UNREADABLE = {
    # over the 4 Mi characters the sniffing reads of a first line
    "longer than the sniff limit": _user(note="x" * (records.SNIFF_LIMIT + 10)),
    # json.loads recurses: nested deeper than its limit
    "nested 5,000 deep": '{"type": "user", "sessionId": "s", "a": ' + "[" * 5000 + "]" * 5000 + "}",
    # Python refuses to convert an integer of more than 4,300 digits
    "an integer of 5,000 digits": '{"type": "user", "sessionId": "s", "n": ' + "1" * 5000 + "}",
    "broken JSON": '{"type": "user", "sessionId": "s", oops',
}


@pytest.mark.parametrize("name", sorted(UNREADABLE))
def test_a_first_record_that_cannot_be_sniffed_does_not_hide_the_session(name: str) -> None:
    """The first record decided how the whole file is read: one that json.loads refused (or
    too long to sniff) made the session prose, and ``check``/``parse`` said "No problems" /
    "no actions found". The next record decides; the unreadable one is read like any other
    line (a ``bad-json`` when it cannot be decoded)."""
    text = UNREADABLE[name] + "\n" + _write(1) + "\n" + _write(2) + "\n"
    analysis = analyze(text)
    assert [a.type for a in analysis.actions] == ["Write", "Write"]
    first_line = range(0, len(UNREADABLE[name]) + 1)
    problems = [d for d in analysis.diagnostics if d.span.start in first_line]
    if name in ("an integer of 5,000 digits", "broken JSON"):
        assert [d.code for d in problems] == ["bad-json"], problems
    else:  # read by the span-keeping parser (which neither recurses nor has a sniff limit)
        assert problems == []


def test_prose_that_starts_with_a_brace_line_is_still_prose() -> None:
    text = "{ not json at all\n# Transcript\n" + _write(1) + "\n"
    assert records.records_owner(text, _dialects()) is None


def _dialects():  # type: ignore[no-untyped-def]
    from action_lsp.dialects import DialectSet

    return DialectSet.named(None)


def test_only_lines_that_open_an_object_are_looked_past() -> None:
    ds = _dialects()
    assert records.records_owner("# notes\n" + _write(1) + "\n", ds) is None
    assert records.records_owner('{"a": oops\n' + _write(1) + "\n", ds) is not None
    many = "".join('{"a": oops\n' for _ in range(records.SNIFF_LINES))
    assert records.records_owner(many + _write(1) + "\n", ds) is None  # a bounded look


def test_an_edit_to_a_looked_past_line_can_change_how_the_file_is_read() -> None:
    text = '{"a": oops\n' + _write(1) + "\n"
    assert records.sniff_extent(text) > text.index(_write(1))
    doc = IncrementalDocument(text)
    assert len(doc.analysis().actions) == 1
    doc.edit(0, 0, "# a title\n")  # now prose first: not a session
    assert [a.type for a in doc.analysis().actions] == [a.type for a in analyze(doc.text).actions]


def test_blank_lines_are_one_unit_a_run() -> None:
    """Each blank line was a unit of its own: 630 bytes a line (2 MB of blank lines peaked at
    1.27 GB in ``parse``). A run of blank lines is one unit."""
    text = _write(1) + "\n" + "\n" * 50_000 + " \t\n\r\n\r" * 1000 + _write(2) + "\n" + "\n" * 50_000
    units = list(records.scan_records(text, _dialects(), records.records_owner(text, _dialects())))
    assert len(units) <= 5
    assert units[-1].end == len(text)
    assert [a.type for a in analyze(text).actions] == ["Write", "Write"]


def test_analysis_memory_does_not_grow_with_blank_lines() -> None:
    def peak(blank: int) -> int:
        text = _write(1) + "\n" + "\n" * blank + _write(2) + "\n"
        tracemalloc.start()
        try:
            analyze(text)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, big = peak(10_000), peak(200_000)
    # the text itself is one byte a blank line; a unit each cost hundreds
    assert big - small < 4 * 190_000, f"{(big - small) / 190_000:.0f} bytes a blank line"


@pytest.mark.parametrize("seed", range(6))
def test_edits_around_blank_runs_agree_with_a_full_analysis(seed: int) -> None:
    rng = random.Random(seed)
    lines = [_write(k) if k % 3 else "" for k in range(12)]
    doc = IncrementalDocument("\n".join(lines) + "\n\n\n")
    pieces = ["\n", "\n\n", " ", "\r", "\r\n", "", "x", _write(99) + "\n", "}"]
    for step in range(80):
        text = doc.text
        start = rng.randrange(len(text) + 1)
        end = min(len(text), start + rng.choice([0, 0, 1, 2, 40]))
        doc.edit(start, end, rng.choice(pieces))
        if step % 4 == 0 or step > 75:
            got = doc.analysis()
            want = analyze(doc.text)
            assert [(a.type, a.span) for a in got.actions] == [(a.type, a.span) for a in want.actions], step
            assert sorted((d.code, d.span.start, d.span.end) for d in got.diagnostics) == sorted(
                (d.code, d.span.start, d.span.end) for d in want.diagnostics
            ), step
