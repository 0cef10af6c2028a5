"""Does a declared action's kind agree with its name? (see docs/declared-dialects.md)

A configuration that declares ``<create>`` as a ``delete`` (or ``delete_file`` as a ``create``)
makes a harmless-looking transcript destroy files, so such a table is refused: the words of an
action's type name and tag (split at ``_``, ``-``, ``.``, ``:`` and lower-to-upper case changes)
that name a file operation must include one its kind may carry out, and a ``delete`` must say
so in its name. Kinds that change no file (read, command, code, other) are not checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# The file operation each word says.
_SAYS: dict[str, str] = {
    **dict.fromkeys(("create", "new", "add", "touch", "make", "mkfile", "generate"), "create"),
    **dict.fromkeys(("write", "save", "overwrite", "put", "dump"), "write"),
    **dict.fromkeys(("modify", "edit", "replace", "update", "patch", "change", "insert", "append"), "modify"),
    **dict.fromkeys(("delete", "remove", "rm", "unlink", "del", "erase", "destroy", "trash"), "delete"),
    **dict.fromkeys(("rename", "move", "mv"), "rename"),
    **dict.fromkeys(("mkdir", "makedirs"), "mkdir"),
    **dict.fromkeys(("read", "view", "cat", "open", "show", "get", "load", "fetch"), "read"),
    **dict.fromkeys(("run", "exec", "execute", "command", "shell", "bash", "sh", "cmd"), "command"),
}
# What a name may say for each kind that changes files. A modify only replaces text its search
# finds, so its name may say almost anything about text ("remove_lines", "add_import").
_MAY_SAY: dict[str, frozenset[str]] = {
    "create": frozenset({"create", "write", "modify"}),
    "write": frozenset({"create", "write", "modify"}),
    "modify": frozenset({"create", "write", "modify", "delete"}),
    "delete": frozenset({"delete"}),
    "rename": frozenset({"rename"}),
    "mkdir": frozenset({"mkdir", "create"}),
}
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
DELETE_WORDS = "delete, remove, rm, unlink, ..."


def says(name: str) -> list[str]:
    """The file operations the words of ``name`` say, in order, each once."""
    found = (_SAYS.get(w.lower()) for w in _WORD.findall(name))
    return list(dict.fromkeys(s for s in found if s is not None))


def contradiction(kind: str, names: Iterable[str]) -> str | None:
    """Why ``kind`` cannot be the kind of an action named ``names`` (its type name and tag),
    or None when it can."""
    allowed = _MAY_SAY.get(kind)
    if allowed is None:
        return None
    names = list(dict.fromkeys(names))
    for name in names:
        said = says(name)
        if said and not allowed.intersection(said):
            return f"{kind!r} contradicts the name {name!r}, which says {said[0]}"
    if kind == "delete" and not any("delete" in says(n) for n in names):
        shown = " or ".join(repr(n) for n in names)
        return f"a delete action's name must say so ({DELETE_WORDS}); {shown} does not"
    return None
