"""The tests and benchmarks read nothing outside the repository: a stranger's clone, with
nothing beside it, must pass. Real inputs live in ``tests/fixtures`` (origin and licence in its
README); benchmarks take paths as arguments."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = "sha" + "red"  # spelled apart so this file does not match its own patterns
FORBIDDEN = [
    (re.compile(r"\.\./" + SHARED + r"\b"), "reads ../" + SHARED),
    (re.compile(r"""/\s*["']""" + SHARED + r"""["']"""), "joins a path with " + SHARED),
    (  # a file read by an absolute path (strings that are only data, as in path rules, pass)
        re.compile(r"""(?:Path|open|read_text|read_bytes|glob)\(\s*f?["']/(?!dev/|proc/|etc/)"""),
        "reads an absolute path",
    ),
    (re.compile(r"parents\[\d\]\s*/\s*[\"']" + SHARED), "a folder beside the repository"),
]
SOURCES = ("py", "sh", "lua", "js", "mjs", "ts", "json", "toml", "cfg", "ini")


def _sources() -> list[Path]:
    files = []
    for top in ("tests", "bench"):
        for path in sorted((REPO / top).rglob("*")):
            rel = path.relative_to(REPO)
            if not path.is_file() or path.suffix.lstrip(".") not in SOURCES:
                continue
            if rel.parts[:2] == ("tests", "fixtures") or any(
                p in ("node_modules", ".cache", "__pycache__") for p in rel.parts
            ):
                continue
            files.append(path)
    return files


def test_there_are_sources_to_check() -> None:
    names = {p.name for p in _sources()}
    assert {"conftest.py", "test_corpus.py", "bench_parse.py", "bench_server.py"} <= names


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(REPO)))
def test_reads_nothing_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [
        f"{path.relative_to(REPO)}:{text.count(chr(10), 0, m.start()) + 1}: {why}: {m.group(0)!r}"
        for pattern, why in FORBIDDEN
        for m in pattern.finditer(text)
    ]
    assert not found, "\n".join(found) + "\n(copy the input into tests/fixtures with its origin)"


def test_fixtures_name_their_origin_and_licence() -> None:
    fixtures = REPO / "tests" / "fixtures"
    readme = (fixtures / "README.md").read_text(encoding="utf-8")
    for folder in sorted(p for p in fixtures.iterdir() if p.is_dir()):
        assert f"`{folder.name}/" in readme, f"tests/fixtures/{folder.name} is not in its README"
    # a folder of files either is described in the README or has a README of its own
    for folder in sorted(p for p in fixtures.rglob("*") if p.is_dir()):
        files = [f for f in folder.iterdir() if f.is_file()]
        if not files or folder.parent == fixtures:
            continue
        described = any((d / "README.md").is_file() for d in (folder, *folder.parents) if d != fixtures)
        assert described, f"{folder.relative_to(REPO)} holds files but names no origin (README.md)"
    assert "Apache-2.0" in readme and (REPO / "LICENSE").is_file()
