"""``invalid-value`` for text a file action would write that is not Unicode: a lone surrogate.

JSON may escape any UTF-16 code unit (``"\\udfff"``); one that is not half of a pair decodes to
a lone surrogate, which no UTF-8 file can hold. The diagnostic points at the first one of each
field (its escape in the transcript). The edit engine refuses such an action, forced or not
(:func:`first_surrogate`), so that it is never written, nor half-encoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from ..model import Action, Diagnostic, Field
from . import RuleContext

_SURROGATE = re.compile("[\ud800-\udfff]")


def check(actions: Sequence[Action], ctx: RuleContext) -> Iterable[Diagnostic]:
    for action in actions:
        if action.kind.is_file_action:
            yield from surrogates(action)


def surrogates(action: Action) -> Iterator[Diagnostic]:
    """One diagnostic per field of ``action``'s file view holding a lone surrogate."""
    for name, f in _texts(action):
        # (an ASCII string says so at no cost, and holds no surrogate: most code)
        found = None if f.value.isascii() else _SURROGATE.search(f.value)
        if found is not None:
            at = found.start()
            yield Diagnostic(
                "invalid-value",
                f"`{name}` holds a lone surrogate (U+{ord(found.group()):04X}, an escape that is "
                "half of a UTF-16 pair): it cannot be written as UTF-8 text",
                f.value_span(at, at + 1),
                data={"field": name, "surrogate": True},
            )


def first_surrogate(action: Action) -> Diagnostic | None:
    return next(surrogates(action), None)


def _texts(action: Action) -> Iterator[tuple[str, Field]]:
    """The string fields of the action as the edit engine reads it (its dialect's file view)."""
    from ..dialects import file_view

    view = file_view(action)
    if view is None:
        named = list(action.fields.items())
        pairs = [(e.search, e.replace) for e in action.edits]
    else:
        named = [(n, f) for n, f in (("path", view.path), ("to", view.to), ("content", view.content))
                 if f is not None]
        pairs = [(e.search, e.replace) for e in view.edits]
    for name, f in named:
        if isinstance(f.value, str):
            yield name, f
    for search, replace in pairs:
        for f in (search, replace):
            if isinstance(f.value, str):
                yield f.name or "replace", f
