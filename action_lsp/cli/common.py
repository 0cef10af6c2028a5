"""What the commands share: reading transcripts (files, ``-`` for stdin), walking directories,
severities. Imports of the core stay inside functions: building the parser must stay cheap."""

from __future__ import annotations

import difflib
import fnmatch
import os
import stat
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..model import Diagnostic, Severity
    from ..project_root import Root

STDIN = "-"

# Files a directory walk treats as transcripts.
TRANSCRIPT_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdx", ".txt", ".text", ".transcript", ".chat", ".log", ".json", ".jsonl", ".traj"}
)
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


class CliError(Exception):
    """A problem to report in one line, with exit code 2."""


def read_transcript(path: Path, *, regular_only: bool = False) -> str:
    """The text of a transcript, or a :class:`CliError` saying clearly why not.

    ``-`` reads standard input. ``regular_only`` (files found by walking a directory): a FIFO,
    device or socket is refused instead of read, so a walk never blocks.
    """
    try:
        if str(path) == STDIN:
            data = sys.stdin.buffer.read()
        elif regular_only:
            data = _read_regular(path)
        else:
            data = path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise CliError(f"{path}: is a directory") from None
    except PermissionError:
        raise CliError(f"{path}: permission denied") from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read ({exc.strerror})") from None
    if b"\x00" in data[:8192]:
        raise CliError(f"{path}: is a binary file, not a transcript")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise CliError(
            f"{path}: is not UTF-8 text (byte 0x{data[exc.start]:02x} at line {line}); "
            "convert it to UTF-8 first"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text  # editors drop the BOM too


PIECE = 1 << 18  # bytes read at a time by transcript_pieces


def transcript_pieces(path: Path, chunk: int | None = None) -> Iterator[str]:
    """:func:`read_transcript` of a file, in decoded pieces: for a big file, without holding
    its bytes and its text at once (``check`` streams a JSON Lines session window by window).

    The file is read twice: a first pass decodes it and throws the text away, so that a file
    that cannot be checked (missing, binary, not UTF-8) raises the same :class:`CliError` as
    :func:`read_transcript`, before any piece is handed out; the second pass yields the pieces
    (the bytes the first pass saw, a leading BOM dropped).
    """
    import codecs

    chunk = chunk or PIECE
    try:
        size = 0
        with path.open("rb") as f:
            head = f.read(8192)
            if b"\x00" in head:
                raise ValueError("binary")
            check = codecs.getincrementaldecoder("utf-8")()
            data = head
            while data:
                size += len(data)
                check.decode(data)
                data = f.read(chunk)
            check.decode(b"", True)
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        read_transcript(path)  # raises with the message a whole read gives
        raise CliError(f"{path}: changed while it was read") from None
    return _pieces(path, size, chunk)


def _pieces(path: Path, size: int, chunk: int) -> Iterator[str]:
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8")()
    first = True
    with path.open("rb") as f:
        while size > 0:
            data = f.read(min(chunk, size))
            size -= len(data)
            text = decoder.decode(data, not data or size <= 0)
            if first and text:
                first = False
                if text.startswith("\ufeff"):
                    text = text[1:]  # as read_transcript does
            if text:
                yield text
            if not data:
                break


def _read_regular(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        kind = special_kind(os.fstat(fd).st_mode)
        if kind:
            raise CliError(f"{path}: skipped, not a regular file ({kind})")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def special_kind(mode: int) -> str | None:
    """What a file that is not a regular file is (``FIFO``, ``socket``, ...), else None."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISDIR(mode):
        return "directory"
    return "special file"


def is_binary(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return b"\x00" in f.read(8192)
    except OSError:
        return False


@dataclass(frozen=True, slots=True)
class Exclude:
    """Globs a directory walk skips, as ruff's ``exclude`` / ``extend-exclude``: a pattern
    without ``/`` matches a file or directory name anywhere (``docs``, ``*.txt``); one with
    ``/`` matches the path relative to its base (the configuration's directory, or the
    current one for the command line: ``site/_posts``). Hidden directories are always skipped."""

    patterns: tuple[tuple[str, str], ...] = tuple((name, "") for name in sorted(SKIP_DIRS))

    @classmethod
    def of(
        cls,
        exclude: tuple[tuple[str, str], ...] | None,
        extend: Iterable[tuple[str, str]] = (),
    ) -> Exclude:
        """``exclude`` (None: the default names) plus ``extend``; each pattern with its base."""
        base = cls().patterns if exclude is None else exclude
        return cls((*base, *extend))

    def matches(self, path: Path) -> bool:
        name = path.name
        absolute = ""
        for pattern, base in self.patterns:
            pattern = pattern.rstrip("/")
            if "/" not in pattern:
                if fnmatch.fnmatchcase(name, pattern):
                    return True
                continue
            absolute = absolute or os.path.abspath(path)
            rel = os.path.relpath(absolute, os.path.abspath(base or "."))
            if not rel.startswith("..") and fnmatch.fnmatchcase(Path(rel).as_posix(), pattern.removeprefix("./")):
                return True
        return False


def patterns(values: Iterable[str] | None, base: str = "") -> tuple[tuple[str, str], ...] | None:
    """Comma-separated or repeated globs of an option, each with its base; None if not given."""
    if values is None:
        return None
    return tuple((g.strip(), base) for v in values for g in v.split(",") if g.strip())


def expand(paths: Iterable[str], exclude: Exclude | None = None) -> Iterator[Path | CliError]:
    """Files named, and transcript files under directories named (sorted, hidden dirs and
    what ``exclude`` matches skipped; a file named is taken even if excluded, as in ruff).

    ``-`` is standard input. Inside a directory only regular files are taken: FIFOs, devices,
    sockets and dangling links are skipped (reading one could block forever), each with a line on
    stderr. A path that does not exist or a directory with no transcript is a
    :class:`CliError` in the sequence, where the path was: the others are still taken.
    """
    exclude = exclude or Exclude()
    for raw in paths:
        path = Path(raw)
        if raw == STDIN:
            yield path
            continue
        if not path.exists():
            yield CliError(f"{raw}: no such file or directory")
            continue
        if not path.is_dir():
            yield path
            continue
        found = skipped = 0
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(
                d for d in dirs if not d.startswith(".") and not exclude.matches(Path(root) / d)
            )
            for name in sorted(files):
                file = Path(root) / name
                if file.suffix.lower() not in TRANSCRIPT_SUFFIXES or exclude.matches(file):
                    continue
                try:
                    kind = special_kind(file.stat().st_mode)
                except OSError as exc:
                    kind = f"cannot stat: {exc.strerror}"
                if kind:
                    skipped += 1
                    _note(f"{file}: skipped, not a regular file ({kind})")
                    continue
                if is_binary(file):
                    skipped += 1
                    continue
                found += 1
                yield file
        if not found:
            extra = f" ({skipped} binary or special {'file' if skipped == 1 else 'files'} skipped)" if skipped else ""
            suffixes = ", ".join(sorted(TRANSCRIPT_SUFFIXES))
            yield CliError(f"{raw}: no transcript files found{extra}; looked for {suffixes}")


def _note(message: str) -> None:
    from .output import clean

    print(f"action-lsp: {clean(message)}", file=sys.stderr)


def effective_severity(d: Diagnostic, overrides: dict[str, Severity | None]) -> Severity | None:
    """The severity a diagnostic is shown with; None when its code is turned off."""
    from ..codes import default_severity

    if d.code in overrides:
        return overrides[d.code]
    return d.severity if d.severity is not None else default_severity(d.code)


def parse_severity_overrides(items: Iterable[str]) -> dict[str, Severity | None]:
    from ..codes import CODES
    from ..model import Severity

    overrides: dict[str, Severity | None] = {}
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            code, sep, level = part.partition("=")
            code = code.strip()
            if not sep:
                raise CliError(f"--severity {part!r}: expected CODE=LEVEL with a code from `action-lsp rules`")
            if code not in CODES:
                near = difflib.get_close_matches(code, CODES, n=1)
                hint = f"; did you mean {near[0]}?" if near else "; `action-lsp rules` lists them"
                raise CliError(f"--severity {part!r}: unknown code {code!r}{hint}")
            try:
                overrides[code] = Severity.parse(level)
            except ValueError as exc:
                raise CliError(f"--severity {part!r}: {exc}; use error, warning, information, hint or off") from None
    return overrides


def add_dialect_option(parser) -> None:
    parser.add_argument(
        "--dialect",
        action="append",
        metavar="NAME",
        # tests/test_cli_paths.py checks that this names every dialect off by default
        help="only these dialects (repeat or comma-separate; the default is every built-in "
        "dialect except aider-shell, plus those the project declares; an unknown name gets the "
        "list of known ones)",
    )


def add_color_option(parser) -> None:
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the output: auto (the default) colours a terminal unless NO_COLOR is set",
    )


def add_stdin_filename_option(parser) -> None:
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the name to report for a transcript read from standard input (`-`)",
    )


def display_name(path: Path, stdin_filename: str | None) -> str:
    """How a transcript is named in the output: ``--stdin-filename`` for ``-``."""
    if str(path) == STDIN:
        return stdin_filename or STDIN
    return str(path)


def selected_dialects(values: list[str] | None, also: Iterable[str] = ()) -> list[str] | None:
    """The ``--dialect`` names; ``also``: declared names known besides the installed ones."""
    from ..dialects import NAMES, declared

    if not values:
        return None
    known = list(dict.fromkeys((*NAMES, *(d.name for d in declared()), *also)))
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    for n in names:
        if n not in known:
            raise CliError(f"unknown dialect {n!r}; known: {', '.join(known)}")
    return names


def find_workspace(transcript: Path, given: str | None = None) -> Root | None:
    """The workspace root of a transcript: ``--root`` when given, else the one
    :mod:`action_lsp.project_root` finds above it (above the current directory for ``-``)."""
    from ..project_root import Root, find

    if given:
        root = Path(given)
        if not root.is_dir():
            raise CliError(f"--root {given}: not a directory")
        return Root(root, "--root")
    return find(Path.cwd() if str(transcript) == STDIN else transcript)


def configuration_of(root: Path | None) -> Path | None:
    """The configuration file of a workspace root (``.action-lsp.toml`` or a ``pyproject.toml``
    with ``[tool.action-lsp]`` in the root itself; never one above it), or None."""
    from ..project_config import config_in

    if root is None:
        return None
    try:
        found = config_in(root)
    except OSError:
        return None
    return found.resolve() if found is not None else None


def declare_dialects(config: Path | None, *, say: bool = True) -> None:
    """Install the dialects ``config`` declares (None: none), and name the file on stderr."""
    from ..project_config import ConfigError, use

    try:
        use(config)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    if config is not None and say:
        say_configuration(config)


def say_configuration(config: Path) -> None:
    from .output import clean

    print(f"configuration: {clean(str(config))}", file=sys.stderr)
