"""One copy of each repeated short string: keys, tag and attribute names, group labels, paths
and types, which a transcript repeats tens of thousands of times and an open document keeps
with every action (a 10 MB dense transcript held 90,231 strings of 1,781 distinct values).

Not ``sys.intern``: from Python 3.12.0 to 3.12.5 interned strings are immortal (CPython
gh-113993), so a language server reading transcripts for days would keep every distinct string
it ever interned. This table is bounded instead: past ``LIMIT`` entries it starts again (strings
shared before stay shared where they are, and are freed with what holds them).
"""

from __future__ import annotations

LIMIT = 1 << 16
table: dict[str, str] = {}


def share(s: str) -> str:
    """The one copy of ``s`` the table holds (``s`` itself, the first time)."""
    found = table.get(s)
    if found is not None:
        return found
    if len(table) >= LIMIT:
        table.clear()
    table[s] = s
    return s
