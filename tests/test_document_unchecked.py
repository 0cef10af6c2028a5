"""A large document opened in steps is scanned first and checked after (``scan_some(rules=False)``
then ``check_some``): while its rules have not all run, its actions and groups (what the outline
is made of) are already those of the whole analysis, and once they have, everything is."""

from __future__ import annotations

import random

import pytest
from test_document import BLOCKS, SNIPPETS  # (tests/ is on the path: no package)

from action_lsp.document import Analysis, IncrementalDocument, analyze


def _actions(analysis: Analysis) -> list[tuple[object, ...]]:
    return [
        (a.dialect, a.kind, a.type, a.path, a.title, a.span, a.name_span, a.group, a.group_label, a.in_progress)
        for a in analysis.actions
    ]


def _all(analysis: Analysis) -> tuple[object, ...]:
    diags = [(d.code, d.span, d.message, d.severity) for d in analysis.diagnostics]
    return _actions(analysis), diags, [(g.span, g.label, g.actions) for g in analysis.groups]


def _text(seed: int, crlf: bool = False) -> str:
    rng = random.Random(seed)
    text = "".join(rng.choice(BLOCKS) for _ in range(300))
    return text.replace("\n", "\r\n") if crlf else text


def _scanned_unchecked(text: str, slice_: int = 2_000) -> IncrementalDocument:
    doc = IncrementalDocument(text, defer=True)
    doc.scan_some(slice_)  # the top, checked (what the server publishes first)
    while not doc.scan_some(slice_, rules=False):
        pass
    return doc


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_actions_are_final_before_the_rules_run(seed: int, crlf: bool) -> None:
    text = _text(seed, crlf)
    whole = analyze(text)
    doc = _scanned_unchecked(text)
    assert doc.scanned and not doc.complete
    early = doc.actions_analysis()
    assert not doc.complete  # (reading the actions ran no rule)
    assert _actions(early) == _actions(whole)
    assert [(g.span, g.label, g.actions) for g in early.groups] == [(g.span, g.label, g.actions) for g in whole.groups]
    assert len(early.diagnostics) < len(whole.diagnostics)  # the rules' are still to come
    while not doc.check_some(3):
        pass
    assert doc.complete
    assert _all(doc.analysis()) == _all(whole)
    assert doc.actions_analysis() is doc.analysis()


def _published(units: object) -> list[tuple[object, ...]]:
    return sorted((d.code, d.span.start, d.span.end, d.message) for unit, _ in units for d in unit.diagnostics)  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(3))
def test_what_is_published_is_checked(seed: int) -> None:
    """The diagnostics published while the scan goes on (the top, or after a keystroke) and at
    its end are those of units whose rules have run, as when every slice is checked."""
    text = _text(seed)
    doc, ref = IncrementalDocument(text, defer=True), IncrementalDocument(text, defer=True)
    doc.scan_some(2_000)
    ref.scan_some(2_000)
    doc.scan_some(len(text) // 3, rules=False)
    ref.scan_some(len(text) // 3)
    assert not doc.scanned
    assert _published(doc.scanned_units_with_diagnostics()) == _published(ref.scanned_units_with_diagnostics())
    assert "path-traversal" in {d[0] for d in _published(ref.scanned_units_with_diagnostics())}  # (a rule)
    doc.scan_some(1 << 62, rules=False)
    doc.check_some(5)
    assert not doc.complete
    assert _published(doc.units_with_diagnostics()) == _published(ref.units_with_diagnostics())
    assert doc.complete
    assert _all(doc.analysis()) == _all(analyze(text))


@pytest.mark.parametrize("seed", range(6))
def test_edits_while_the_rules_wait(seed: int) -> None:
    """Typing while the scan goes on (the rules of the slices scanned wait) or while the
    rules run: the same analysis as the edited text's."""
    rng = random.Random(seed)
    doc = IncrementalDocument(_text(seed), defer=True)
    doc.scan_some(2_000)
    for _ in range(8):
        if not doc.scanned:
            doc.scan_some(rng.choice([500, 3_000, 20_000]), rules=False)
        else:
            doc.check_some(rng.choice([1, 4, 20]))
        at = rng.randrange(len(doc.text) + 1)
        end = min(len(doc.text), at + rng.choice([0, 0, 1, 5]))
        doc.edit(at, end, rng.choice(SNIPPETS))
    assert _actions(doc.actions_analysis()) == _actions(analyze(doc.text))
    assert _all(doc.analysis()) == _all(analyze(doc.text))
