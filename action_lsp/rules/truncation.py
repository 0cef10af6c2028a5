"""``truncated-content``: a whole-file write whose content elides code with a placeholder.

Lazy models write ``// ... rest of the code unchanged ...`` or ``# existing code here`` into
a whole file instead of the code; written as is, the placeholder replaces that code and the
file loses it (Cline and Roo Code detect such "code omissions" before they write). Here: a
comment line of a create or write action's content that says code was left out -- an ellipsis
or an omission word next to a word for code (``rest``, ``existing``, ``unchanged``,
``remaining`` ... ``code``, ``implementation``, ``methods`` ...). The range is the placeholder
line. The edit engine refuses to apply such a write unless forced; with the old file at hand
it also reports a write that drops most of the file's definitions
(:func:`dropped_definitions`).

Each line is looked at once, with anchored matches (linear in the content).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..dialects import file_view
from ..model import Action, Diagnostic, Field
from ..placeholders import placeholder_lines
from . import RuleContext

__all__ = ["check", "dropped_definitions", "lines_added_since", "placeholder_lines", "truncation"]


def truncation(content: Field, what: str) -> Diagnostic | None:
    """``truncated-content`` for the first placeholder of ``content``, if any."""
    if not isinstance(content.value, str):
        return None
    for start, end in placeholder_lines(content.value):
        line = content.value[start:end]
        return Diagnostic(
            "truncated-content",
            f"`{line.strip()}` stands for code the model left out: writing {what} as is "
            "replaces that code with this comment; write the whole file, or change only "
            "parts of it with search/replace",
            content.value_span(start, end),
            data={"line": content.value.count("\n", 0, start) + 1},
        )
    return None


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if not action.kind.is_file_action:
            continue
        view = file_view(action)
        if view is None or view.content is None or view.op not in ("create", "write"):
            continue
        if view.op == "write" and view.rules.snippet:
            continue  # a chat answer: the edit engine merges it, or refuses (lazy-ambiguous)
        found = truncation(view.content, str(view.path.value))
        if found is not None:
            yield found


def dropped_definitions(old: str, new: str, path: str) -> tuple[int, int] | None:
    """``(kept, before)`` when a whole-file write keeps fewer than half of the old file's
    named definitions (at least 4 before), else None."""
    from ..syntax import language_for, parse_ok
    from ..syntax.tokens import definitions

    lang = language_for(path=path)
    if lang is None or lang.verdict(new) == "off":
        return None  # a grammar not judged (C, C++, Markdown) may miss what a write keeps
    try:
        if lang.verdict(new) == "warning" and not parse_ok(new, lang):
            return None  # definitions inside code the grammar rejects are not seen
        before = {(d.kind, d.name) for d in definitions(old, lang)}
        if len(before) < 4:
            return None
        after = {(d.kind, d.name) for d in definitions(new, lang)}
    except Exception:
        return None
    kept = len(before & after)
    return (kept, len(before)) if kept * 2 < len(before) else None


def _said(text: str) -> list[str]:
    """The lines of ``text`` that say something, without their indentation."""
    return [s for s in (line.strip() for line in text.splitlines()) if re.search(r"\w", s)]


def lines_added_since(old: str, new: str) -> int | None:
    """How many lines ``old`` holds besides every line of ``new`` (in order, other lines
    between): a file written as ``new`` to which lines were added since -- writing ``new``
    again drops them. None when ``new`` is not all there, or ``old`` has nothing more."""
    want = _said(new)
    if not want:
        return None
    have = _said(old)
    it = iter(have)
    if not all(any(line == h for h in it) for line in want):
        return None
    return (len(have) - len(want)) or None
