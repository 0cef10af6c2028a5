"""One list of findings per transcript: its own diagnostics and the workspace checks', merged once.

The transcript rules (:mod:`action_lsp.rules`) and the edit engine's workspace checks
(:func:`action_lsp.edit.plan_changes`) both validate action paths with
:func:`action_lsp.paths.check_path`, so a bad path is found by both. :func:`merge` keeps it once;
the command line (``check --root``) and the language server both call it.
"""

from __future__ import annotations

from collections.abc import Iterable

from .model import Diagnostic


def _same(a: Diagnostic, b: Diagnostic) -> bool:
    """The same problem said twice: one code, and one range holding the other."""
    if a.code != b.code:
        return False
    sa, sb = a.span, b.span
    return (sa.start <= sb.start and sb.end <= sa.end) or (sb.start <= sa.start and sa.end <= sb.end)


def _place(d: Diagnostic) -> object:
    return d.data.get("absolutePlace") if d.code == "absolute-path" and d.data else None


def workspace_only(transcript: Iterable[Diagnostic], workspace: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The workspace findings that do not repeat a transcript diagnostic; nor an absolute path
    under a place the transcript's ``absolute-path`` error already names (reported once per
    place: :mod:`action_lsp.rules.paths`)."""
    by_code: dict[str, list[Diagnostic]] = {}
    for d in transcript:
        by_code.setdefault(d.code, []).append(d)
    places = {_place(d) for d in by_code.get("absolute-path", ())} - {None}
    return [w for w in workspace
            if not any(_same(w, d) for d in by_code.get(w.code, ())) and (not places or _place(w) not in places)]


def merge(transcript: Iterable[Diagnostic], workspace: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Transcript and workspace diagnostics as one list in document order, each problem once."""
    own = list(transcript)
    out = own + workspace_only(own, workspace)
    out.sort(key=lambda d: (d.span.start, d.span.end))
    return out
