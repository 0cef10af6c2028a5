"""Settings parsing (unit) and encoding preference."""

from __future__ import annotations

from lsprotocol import types

from action_lsp.model import Severity
from action_lsp.server.config import Settings
from action_lsp.server.server import prefer_utf8


def test_settings_from_dict_and_wrapped() -> None:
    problems: list[str] = []
    s = Settings.from_dict(
        {
            "actionLsp": {
                "dialects": ["actions-json", "nope"],
                "severity": {"repetition": "off", "unknown-field": "error", "x": "loud"},
                "allowOverwrite": True,
                "workspaceRoots": ["../vendor"],
                "docsUrl": "https://example.org/rules",
            }
        },
        problems,
    )
    assert s.dialects == ("actions-json",)
    assert s.severity_of("repetition") is None
    assert s.severity_of("unknown-field") is Severity.ERROR
    assert s.severity_of("bad-json") is Severity.ERROR
    assert s.severity_of("search-fuzzy") is Severity.INFORMATION
    assert s.allow_overwrite and s.workspace_roots == ("../vendor",)
    assert s.docs_url == "https://example.org/rules"
    assert len(problems) == 2  # the unknown dialect and the bad severity


def test_defaults() -> None:
    s = Settings.from_dict(None)
    assert s == Settings() and s.dialects is None and not s.allow_overwrite


def test_prefer_utf8_then_utf16() -> None:
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-32", "utf-16", "utf-8"])
    )
    prefer_utf8(caps)
    assert caps.general is not None and caps.general.position_encodings[0] == "utf-8"
    caps = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=["utf-32", "utf-16"])
    )
    prefer_utf8(caps)
    assert caps.general is not None and caps.general.position_encodings[0] == "utf-16"
