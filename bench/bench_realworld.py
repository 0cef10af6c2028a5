"""Recall and precision of action-lsp on real transcripts, against labels written by reading them.

Usage::

    .venv/bin/python bench/bench_realworld.py CORPUS_DIR LABELS [--json] [--worst N] [--only FORMAT]
    .venv/bin/python bench/bench_realworld.py CORPUS_DIR LABELS --show FILE   # what was found vs labelled

Each labelled file is read as ``action-lsp parse`` reads it (UTF-8, a BOM dropped) and analysed
in-process with every default dialect (:func:`action_lsp.document.analyze`); its file actions
(``create``/``write``/``modify``/``delete``/``rename``, as :func:`action_lsp.dialects.file_view`
normalizes them) are compared with the file's labels.

Labels (a TOML file; ``CORPUS_DIR``-relative paths)::

    [[file]]
    path = "aider/example.md"       # the transcript, relative to CORPUS_DIR
    format = "aider-whole"          # the group it is reported under
    lines = [1, 900]                # optional: only this range (1-based, inclusive) was labelled;
                                    # actions found outside it are ignored
    note = "free text: what the file is, what is odd in it"
    edits = [                       # the file edits a person reading it sees, in any order
      { kind = "create", path = "src/app.py" },
      { kind = "modify", path = "src/app.py", n = 3 },              # n: several of the same
      { kind = "modify", path = "src/app.py", failed = true },      # the agent said it failed
      { kind = "create", or = "modify", path = "app.py" },          # either reading is right
    ]
    # or, where paths are impractical, counts only (no failed edits then, or give failed = N):
    counts = { modify = 12, write = 3 }
    failed = 2

``kind`` is ``create`` / ``write`` / ``modify`` / ``delete`` / ``rename``; ``or`` names a second
kind a careful reader would accept too (an Aider block with an empty ORIGINAL into a file Aider
just created empty: a modify, or the file's creation). A whole-file write is
``create`` or ``write`` as the agent meant it; both count as one class ("whole") for matching,
because which one a dialect reports (create refuses to replace, write replaces) is its semantics,
not whether the edit was found. A failed edit is one the agent was told failed (a tool result
that is an error, Aider's "failed to match"): it must be found *and* shown failed
(``Action.failure``), never offered as pending; found but not shown failed counts as found for
recall and is reported in the ``failed`` column.
A failed call that action-lsp reports as a non-file action carrying the failure (shown,
never applied) counts as found and shown failed when it names a path and holds edit fields.

Matching, per file: where labels give paths, a found action matches a labelled edit of the same
class whose path is equal after normalization (``./`` dropped, ``\\`` as ``/``) or is a
``/``-suffix of the other (an absolute path in the session against the relative one a person
writes, or the reverse); each labelled edit matches at most one found action, one with the same
failed state first. With counts only,
matches per class are ``min(labelled, found)``. Recall = matched / labelled; precision = matched
/ found (a found action that matches no label is a false action: an example read as an edit, an
echo of a failed block, a pasted diff). Reports per format and overall (micro-averaged), the
worst files, and with ``--json`` everything as one JSON document on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

KINDS = ("create", "write", "modify", "delete", "rename")
CLASS = {
    "create": "whole",
    "write": "whole",
    "modify": "modify",
    "delete": "delete",
    "rename": "rename",
}


@dataclass(frozen=True)
class Edit:
    """One file edit: a labelled one, or one action-lsp found."""

    kind: str
    path: str | None
    failed: bool = False
    line: int = 0  # where it was found (found edits only), 1-based
    alt: str | None = None  # labels only: another kind a careful reader would accept

    def fits(self, kind: str) -> bool:
        """Does a found edit of ``kind`` match this labelled one by kind?"""
        return CLASS[kind] == CLASS[self.kind] or (
            self.alt is not None and CLASS[kind] == CLASS[self.alt]
        )


@dataclass
class Label:
    path: str
    format: str
    edits: list[Edit] = field(default_factory=list)
    counts: dict[str, int] | None = None  # counts-only labels
    failed: int = 0  # counts-only labels: how many of them failed
    lines: tuple[int, int] | None = None
    note: str = ""

    @property
    def expected(self) -> int:
        return sum(self.counts.values()) if self.counts is not None else len(self.edits)

    @property
    def expected_failed(self) -> int:
        return self.failed if self.counts is not None else sum(e.failed for e in self.edits)


@dataclass
class Score:
    """The comparison of one file (or a sum of files)."""

    expected: int = 0
    found: int = 0
    matched: int = 0
    expected_failed: int = 0
    failed_shown: int = 0  # labelled failed, matched, and shown failed
    kind_differs: int = 0  # matched, but create where the label says write or the reverse
    seconds: float = 0.0
    error: str = ""

    def add(self, other: Score) -> None:
        for name in (
            "expected",
            "found",
            "matched",
            "expected_failed",
            "failed_shown",
            "kind_differs",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.seconds += other.seconds

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        return self.matched / self.found if self.found else 1.0


@dataclass
class FileResult:
    label: Label
    score: Score
    missed: list[Edit] = field(default_factory=list)  # labelled, not found
    extra: list[Edit] = field(default_factory=list)  # found, matching no label


def load_labels(path: Path) -> list[Label]:
    """The labels of a labels file (see the module docstring); a malformed entry is a ValueError
    naming it."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    labels = []
    for i, entry in enumerate(data.get("file", [])):
        where = f"{path}: file #{i + 1} ({entry.get('path', '?')})"
        if "path" not in entry or "format" not in entry:
            raise ValueError(f"{where}: needs path and format")
        edits: list[Edit] = []
        for e in entry.get("edits", []):
            kind = e.get("kind")
            alt = e.get("or")
            if kind not in KINDS or (alt is not None and alt not in KINDS):
                raise ValueError(f"{where}: unknown kind {kind if kind not in KINDS else alt!r}")
            for _ in range(int(e.get("n", 1))):
                edits.append(Edit(kind, e.get("path"), bool(e.get("failed", False)), alt=alt))
        counts = entry.get("counts")
        if counts is not None:
            if edits:
                raise ValueError(f"{where}: give edits or counts, not both")
            bad = [k for k in counts if k not in KINDS]
            if bad:
                raise ValueError(f"{where}: unknown kind {bad[0]!r} in counts")
        lines = entry.get("lines")
        labels.append(
            Label(
                path=entry["path"],
                format=entry["format"],
                edits=edits,
                counts={k: int(v) for k, v in counts.items()} if counts is not None else None,
                failed=int(entry.get("failed", 0)),
                lines=(int(lines[0]), int(lines[1])) if lines else None,
                note=entry.get("note", ""),
            )
        )
    return labels


def found_edits(text: str) -> list[Edit]:
    """The file actions action-lsp finds in ``text``, as :class:`Edit` values.

    A call the session says failed may be reported as a non-file action that carries the failure
    (shown, never applied): it counts as a found edit, shown failed, when it names a path and
    holds what an edit holds (content, or search/replace text)."""
    from action_lsp.dialects import file_view
    from action_lsp.document import analyze

    analysis = analyze(text)
    out = []
    starts = _line_starts(text)
    for action in analysis.actions:
        line = _line(starts, action.span.start)
        failed = action.failure is not None
        if not action.kind.is_file_action:
            kind = _failed_edit_kind(action) if failed else None
            if kind is not None:
                out.append(Edit(kind, action.path, True, line))
            continue
        view = file_view(action)
        op = view.op if view is not None else action.kind.value.split("_")[0]
        if op == "mkdir" or op == "create_directory":
            continue
        path = view.path.value if view is not None else action.path
        out.append(Edit(op, str(path) if path is not None else None, failed, line))
    return out


_EDIT_FIELDS = ("search", "replace", "edits", "diff", "patch", "old_string", "new_string", "lines")


def _failed_edit_kind(action: Any) -> str | None:
    """The kind of edit a failed call that is no file action meant, or None for another call."""
    if not action.path:
        return None
    if any(name in action.fields for name in _EDIT_FIELDS):
        return "modify"
    if "content" in action.fields:
        return "write"
    return None


def _line_starts(text: str) -> list[int]:
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def _line(starts: Sequence[int], offset: int) -> int:
    from bisect import bisect_right

    return bisect_right(starts, offset)


def _norm(path: str | None) -> str:
    if not path:
        return ""
    p = path.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    if len(p) > 1 and p[1] == ":":
        p = p[0].lower() + p[1:]
    return p


def same_path(a: str | None, b: str | None) -> bool:
    """Equal after normalization, or one a ``/``-suffix of the other."""
    x, y = _norm(a), _norm(b)
    if not x or not y:
        return False
    if x == y:
        return True
    if len(x) < len(y):
        x, y = y, x
    return x.endswith("/" + y)


def score(label: Label, found: Iterable[Edit]) -> FileResult:
    """Compare the edits found in one file with its labels."""
    kept = [f for f in found if label.lines is None or label.lines[0] <= f.line <= label.lines[1]]
    s = Score(expected=label.expected, found=len(kept), expected_failed=label.expected_failed)
    result = FileResult(label, s)
    if label.counts is not None:
        want: Counter[str] = Counter()
        for kind, n in label.counts.items():
            want[CLASS[kind]] += n
        got = Counter(CLASS[f.kind] for f in kept)
        s.matched = sum(min(want[c], got[c]) for c in want)
        shown = sum(f.failed for f in kept)
        s.failed_shown = min(label.failed, shown)
        for c in want:
            result.missed += [Edit(c, None)] * max(0, want[c] - got[c])
        for c in got:
            result.extra += [Edit(c, None)] * max(0, got[c] - want[c])
        return result
    free = list(kept)
    for edit in label.edits:
        fitting = [f for f in free if edit.fits(f.kind) and same_path(f.path, edit.path)]
        # a failed label takes a found edit shown failed first, a succeeded one a found one that is not
        hit = next((f for f in fitting if f.failed == edit.failed), fitting[0] if fitting else None)
        if hit is None:
            result.missed.append(edit)
            continue
        free.remove(hit)
        s.matched += 1
        if hit.kind != edit.kind and hit.kind != edit.alt:
            s.kind_differs += 1
        if edit.failed and hit.failed:
            s.failed_shown += 1
    result.extra = free
    return result


def run(corpus: Path, labels: Sequence[Label]) -> list[FileResult]:
    from action_lsp.cli.common import CliError, read_transcript

    results = []
    for label in labels:
        started = time.perf_counter()
        try:
            text = read_transcript(corpus / label.path)
            found = found_edits(text)
        except (CliError, OSError, RecursionError, ValueError) as exc:
            r = FileResult(
                label,
                Score(
                    expected=label.expected, expected_failed=label.expected_failed, error=str(exc)
                ),
            )
            r.missed = list(label.edits)
            results.append(r)
            continue
        r = score(label, found)
        r.score.seconds = time.perf_counter() - started
        results.append(r)
    return results


def by_format(results: Iterable[FileResult]) -> dict[str, Score]:
    out: dict[str, Score] = {}
    for r in results:
        out.setdefault(r.label.format, Score()).add(r.score)
    return dict(sorted(out.items()))


def total(results: Iterable[FileResult]) -> Score:
    s = Score()
    for r in results:
        s.add(r.score)
    return s


def _row(name: str, s: Score, files: int | None = None) -> str:
    n = f"{files:>5}" if files is not None else " " * 5
    failed = f"{s.failed_shown}/{s.expected_failed}" if s.expected_failed else "-"
    return (
        f"{name:<26}{n} {s.expected:>7} {s.found:>7} {s.matched:>7} {100 * s.recall:>7.1f} "
        f"{100 * s.precision:>7.1f} {failed:>8} {s.seconds:>7.2f}"
    )


def report(results: Sequence[FileResult], worst: int = 12) -> str:
    head = f"{'format':<26}{'files':>5} {'labelled':>7} {'found':>7} {'matched':>7} {'recall%':>7} {'prec%':>7} {'failed':>8} {'sec':>7}"
    lines = [head, "-" * len(head)]
    counts = Counter(r.label.format for r in results)
    for name, s in by_format(results).items():
        lines.append(_row(name, s, counts[name]))
    lines.append("-" * len(head))
    lines.append(_row("ALL", total(results), len(results)))
    lines.append("")
    lines.append("failed: labelled failed edits found and shown failed / labelled failed edits")
    lines.append("")
    lines.append(f"worst files (by missed + false actions), up to {worst}:")
    ranked = sorted(results, key=lambda r: -(len(r.missed) + len(r.extra)))
    for r in ranked[:worst]:
        if not r.missed and not r.extra and not r.score.error:
            break
        s = r.score
        lines.append(
            f"  {r.label.path}: labelled {s.expected}, found {s.found}, matched {s.matched} "
            f"(missed {len(r.missed)}, false {len(r.extra)})"
            + (f" ERROR {s.error}" if s.error else "")
        )
    return "\n".join(lines)


def to_json(results: Sequence[FileResult]) -> dict[str, Any]:
    def sc(s: Score) -> dict[str, Any]:
        d = asdict(s)
        d["recall"] = round(s.recall, 4)
        d["precision"] = round(s.precision, 4)
        return d

    return {
        "overall": sc(total(results)),
        "formats": {k: sc(v) for k, v in by_format(results).items()},
        "files": [
            {
                "path": r.label.path,
                "format": r.label.format,
                **sc(r.score),
                "missed": [asdict(e) for e in r.missed],
                "false": [asdict(e) for e in r.extra],
            }
            for r in results
        ],
    }


def show(corpus: Path, label: Label) -> str:
    from action_lsp.cli.common import read_transcript

    found = found_edits(read_transcript(corpus / label.path))
    r = score(label, found)
    out = [
        f"{label.path} ({label.format}): labelled {r.score.expected}, found {r.score.found}, matched {r.score.matched}"
    ]
    out += [f"  missed  {e.kind:<7} {e.path}{' (failed)' if e.failed else ''}" for e in r.missed]
    out += [
        f"  false   {e.kind:<7} {e.path} line {e.line}{' (failed)' if e.failed else ''}"
        for e in r.extra
    ]
    out += ["  found:"] + [
        f"    line {e.line:>6} {e.kind:<7} {e.path}{' (failed)' if e.failed else ''}" for e in found
    ]
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "corpus", type=Path, help="the corpus directory (label paths are relative to it)"
    )
    ap.add_argument("labels", type=Path, help="the labels file (TOML)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--worst", type=int, default=12, help="how many worst files to list")
    ap.add_argument("--only", action="append", default=[], help="only this format (repeatable)")
    ap.add_argument("--show", help="print what was found and missed in this one labelled file")
    args = ap.parse_args(argv)
    labels = load_labels(args.labels)
    if args.only:
        labels = [lb for lb in labels if lb.format in args.only]
    if args.show:
        matching = [lb for lb in labels if lb.path == args.show]
        if not matching:
            print(f"{args.show}: not in {args.labels}", file=sys.stderr)
            return 2
        print(show(args.corpus, matching[0]))
        return 0
    results = run(args.corpus, labels)
    if args.json:
        json.dump(to_json(results), sys.stdout, indent=1)
        print()
    else:
        print(report(results, args.worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
