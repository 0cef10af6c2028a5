"""Long list answers (a large transcript's lenses, outline, folding ranges) are serialized item
by item, as the JSON encoder reaches them; the JSON must be what pygls would have sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from action_lsp.server.server import ITEMS_ONE_BY_ONE, ActionProtocol, create_server


def _pos(line: int, character: int = 0) -> types.Position:
    return types.Position(line=line, character=character)


def _range(line: int) -> types.Range:
    return types.Range(start=_pos(line, 2), end=_pos(line + 1, 5))


def _lenses(n: int) -> list[types.CodeLens]:
    return [
        types.CodeLens(
            range=_range(i),
            command=types.Command(title="Apply", command="action-lsp.apply", arguments=[{"uri": "file:///t.md", "action": i}])
            if i % 3
            else None,
            data=None if i % 2 else [i, "é\\"],
        )
        for i in range(n)
    ]


def _symbols(n: int) -> list[types.DocumentSymbol]:
    child = types.DocumentSymbol(name="write src/a.py", kind=types.SymbolKind.File, range=_range(1), selection_range=_range(1))
    return [
        types.DocumentSymbol(
            name=f"block {i}",
            detail="actions" if i % 2 else None,
            kind=types.SymbolKind.Namespace,
            range=_range(i),
            selection_range=_range(i),
            children=[child] if i % 4 == 0 else None,
        )
        for i in range(n)
    ]


def _folding(n: int) -> list[types.FoldingRange]:
    return [types.FoldingRange(start_line=i, end_line=i + 3, kind=types.FoldingRangeKind.Region if i % 2 else None) for i in range(n)]


@pytest.mark.parametrize(
    ("response_type", "result"),
    [
        (types.CodeLensResponse, _lenses(ITEMS_ONE_BY_ONE + 7)),
        (types.DocumentSymbolResponse, _symbols(ITEMS_ONE_BY_ONE * 2)),
        (types.FoldingRangeResponse, _folding(ITEMS_ONE_BY_ONE)),
        (types.CodeLensResponse, _lenses(3)),  # short: serialized whole, as before
    ],
)
def test_a_long_list_answer_is_the_json_pygls_would_send(response_type: Any, result: list[Any]) -> None:
    protocol = create_server().protocol
    assert isinstance(protocol, ActionProtocol)
    response = response_type(id=7, result=result, jsonrpc="2.0")
    ours = json.loads(json.dumps(response, default=protocol._serialize_message))
    assert ours == json.loads(json.dumps(default_converter().unstructure(response)))
    assert ours["id"] == 7 and len(ours["result"]) == len(result)
    assert "end_line" not in json.dumps(ours) and "selection_range" not in json.dumps(ours)  # LSP's names


def test_only_a_long_list_is_left_to_the_encoder() -> None:
    protocol = create_server().protocol
    long, short = _lenses(ITEMS_ONE_BY_ONE), _lenses(ITEMS_ONE_BY_ONE - 1)
    assert protocol._serialize_message(types.CodeLensResponse(id=1, result=long))["result"] is long
    assert isinstance(protocol._serialize_message(types.CodeLensResponse(id=1, result=short))["result"][0], dict)
