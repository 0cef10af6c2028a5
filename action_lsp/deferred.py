"""Modules imported when first used, not when the modules that use them are imported.

The language server's start imports every module on the way to answering ``initialize``, and
the client waits for that answer before it sends the first ``didOpen``; what the first open
alone needs (NumPy for the line index, tree-sitter for the code checks) is imported after the
answer instead, while the client prepares the document (``server.warm_up``), or at its first
use if that comes sooner. A module that uses one writes::

    if TYPE_CHECKING:
        import numpy as np
    else:
        from .deferred import numpy as np

and uses ``np.`` as before: each name is looked up in the real module once, then kept on the
stand-in (a plain attribute, as fast as the module's own).
"""

from __future__ import annotations

import importlib
from typing import Any


class Deferred:
    """A stand-in for the module ``name``: importing it at the first attribute asked for."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # (copy, pickle and the like probe for these)
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self._name), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<{self._name}, imported at first use>"


numpy = Deferred("numpy")
tree_sitter = Deferred("tree_sitter")

# What the first open of a document needs and the start does not: see ``server.warm_up``.
# msgspec decodes a long ``didOpen`` (``server/framing.py``) before anything else reads it, and
# its import (10-40 ms) was on that way.
FIRST_OPEN = ("msgspec", "numpy", "tree_sitter", "rapidfuzz.distance")
