"""Codex's own apply-patch scenarios (tests/fixtures/dialects/codex, Apache-2.0, see its
README.md), each run through ``action-lsp apply --write`` on a temporary copy of its
input tree.

Where we differ from Codex on purpose (safety rules of the edit engine), the scenario is listed
in ``REFUSED_BY_DESIGN``: we must then leave the tree exactly as it was (never half-applied).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from action_lsp.cli import main

SCENARIOS = Path(__file__).resolve().parent.parent / "fixtures" / "dialects" / "codex"
NAMES = sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir())

# Scenarios where action-lsp's safety rules refuse what Codex does:
REFUSED_BY_DESIGN = {
    # A move onto an existing file: Codex overwrites it, our rename never does.
    "010_move_overwrites_existing_destination",
    # Codex leaves the files written before a later operation failed; our writes are all or none.
    "015_failure_after_partial_success_leaves_changes",
}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run(name: str, tmp_path: Path) -> tuple[int, dict[str, bytes], dict[str, bytes], dict[str, bytes]]:
    src = SCENARIOS / name
    work = tmp_path / "ws"
    if (src / "input").is_dir():
        shutil.copytree(src / "input", work)
    else:
        work.mkdir(parents=True)  # git keeps no empty input directory
    before = tree(work)
    transcript = tmp_path / "transcript.md"
    transcript.write_bytes(b"The patch:\n\n" + (src / "patch.txt").read_bytes())
    code = main(["apply", str(transcript), "--root", str(work), "--write"])
    expected = tree(src / "expected") if (src / "expected").is_dir() else {}
    return code, before, tree(work), expected


def test_there_are_23_scenarios() -> None:
    assert len(NAMES) == 23


@pytest.mark.parametrize("name", NAMES)
def test_codex_scenario(name: str, tmp_path: Path) -> None:
    code, before, after, expected = run(name, tmp_path)
    if name in REFUSED_BY_DESIGN:
        assert after == before, "a refused patch must leave the tree as it was"
        assert code == 1
        return
    assert after == expected
    if expected == before:  # Codex refuses this patch: so do we (nothing written)
        assert after == before


def test_byte_identical_count(tmp_path: Path) -> None:
    """The number reported in README.md and docs/architecture.md: 21 of the 23 give Codex's
    bytes exactly (014 too: the file view of an update says that Codex ends the file with a
    line break)."""
    same = 0
    for i, name in enumerate(NAMES):
        _, _, after, expected = run(name, tmp_path / str(i))
        same += after == expected
    assert same == 21
