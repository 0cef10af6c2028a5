"""locate(): each strategy finds its drift and refuses when more than one place matches."""

from __future__ import annotations

import sys

import pytest

from action_lsp.edit.locate import Located, Refused, locate, strip_line_numbers

PY = """import os


def area(width, height):
    result = compute(width,
                     height)  # keep
    return result


class Shape:
    def scale(self, factor):
        self.w *= factor
        return self
"""


def apply(text: str, search: str, replace: str, path: str | None = None) -> tuple[str, Located]:
    found = locate(text, search, path=path)
    assert isinstance(found, Located), found
    return text[: found.start] + found.replacement(replace) + text[found.end :], found


def test_exact() -> None:
    new, found = apply(PY, "    return result\n", "    return result * 2\n")
    assert found.strategy == "exact" and found.line == 7
    assert "return result * 2\n" in new


def test_exact_ambiguous_lists_lines() -> None:
    text = "x = 1\ny = 2\nx = 1\n\nx = 1\n"
    got = locate(text, "x = 1\n")
    assert isinstance(got, Refused)
    assert got.code == "search-ambiguous"
    assert got.lines == [1, 3, 5]
    assert "1, 3, 5" in got.message


def test_not_found() -> None:
    got = locate(PY, "def perimeter(a, b):\n    return 2 * (a + b)\n", path="x.py")
    assert isinstance(got, Refused) and got.code == "search-not-found"


def test_whitespace_trailing_and_indent_shift_reindents_replacement() -> None:
    search = "def scale(self, factor):   \n    self.w *= factor\n    return self\n"
    replace = "def scale(self, factor):\n    self.w *= factor\n    self.h *= factor\n    return self\n"
    new, found = apply(PY, search, replace)
    assert found.strategy == "whitespace"
    assert "    def scale(self, factor):\n        self.w *= factor\n        self.h *= factor\n" in new


def test_whitespace_tabs_versus_spaces() -> None:
    text = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    search = "    if x:\n        return 1\n"
    new, found = apply(text, search, "    if x:\n        return 3\n")
    assert found.strategy == "whitespace"
    assert new == "def f():\n\tif x:\n\t\treturn 3\n\treturn 2\n"


def test_whitespace_ambiguous() -> None:
    text = "a:\n    x = 1\n    y = 2\nb:\n  x = 1\n  y = 2\n"
    got = locate(text, "x = 1\ny = 2\n")
    assert isinstance(got, Refused) and got.code == "search-ambiguous"
    assert got.lines == [2, 5] and got.strategy == "whitespace"


def test_blank_lines_drift() -> None:
    search = "\nimport os\ndef area(width, height):\n"
    new, found = apply(PY, search, "\nimport os\ndef area(width, height, depth):\n")
    assert found.strategy == "blank-lines"
    # The leading blank line of the search has no counterpart: dropped from the replacement too.
    assert new.startswith("import os\ndef area(width, height, depth):\n    result")


def test_blank_lines_inside_block() -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    new, found = apply(text, "a = 1\n\nb = 2\n", "a = 10\n\nb = 20\n")
    assert found.strategy == "blank-lines"
    assert new == "a = 10\n\nb = 20\nc = 3\n"


def test_blank_lines_ambiguous() -> None:
    text = "a = 1\n\nb = 2\nz\na = 1\nb = 2\n"
    got = locate(text, "a = 1\n\n\nb = 2\n")
    assert isinstance(got, Refused) and got.code == "search-ambiguous"
    assert got.lines == [1, 5]


def test_syntax_rewrapped_call_and_trailing_comma() -> None:
    search = "    result = compute(width, height,)\n    return result\n"
    new, found = apply(PY, search, "    result = compute(height, width)\n    return result\n", "a.py")
    # Found by its tokens; the file's `# keep`, which the search text lacks and the replacement
    # would drop, makes the place a question (tests/edit/test_comments_kept.py).
    assert found.strategy == "comments" and not found.certain and "# keep" in found.note
    assert "    result = compute(height, width)\n    return result\n\n\nclass" in new


def test_syntax_javascript_and_go_and_rust_and_json() -> None:
    js = "function add(a, b) {\n  return a +\n    b;\n}\n"
    _, f = apply(js, "function add(a, b) { return a + b; }", "x", "m.js")
    assert f.strategy == "syntax"
    ts = "export function id<T>(x: T): T {\n  return x\n}\n"
    _, f = apply(ts, "function id<T>(x:T):T{return x}", "x", "m.ts")
    assert f.strategy == "syntax"
    go = "func Add(a int, b int) int {\n\treturn a + b\n}\n"
    _, f = apply(go, "func Add(a int,  b int) int { return a + b }", "x", "m.go")
    assert f.strategy == "syntax"
    rs = "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
    _, f = apply(rs, "fn add(a: i32,\n       b: i32) -> i32 { a + b }", "x", "m.rs")
    assert f.strategy == "syntax"
    js_on = '{\n  "name": "x",\n  "version": "1.0.0"\n}\n'
    new, f = apply(js_on, '"name":"x", "version":"1.0.0"', '"name": "y", "version": "1.0.0"',
                   "package.json")
    assert f.strategy == "syntax"
    assert '"name": "y"' in new


def test_syntax_ignores_comments() -> None:
    search = "def area(width, height):\n    result = compute(width, height)\n    return result\n"
    _, found = apply(PY, search, "def area():\n    pass\n", "a.py")
    assert found.strategy == "comments"  # found; the comment it would drop makes it a question
    search = search.replace("height)\n", "height)  # keep\n")
    _, found = apply(PY, search, "def area():\n    pass\n", "a.py")
    assert found.strategy == "syntax" and found.certain


def test_syntax_ambiguous() -> None:
    text = "f(a,\n  b)\nx = 1\nf(a, b)\n"
    got = locate(text, "f( a,b )\n", path="m.py")
    assert isinstance(got, Refused) and got.code == "search-ambiguous" and got.lines == [1, 4]


def test_not_syntax_aware_for_unknown_language() -> None:
    text = "f(a,\n  b)\n"
    got = locate(text, "f( a,b )\n", path="notes.txt")
    assert isinstance(got, Refused) and got.code == "search-not-found"


def test_definition_same_name() -> None:
    search = (
        "def scale(self, factor):\n    # scale it\n    self.w *= factor\n"
        "    self.h *= factor\n    return self\n"
    )
    new, found = apply(PY, search, "def scale(self, factor):\n    return self\n", "shape.py")
    assert found.strategy == "definition" and found.score is not None
    assert "    def scale(self, factor):\n        return self\n" in new
    assert "self.w *= factor" not in new


def test_definition_refused_when_not_close() -> None:
    search = "def scale(self, k):\n    import math\n    return math.floor(k) + sum(range(10))\n"
    got = locate(PY, search, path="shape.py")
    assert isinstance(got, Refused) and got.code == "search-not-found"


def test_fuzzy_renamed_variable() -> None:
    text = PY
    search = "class Shape:\n    def scale(self, fac):\n        self.w *= fac\n        return self\n"
    new, found = apply(text, search, "class Shape:\n    pass\n")
    assert found.strategy == "fuzzy" and found.score is not None and found.score >= 80
    assert new.endswith("class Shape:\n    pass\n")


def test_fuzzy_refuses_close_runner_up() -> None:
    text = (
        "def one():\n    alpha = load(1)\n    return alpha\n\n"
        "def two():\n    alpha = load(2)\n    return alpha\n"
    )
    got = locate(text, "def thr():\n    alpha = load(3)\n    return alpha\n")
    assert isinstance(got, Refused)
    # Not "matches twice": it matches nowhere, and two places come about as close.
    assert got.code == "search-not-found" and sorted(got.lines) == [1, 5]
    assert [c.line for c in got.candidates] == got.lines
    assert all(c.strategy == "fuzzy" and not c.certain for c in got.candidates)


def test_fuzzy_refuses_below_threshold() -> None:
    got = locate(PY, "def unrelated(a):\n    return [x for x in a if x]\n")
    assert isinstance(got, Refused) and got.code == "search-not-found"


def test_crlf_exact_keeps_crlf_in_replacement() -> None:
    text = "a = 1\r\nb = 2\r\nc = 3\r\n"
    new, found = apply(text, "b = 2\n", "b = 20\nb2 = 21\n")
    assert found.strategy == "exact"
    assert new == "a = 1\r\nb = 20\r\nb2 = 21\r\nc = 3\r\n"


def test_crlf_whitespace_strategy_offsets() -> None:
    text = "x\r\n    a = 1  \r\n    b = 2\r\ny\r\n"
    new, found = apply(text, "a = 1\nb = 2\n", "a = 3\nb = 4\n")
    assert found.strategy == "whitespace"
    assert new == "x\r\n    a = 3\r\n    b = 4\r\ny\r\n"


def test_unicode() -> None:
    text = "naïve = '日本語'\nemoji = '🎉'\nend = 1\n"
    new, found = apply(text, "emoji = '🎉'\n", "emoji = '✨'\n")
    assert new == "naïve = '日本語'\nemoji = '✨'\nend = 1\n"
    new, found = apply(text, "  emoji = '🎉'  \n  end = 1\n", "  emoji = 2\n  end = 1\n")
    assert found.strategy == "whitespace"
    assert new == "naïve = '日本語'\nemoji = 2\nend = 1\n"


def test_empty_search_appends() -> None:
    new, found = apply("a = 1", "", "b = 2\n")
    assert found.strategy == "append"
    assert new == "a = 1\nb = 2\n"


def test_large_file_exact_match_does_no_per_line_work() -> None:
    """An exact match in a 100,000-line file is found by one string search, not a walk over the
    lines (counted as function calls, not timed: a fuzzy walk makes hundreds of thousands)."""
    lines = [f"value_{i} = compute({i}, {i * 7})\n" for i in range(100_000)]
    text = "".join(lines)
    search = "".join(lines[70_000:70_005])
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        found = locate(text, search)
    finally:
        sys.setprofile(None)
    assert isinstance(found, Located) and found.line == 70_001
    assert calls < 1_000


def test_25000_line_file_drifted() -> None:
    lines = [f"    value_{i} = compute({i}, {i * 7})\n" for i in range(25_000)]
    text = "def big():\n" + "".join(lines)
    search = "".join(line.strip() + "\n" for line in lines[12_000:12_004])
    new, found = apply(text, search, "x = 0\ny = 1\n")
    assert found.strategy == "whitespace" and found.line == 12_002
    assert "    x = 0\n    y = 1\n    value_12004" in new


@pytest.mark.parametrize("path", [None, "a.py"])
def test_search_inside_one_line(path: str | None) -> None:
    new, _ = apply("x = foo(1)  # c\n", "foo(1)", "bar(2)", path)
    assert new == "x = bar(2)  # c\n"


@pytest.mark.parametrize("strategy,certain", [
    ("exact", True), ("append", True), ("whitespace", True), ("blank-lines", True),
    ("syntax", True), ("definition", False), ("fuzzy", False), ("some-future-one", False),
])
def test_only_layout_strategies_are_certain(strategy: str, certain: bool) -> None:
    assert Located(0, 0, strategy).certain is certain


def test_ambiguous_gives_every_candidate_place() -> None:
    text = "x = 1\ny = 2\nx = 1\nz = 3\n    x = 1\n"
    got = locate(text, "x = 1\n")
    assert isinstance(got, Refused) and got.code == "search-ambiguous"
    assert got.lines == [1, 3, 5]
    assert [(c.start, c.end) for c in got.candidates] == [(0, 6), (12, 18), (28, 34)]
    new = text[: got.candidates[1].start] + "x = 9\n" + text[got.candidates[1].end :]
    assert new == "x = 1\ny = 2\nx = 9\nz = 3\n    x = 1\n"


def test_ambiguous_by_whitespace_candidates_carry_their_reindent() -> None:
    text = "if a:\n    f()\nif b:\n        f()\n"
    got = locate(text, "\tf()\n")
    assert isinstance(got, Refused)
    assert [c.replacement("\tg()\n") for c in got.candidates] == ["    g()\n", "        g()\n"]


def test_strip_line_numbers() -> None:
    assert strip_line_numbers("  9 | def f():\n 10 |     return 1\n") == (
        "def f():\n    return 1\n", 9)
    assert strip_line_numbers("3 | a\n4 |\n5 | b") == ("a\n\nb", 3)
    # Not every line, numbers that do not count up, a Markdown table: left alone.
    assert strip_line_numbers("1 | a\nb\n") is None
    assert strip_line_numbers("1 | a\n3 | b\n") is None
    assert strip_line_numbers("| a | b |\n| 1 | 2 |\n") is None
    assert strip_line_numbers("x = a || b\n") is None


def test_line_hint_chooses_among_layout_matches() -> None:
    text = "x = 1\ny = 2\nx = 1\n"
    got = locate(text, "x = 1\n", line_hint=3)
    assert isinstance(got, Located) and got.line == 3 and got.strategy == "exact"
    assert "line numbers" in got.note
    still = locate(text, "x = 1\n", line_hint=2)
    assert isinstance(still, Refused) and still.code == "search-ambiguous"


def test_syntax_trailing_comma_is_layout_in_calls_and_lists() -> None:
    text = "x = compute(\n    1,\n    2,\n)\ny = [1, 2,]\n"
    found = locate(text, "x = compute(1, 2)\n", path="m.py")
    assert isinstance(found, Located) and found.strategy == "syntax"
    found = locate(text, "y = [1, 2]\n", path="m.py")
    assert isinstance(found, Located) and found.strategy == "syntax"


def test_syntax_keeps_one_element_tuple_comma() -> None:
    # (a,) is a tuple, (a) is not: a search for one is not found at the other.
    text = "def f(a):\n    value = (a,)\n    return value\n"
    got = locate(text, "value = ( a )\n", path="m.py")
    assert not (isinstance(got, Located) and got.strategy == "syntax")


def test_syntax_quotes_are_equal_only_where_the_language_says_so() -> None:
    py = "def f():\n    return  'x' + y\n"
    found = locate(py, 'return "x" + y\n', path="m.py")
    assert isinstance(found, Located) and found.strategy == "syntax"
    go = "package m\n\nfunc f() rune {\n\treturn  'x' + y\n}\n"
    got = locate(go, 'return "x" + y\n', path="m.go")
    assert not (isinstance(got, Located) and got.certain)


def test_the_engine_s_names_are_its_functions_whatever_was_imported_first() -> None:
    """``action_lsp.edit`` imports most of its names on first use (the server starts without
    the engine); ``locate`` stays the function although a module of that name is imported."""
    import importlib
    import types as pytypes

    import action_lsp.edit as edit

    importlib.import_module("action_lsp.edit.plan")  # (imports the module ``edit.locate``)
    from action_lsp.edit import Plan, locate, plan_changes

    assert not isinstance(locate, pytypes.ModuleType) and callable(locate)
    assert callable(plan_changes) and isinstance(Plan, type)
    assert all(hasattr(edit, name) for name in edit.__all__)
