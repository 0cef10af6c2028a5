"""The cyclic garbage collector paused while the language server starts.

The start makes about 100,000 objects that live as long as the server (lsprotocol's 561
classes, their attributes and converters, the dialects, the scanner's tables), and each young
collection on the way walks what the collections before it kept: 70-100 ms of CPU of a start of
0.4-0.5 s, all of it before the answer to ``initialize``, which the editor waits for. ``action-lsp
serve`` pauses the collector (:func:`pause`) before its first import; once that answer is
written and the warm-up (``server.warm_up``) has imported what the first open needs, or before
the first message that asks for work (right after it, for a ``didOpen``: its first diagnostics
come before NumPy's import, ``ActionLanguageServer.warm_up_now``), :func:`resume` moves everything the start made to the
oldest generation at once (``gc.freeze`` then ``gc.unfreeze``: the lists are moved, nothing is
walked, as ``document.gc_paused`` does after a large scan) and resumes the collector: no young
collection walks the start's objects again. The start's garbage (mostly the classes attrs made
and replaced: about 50,000 objects, 7 MB) is freed by the next full collection, as it would be
if it had lived through the collections of the start; collecting it at once would cost another
50-85 ms of CPU (measured: docs/performance.md, issue 19, tenth pass).
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Pause the collector for the start (if it runs: one that is off stays off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> bool:
    """End the start's pause (see the module doc); False when :func:`pause` did not pause it."""
    global _paused
    if not _paused:
        return False
    _paused = False
    gc.freeze()  # (every generation to the permanent one, then all of it to the oldest)
    gc.unfreeze()
    gc.enable()
    return True
