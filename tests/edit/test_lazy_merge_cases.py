"""The lazy-merge cases of tests/fixtures/lazy_merge/ (chat answers in Cursor's, Copilot
Chat's and ChatGPT's conventions, across languages): each is merged into the file as the
careful person of the case would write it, or asked about -- never written otherwise.
``bench/bench_lazy_merge.py`` reports the same cases with timings."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from action_lsp.edit.lazymerge import merge_snippet

_HERE = Path(__file__).parent.parent / "fixtures" / "lazy_merge"
_spec = importlib.util.spec_from_file_location("lazy_cases", _HERE / "cases.py")
assert _spec is not None and _spec.loader is not None
cases = importlib.util.module_from_spec(_spec)
sys.modules["lazy_cases"] = cases  # (dataclasses look their module up)
_spec.loader.exec_module(cases)
CASES = cases.all_cases()


def test_the_cases_cover_what_the_bench_promises() -> None:
    from action_lsp.syntax import language_for

    langs = {lang.name for c in CASES if (lang := language_for(c.path)) is not None}
    assert len(CASES) >= 40 and len(langs) >= 8
    assert {c.convention for c in CASES} == {"cursor", "copilot", "chatgpt"}
    assert {c.shape for c in CASES} == {"whole", "lazy", "fragment"}
    assert any(c.expect == "ask" for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_a_chat_answer_is_merged_as_a_careful_person_would_or_asked(case) -> None:  # type: ignore[no-untyped-def]
    m = merge_snippet(case.before, case.code, case.path)
    assert m.shape == case.shape
    if case.expect == "ask":
        assert not m.certain and m.problems + m.fatal
    else:
        assert m.certain, m.problems + m.fatal
        assert m.text == case.after
