"""The command line: one module per command, each with ``add_parser(subparsers)`` and
``run(args) -> int``. Exit codes (contract): 0 success, 1 error-severity findings or an action
that could not be applied, 2 usage error or unreadable input."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from .. import __version__
from .common import CliError

# The registry of commands, in the order ``--help`` lists them.
COMMANDS = ("check", "parse", "apply", "rules", "serve")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="action-lsp",
        description="Parse, check and apply the actions written into LLM agent transcripts.",
    )
    parser.add_argument("--version", action="version", version=f"action-lsp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:  # a command whose module is not installed
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CliError as exc:
        print(f"action-lsp {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `action-lsp parse x | head`
        return 0
    except KeyboardInterrupt:
        return 130
