"""The VS Code settings schema for dialects is generated from the registry and kept in step."""

from __future__ import annotations

import json
from pathlib import Path

from action_lsp import settings_schema
from action_lsp.dialects import ALL

PACKAGE_JSON = Path(__file__).resolve().parents[1] / "vscode-client" / "package.json"


def test_package_json_lists_every_builtin_dialect() -> None:
    """Fails when a dialect was added or described anew without regenerating:
    run ``python -m action_lsp.settings_schema``."""
    assert settings_schema.main(["--check", str(PACKAGE_JSON)]) == 0
    prop = json.loads(PACKAGE_JSON.read_text())["contributes"]["configuration"]["properties"]["actionLsp.dialects"]
    assert prop["items"]["enum"] == [d.name for d in ALL]
    assert prop["default"] == [d.name for d in ALL if d.default_enabled]  # aider-shell is off


def test_regeneration_touches_only_the_dialects_property(tmp_path: Path) -> None:
    stale = json.loads(PACKAGE_JSON.read_text())
    props = stale["contributes"]["configuration"]["properties"]
    props["actionLsp.dialects"]["items"]["enum"] = ["aether"]
    path = tmp_path / "package.json"
    path.write_text(json.dumps(stale, indent=2, ensure_ascii=False) + "\n")
    assert settings_schema.main(["--check", str(path)]) == 1
    assert settings_schema.main([str(path)]) == 0
    assert path.read_text() == PACKAGE_JSON.read_text()
