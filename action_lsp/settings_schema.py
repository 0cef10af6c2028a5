"""The VS Code settings schema for ``actionLsp.dialects``, generated from the dialect registry.

``python -m action_lsp.settings_schema`` rewrites that one property of
``vscode-client/package.json`` (names, one-line descriptions, all on by default) and leaves
the rest of the file as it is; ``--check`` exits 1 when the file is stale. A test runs the
check, so adding a dialect without regenerating fails the suite.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PACKAGE_JSON = Path(__file__).resolve().parent.parent / "vscode-client" / "package.json"
PROPERTY = "actionLsp.dialects"


def dialects_property() -> dict[str, Any]:
    """The ``actionLsp.dialects`` setting: the built-in dialects (plug-ins installed where this
    runs are left out: the shipped client lists what ships)."""
    from .dialects import load_dialects

    builtin = load_dialects(entry_points=[])
    names = [d.name for d in builtin]
    return {
        "type": "array",
        "items": {
            "type": "string",
            "enum": names,
            "enumDescriptions": [d.description for d in builtin],
        },
        "uniqueItems": True,
        "default": [d.name for d in builtin if d.default_enabled],
        "description": "Dialects of actions the server recognises (all but those marked off by "
        "default). Remove one to ignore its constructs. Dialects installed as plug-ins (the `action_lsp.dialects` "
        "entry point group) are accepted too.",
    }


def render(package_json: str) -> str:
    """``package_json`` with its dialects property regenerated."""
    data = json.loads(package_json)
    data["contributes"]["configuration"]["properties"][PROPERTY] = dialects_property()
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m action_lsp.settings_schema", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 1 if package.json is stale")
    parser.add_argument("path", nargs="?", type=Path, default=PACKAGE_JSON)
    args = parser.parse_args(argv)
    current = args.path.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if current != wanted:
            print(f"{args.path} is stale: run python -m action_lsp.settings_schema", file=sys.stderr)
            return 1
        return 0
    if current != wanted:
        args.path.write_text(wanted, encoding="utf-8")
        print(f"updated {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
