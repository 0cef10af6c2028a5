"""The entry points of a group, read without ``importlib.metadata`` (``action_lsp/entry_points.py``):
the same entry points, in the same order, as ``importlib.metadata.entry_points(group=...)``."""

from __future__ import annotations

import os.path
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from action_lsp import entry_points
from action_lsp.entry_points import EntryPoint, parse


def _both(group: str) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    ours = [(ep.name, ep.value, ep.group) for ep in entry_points.entry_points(group)]
    theirs = [(ep.name, ep.value, ep.group) for ep in metadata.entry_points(group=group)]
    return ours, theirs


@pytest.mark.parametrize("group", ["action_lsp.dialects", "console_scripts", "pytest11", "no.such.group"])
def test_the_installed_entry_points_are_the_ones_importlib_metadata_finds(group: str) -> None:
    ours, theirs = _both(group)
    assert ours == theirs
    if group == "action_lsp.dialects":
        assert ("actions-json", "action_lsp.dialects.actions_json:DIALECT", group) in ours  # (a built-in)


def _distribution(where: Path, dirname: str, text: str | None) -> None:
    info = where / dirname
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dirname.split('-')[0]}\nVersion: 1.0\n")
    if text is not None:
        (info / "entry_points.txt").write_text(text)


def test_distributions_on_the_path_are_read_as_importlib_metadata_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Comments, blank lines, spaces and extras; a distribution without entry points; an
    ``.egg-info`` directory; one name in two directories of the path (the first wins, however
    its name is spelled); an ``.egg-info`` file."""
    first, second = tmp_path / "a", tmp_path / "b"
    _distribution(first, "toy_plugin-1.0.dist-info",
                  "# a comment\n\n[action_lsp.dialects]\n  toy =  toy_plugin.dialect:DIALECT [fast]  \n"
                  "[console_scripts]\ntoy = toy_plugin:main\n")
    _distribution(first, "Bare-2.0.dist-info", None)
    _distribution(first, "old_style.egg-info", "[action_lsp.dialects]\nold = old_style:Dialect\n")
    _distribution(second, "Toy.Plugin-0.9.dist-info", "[action_lsp.dialects]\nstale = toy_plugin:STALE\n")
    _distribution(second, "other-1.0.dist-info", "[action_lsp.dialects]\nother = other.mod:D\n")
    (second / "file_only.egg-info").write_text("Metadata-Version: 1.0\nName: file-only\n")
    monkeypatch.syspath_prepend(str(second))
    monkeypatch.syspath_prepend(str(first))
    ours, theirs = _both("action_lsp.dialects")
    assert ours == theirs
    names = [name for name, _, _ in ours]
    assert {"toy", "old", "other"} <= set(names) and "stale" not in names
    assert ("toy", "toy_plugin.dialect:DIALECT [fast]", "action_lsp.dialects") in ours


def test_a_zip_on_the_path_is_read_by_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What this module does not read itself (a zip file, an ``.egg``, a finder of its own on
    ``sys.meta_path``), ``importlib.metadata`` does."""
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("zipped-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: zipped\nVersion: 1.0\n")
        z.writestr("zipped-1.0.dist-info/entry_points.txt", "[action_lsp.dialects]\nzipped = zipped:DIALECT\n")
    monkeypatch.syspath_prepend(str(archive))
    ours, theirs = _both("action_lsp.dialects")
    assert ours == theirs and ("zipped", "zipped:DIALECT", "action_lsp.dialects") in ours


def test_a_finder_of_distributions_on_the_meta_path_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    class Finder:
        @staticmethod
        def find_spec(*args: Any) -> None:
            return None

        @staticmethod
        def find_distributions(*args: Any) -> list[Any]:
            return []

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert not entry_points._plain_paths()
    ours, theirs = _both("action_lsp.dialects")
    assert ours == theirs


def test_an_entry_point_loads_what_it_names() -> None:
    assert EntryPoint("j", "os.path:join", "g").load() is os.path.join
    assert EntryPoint("m", "os.path", "g").load() is os.path
    assert EntryPoint("x", "os.path : join [extra]", "g").load() is os.path.join
    with pytest.raises(ImportError):
        EntryPoint("b", "no_such_module_xyz:D", "g").load()


def test_lines_outside_a_section_or_without_a_value_are_no_entry_points() -> None:
    text = "stray = a:b\n[g]\nno value here\nok = c:d\n[h]\n#x = y\n"
    assert list(parse(text)) == [EntryPoint("ok", "c:d", "g")]
