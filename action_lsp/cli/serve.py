"""``action-lsp serve [--stdio | --tcp HOST:PORT]``: run the language server."""

from __future__ import annotations

import argparse
from typing import Any

from .common import CliError


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser(
        "serve",
        help="run the language server (stdio by default)",
        description="Run the action-lsp language server. Editors start it with `action-lsp serve`; "
        "it speaks LSP over stdin/stdout unless --tcp is given.",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    mode.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead")
    p.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="level of the log written to stderr (default: WARNING)",
    )
    p.set_defaults(run=run)
    return p


def _host_port(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit():
        raise CliError(f"--tcp expects HOST:PORT, got {value!r}")
    return host or "127.0.0.1", int(port)


def run(args: argparse.Namespace) -> int:
    import logging

    tcp = _host_port(args.tcp) if args.tcp else None  # a usage error before the slow imports
    logging.basicConfig(level=getattr(logging, args.log_level), format="%(levelname)s %(name)s: %(message)s")
    from .. import codecache, collector

    collector.pause()  # (until initialize is answered: see collector.py)
    early = None
    if tcp is None:  # (the answer to initialize, when kept, before the imports: see early_init.py)
        import sys

        from ..early_init import answer

        early = answer(sys.stdin.buffer, sys.stdout.buffer)
    codecache.install()  # (before lsprotocol is imported: see codecache.py)
    from ..server import create_server
    from ..server.framing import serve_tcp
    from ..server.stdio import serve_stdio

    server = create_server()
    if tcp is not None:
        serve_tcp(server, *tcp)
    else:
        serve_stdio(server, early=early)
    return 0
