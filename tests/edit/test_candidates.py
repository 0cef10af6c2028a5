"""A closest match is offered only when it is plausibly the same code (issue 19): never another
definition. The add/sub/div case in every shipped language, through ``action-lsp apply``."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.cli import main

# (file name, file text defining add and sub, a search block defining div, its replacement,
#  the line `sub` starts at)
CASES = {
    "python": ("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
               "def div(a, b):\n    return a / b\n", "def div(a, b):\n    return a // b\n", 5),
    "javascript": ("calc.js", "function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n",
                   "function div(a, b) {\n  return a / b;\n}\n", "function div(a, b) {\n  return Math.floor(a / b);\n}\n", 5),
    "typescript": ("calc.ts", "function add(a: number, b: number): number {\n  return a + b;\n}\n\n"
                   "function sub(a: number, b: number): number {\n  return a - b;\n}\n",
                   "function div(a: number, b: number): number {\n  return a / b;\n}\n",
                   "function div(a: number, b: number): number {\n  return Math.floor(a / b);\n}\n", 5),
    "tsx": ("calc.tsx", "function add(a: number, b: number) {\n  return a + b;\n}\n\n"
            "function sub(a: number, b: number) {\n  return a - b;\n}\n",
            "function div(a: number, b: number) {\n  return a / b;\n}\n",
            "function div(a: number, b: number) {\n  return a / b | 0;\n}\n", 5),
    "go": ("calc.go", "package calc\n\nfunc add(a, b int) int {\n\treturn a + b\n}\n\nfunc sub(a, b int) int {\n\treturn a - b\n}\n",
           "func div(a, b int) int {\n\treturn a / b\n}\n", "func div(a, b int) int {\n\treturn a / b / 1\n}\n", 7),
    "rust": ("calc.rs", "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
             "fn div(a: i32, b: i32) -> i32 {\n    a / b\n}\n", "fn div(a: i32, b: i32) -> i32 {\n    a.div_euclid(b)\n}\n", 5),
}


def _run(tmp_path: Path, case: str, *extra: str) -> tuple[int, str, str, str]:
    name, text, search, replace, _ = CASES[case]
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    (root / name).write_text(text)
    t = tmp_path / "t.md"
    t.write_text(f"<modify_file>\n<path>{name}</path>\n<search>\n{search}</search>\n<replace>\n{replace}"
                 "</replace>\n</modify_file>\n")
    code = main(["apply", "--root", str(root), *extra, str(t)])
    return code, name, text, (root / name).read_text()


@pytest.mark.parametrize("case", sorted(CASES))
def test_another_definition_is_never_the_closest_match(tmp_path: Path, capsys, case: str) -> None:
    code, name, text, after = _run(tmp_path, case)
    err = capsys.readouterr().err
    assert code == 1 and after == text
    assert f"`div` is not defined in {name}; nothing close" in err
    assert "closest" not in err and "add" not in err.split("[search-not-found]")[0].split("nothing close")[1]


@pytest.mark.parametrize("case", sorted(CASES))
def test_accepting_another_definition_as_a_candidate_is_refused(tmp_path: Path, capsys, case: str) -> None:
    line = CASES[case][4]
    code, _, text, after = _run(tmp_path, case, "--write", "--accept-candidate", f"1={line}")
    assert code == 1 and after == text
    assert "no candidate place" in capsys.readouterr().err


def test_the_same_definition_changed_is_still_offered(tmp_path: Path, capsys) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    total = a + b\n    return total\n\n\n"
                                  "def sub(a, b):\n    return a - b\n")
    t = tmp_path / "t.md"
    t.write_text("<modify_file>\n<path>calc.py</path>\n<search>\ndef add(a, b):\n    result = a + b\n"
                 "    return result\n</search>\n<replace>\ndef add(a, b):\n    return a + b\n</replace>\n"
                 "</modify_file>\n")
    assert main(["apply", "--root", str(root), str(t)]) == 1
    err = capsys.readouterr().err
    assert "closest match, lines 1-3" in err and "[search-not-found]" in err
