"""The dialect registry: entry points, the built-ins' fallback, and the hooks that keep
dialect knowledge inside dialect modules."""

from __future__ import annotations

import re
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from action_lsp.dialects import ALL, NAMES, Dialect, DialectSet, load_dialects
from action_lsp.document import analyze

ROOT = Path(__file__).resolve().parents[2]


def _fake_distribution(tmp_path: Path) -> Path:
    """An installed package ``toy_dialect`` registering one dialect through an entry point,
    exactly as a third-party wheel would (a ``.dist-info`` with ``entry_points.txt``)."""
    (tmp_path / "toy_dialect.py").write_text(
        textwrap.dedent(
            '''
            from action_lsp.dialects.tag_dialect import TagDialect
            from action_lsp.model import ActionKind
            from action_lsp.schema import ActionSpec, req, specs, text


            class Toy(TagDialect):
                name = "toy"
                description = "<toy-note> tags"
                body_fields = {"toy-note": "content"}
                specs = specs(
                    ActionSpec("toy-note", ActionKind.OTHER, (req("title", text()), req("content", text())))
                )
                tag_names = frozenset(specs)


            DIALECT = Toy()
            '''
        )
    )
    info = tmp_path / "toy_dialect-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-dialect\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[action_lsp.dialects]\ntoy = toy_dialect:DIALECT\n"
    )
    return tmp_path


def test_a_third_party_dialect_registers_through_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(_fake_distribution(tmp_path)))
    monkeypatch.delitem(sys.modules, "toy_dialect", raising=False)
    eps = metadata.entry_points(group="action_lsp.dialects")
    assert "toy" in eps.names
    dialects = load_dialects()
    names = [d.name for d in dialects]
    assert "toy" in names and set(NAMES) <= set(names)
    toy = next(d for d in dialects if d.name == "toy")
    text = '<toy-note title="hi">\nbody\n</toy-note>\n'
    analysis = analyze(text, DialectSet([toy]))
    (action,) = analysis.actions
    assert (action.dialect, action.type, action.get("title"), action.get("content")) == (
        "toy", "toy-note", "hi", "body\n",
    )
    # Without the built-ins enabled the document yields only the plug-in's actions.
    assert analyze(text, DialectSet([d for d in dialects if d.name != "toy"])).actions == []


def test_builtins_are_found_without_installed_metadata() -> None:
    """A source checkout whose installed metadata predates a dialect still finds it."""
    assert [d.name for d in load_dialects(entry_points=[])] == list(NAMES)


def test_a_broken_plugin_is_skipped(caplog: pytest.LogCaptureFixture) -> None:
    broken = metadata.EntryPoint("broken", "no_such_module_xyz:DIALECT", "action_lsp.dialects")
    not_a_dialect = metadata.EntryPoint("odd", "os.path:join", "action_lsp.dialects")
    assert [d.name for d in load_dialects([broken, not_a_dialect])] == list(NAMES)
    assert "broken" in caplog.text and "odd" in caplog.text


def test_every_builtin_is_registered_in_pyproject() -> None:
    """One entry-point line per built-in dialect module, naming its DIALECT."""
    toml = (ROOT / "pyproject.toml").read_text()
    block = toml.split('[project.entry-points."action_lsp.dialects"]', 1)[1].split("\n[", 1)[0]
    lines = dict(re.findall(r'^([\w\-]+) = "([\w.:]+)"$', block, re.M))
    assert sorted(lines) == sorted(NAMES)
    for d in ALL:
        module, _, attr = lines[d.name].partition(":")
        assert sys.modules[module].__dict__[attr] is d


def test_no_module_outside_the_dialects_names_a_dialect() -> None:
    """Rules, server features and the CLI ask the registry; only dialect modules (and docs)
    name dialects or their tags."""
    pattern = re.compile(
        "|".join(re.escape(f'"{n}"') for n in NAMES)
        + "|" + "|".join(re.escape(f"'{n}'") for n in NAMES)
    )
    offenders = []
    for path in (ROOT / "action_lsp").rglob("*.py"):
        if "dialects" in path.relative_to(ROOT / "action_lsp").parts:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []


def test_every_dialect_describes_itself() -> None:
    for d in ALL:
        assert isinstance(d, Dialect) and d.name and d.description, d


def test_prefixed_unknown_names_are_hints_from_the_dialect() -> None:
    from action_lsp.model import Severity

    d = next(d for d in ALL if d.tag_prefixes)
    assert d.unknown_action_severity(d.tag_prefixes[0] + "whatever") is Severity.HINT
    assert d.unknown_action_severity("whatever") is None


@pytest.mark.parametrize("name", NAMES)
def test_every_dialect_name_is_accepted_by_the_cli_and_the_server(name: str, tmp_path: Path) -> None:
    from action_lsp.cli import main
    from action_lsp.server.config import Settings

    transcript = tmp_path / "t.md"
    transcript.write_text("Nothing to do here.\n")
    assert main(["check", "--dialect", name, str(transcript)]) == 0
    assert main(["parse", "--dialect", name, str(transcript)]) == 0
    problems: list[str] = []
    settings = Settings.from_dict({"dialects": [name]}, problems)
    assert problems == [] and settings.dialect_set().names == (name,)
