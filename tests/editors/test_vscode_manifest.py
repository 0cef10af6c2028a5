"""The VS Code extension's manifest (vscode-client/package.json) against the server's registry.

Fast (no editor): the settings VS Code shows must describe what the server recognises today.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from action_lsp import dialects

REPO = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((REPO / "vscode-client" / "package.json").read_text(encoding="utf-8"))
PROPS = MANIFEST["contributes"]["configuration"]["properties"]


def test_dialects_setting_lists_the_registry() -> None:
    setting = PROPS["actionLsp.dialects"]
    assert setting["items"]["enum"] == list(dialects.NAMES)
    # on by default: every dialect but those that declare otherwise (aider-shell)
    assert setting["default"] == [d.name for d in dialects.ALL if d.default_enabled]
    assert len(setting["items"]["enumDescriptions"]) == len(dialects.NAMES)


def test_dialect_descriptions_name_only_recognised_tags() -> None:
    """Every <tag> a description names is one its dialect parses (no <replace_in_file>)."""
    descriptions = dict(
        zip(
            PROPS["actionLsp.dialects"]["items"]["enum"],
            PROPS["actionLsp.dialects"]["items"]["enumDescriptions"],
            strict=True,
        )
    )
    for name, text in descriptions.items():
        dialect = dialects.by_name(name)
        for tag in re.findall(r"<([a-z][\w-]*)>", text):
            assert (
                dialects.DialectSet([dialect]).tag_owner(tag) is not None or tag in CHILD_ELEMENTS
            ), f"{name}: the description names <{tag}>, which {name} does not recognise"


# child elements of xml-tags actions (fields, not actions)
CHILD_ELEMENTS = {"path", "content", "search", "replace", "command", "description"}


def test_no_setting_mentions_constructs_that_do_not_exist() -> None:
    text = json.dumps(MANIFEST)
    for gone in ("aether-edit", "numbered action plan"):  # <replace_in_file> is cline's now
        assert gone not in text


def _transcript_patterns() -> list[str]:
    source = (REPO / "vscode-client" / "src" / "extension.ts").read_text(encoding="utf-8")
    match = re.search(r"export const TRANSCRIPT_PATTERNS = \[([^\]]*)\]", source)
    assert match, "TRANSCRIPT_PATTERNS not found in extension.ts"
    return re.findall(r"'([^']*)'", match.group(1))


def test_the_client_attaches_to_session_files() -> None:
    """Claude Code and Codex sessions are .jsonl files: the client sends them to the server, and
    opening one starts the extension. Every .json file is not attached (a package.json whose
    strings mention tags would get diagnostics): users add their session .json paths to
    actionLsp.filePatterns."""
    assert "**/*.jsonl" in _transcript_patterns()
    assert "**/*.json" not in _transcript_patterns()
    assert "onLanguage:jsonl" in MANIFEST["activationEvents"]
    assert "jsonl" in PROPS["actionLsp.filePatterns"]["markdownDescription"]


EDITOR_DOCS = [
    "editors/README.md",
    "editors/nvim/lsp/action_lsp.lua",
    "editors/helix/languages.toml",
    "editors/emacs/action-lsp.el",
    "vscode-client/README.md",
]


def test_editor_docs_point_to_the_dialect_table_instead_of_listing_dialects() -> None:
    """One list of dialects (README's table; package.json's setting is checked above): the editor
    setups may name a dialect or two as an example, never a hand-kept list that goes stale."""
    for rel in EDITOR_DOCS:
        text = (REPO / rel).read_text(encoding="utf-8")
        named = [n for n in dialects.NAMES if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)]
        assert len(named) <= 2, f"{rel} lists dialects {named}: point to README.md#dialects instead"
        assert "README.md#dialects" in text or "README.md, \"Dialects\"" in text, rel


# Settings that name a program to run, or widen what an apply may write: a repository's
# .vscode/settings.json must not set them (VS Code ignores workspace values of `machine` and
# `application` settings and says so in the settings editor).
SCOPED = ("actionLsp.server.command", "actionLsp.server.pythonPath",
          "actionLsp.server.bootstrapPython", "actionLsp.workspaceRoots",
          "actionLsp.allowOverwrite")


def test_settings_that_run_programs_or_widen_writes_are_machine_scoped() -> None:
    for key in SCOPED:
        assert PROPS[key].get("scope") in ("machine", "application"), (
            f"{key} can be set by a workspace's .vscode/settings.json")


def test_every_setting_naming_a_program_or_a_place_is_in_the_scoped_list() -> None:
    """A new setting for a command, an interpreter, a path or a root is scoped too."""
    named = {k for k in PROPS
             if re.search(r"command|python|path|root|overwrite", k.split(".", 1)[1], re.I)}
    assert named <= set(SCOPED), f"not machine-scoped: {sorted(named - set(SCOPED))}"
    assert all(PROPS[k].get("scope") is None or PROPS[k]["scope"] in (
        "window", "resource", "machine", "application", "machine-overridable",
        "language-overridable") for k in PROPS)


# How the extension's description names each dialect on by default (a new dialect must be added
# here, and so to the description).
DESCRIBED_AS = {
    "actions-json": "actions JSON",
    "xml-tags": "XML tags",
    "aether": "Aether",
    "action-plan": "action plans",
    "dyad": "Dyad",
    "aider": "Aider",
    "avante": "avante.nvim",
    "bolt": "bolt.new",
    "unified-diff": "unified diffs",
    "codex-patch": "Codex",
    "claude-code": "Claude Code",
    "cline": "Cline and Roo Code",
    "swe-agent": "SWE-agent",
    "openhands": "OpenHands",
    "tool-calls": "tool calls",
    "chat-answer": "chat answers",
}


def test_the_description_names_every_dialect_on_by_default() -> None:
    """It listed only the first four formats while the server reads fifteen."""
    on = [d.name for d in dialects.ALL if d.default_enabled]
    assert sorted(DESCRIBED_AS) == sorted(on)
    missing = [label for label in DESCRIBED_AS.values() if label not in MANIFEST["description"]]
    assert not missing, MANIFEST["description"]
