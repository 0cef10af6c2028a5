"""The Node version the READMEs state for `npm ci` / `npm run package` in vscode-client/ is one
that every package of its lock file accepts (`engines.node`): `npm ci` on it prints no
EBADENGINE warning. (The VS Code end-to-end harness runs on its own Node 24.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LOCK = REPO / "vscode-client" / "package-lock.json"


def _version(text: str) -> tuple[int, int, int]:
    parts = [int(p) for p in re.findall(r"\d+", text)[:3]]
    return (*parts, 0, 0, 0)[:3]  # type: ignore[return-value]


def _comparator(version: tuple[int, int, int], item: str) -> bool:
    """One npm semver comparator: >=1.2, <3, =2, 20 (any 20.x.y), ^1.2.3, ~1.2, *, x."""
    m = re.fullmatch(r"(>=|<=|>|<|=|\^|~)?\s*v?([\dx*.]+)", item.strip())
    assert m, f"range not understood: {item!r}"
    op, raw = m.group(1) or "", m.group(2)
    numbers = [p for p in raw.split(".") if p not in ("x", "*", "X")]
    if not numbers:
        return True
    bound = _version(".".join(numbers))
    if op == ">=":
        return version >= bound
    if op == "<=":
        return version[: len(numbers)] <= bound[: len(numbers)]
    if op == ">":
        return version[: len(numbers)] > bound[: len(numbers)]
    if op == "<":
        return version < bound
    if op == "^":
        head = next((i for i, n in enumerate(bound) if n), 2)
        return version >= bound and version[: head + 1] == bound[: head + 1]
    if op == "~":
        return version >= bound and version[: min(2, len(numbers))] == bound[: min(2, len(numbers))]
    return version[: len(numbers)] == bound[: len(numbers)]  # = or a bare (partial) version


def satisfies(version: str, spec: str) -> bool:
    v = _version(version)
    for alternative in spec.split("||"):
        items = re.findall(r"(?:>=|<=|>|<|=|\^|~)?\s*v?[\dx*.]+", alternative)
        if not items or all(_comparator(v, item) for item in items):
            return True
    return False


@pytest.mark.parametrize(
    ("version", "spec", "ok"),
    [("20.20.2", ">=22.0.0", False), ("22.0.0", ">=22.0.0", True), ("20.1.0", "18 || 20 || >=22", True),
     ("21.0.0", "18 || 20 || >=22", False), ("22.0.0", ">= 0.4", True), ("22.0.0", "*", True),
     ("0.7.1", ">=0.6.11 <=0.7.0 || >=0.7.3", False), ("22.0.0", "^20.0.0", False)],
)
def test_the_range_check(version: str, spec: str, ok: bool) -> None:
    assert satisfies(version, spec) is ok


def _stated(path: Path) -> set[str]:
    return set(re.findall(r"Node ≥ (\d+)", path.read_text(encoding="utf-8")))


def test_the_node_the_readmes_state_is_one_the_lock_file_accepts() -> None:
    stated = _stated(REPO / "README.md") | _stated(REPO / "vscode-client" / "README.md")
    assert len(stated) == 1, f"the READMEs state different Node versions: {stated}"
    (major,) = stated
    packages = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]
    refusing = {
        name: spec
        for name, info in packages.items()
        if (spec := (info.get("engines") or {}).get("node")) and isinstance(spec, str)
        and not satisfies(f"{major}.0.0", spec)
    }
    assert not refusing, f"npm ci on Node {major} warns (EBADENGINE) for {refusing}"
