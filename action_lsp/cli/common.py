"""What the commands share: reading transcripts, walking directories, severities."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..codes import default_severity
from ..model import Diagnostic, Severity

# Files a directory walk treats as transcripts.
TRANSCRIPT_SUFFIXES = frozenset(
    {".md", ".markdown", ".mdx", ".txt", ".text", ".transcript", ".chat", ".log", ".json", ".jsonl"}
)
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache", ".pytest_cache"})


class CliError(Exception):
    """A problem to report in one line, with exit code 2."""


def read_transcript(path: Path) -> str:
    """The text of a transcript, or a :class:`CliError` saying clearly why not."""
    try:
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


def is_binary(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return b"\x00" in f.read(8192)
    except OSError:
        return False


def expand(paths: Iterable[str]) -> Iterator[Path]:
    """Files named, and transcript files under directories named (sorted, hidden dirs skipped).

    Raises :class:`CliError` for a path that does not exist or a directory with no transcript.
    """
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise CliError(f"{raw}: no such file or directory")
        if not path.is_dir():
            yield path
            continue
        found = skipped = 0
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            for name in sorted(files):
                file = Path(root) / name
                if file.suffix.lower() not in TRANSCRIPT_SUFFIXES:
                    continue
                if is_binary(file):
                    skipped += 1
                    continue
                found += 1
                yield file
        if not found:
            extra = f" ({skipped} binary file(s) skipped)" if skipped else ""
            suffixes = ", ".join(sorted(TRANSCRIPT_SUFFIXES))
            raise CliError(f"{raw}: no transcript files found{extra}; looked for {suffixes}")


def effective_severity(d: Diagnostic, overrides: dict[str, Severity | None]) -> Severity | None:
    """The severity a diagnostic is shown with; None when its code is turned off."""
    if d.code in overrides:
        return overrides[d.code]
    return d.severity if d.severity is not None else default_severity(d.code)


def parse_severity_overrides(items: Iterable[str]) -> dict[str, Severity | None]:
    from ..codes import CODES

    overrides: dict[str, Severity | None] = {}
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            code, sep, level = part.partition("=")
            code = code.strip()
            if not sep or code not in CODES:
                raise CliError(f"--severity {part!r}: expected CODE=LEVEL with a code from `action-lsp rules`")
            try:
                overrides[code] = Severity.parse(level)
            except ValueError as exc:
                raise CliError(f"--severity {part!r}: {exc}; use error, warning, information, hint or off") from None
    return overrides


def add_dialect_option(parser) -> None:
    from ..dialects import NAMES

    parser.add_argument(
        "--dialect",
        action="append",
        metavar="NAME",
        help=f"only these dialects (repeat or comma-separate): {', '.join(NAMES)}",
    )


def selected_dialects(values: list[str] | None) -> list[str] | None:
    from ..dialects import NAMES, declared

    if not values:
        return None
    known = (*NAMES, *(d.name for d in declared()))
    names = [n.strip() for v in values for n in v.split(",") if n.strip()]
    for n in names:
        if n not in known:
            raise CliError(f"unknown dialect {n!r}; known: {', '.join(known)}")
    return names


def declare_dialects(transcript: Path, root: Path | None = None) -> None:
    """Install the dialects the project's configuration declares (``.action-lsp.toml`` or
    ``[tool.action-lsp]``: the nearest at or above ``root``, else above the transcript)."""
    from ..project_config import ConfigError, use_for

    try:
        use_for(transcript, root)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
