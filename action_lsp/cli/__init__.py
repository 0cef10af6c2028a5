"""The command line: one module per command, each with ``add_parser(subparsers)`` and
``run(args) -> int``. Exit codes (contract): 0 success, 1 error-severity findings or an action
that could not be applied, 2 usage error or unreadable input.

Importing this package and building the parser imports nothing heavy (no numpy, tree-sitter,
rapidfuzz or pygls): ``action-lsp --help`` must answer at once. Each command imports the core in
its ``run``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__
from .common import CliError

# The registry of commands, in the order ``--help`` lists them.
COMMANDS = ("check", "parse", "apply", "rules", "serve")


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="action-lsp",
        description="Parse, check and apply the actions written into LLM agent transcripts.",
        epilog="Run `action-lsp COMMAND --help` for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"action-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    commands: dict[str, argparse.ArgumentParser] = {}
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a command whose module is not installed
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.add_parser(sub)
        commands[name] = sub.choices[name]
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # never a UnicodeEncodeError on odd input
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    parser, commands = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # an unknown option of a command: that command's usage, not the top level's
        commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
    try:
        return int(args.run(args))
    except CliError as exc:
        from .output import clean

        print(f"action-lsp {args.command}: {clean(str(exc))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `action-lsp parse x | head`
        _quiet_broken_pipe()
        return 0
    except KeyboardInterrupt:
        return 130


def _quiet_broken_pipe() -> None:
    """After the reader went away, make the interpreter's final flush silent too."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
