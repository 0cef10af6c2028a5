"""The cyclic garbage collector paused while the language server starts.

The start makes about 100,000 objects that live as long as the server (lsprotocol's 561
classes, their attributes and converters, the dialects, the scanner's tables), and each young
collection on the way walks what the collections before it kept: 70-100 ms of CPU of a start of
0.4-0.5 s, all of it before the answer to ``initialize``, which the editor waits for. ``action-lsp
serve`` pauses the collector (:func:`pause`) before its first import; once that answer is
written (the first step of ``server.warm_up``, or before the first message that asks for work)
:func:`resume` collects the start's garbage once (the classes attrs made and replaced: about
50,000 objects, 7 MB), moves what is left to the permanent generation (``gc.freeze``: no
collection walks it again, the first scan's included) and resumes the collector.
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
    gc.collect()
    gc.freeze()
    gc.enable()
    return True
