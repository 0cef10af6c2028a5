"""Benchmark of ``apply --write``'s write step (a script, not a test):
``python bench/bench_write.py [--modified 300] [--created 100] [--size 2000] [--repeat 5] [--dir DIR]``

Times :func:`action_lsp.edit.write_plan` (journal, backups, fsynced temporaries, renames) against
the same write without the journal (check, fsynced temporaries and renames: the engine
before the journal), on a fresh workspace of ``--modified`` files to modify and ``--created`` new files in
new directories. ``--dir`` chooses the file system (default: the system's temporary directory).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from action_lsp.edit import Plan, Workspace, plan_changes, write_plan
from action_lsp.model import Action, ActionKind, Edit, Field, Span


def populate(root: Path, modified: int, size: int) -> None:
    filler = ("# " + "x" * 60 + "\n") * max(0, size // 63)
    for i in range(modified):
        d = root / f"src/pkg{i % 20}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"mod{i}.py").write_text(f"{filler}value_{i} = 1\n")


def actions(modified: int, created: int, size: int) -> list[Action]:
    out: list[Action] = []
    pos = 0

    def f(name: str, value: str) -> Field:
        nonlocal pos
        pos += len(value) + 1
        return Field(name, value, Span(pos - len(value) - 1, pos - 1))

    for i in range(modified):
        a = Action("bench", "modify_file", ActionKind.MODIFY_FILE, Span(pos, pos + 1),
                   Span(pos, pos + 1), {"path": f("path", f"src/pkg{i % 20}/mod{i}.py")})
        a.edits = [Edit(f("search", f"value_{i} = 1\n"), f("replace", f"value_{i} = 2\n"))]
        out.append(a)
    body = "y" * size
    for i in range(created):
        out.append(Action("bench", "create_file", ActionKind.CREATE_FILE, Span(pos, pos + 1),
                          Span(pos, pos + 1), {"path": f("path", f"new/d{i % 10}/f{i}.txt"),
                                               "content": f("content", body)}))
    return out


def write_without_journal(plan: Plan) -> None:
    """Temporaries fsynced beside their targets, then renamed: no journal, no backup (the
    targets are checked against the plan first, as ``write_plan`` does)."""
    for change in plan.changes:
        if change.old_bytes is not None:
            assert change.path.read_bytes() == change.old_bytes
        else:
            assert not change.path.exists()
    temps: list[tuple[str, Path]] = []
    for change in plan.changes:
        change.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".t.", dir=change.path.parent)
        temps.append((tmp, change.path))
        with os.fdopen(fd, "wb") as fh:
            fh.write(change.new_bytes)
            fh.flush()
            os.fchmod(fh.fileno(), change.mode if change.mode is not None else 0o644)
            os.fsync(fh.fileno())
    for tmp, target in temps:
        os.replace(tmp, target)
    for d in {t.parent for _, t in temps}:
        fd = os.open(d, os.O_RDONLY)
        with contextlib.suppress(OSError):
            os.fsync(fd)
        os.close(fd)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--modified", type=int, default=300)
    ap.add_argument("--created", type=int, default=100)
    ap.add_argument("--size", type=int, default=2000, help="bytes per file (about)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--dir", default=None, help="where to make the scratch workspaces")
    args = ap.parse_args()

    times: dict[str, list[float]] = {"without journal": [], "with journal": []}
    plan_ms: list[float] = []
    for _ in range(args.repeat):
        for name, write in (("without journal", write_without_journal),
                            ("with journal", lambda p, r: write_plan(p, root=r))):
            root = Path(tempfile.mkdtemp(prefix="bench-write-", dir=args.dir))
            try:
                populate(root, args.modified, args.size)
                t0 = time.perf_counter()
                plan = plan_changes(actions(args.modified, args.created, args.size),
                                    Workspace(root))
                plan_ms.append((time.perf_counter() - t0) * 1000)
                assert plan.ok and len(plan.changes) == args.modified + args.created
                os.sync()
                t0 = time.perf_counter()
                if name == "with journal":
                    write(plan, root)
                else:
                    write_without_journal(plan)
                times[name].append((time.perf_counter() - t0) * 1000)
                assert not (root / ".action-lsp-journal").exists()
            finally:
                shutil.rmtree(root)
    n = args.modified + args.created
    print(f"{n} files ({args.modified} modified, {args.created} created, ~{args.size} B each), "
          f"{args.repeat} runs; planning: median {statistics.median(plan_ms):.0f} ms")
    print("| write | median ms | min ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, ts in times.items():
        print(f"| {name} | {statistics.median(ts):.0f} | {min(ts):.0f} | {max(ts):.0f} |")


if __name__ == "__main__":
    main()
