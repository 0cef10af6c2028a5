"""``path-traversal``, ``absolute-path``, ``invalid-path``, ``protected-path``: what can be told
from a path's text.

The checks themselves are :func:`action_lsp.paths.check_path`, shared with the edit engine; this
rule places them in the transcript and adds the fix that makes an absolute path relative.
Symlinks that point out of the workspace need the file system; the edit engine checks those.

A session that writes every path absolute and records no working directory they lie under (an
exported chat, a converted trajectory) would get one ``absolute-path`` error per action: 165 in
a real one. Only the first absolute path under a place (its first two components: ``/Users/dev``,
``C:/Apps``, ``~``) is reported, saying that later ones there are not (:class:`FirstAbsolute`,
applied where a transcript's diagnostics are assembled, in document order: the same in the
editor, in ``check`` and in a stream). Nothing is weakened: the edit engine refuses every
absolute path by itself, whatever the transcript's diagnostics say, and forcing never lifts it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from ..model import Action, Diagnostic, Field, Fix, TextEdit
from ..paths import absolute_place, check_path
from . import RuleContext

PATH_FIELDS = ("path", "from", "to")


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if not action.kind.is_file_action and action.kind.value != "read_file":
            continue
        dialect = ctx.dialects.get(action.dialect)
        for name in dialect.path_fields if dialect is not None else PATH_FIELDS:
            f = action.fields.get(name)
            if f is not None and isinstance(f.value, str):
                problem = path_problem(f, ctx.roots)
                if problem is not None and not (
                    problem.code == "protected-path" and not action.kind.is_file_action
                ):  # reading .git/config changes nothing
                    yield problem


def path_problem(f: Field, roots: Sequence[str] = ()) -> Diagnostic | None:
    """The first thing wrong with the path in field ``f``, if any (see :mod:`action_lsp.paths`)."""
    path: str = f.value
    problem = check_path(path)
    if problem is None:
        return None
    span = f.span if len(f.span) else (f.key_span or f.span)
    if problem.start is not None and problem.end is not None:
        span = f.value_span(problem.start, problem.end)
    if problem.code == "absolute-path" and path.startswith(("/", "\\")) and not path.startswith(("//", "\\\\")):
        return _absolute(f, path, span, roots)
    if problem.code == "absolute-path":
        return _once(Diagnostic(problem.code, problem.message, span), path)
    return Diagnostic(problem.code, problem.message, span)


def _once(d: Diagnostic, path: str) -> Diagnostic:
    """``d`` saying that later absolute paths under the same place are not reported again."""
    place = absolute_place(path)
    d.message += (f". Nothing in the transcript maps it into the workspace (it records no working directory "
                  f"it lies under), so it is not applied; later absolute paths under `{place}` are not "
                  "applied either and are not reported again")
    d.data = {**(d.data or {}), "absolutePlace": place}
    return d


class FirstAbsolute:
    """A filter over a transcript's diagnostics in document order: each ``absolute-path``
    diagnostic is kept only when it is the first under its place (see the module's
    docstring); every other diagnostic is kept."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def keep(self, d: Diagnostic) -> bool:
        if d.code != "absolute-path" or not d.data:
            return True
        place = d.data.get("absolutePlace")
        if not isinstance(place, str):
            return True
        if place in self._seen:
            return False
        self._seen.add(place)
        return True


def _absolute(f: Field, path: str, span, roots: Sequence[str]) -> Diagnostic:
    fixes = []
    for root in roots:
        root_posix = PurePosixPath(os.path.normpath(root))
        candidate = PurePosixPath(os.path.normpath(path.replace("\\", "/")))
        try:
            rel = candidate.relative_to(root_posix)
        except ValueError:
            continue
        if str(rel) != ".":
            fixes.append(Fix(f"Make the path relative: {rel}", [TextEdit(f.span, str(rel))], True))
        break
    inside = " (it points inside the workspace)" if fixes else ""
    d = Diagnostic("absolute-path", f"`{path}` is absolute{inside}; use a path relative to the workspace", span, fixes=fixes)
    return _once(d, path)
