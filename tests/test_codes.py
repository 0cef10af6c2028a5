"""The diagnostic-code registry against the contract, the `rules` command and the shipped docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from action_lsp import codes
from action_lsp.cli import main
from action_lsp.model import Severity

REPO = Path(__file__).resolve().parent.parent


def contract_codes(fixtures_dir: Path) -> list[str]:
    """The codes listed in the contract's "Diagnostic codes" table."""
    text = (fixtures_dir / "spec" / "contract.md").read_text(encoding="utf-8")
    section = text.split("## Diagnostic codes", 1)[1]
    found = re.findall(r"^\| `([a-z][a-z-]+)` \|", section, flags=re.MULTILINE)
    assert len(found) >= 20, "the contract's code table was not found"
    return found


def test_every_contract_code_is_registered(fixtures_dir: Path) -> None:
    for code in contract_codes(fixtures_dir):
        assert code in codes.CODES, f"{code} is in the contract but not in the registry"
        entry = codes.get(code)
        assert isinstance(entry.severity, Severity)
        assert entry.summary.strip() and "\n" not in entry.summary
        assert entry.code == code


def test_registry_entries_are_well_formed() -> None:
    for key, entry in codes.CODES.items():
        assert key == entry.code
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", key)
        assert entry.summary.endswith(".")


@pytest.mark.parametrize(
    ("code", "severity"),
    [
        ("bad-json", Severity.ERROR),
        ("missing-field", Severity.ERROR),
        ("unsafe-code", Severity.WARNING),
    ],
)
def test_default_severities(code: str, severity: Severity) -> None:
    assert codes.default_severity(code) is severity


def test_unknown_code_defaults_to_warning() -> None:
    assert codes.default_severity("no-such-code") is Severity.WARNING


def test_rules_command_lists_every_code(capsys, fixtures_dir: Path) -> None:  # type: ignore[no-untyped-def]
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.splitlines() if line.strip()]
    assert listed == list(codes.CODES)
    for code in contract_codes(fixtures_dir):
        line = next(line for line in out.splitlines() if line.split()[0] == code)
        assert codes.get(code).severity.label in line
        assert codes.get(code).summary in line


def test_rules_command_json(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rules", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in data] == list(codes.CODES)
    assert all(d["severity"] in ("error", "warning", "information", "hint") for d in data)


def test_rules_command_explains_one_code(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rules", "bad-json"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bad-json (error)")
    assert codes.get("bad-json").explanation in out


def test_rules_command_unknown_code(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["rules", "no-such-code"]) == 2
    err = capsys.readouterr().err
    assert "no-such-code" in err and len(err.strip().splitlines()) == 1


def test_shipped_rules_page_is_generated(capsys) -> None:  # type: ignore[no-untyped-def]
    """``action_lsp/rules.md`` (the codeDescription target) cannot drift from the registry."""
    rendered = codes.render_markdown()
    assert codes.docs_path() == REPO / "action_lsp" / "rules.md"
    assert codes.docs_path().read_text(encoding="utf-8") == rendered
    assert main(["rules", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == rendered
    for code in codes.CODES:
        assert f"\n## {code}\n" in rendered


def test_docs_copy_of_the_rules_page_is_generated() -> None:
    docs = REPO / "docs" / "rules.md"
    assert docs.read_text(encoding="utf-8") == codes.render_markdown()


def test_docs_url_points_at_the_code() -> None:
    assert codes.docs_url("bad-json").endswith("rules.md#bad-json")
    assert (
        codes.docs_url("bad-json", "https://example.org/rules#")
        == "https://example.org/rules#bad-json"
    )
