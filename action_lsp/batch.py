"""Checking many transcripts: a pure per-text function, and all cores for a list of files.

:func:`check_text` is what ``action-lsp check`` does for one transcript, as a function of its
text: no files are read (unless ``root`` asks for the workspace checks), nothing is printed,
and the result -- a list of :class:`~action_lsp.model.Diagnostic`, each with its offsets into
the text -- pickles, so a distributed engine (Dask, Ray Data, Spark) can map it over a dataset
of transcripts. :func:`records` turns the result into plain dictionaries with line and column.
Both check as a stream (:mod:`action_lsp.stream`): a unit's actions are dropped once their
diagnostics are made, so the memory is the text and the diagnostics, whatever the number of
actions; :func:`check_file` reads a big JSON Lines session a window at a time.

:func:`check_files` runs it over files in worker processes (``jobs``, default: every CPU) and
yields the results in the order of the files, whatever order the workers finish in.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .document import analyze
from .model import Diagnostic
from .text import LineIndex

__all__ = ["FileCheck", "check_file", "check_files", "check_text", "records"]


def check_text(
    text: str,
    dialects: Iterable[str] | None = None,
    root: str | Path | None = None,
    allow_overwrite: bool = False,
    *,
    path: str | Path | None = None,
) -> list[Diagnostic]:
    """Every diagnostic of one transcript, sorted by position.

    ``dialects`` limits the dialects recognised (default: all). With ``root``, the checks that
    need the workspace run too (targets exist, search text found once, overwrites, symlinks);
    ``allow_overwrite`` checks as ``apply --force`` would apply; ``path``, the transcript's
    file, is never a target (``protected-path``, as ``apply`` refuses it).
    """
    names = list(dialects) if dialects is not None else None
    if root is None:
        from .stream import diagnostics

        return list(diagnostics(text, names))
    base = Path(root) if root is not None else None
    analysis = analyze(text, list(dialects) if dialects is not None else None, roots=[str(base.resolve())] if base else ())
    found = list(analysis.diagnostics)
    if base is not None:
        from .edit.checks import workspace_diagnostics
        from .edit.plan import blocking_diagnostics
        from .edit.workspace import Workspace
        from .findings import merge

        ws = Workspace(base, allow_overwrite=allow_overwrite, transcript=path)
        blockers = blocking_diagnostics(found)
        found = merge(found, workspace_diagnostics(analysis.actions, ws, blockers=blockers, force=allow_overwrite))
    return found


def check_file(
    path: str | Path,
    dialects: Iterable[str] | None = None,
    root: str | Path | None = None,
    allow_overwrite: bool = False,
) -> list[Diagnostic]:
    """:func:`check_text` of a file, read as ``action-lsp check`` reads it (UTF-8, a leading
    BOM dropped; :class:`~action_lsp.cli.common.CliError` for a file that cannot be checked).
    Without ``root``, a big file is read in pieces and a JSON Lines session is checked a window
    at a time: its text is never held whole (a diagnostic whose quick fix is still to be
    worked out keeps the window it was found in)."""
    from .cli.common import read_transcript, transcript_pieces
    from .stream import placed_pieces

    path = Path(path)
    if root is not None:
        return check_text(read_transcript(path), dialects, root, allow_overwrite, path=path)
    names = list(dialects) if dialects is not None else None
    return [d for d, _ in placed_pieces(transcript_pieces(path), names, whole=lambda: read_transcript(path))]


def records(text: str, diagnostics: Sequence[Diagnostic]) -> list[dict[str, Any]]:
    """``diagnostics`` of ``text`` as plain dictionaries (for data frames): code, severity (the
    registry's default unless the diagnostic sets one), message, 1-based line and column
    (columns count characters) of the start and end, and the offsets."""
    from .codes import default_severity

    lines = LineIndex(text)
    out = []
    for d in diagnostics:
        start = lines.position(d.span.start, "utf-32")
        end = lines.position(d.span.end, "utf-32")
        severity = d.severity if d.severity is not None else default_severity(d.code)
        out.append(
            {
                "code": d.code,
                "severity": severity.label,
                "message": d.message,
                "line": start.line + 1,
                "column": start.character + 1,
                "end_line": end.line + 1,
                "end_column": end.character + 1,
                "start": d.span.start,
                "end": d.span.end,
            }
        )
    return out


@dataclass(slots=True)
class FileCheck:
    """The result for one file: its text (None when not kept, see :func:`check_files`) and
    diagnostics, or why it could not be read (``error``)."""

    path: Path
    text: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: str | None = None


def _check_file(job: tuple[Path, Callable[[Path], str] | None, list[str] | None, Path | None, bool]) -> FileCheck:
    path, read, dialects, root, allow_overwrite = job
    if read is None:
        try:
            return FileCheck(path, None, check_file(path, dialects, root, allow_overwrite))
        except Exception as exc:  # the reader's own message (missing, binary, not UTF-8, ...)
            return FileCheck(path, None, [], str(exc))
    try:
        text = read(path)
    except Exception as exc:  # the reader's own message (missing, binary, not UTF-8, ...)
        return FileCheck(path, None, [], str(exc))
    return FileCheck(path, text, check_text(text, dialects, root, allow_overwrite))


def default_jobs() -> int:
    """Every CPU this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_files(
    paths: Sequence[Path],
    read: Callable[[Path], str] | None = None,
    *,
    jobs: int | None = None,
    dialects: Iterable[str] | None = None,
    root: Path | None = None,
    allow_overwrite: bool = False,
) -> Iterator[FileCheck]:
    """:func:`check_text` over files, in ``jobs`` worker processes (default: every CPU; 1 runs
    here, without workers). Results come in the order of ``paths``.

    ``read`` turns a path into text, raising with a message for a file that cannot be checked;
    it must be a module-level function (workers receive it by name). Without it, each file is
    read by :func:`check_file` (as the command line reads it, big sessions a window at a time)
    and its ``text`` is not kept (None).
    """
    names = list(dialects) if dialects is not None else None
    todo = [(p, read, names, root, allow_overwrite) for p in paths]
    workers = min(jobs or default_jobs(), len(todo))
    if workers <= 1:
        for job in todo:
            yield _check_file(job)
        return
    # Several files per task keeps the workers busy without a round trip per small file.
    chunk = max(1, min(16, len(todo) // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(_check_file, todo, chunksize=chunk)
