"""The incremental document must always agree with a full analysis of the same text."""

from __future__ import annotations

import random

import pytest

from action_lsp import document
from action_lsp.document import IncrementalDocument, analyze

BLOCKS = [
    "Some prose about the change.\n\n",
    '```actions\n{"actions": [{"type": "create_task", "content": "a"}, {"type": "update_task", "task_id": "3"}]}\n```\n\n',
    '```iteration\n{"iteration": 1, "next_actions": [{"type": "execute_code", "code": "print(1"}]}\n```\n',
    "```python\nx = {'type': 'create_task'}\n```\n\n",
    '```json\n{"actions": [{"action": "THINK", "context": "a"}, {"action": "THINK", "context": "b"}, {"action": "THINK", "context": "c"}], "can_extend": false, "reasoning": "r"}\n```\n',
    "# A heading\n\n",
    'In prose: {"type": "create_memory", "content": "x"} oops.\n\n',
    "```actions\n{\"actions\": [{\"type\": \"create_goal\", \"content\": \"never closed\"}]}\n",
    "<create_file>\n<path>src/a.py</path>\n<content>\ndef f(:\n    pass\n</content>\n</create_file>\n\n",
    "<modify_file>\n<path>../x.py</path>\n<search>\na\n</search>\n<replace>\nb\n</replace>\n</modify_file>\n",
    '<aether-write path="w.py" language="python">\nprint(1)\n</aether-write>\n\n',
    "<create_file>\n<path>unclosed.txt</path>\n<content>\nhi\n",
    "line\n" * 70,
    "~~~\n<execute_command><command>rm -rf /</command></execute_command>\n~~~\n",
]
SNIPPETS = ["\n", "\n\n", "```", "```actions\n", "{", "}", '"', ",", "<", "</create_file>", "x", "<think>", "#", " ", "é😀"]


def _signature(analysis):  # type: ignore[no-untyped-def]
    actions = [(a.dialect, a.type, a.span, sorted((k, f.span) for k, f in a.fields.items())) for a in analysis.actions]
    diags = sorted((d.code, d.span.start, d.span.end, d.message) for d in analysis.diagnostics)
    groups = [(g.span, g.label, g.actions) for g in analysis.groups]
    return actions, diags, groups


@pytest.mark.parametrize("window", [1 << 14, 64])
def test_random_edits_match_full_analysis(window: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A small re-scan window forces the grow-and-retry path (unclosed tags look to the end)."""
    monkeypatch.setattr(document, "WINDOW", window)
    rng = random.Random(1234)
    for _ in range(60):
        text = "".join(rng.choice(BLOCKS) for _ in range(rng.randint(3, 12)))
        doc = IncrementalDocument(text)
        for _ in range(25):
            n = len(doc.text)
            start = rng.randint(0, n)
            end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
            new = rng.choice(SNIPPETS) if rng.random() < 0.8 else ""
            doc.edit(start, end, new)
            assert doc.text == doc.lines.text
            assert _signature(doc.analysis()) == _signature(analyze(doc.text)), (start, end, new)


def test_a_keystroke_rescans_a_paragraph_not_the_document() -> None:
    paragraph = "Prose line one.\nProse line two.\n\n" + BLOCKS[1]
    text = paragraph * 2000  # ~ 300 KB
    doc = IncrementalDocument(text)
    middle = len(text) // 2
    doc.edit(middle, middle, "x")
    assert doc.rescanned < 2000
    assert _signature(doc.analysis()) == _signature(analyze(doc.text))


def test_opening_a_fence_rescans_to_the_end_and_closing_it_restores() -> None:
    text = "intro\n\n" + BLOCKS[1] * 20
    doc = IncrementalDocument(text)
    before = len(doc.analysis().actions)
    doc.edit(6, 6, "````\n")  # an unclosed 4-backtick fence swallows everything after it
    assert doc.analysis().actions == []
    doc.edit(6, 11, "")
    assert len(doc.analysis().actions) == before


def test_units_with_diagnostics_are_exactly_the_flagged_units() -> None:
    rng = random.Random(5)
    text = "".join(rng.choice(BLOCKS) for _ in range(40))
    doc = IncrementalDocument(text)
    for _ in range(40):
        at = rng.randint(0, len(doc.lines))
        doc.edit(at, min(len(doc.lines), at + rng.randint(0, 3)), rng.choice(SNIPPETS))
        flagged = [(id(u), s) for u, s in doc.units_with_diagnostics()]
        assert flagged == [(id(u), s) for u, s in doc.units() if u.diagnostics]


ADVERSARIAL = [*SNIPPETS, "</modify_file>", "<modify_file>", "<aether-write path='x'>", "</think>", "`", "``", "</create_file", "_file>"]


@pytest.mark.parametrize("seed", range(0, 600, 8))
def test_typing_tags_and_fences_half_way_matches_full_analysis(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Half-typed closing tags, nested openers and fences: the states a user types through."""
    rng = random.Random(seed)
    monkeypatch.setattr(document, "WINDOW", rng.choice([64, 256, 1 << 14]))
    doc = IncrementalDocument("".join(rng.choice(BLOCKS) for _ in range(rng.randint(3, 15))))
    for _ in range(30):
        n = len(doc.text)
        start = rng.randint(0, n)
        end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
        doc.edit(start, end, rng.choice(ADVERSARIAL) if rng.random() < 0.85 else "")
        assert _signature(doc.analysis()) == _signature(analyze(doc.text)), (start, end)


def test_deferred_scan_in_slices_equals_a_full_analysis() -> None:
    """A document opened with ``defer`` scans slice by slice; what it has scanned so far is a
    prefix of the full result, and an edit or a question about the whole finishes the scan."""
    part = (
        "# user\n\n<create_file>\n<path>../a.py</path>\n<content>\nx = (\n</content>\n</create_file>\n\n"
        + "Prose.\n" * 40
        + '\n```actions\n{"actions": [{"type": "creat_task", "content": "x"}]}\n```\n\n'
    )
    text = part * 60
    full = analyze(text)
    doc = IncrementalDocument(text, defer=True)
    assert not doc.complete and doc.scanned_to == 0
    steps = 0
    while not doc.scan_some(2000):
        steps += 1
        so_far = [(d.code, d.span) for u, _ in doc.scanned_units_with_diagnostics() for d in u.diagnostics]
        assert all(span.end <= doc.scanned_to for _, span in so_far)
    assert steps > 5
    got = doc.analysis()
    assert [(d.code, d.span) for d in got.diagnostics] == [(d.code, d.span) for d in full.diagnostics]
    edited = IncrementalDocument(text, defer=True)
    edited.scan_some(3000)
    edited.edit(10, 10, "x")
    want = analyze(text[:10] + "x" + text[10:])
    assert [(d.code, d.span) for d in edited.analysis().diagnostics] == [(d.code, d.span) for d in want.diagnostics]


PROSE_BLOCKS = [
    "Tags like `<create_file>` inside backticks are just text, and so is ``<think>``.\n\n",
    "A long paragraph " + "that goes on " * 30 + "and ends.\n\n",
    "```python\nprint('example')\n\ndef f():\n    return {\"type\": \"create_task\"}\n```\n\n",
    '```json\n{\n  "name": "cfg",\n  "actions": ["lint", "test"]\n}\n```\n\n',
    "```bash\necho '<create_file><path>x</path></create_file>'\n```\n\n",
    "#### assistant\n\n",
    "User: what about this?\n\n",
    "a hard-wrapped line of prose\n" * 40 + "\n",
    '```actions\n{"actions": [{"type": "create_task", "content": "a"}]}\n```\n\n',
    "<create_file>\n<path>src/b.py</path>\n<content>\nx = 1\n</content>\n</create_file>\n\n",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_edits_of_prose_match_full_analysis(seed: int) -> None:
    """Prose is cut at some example fences and, when long, at some paragraphs (content-defined
    cut points, not every blank line): edits that move, make or break those stay exact."""
    rng = random.Random(seed)
    text = "".join(rng.choice(PROSE_BLOCKS) for _ in range(80))
    doc = IncrementalDocument(text)
    for _ in range(40):
        n = len(doc.text)
        start = rng.randint(0, n)
        end = min(n, start + rng.choice([0, 0, 1, 3, 40]))
        new = rng.choice([*SNIPPETS, "```python\n", "\n\n", "`", "#### user\n"]) if rng.random() < 0.85 else ""
        doc.edit(start, end, new)
        assert _signature(doc.analysis()) == _signature(analyze(doc.text)), (start, end, new)


@pytest.mark.parametrize("seed", range(0, 240, 6))
def test_edits_while_a_deferred_scan_runs_match_full_analysis(seed: int) -> None:
    """Typing into a large document still being opened in steps does not wait for the scan:
    the units before the edit stay, the scan goes on through the new text, and the result is
    what a full analysis of the final text gives. The edits fall before, inside and after
    the part scanned so far, and on the first line (which decides how a document is read)."""
    rng = random.Random(seed)
    doc = IncrementalDocument("".join(rng.choice(BLOCKS) for _ in range(rng.randint(5, 25))), defer=True)
    for _ in range(12):
        n = len(doc.text)
        start = rng.choice([0, rng.randint(0, n), rng.randint(doc.scanned_to, n), max(0, doc.scanned_to - 3)])
        end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
        doc.edit(start, end, rng.choice(ADVERSARIAL) if rng.random() < 0.85 else "")
        assert doc.text == doc.lines.text
        so_far = [(d.code, d.span) for u, _ in doc.scanned_units_with_diagnostics() for d in u.diagnostics]
        assert all(span.end <= doc.scanned_to for _, span in so_far)
        if doc.complete:
            break
        doc.scan_some(rng.choice([1, 50, 400]))
    assert _signature(doc.analysis()) == _signature(analyze(doc.text))


def test_an_edit_at_the_top_of_a_deferred_session_rereads_it_as_records() -> None:
    """A JSON Lines session is read as records because of its first line: an edit there while
    the scan runs starts the scan over, in the new reading."""
    line = '{"type": "assistant", "message": {"content": [{"type": "tool_use", "id": "t", "name": "Write", "input": {"file_path": "/p/a.py", "content": "x = (\\n"}}]}}\n'
    text = line * 300
    doc = IncrementalDocument(text, defer=True)
    doc.scan_some(5000)
    doc.edit(0, 1, "#")  # no longer a record
    doc.scan_some(5000)
    doc.edit(0, 1, "{")  # a record again
    assert _signature(doc.analysis()) == _signature(analyze(doc.text))
    assert _signature(doc.analysis()) == _signature(analyze(text))


def test_an_open_document_keeps_one_copy_of_each_repeated_name_and_short_value() -> None:
    """A transcript names the same few keys, tags, types and paths thousands of times; each
    was a new string kept by every action (a tenth of what a dense open document held)."""
    blocks = []
    for i in range(40):
        blocks.append('```actions\n[{"type": "create_file", "path": "src/app.py", "content": "x = ' + str(i) + '\\n"}]\n```\n\n')
        blocks.append(f"<create_file>\n<path>src/app.py</path>\n<content>\ny = {i}\n</content>\n</create_file>\n\n")
        blocks.append(f'<aether-write path="src/app.py">\nz = {i}\n</aether-write>\n\n')
    doc = IncrementalDocument("".join(blocks))
    actions = doc.analysis().actions
    assert len(actions) == 120
    names = [f.name for a in actions for f in a.fields.values()] + [k for a in actions for k in a.fields]
    paths = [a.fields["path"].value for a in actions]
    for kept in (names, paths, [a.type for a in actions], [a.group_label for a in actions if a.group_label]):
        # (a copy per dialect at most, not one per action: each dialect repeats them 40 times)
        assert len({id(s) for s in kept}) <= 3 * len(set(kept)), kept[:5]
    assert len({id(a.fields["content"].value) for a in actions}) == 120  # (each content is its own)


def test_assembling_the_analysis_after_an_edit_runs_no_collection() -> None:
    """After an edit near the top, ``analysis()`` copies every later action, shifted: with the
    collector on, its collections walked the document's whole heap again and again (a 20 MB
    transcript: 1.8 s, 0.3 s without them)."""
    import gc

    block = '```actions\n[{"type": "create_file", "path": "src/a.py", "content": "x = 1\\n"}]\n```\n\n'
    doc = IncrementalDocument("# user\n\n" + block * 3000)
    first = doc.analysis().actions[0].span.start
    doc.edit(2, 2, "x")
    runs: list[str] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(f"gen{info['generation']}")

    gc.callbacks.append(seen)
    try:
        actions = doc.analysis().actions
    finally:
        gc.callbacks.remove(seen)
    assert len(actions) == 3000 and actions[0].span.start == first + 1
    assert runs == []


def test_shared_strings_are_not_kept_for_good() -> None:
    """Names and short values are shared within what is open, not kept forever: on Python 3.12
    before 3.12.6 ``sys.intern`` made strings immortal, so a server reading transcripts for days
    would have kept every distinct key, path and type it ever saw."""
    import gc
    import weakref

    from action_lsp import shared

    class Probe(str):  # (a str subclass can be watched; it is shared as any other string)
        pass

    seen = Probe(f"src/only-here-{id(object())}.py")
    gone = weakref.ref(seen)
    assert shared.share(seen) is seen and shared.share(str(seen)) is seen
    for i in range(shared.LIMIT):
        shared.share(f"value {i}")
    del seen
    gc.collect()
    assert gone() is None  # the table started again past its LIMIT: nothing kept for good
    assert len(shared.table) <= shared.LIMIT


def test_a_document_opened_in_steps_runs_no_collection_between_its_slices() -> None:
    """A large document opened in steps (``defer``: the server scans it a slice at a time,
    other requests answered in between) keeps everything each slice makes; a young collection
    after each slice walked it again, and every tenth one all the slices' before it (a 4 MB
    history: 30 collections, 10-13 ms on the way to its outline). The objects a slice made go
    straight to the oldest generation; garbage cycles are still collected by a full collection."""
    import gc
    import weakref

    block = '```actions\n[{"type": "create_file", "path": "src/a.py", "content": "x = 1\\n"}]\n```\n\n'
    doc = IncrementalDocument("# user\n\n" + block * 3000, defer=True)
    runs: list[str] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            runs.append(f"gen{info['generation']}")

    class Cycle:
        me: object

    gc.collect()
    gc.callbacks.append(seen)
    try:
        cycle = Cycle()
        cycle.me = cycle
        gone = weakref.ref(cycle)
        del cycle
        done = doc.scan_some(1 << 12)
        while not done:
            done = doc.scan_some(1 << 12, rules=False)
        while not doc.check_some(64):
            pass
    finally:
        gc.callbacks.remove(seen)
    assert runs == []
    assert len(doc.analysis().actions) == 3000
    gc.collect()
    assert gone() is None
