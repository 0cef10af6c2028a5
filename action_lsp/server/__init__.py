"""The language server: a thin pygls front over the core, one module per LSP feature.

``create_server()`` builds it; ``action-lsp serve`` runs it (see docs/server.md).
"""

from __future__ import annotations

from .server import ActionLanguageServer, create_server

__all__ = ["ActionLanguageServer", "create_server"]
