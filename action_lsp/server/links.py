"""``textDocument/documentLink``: the path of a file action opens the file, when it exists."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from .commands import file_uri
from .convert import span_range

if TYPE_CHECKING:
    from .server import ActionLanguageServer


def register(ls: ActionLanguageServer) -> None:
    @ls.handle(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    def document_link(params: types.DocumentLinkParams) -> list[types.DocumentLink]:
        from ..edit import Target

        od = ls.document(params.text_document.uri)
        ws = ls.workspace_for(od)
        tooltips = ls.client_has("text_document.document_link.tooltip_support")
        out: list[types.DocumentLink] = []
        for action in od.analysis().actions:
            f = action.fields.get("path")
            if f is None or not isinstance(f.value, str) or not f.value.strip():
                continue
            target = ws.resolve(f.value)
            if not isinstance(target, Target) or not target.path.is_file():
                continue
            out.append(
                types.DocumentLink(
                    range=span_range(od.doc.lines, f.span, ls.encoding),
                    target=file_uri(target.path),
                    tooltip=f"Open {target.rel}" if tooltips else None,
                )
            )
        return out
