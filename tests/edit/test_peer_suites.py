"""The peers' own search/replace suites (Roo Code, Cline, Aider, Codex), converted to xml-tags
transcripts under bench/peers/ and run, each in its peer's own format, through ``action-lsp
apply --write`` by bench/bench_peers.py.

What a user must be able to rely on: where we write, we write what the peer's own test expects
(no ``wrong``), and we never write where the peer refuses (no ``applied, peer refuses``). A peer
case we refuse instead (``missed``: several matches, a match that differs in content) is a
question for the user, not a failure. Exceptions are listed below, each with its argument; they
are repeated in docs/edit-engine.md ("Peer suites").
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
from bench_modules import bench_module

REPO = Path(__file__).resolve().parents[2]

# Cases where the peer's expectation is wrong, with the argument (docs/edit-engine.md).
PEER_IS_WRONG = {
    "cline/003-should-handle-line-trimmed-match-replacement-case-correctly": (
        "the file's line is ` line2 ` (indented by one space), the search block `line2`; Cline "
        "writes the replacement `replaced` without the line's indentation. We keep the file's "
        "indentation (` replaced`), as Roo Code's ('should match content with different "
        "indentation in search block') and Aider's ('test_replace_part_with_missing_leading_"
        "whitespace') own suites require for the same situation."
    ),
}

# Known bugs (see the peers lane's report): a case listed here may still fail either check;
# remove it when the fix lands (the tests then guard it).
# (The empty <replace>/<search> cases listed here before are fixed: the specs mark those fields
# `empty_ok`, so an empty one is no `missing-field`; the suites now guard them.)
KNOWN_BUG: dict[str, str] = {}

MIN_CASES = {"roo": 30, "cline": 12, "aider": 6, "codex": 10, "claude-code": 10, "gemini": 8, "copilot": 8,
             "str-replace": 10, "continue": 12, "avante": 8}

#: Cases we refuse where the peer applies, for a reason other than the match itself, argued in
#: docs/edit-engine.md ("Peer suites"): what is refused is the edit's meaning, which the peer
#: defines and no rule of ours can write, or cannot tell from another tool of the same name.
MISSED_BY_DESIGN: dict[str, str] = {
    "continue/008-an-empty-old-string-inserts-at-the-start-of-the-file": (
        "Continue inserts an empty old_string's new_string before the first line; the edit rules "
        "have no 'prepend', and appending would write it at the other end: refused (empty-search)."
    ),
    "continue/011-multi-edit-an-edit-may-match-what-an-earlier-one-wrote": (
        "`multi_edit` is also other agents' tool name; an edit rewriting an earlier edit's "
        "replacement is refused (conflicting-edits) unless the tool is known to mean it."
    ),
}


bench = bench_module("bench_peers")


@functools.cache
def _results(suite: str) -> tuple[object, ...]:
    """One run of a suite per test session (each case runs `apply --write` in a temp dir)."""
    return tuple(bench.run_suite(suite))


def _describe(r: object) -> str:
    case_id = r.id  # type: ignore[attr-defined]
    suite = case_id.split("/", 1)[0]
    case = next(c for c in bench.load_cases(suite) if c["id"] == case_id)
    return (
        f"{case_id} ({r.verdict}: {r.reason})\n"  # type: ignore[attr-defined]
        f"  files before: {case['files']!r}\n"
        f"  transcript: {case['transcript']!r}\n"
        f"  peer expects: {case['peer']['outcome']} {r.expected!r}\n"  # type: ignore[attr-defined]
        f"  we wrote: {r.got!r}\n  stderr: {r.stderr!r}"  # type: ignore[attr-defined]
    )


@pytest.mark.parametrize("suite", bench.SUITES)
def test_peer_suite_never_writes_what_the_peer_would_not(suite: str) -> None:
    results = _results(suite)
    assert len(results) >= MIN_CASES[suite], "the converted cases are missing"
    assert any(r.verdict == "applied right" for r in results)
    bad = [
        r for r in results
        if r.verdict in ("wrong", "applied, peer refuses")
        and r.id not in PEER_IS_WRONG and r.id not in KNOWN_BUG
    ]
    assert not bad, "\n\n".join(_describe(r) for r in bad)


QUESTION_CODES = frozenset({"search-ambiguous", "search-not-found"})


@pytest.mark.parametrize("suite", bench.SUITES)
def test_a_missed_peer_case_is_a_question_about_the_match(suite: str) -> None:
    """Where a peer applies and we do not, the reason is the match itself (several places, or
    only a place whose content differs) -- never a complaint about the transcript: an empty
    <replace> deletes, an empty search text means what the peer says (docs/edit-engine.md)."""
    bad = []
    for r in _results(suite):
        if r.verdict != "missed" or r.id in KNOWN_BUG or r.id in MISSED_BY_DESIGN:
            continue
        codes = {
            line.rsplit("[", 1)[1].rstrip("]")
            for line in r.stderr.splitlines()
            if ": error: " in line and line.endswith("]")
        }
        if not codes or not codes <= QUESTION_CODES:
            bad.append(r)
    assert not bad, "\n\n".join(_describe(r) for r in bad)


def test_known_bugs_are_right_when_forced() -> None:
    """The allow-listed cases fail only because of what blocks them: forced, the engine writes
    what the peer expects."""
    by_id = {c["id"]: c for s in bench.SUITES for c in bench.load_cases(s)}
    for case_id in KNOWN_BUG:
        r = bench.run_case(by_id[case_id], force=True)
        assert r.verdict == "applied right", _describe(r)


def test_allow_lists_name_existing_cases() -> None:
    ids = {c["id"] for s in bench.SUITES for c in bench.load_cases(s)}
    assert set(PEER_IS_WRONG) <= ids
    assert set(KNOWN_BUG) <= ids
    assert set(MISSED_BY_DESIGN) <= ids


def test_a_peer_is_wrong_case_is_still_what_the_argument_says() -> None:
    """The allow-listed disagreement is the re-indented replacement, nothing else."""
    (case_id,) = PEER_IS_WRONG
    suite = case_id.split("/")[0]
    case = next(c for c in bench.load_cases(suite) if c["id"] == case_id)
    r = bench.run_case(case)
    assert r.verdict == "wrong"
    assert r.got["file.txt"] == "line1\n replaced\nline3"


def test_classification_sees_a_wrong_write_and_a_refusal() -> None:
    """The runner's verdicts themselves: a case whose expectation we alter is `wrong`, and one
    whose search text is absent is `missed`."""
    case = next(c for c in bench.load_cases("cline") if c["id"].startswith("cline/002-"))
    assert bench.run_case(case).verdict == "applied right"
    altered = {**case, "peer": {**case["peer"], "files": {"file.txt": "something else"}}}
    assert bench.run_case(altered).verdict == "wrong"
    absent = {**case, "transcript": case["transcript"].replace("line2\n</search>",
                                                               "nowhere\n</search>")}
    assert bench.run_case(absent).verdict == "missed"
    refused = {**absent, "peer": {**case["peer"], "outcome": "refuse"}}
    assert bench.run_case(refused).verdict == "refused right"
    applied = {**case, "peer": {**case["peer"], "outcome": "refuse"}}
    assert bench.run_case(applied).verdict == "applied, peer refuses"
