"""Chat buffers still being written: an unclosed construct reaching the end of the text is
marked *in progress* by the shared scanner (every dialect), incrementally as in a full scan."""

from __future__ import annotations

import pytest

from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import is_in_progress

# One streamed answer per dialect family, cut into chunks the way a chat buffer grows.
STREAMS = {
    "dyad": 'Sure.\n\n<dyad-write path="src/a.ts" description="x">\nexport const a = 1;\nexport const b = 2;\n</dyad-write>\n',
    "cline": "I'll write it.\n\n<write_to_file>\n<path>a.py</path>\n<content>\nprint(1)\nprint(2)\n</content>\n</write_to_file>\n",
    "bolt": '<boltArtifact id="x" title="y">\n<boltAction type="file" filePath="a.js">\nconsole.log(1)\n</boltAction>\n</boltArtifact>\n',
    "actions-json": 'Plan:\n\n```actions\n{"actions": [{"type": "create_task", "content": "write tests"}]}\n```\n',
    "aether": '<aether-write path="a.py" language="python">\nprint("hi")\n</aether-write>\n',
}


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _unclosed(diags) -> list:
    return [d for d in diags if d.code in ("unclosed-tag", "unclosed-block")]


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_growing_end_is_in_progress_and_incremental_agrees(name: str) -> None:
    text = STREAMS[name]
    doc = IncrementalDocument("")
    seen_in_progress = False
    for chunk in _chunks(text, 7):
        doc.edit(len(doc.text), len(doc.text), chunk)
        full = analyze(doc.text)
        inc = doc.analysis()
        key = lambda ds: [(d.code, d.span, is_in_progress(d)) for d in ds]  # noqa: E731
        assert key(inc.diagnostics) == key(full.diagnostics), doc.text
        assert [(a.type, a.in_progress) for a in inc.actions] == [(a.type, a.in_progress) for a in full.actions]
        # Whatever is unclosed while the answer is cut short sits at the end: in progress.
        for d in _unclosed(full.diagnostics):
            assert is_in_progress(d), (doc.text, d)
            seen_in_progress = True
    assert seen_in_progress
    final = analyze(text)
    assert not _unclosed(final.diagnostics)
    assert final.actions and not any(a.in_progress for a in final.actions)


def test_unclosed_before_more_text_is_not_in_progress() -> None:
    text = '<dyad-write path="a.ts">\nconst a = 1;\n<dyad-write path="b.ts">x</dyad-write>\n'
    a = analyze(text)
    (d,) = _unclosed(a.diagnostics)
    assert not is_in_progress(d)
    assert not any(x.in_progress for x in a.actions)


def test_what_the_cut_causes_is_marked_too() -> None:
    a = analyze("<replace_in_file>\n<path>a.py</path>\n<diff>\n------- SEARCH\nold\n")
    assert a.diagnostics and all(is_in_progress(d) for d in a.diagnostics)
    assert [x.in_progress for x in a.actions] == [True]


def test_text_after_an_in_progress_action_ends_it() -> None:
    doc = IncrementalDocument("<write_to_file>\n<path>a.py</path>\n<content>\nx\n")
    assert all(is_in_progress(d) for d in _unclosed(doc.analysis().diagnostics))
    doc.edit(len(doc.text), len(doc.text), "</content>\n</write_to_file>\n\n<dyad-write path='b'>\n")
    diags = doc.analysis().diagnostics
    assert not any(d.code == "unclosed-tag" and d.span.start < 20 for d in diags)
    assert doc.analysis().actions[0].in_progress is False
    assert [is_in_progress(d) for d in _unclosed(diags)] == [True]


def test_grace_setting_is_checked() -> None:
    from action_lsp.server.config import Settings

    assert Settings.from_dict({"streamingGraceSeconds": 0.5}).streaming_grace == 0.5
    problems: list[str] = []
    assert Settings.from_dict({"streamingGraceSeconds": "soon"}, problems).streaming_grace == 3.0
    assert problems == ["streamingGraceSeconds: expected a number of seconds (0 or more)"]
