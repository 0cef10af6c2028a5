"""Model → lsprotocol conversions, always through the negotiated position encoding.

Offsets become positions only here (via :mod:`action_lsp.text`); the server never splits
lines itself.
"""

from __future__ import annotations

import functools
from typing import Any

from lsprotocol import types

from .. import codes
from ..model import Diagnostic, Span
from ..text import Encoding, Position, Range, _Positions
from .config import Settings

SOURCE = "action-lsp"


def encoding_of(kind: str | types.PositionEncodingKind | None) -> Encoding:
    value = kind.value if isinstance(kind, types.PositionEncodingKind) else kind
    if value == "utf-8":
        return "utf-8"
    if value == "utf-32":
        return "utf-32"
    return "utf-16"


def lsp_position(p: Position) -> types.Position:
    return types.Position(line=p.line, character=p.character)


def lsp_range(r: Range) -> types.Range:
    return types.Range(start=lsp_position(r.start), end=lsp_position(r.end))


def span_range(lines: _Positions, span: Span, enc: Encoding) -> types.Range:
    return lsp_range(lines.range(span, enc))


def offset_of(lines: _Positions, pos: types.Position, enc: Encoding) -> int:
    return lines.offset(Position(pos.line, pos.character), enc)


def span_of(lines: _Positions, rng: types.Range, enc: Encoding) -> Span:
    return Span(offset_of(lines, rng.start, enc), offset_of(lines, rng.end, enc))


_SEVERITY = {
    1: types.DiagnosticSeverity.Error,
    2: types.DiagnosticSeverity.Warning,
    3: types.DiagnosticSeverity.Information,
    4: types.DiagnosticSeverity.Hint,
}


def diagnostic(
    d: Diagnostic, lines: _Positions, enc: Encoding, settings: Settings, uri: str
) -> types.Diagnostic | None:
    """The LSP form of ``d``, or None when its code is turned off in the settings."""
    severity = settings.severity_of(d.code, d.severity)
    if severity is None:
        return None
    data: dict[str, Any] = {"code": d.code}
    if d.data:
        data.update({k: v for k, v in d.data.items() if _jsonable(v)})
    if d.fixes:
        data["fixes"] = [f.title for f in d.fixes]
    related = None
    if d.related:
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri, range=span_range(lines, s, enc)), message=m
            )
            for s, m in d.related
        ]
    return types.Diagnostic(
        range=span_range(lines, d.span, enc),
        message=d.message,
        severity=_SEVERITY[int(severity)],
        code=d.code,
        code_description=_code_description(d.code, settings.docs_url),
        source=SOURCE,
        related_information=related,
        data=data,
    )


@functools.lru_cache(maxsize=1024)
def _code_description(code: str, base: str | None) -> types.CodeDescription:
    """One link object per code, shared by its diagnostics (never changed once made)."""
    return types.CodeDescription(href=codes.docs_url(code, base))


def _jsonable(v: Any) -> bool:
    if v is None or isinstance(v, str | int | float | bool):
        return True
    if isinstance(v, list | tuple):
        return all(_jsonable(x) for x in v)
    if isinstance(v, dict):
        return all(isinstance(k, str) and _jsonable(x) for k, x in v.items())
    return False


def shift_lines(d: types.Diagnostic, delta: int) -> types.Diagnostic:
    """``d`` moved ``delta`` lines down (text above it gained or lost lines)."""
    if not delta:
        return d
    r = d.range
    moved = types.Range(
        start=types.Position(line=r.start.line + delta, character=r.start.character),
        end=types.Position(line=r.end.line + delta, character=r.end.character),
    )
    related = d.related_information
    if related:
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(
                    uri=ri.location.uri,
                    range=types.Range(
                        start=types.Position(
                            line=ri.location.range.start.line + delta,
                            character=ri.location.range.start.character,
                        ),
                        end=types.Position(
                            line=ri.location.range.end.line + delta,
                            character=ri.location.range.end.character,
                        ),
                    ),
                ),
                message=ri.message,
            )
            for ri in related
        ]
    return types.Diagnostic(
        range=moved,
        message=d.message,
        severity=d.severity,
        code=d.code,
        code_description=d.code_description,
        source=d.source,
        related_information=related,
        data=d.data,
    )


def _range_json(r: types.Range) -> dict[str, Any]:
    start, end = r.start, r.end
    return {"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}}


def diagnostic_json(d: types.Diagnostic) -> dict[str, Any]:
    """``d`` as the JSON value lsprotocol's converter makes of it (the same keys in the same
    order, None left out), written directly: the converter's generic unstructuring cost about
    20 µs a diagnostic, and its generated hooks were made on the way to the first publish.
    Registered on the server's converter (:func:`converter`); ``tests/server/test_serialize.py``
    compares the two."""
    out: dict[str, Any] = {"range": _range_json(d.range), "message": d.message}
    if d.severity is not None:
        out["severity"] = int(d.severity)
    if d.code is not None:
        out["code"] = d.code
    if d.code_description is not None:
        out["codeDescription"] = {"href": d.code_description.href}
    if d.source is not None:
        out["source"] = d.source
    if d.tags is not None:
        out["tags"] = [int(t) for t in d.tags]
    if d.related_information is not None:
        out["relatedInformation"] = [
            {"location": {"uri": ri.location.uri, "range": _range_json(ri.location.range)}, "message": ri.message}
            for ri in d.related_information
        ]
    if d.data is not None:
        out["data"] = d.data
    return out


def converter() -> Any:
    """pygls's converter, with :func:`diagnostic_json` as the unstructure hook of
    ``Diagnostic`` (cattrs' supported way; pygls takes it as ``converter_factory``)."""
    from pygls.protocol import default_converter

    made = default_converter()
    made.register_unstructure_hook(types.Diagnostic, diagnostic_json)
    return made
