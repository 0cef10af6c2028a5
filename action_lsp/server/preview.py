"""Preview files: each diff the server shows is a new file in a private temporary directory.

The directory is made by :func:`tempfile.mkdtemp` (mode 0700, a name nobody can predict) once per
server and removed when the server exits. Each preview gets a fresh subdirectory (``mkdir``
fails rather than reuse one) holding ``NAME.INDEX.diff``, created with ``O_CREAT | O_EXCL |
O_NOFOLLOW`` and mode 0600: a planted file or symlink is never followed or overwritten, and an
editor that already shows an earlier preview of the same action is not left with a stale buffer.
"""

from __future__ import annotations

import atexit
import os
import re
from pathlib import Path

_UNSAFE = re.compile(r"[^\w.+-]+")


def safe_name(name: str) -> str:
    """A file name made of ``name``'s harmless characters (no separators, no leading dot)."""
    cleaned = _UNSAFE.sub("_", name).lstrip(".")[:80]
    return cleaned or "action"


class PreviewFiles:
    def __init__(self) -> None:
        self._dir: Path | None = None
        self._count = 0

    @property
    def folder(self) -> Path | None:
        return self._dir

    def _private_dir(self) -> Path:
        d = self._dir
        if d is not None:
            try:
                st = os.lstat(d)
                if st.st_uid == os.getuid() and (st.st_mode & 0o077) == 0 and os.path.isdir(d) and not os.path.islink(d):
                    return d
            except OSError:
                pass  # removed meanwhile (a temp cleaner): make a new one
        import shutil
        import tempfile  # (here, not at the server's start: they import bz2, lzma, random ...)

        # The Neovim plugin knows a preview by "action-lsp-preview" in its path.
        d = Path(tempfile.mkdtemp(prefix="action-lsp-preview-"))
        self._dir = d
        atexit.register(shutil.rmtree, d, True)
        return d

    def write(self, name: str, text: str) -> Path:
        """A new file ``…/N/name`` holding ``text``; never an existing file or a link."""
        base = self._private_dir()
        while True:
            self._count += 1
            sub = base / str(self._count)
            try:
                os.mkdir(sub, 0o700)
            except FileExistsError:
                continue
            break
        target = sub / safe_name(name)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(target, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        return target

    def remove(self) -> None:
        if self._dir is not None:
            import shutil

            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None
