"""SIGKILL a write of hundreds of files at random moments, again and again: after recovery the
workspace holds every old file or every new one, and nothing else (no temporary file, no
directory that was not there, no journal).

Each round forks a process that runs ``write_plan`` (the code ``apply --write`` runs) and kills
it after a random delay (within the last three quarters of an uninterrupted round). ``fsync`` is a no-op in the killed process: a SIGKILL does not lose the
page cache, and syncing would make every round slow without changing what is tested. Each file
operation sleeps a little so that both phases last long enough for random kills to land in them;
the phase a kill landed in is read from the disk afterwards (journal committed or not,
temporaries left) and the test asserts that both phases were hit.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections import Counter
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, plan_changes, write_plan
from action_lsp.edit import write as write_mod
from action_lsp.edit.journal import recover

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork"),
]

MODIFIED = 160
CREATED = 120
DELETED = 10
LINKED = 5  # modified files with a second name (written in place)
MIN_KILLS = 50
MIN_PER_PHASE = 12
STEP = 0.0002  # seconds slept per temporary file and per rename in the killed process


def populate(root: Path) -> None:
    for i in range(MODIFIED):
        d = root / f"src/pkg{i % 10}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod{i}.py").write_bytes(f"# module {i}\nvalue_{i} = 1\n".encode())
    for i in range(LINKED):
        os.link(root / f"src/pkg{i % 10}/mod{i}.py", root / f"alias{i}.py")
    (root / "old").mkdir()
    for i in range(DELETED):
        (root / f"old/del{i}.txt").write_bytes(b"stale\n")


def actions(tx):  # type: ignore[no-untyped-def]
    t = tx()
    out = []
    for i in range(MODIFIED):
        out.append(t.modify(f"src/pkg{i % 10}/mod{i}.py", (f"value_{i} = 1\n", f"value_{i} = 2\n")))
        if i < CREATED:
            out.append(t.create(f"new/d{i % 25}/sub{i % 3}/f{i}.txt", f"created {i}\n"))
    out += [t.delete(f"old/del{i}.txt") for i in range(DELETED)]
    return out


def slowed_write(plan, root: Path) -> None:  # type: ignore[no-untyped-def]
    """In the child: no fsync, a short sleep per temporary file and per rename (so that both
    phases last about as long, whatever the file system)."""
    os.fsync = lambda fd: None
    real_new, real_replace = write_mod.write_new, os.replace

    def write_new(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(STEP)
        return real_new(*args, **kwargs)

    def replace(*args, **kwargs):  # type: ignore[no-untyped-def]
        time.sleep(STEP)
        return real_replace(*args, **kwargs)

    write_mod.write_new = write_new  # type: ignore[assignment]
    os.replace = replace  # type: ignore[assignment]
    write_plan(plan, root=root)


def phase(root: Path) -> str:
    """Where the killed write stood, read from the disk. Two states say nothing of it: no
    journal directory, and an empty one (just made, or about to be removed at the end)."""
    jdir = root / ".action-lsp-journal"
    if not (jdir / "journal.json").exists():
        if not jdir.exists():
            return "no journal"
        if (jdir / "committed").exists():  # the journal of a finished write being removed
            return "cleanup"
        return "journal" if any(jdir.iterdir()) else "no journal"
    if not (jdir / "committed").exists():
        return "temporaries"
    temps = list(root.rglob(".action-lsp.*.tmp"))
    return "renames" if temps else "cleanup"


def test_random_kills_leave_all_old_or_all_new(fast_dir: Path, tx, killing) -> None:
    root = fast_dir / "ws"
    root.mkdir()
    populate(root)
    before = killing.snapshot(root)
    plan = plan_changes(actions(tx), Workspace(root))
    assert plan.ok and len(plan.changes) == MODIFIED + CREATED + DELETED

    # Uninterrupted rounds: the expected result, and how long a round lasts.
    durations = []
    for _ in range(3):
        shutil.rmtree(root)
        root.mkdir()
        populate(root)
        t0 = time.perf_counter()
        assert killing.in_child(lambda: slowed_write(plan, root)) == "exited"
        durations.append(time.perf_counter() - t0)
    duration = min(durations)
    after = killing.snapshot(root)
    assert after != before and not any(".action-lsp" in p for p in after)
    assert after["alias0.py"][1] == b"# module 0\nvalue_0 = 2\n"  # in place: both names

    rng = random.Random(8)
    phases: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    kills = rounds = 0
    # The kill window follows the machine: under load (a parallel test run) the journal phase
    # can stretch far past the idle round's length, so kills landing before the temporaries move
    # the window later and kills after the write move it earlier. What each kill must leave is
    # the same whatever the window.
    scale = 1.0
    while rounds < 250 and (
        kills < MIN_KILLS or min(phases["temporaries"], phases["renames"]) < MIN_PER_PHASE
    ):
        rounds += 1
        shutil.rmtree(root)
        root.mkdir()
        populate(root)
        how = killing.in_child(
            lambda: slowed_write(plan, root),
            kill_after=rng.uniform(0.25 * duration, duration) * scale,
        )
        if how != "killed":
            scale = max(0.5, scale * 0.9)
            outcomes["finished before the kill"] += 1
            assert killing.snapshot(root) == after
            continue
        kills += 1
        where = phase(root)
        phases[where] += 1
        if where in ("journal", "no journal"):
            scale = min(20.0, scale * 1.1)
        elif where == "cleanup":
            scale = max(0.5, scale * 0.95)
        recover(root)
        now = killing.snapshot(root)
        assert now in (before, after), f"round {rounds}: killed in {where}, mixed result"
        result = "all old" if now == before else "all new"
        outcomes[result] += 1
        # The rule: rolled back before the commit mark, forward after it.
        assert result == ("all new" if where in ("renames", "cleanup") else "all old") or (
            where == "no journal"
        )
    print(f"\n{rounds} rounds, {kills} kills, round {duration * 1000:.0f} ms, window x{scale:.2f}; "
          f"phases {dict(phases)}; outcomes {dict(outcomes)}")
    assert kills >= MIN_KILLS
    assert phases["temporaries"] >= MIN_PER_PHASE and phases["renames"] >= MIN_PER_PHASE
