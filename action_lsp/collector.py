"""The cyclic garbage collector paused while the language server starts.

The start makes about 100,000 objects that live as long as the server (lsprotocol's 561
classes, their attributes and converters, the dialects, the scanner's tables), and each young
collection on the way walks what the collections before it kept: 70-100 ms of CPU of a start of
0.4-0.5 s, all of it before the answer to ``initialize``, which the editor waits for. ``action-lsp
serve`` pauses the collector (:func:`pause`) before its first import; once that answer is
written, the warm-up (``server.warm_up``) imports what the first open needs, then
:func:`resume` collects the start's garbage once (mostly the classes attrs made and replaced:
about 50,000 objects, 7 MB, 25-50 ms), moves what is left to the permanent generation
(``gc.freeze``: no later collection walks it, the first scan's included) and resumes the
collector. When a client asks for work before the warm-up is done (a ``didOpen`` sent at once),
the collector resumes without that collection (``collect=False``): the work does not wait for
it, and the start's garbage stays, frozen (at most those 7 MB, once).
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


def resume(collect: bool = True) -> bool:
    """End the start's pause (see the module doc); False when :func:`pause` did not pause it."""
    global _paused
    if not _paused:
        return False
    _paused = False
    if collect:
        gc.collect()
    gc.freeze()
    gc.enable()
    return True
