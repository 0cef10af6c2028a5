"""A write killed before *every* file-system call it makes, one after another (and in the middle
of every ``write``): after recovery the workspace is exactly the old one or exactly the new one,
and what the recovery reports matches which.

The random kills of ``test_crash.py`` sample the phases of a large write; these tests enumerate
the kill points of a small one, so a rare window (between two removals of the journal's files,
say) is never left to chance -- and, in the slow one, the kill points of the recovery that
follows each killed write.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from action_lsp.edit import Workspace, WriteError, plan_changes, write_plan
from action_lsp.edit import journal as journal_mod
from action_lsp.edit.journal import recover

_write = os.write  # the real one: a child's os.write is made to fail

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

def populate(root: Path) -> None:
    for name in "abc":
        (root / f"{name}.py").write_bytes(f"{name} = 1\n".encode() * 40)
    os.link(root / "b.py", root / "b-link.py")  # b.py is written in place
    (root / "gone.txt").write_bytes(b"to delete\n")
    os.link(root / "gone.txt", root / "gone-link.txt")  # a rollback must link it back


def make_plan(root: Path, tx):  # type: ignore[no-untyped-def]
    t = tx()
    plan = plan_changes(
        [t.modify("a.py", ("a = 1\n" * 40, "a = 2\n" * 40)), t.create("d/e/n1.txt", "n1\n"),
         t.modify("b.py", ("b = 1\n" * 40, "b = 22\n" * 40)), t.create("d/n2.txt", "n2\n"),
         t.modify("c.py", ("c = 1\n" * 40, "c = 2\n")), t.delete("gone.txt")],
        Workspace(root),
    )
    assert plan.ok
    return plan


def _old_and_new(ref: Path, tx, killing) -> tuple[dict, dict]:  # type: ignore[no-untyped-def]
    """The tree before and after an uninterrupted write of :func:`make_plan`."""
    ref.mkdir()
    populate(ref)
    before = killing.snapshot(ref)
    write_plan(make_plan(ref, tx), root=ref)
    return before, killing.snapshot(ref)


def _failing_rename(killing) -> None:  # type: ignore[no-untyped-def]
    """The second rename of a temporary over its target fails (a disk error): the write rolls
    itself back after its commit mark."""
    os.replace = killing.rename_fails(2, OSError(5, "Input/output error"))  # type: ignore[assignment]


@pytest.mark.parametrize("failing", [False, True], ids=["write", "rename-fails"])
def test_every_kill_point_leaves_all_old_or_all_new(tmp_path: Path, tx, killing,
                                                    failing: bool) -> None:
    ref = tmp_path / "ref"
    ref.mkdir()
    populate(ref)
    plan = make_plan(ref, tx)
    before = killing.snapshot(ref)
    write_plan(plan, root=ref)
    after = killing.snapshot(ref)
    assert after != before

    seen: dict[str, int] = {}
    points: dict[bool, int] = {}
    for half in (False, True):
        n = 0
        while True:
            n += 1
            root = tmp_path / f"ws-{int(half)}-{n}"
            root.mkdir()
            populate(root)
            plan = make_plan(root, tx)

            def child(  # type: ignore[no-untyped-def]
                n: int = n, half: bool = half, root: Path = root, plan=plan
            ) -> None:
                if failing:
                    _failing_rename(killing)
                killing.kill_at(n, half)
                write_plan(plan, root=root, label="apply --write t.md")

            how = killing.in_child(child)
            if how == "exited":  # past the last call: the write finished (or undid itself)
                assert killing.snapshot(root) == (before if failing else after)
                points[half] = n - 1
                break
            rec = recover(root)
            now = killing.snapshot(root)
            where = f"killed before mutating call {n}{' (half a write)' if half else ''}"
            assert now in (before, after), f"{where}: a mixed tree or litter"
            if now == after:
                assert rec is None or rec.outcome in ("rolled-forward", "finished"), (
                    f"{where}: all new, but the report says: {rec.message()}")
            else:
                assert rec is None or rec.outcome in ("rolled-back", "cleaned"), (
                    f"{where}: all old, but the report says: {rec.message()}")
            assert recover(root) is None
            key = "none" if rec is None else rec.outcome
            seen[key] = seen.get(key, 0) + 1
    print(f"\n{points[False]} kill points, {points[True]} half writes; recoveries {seen}")
    # Every kind of recovery was met along the way, and the write has many kill points.
    assert points[False] > 40 and points[True] >= 6
    expected = {"rolled-forward", "rolled-back", "cleaned", "none"} | (
        set() if failing else {"finished"})
    assert expected <= set(seen), seen


def _state(snap: dict) -> tuple:
    """What a recovery will find (a snapshot), without what differs from one write to the next
    (the journal's start time and the inode it records)."""
    return tuple(sorted((k, v if not k.endswith("journal.json") else None)
                        for k, v in snap.items()))


@pytest.mark.slow
@pytest.mark.parametrize("failing", [False, True], ids=["write", "rename-fails"])
def test_a_recovery_killed_at_every_point_is_finished_by_the_next(fast_dir: Path, tx, killing,
                                                                  failing: bool) -> None:
    """From every distinct state a killed write leaves with work to do, the recovery itself is
    killed before each of its file-system calls (and half-way through each ``write``): the next
    recovery still ends all old or all new, with no litter."""
    tmp_path = fast_dir
    before, after = _old_and_new(tmp_path / "ref", tx, killing)

    def killed_write(root: Path, n: int, half: bool) -> bool:
        root.mkdir()
        populate(root)
        plan = make_plan(root, tx)

        def child() -> None:
            journal_mod.secrets.token_hex = lambda nbytes=None: "0" * 12  # names alike
            if failing:
                _failing_rename(killing)
            killing.kill_at(n, half)
            write_plan(plan, root=root)

        return killing.in_child(child) == "killed"

    states: set[tuple] = set()
    killed = 0
    case = 0
    for half_write in (False, True):
        n = 0
        while True:
            n += 1
            case += 1
            probe = tmp_path / f"probe-{case}"
            if not killed_write(probe, n, half_write):
                break
            state = _state(killing.snapshot(probe))
            if not (probe / ".action-lsp-journal" / "journal.json").exists() or state in states:
                continue  # nothing for a recovery to do but remove files, or seen already
            states.add(state)
            for half in (False, True):
                m = 0
                while True:
                    m += 1
                    case += 1
                    root = tmp_path / f"ws-{case}"
                    assert killed_write(root, n, half_write)

                    def recovery(m: int = m, half: bool = half, root: Path = root) -> None:
                        killing.kill_at(m, half)
                        recover(root)

                    if killing.in_child(recovery) == "exited":
                        break
                    killed += 1
                    recover(root)
                    where = f"write killed at {n}, its recovery at {m}{' (half)' if half else ''}"
                    assert killing.snapshot(root) in (before, after), f"{where}: mixed or litter"
                    assert recover(root) is None, where
    print(f"\n{len(states)} states with a journal; {killed} recoveries killed")
    assert len(states) > 10 and killed > 100


def _fail_at(n: int, killing) -> list[int]:  # type: ignore[no-untyped-def]
    """In the child: the n-th mutating call raises ``OSError(EIO)`` instead of running (the
    list returned counts the calls)."""
    count = [0]

    def before(name: str, args: tuple) -> None:
        count[0] += 1
        if count[0] == n:
            raise OSError(5, "Input/output error (injected)")

    killing.intercept(before)
    return count


def _run_child(fn) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Run ``fn`` in a forked process: 0 and what it returned, 3 and a ``WriteError`` (its
    ``settled``, then its message), or 4 and any other exception."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(r)
        code, text = 0, ""
        try:
            text = str(fn())
        except WriteError as exc:
            code, text = 3, f"{exc.settled}|{exc}"
        except BaseException as exc:
            code, text = 4, repr(exc)
        finally:
            try:
                _write(w, text.encode())  # not os.write: the test makes that fail
            finally:
                os._exit(code)
    os.close(w)
    chunks = []
    while chunk := os.read(r, 65536):
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode()


def test_a_failure_at_every_point_is_reported_truthfully(tmp_path: Path, tx, killing) -> None:
    """Each file-system call of a write fails in turn (a disk error). ``write_plan`` either
    returns (every file new; a warning when its journal could not be removed, which the next
    recovery removes) or raises a ``WriteError`` that is "settled" only over the old tree, and
    otherwise keeps a journal that the next recovery settles."""
    before, after = _old_and_new(tmp_path / "ref", tx, killing)

    def fresh(root: Path):  # type: ignore[no-untyped-def]
        root.mkdir()
        populate(root)
        return make_plan(root, tx)

    counted = fresh(tmp_path / "count")

    def count(plan=counted) -> int:  # type: ignore[no-untyped-def]
        calls = _fail_at(0, killing)
        write_plan(plan, root=tmp_path / "count")
        return calls[0]

    code, total = _run_child(count)
    assert code == 0 and int(total) > 40
    seen: dict[str, int] = {}
    for n in range(1, int(total) + 1):
        root = tmp_path / f"ws-{n}"
        plan = fresh(root)

        def child(n: int = n, root: Path = root, plan=plan) -> list[str]:  # type: ignore[no-untyped-def]
            _fail_at(n, killing)
            return write_plan(plan, root=root)

        code, text = _run_child(child)
        where = f"call {n} failed: {text!r}"
        assert code in (0, 3), where  # never anything but a WriteError
        jdir = root / ".action-lsp-journal"
        if jdir.is_dir() and not os.listdir(jdir):  # its removal failed: harmless, no journal
            jdir.rmdir()
            seen["empty journal directory left"] = seen.get("empty journal directory left", 0) + 1
        if code == 0:
            kind = "written" if text == "[]" else "written, journal left"
            assert (text == "[]") == (not jdir.exists()), where
            rec = recover(root)
            assert rec is None or rec.outcome in ("rolled-forward", "finished"), where
            assert killing.snapshot(root) == after, where
        elif text.startswith("True|"):
            kind = "nothing written"
            assert killing.snapshot(root) == before, where
        else:
            kind = "journal kept"
            assert "journal" in text and "kept" in text, where
            recover(root)
            assert killing.snapshot(root) in (before, after), where
        seen[kind] = seen.get(kind, 0) + 1
    print(f"\n{total} calls; {seen}")
    assert seen.get("nothing written", 0) > 20 and seen.get("written", 0) > 0


def test_a_directory_in_the_plan_shifts_no_temporary_onto_another(tmp_path: Path, tx,
                                                                  killing) -> None:
    """A plan whose first change is a directory: the write numbers its temporaries by change,
    the journal its entries without the directory. A rollback's temporary for a deletion once
    took the name of the in-place file's temporary, and a recovery removed the new bytes it
    needed: the file stayed half written. Killed half-way through each write, every time."""

    def populate2(root: Path) -> None:
        (root / "b.py").write_bytes(b"b = 1\n" * 40)
        os.link(root / "b.py", root / "b-link.py")
        (root / "gone.txt").write_bytes(b"to delete\n")

    def plan2(root: Path):  # type: ignore[no-untyped-def]
        t = tx()
        plan = plan_changes([t.mkdir("newdir"), t.modify("b.py", ("b = 1\n" * 40, "b = 22\n" * 40)),
                             t.delete("gone.txt")], Workspace(root))
        assert plan.ok
        return plan

    ref = tmp_path / "ref"
    ref.mkdir()
    populate2(ref)
    before = killing.snapshot(ref)
    write_plan(plan2(ref), root=ref)
    after = killing.snapshot(ref)
    kills = 0
    for n in range(1, 20):
        root = tmp_path / f"ws-{n}"
        root.mkdir()
        populate2(root)
        plan = plan2(root)

        def child(n: int = n, root: Path = root, plan=plan) -> None:  # type: ignore[no-untyped-def]
            killing.kill_at(n, True)
            write_plan(plan, root=root)

        if killing.in_child(child) == "exited":
            break
        kills += 1
        rec = recover(root)
        assert killing.snapshot(root) in (before, after), (n, rec and rec.message())
    assert kills == 3  # half-way through the journal, the temporary, the in-place rewrite
