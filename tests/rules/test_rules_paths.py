"""``path-traversal``, ``absolute-path``, ``invalid-path``.

Paths come from the test-only ``<fake-write>PATH</fake-write>`` dialect (see conftest), so the
rules run end to end through :func:`analyze` with exact ranges in the transcript.
"""

from __future__ import annotations

import pytest

from action_lsp.dialects import DialectSet
from action_lsp.document import analyze
from action_lsp.model import Action, ActionKind, Field, SourceMap, Span
from action_lsp.rules import RuleContext, paths


def write(path: str) -> str:
    return f"Writing it now.\n<fake-write>{path}</fake-write>\n"


def path_span(text: str) -> Span:
    start = text.index("<fake-write>") + len("<fake-write>")
    return Span(start, text.index("</fake-write>"))


def check(path: str, dialects: DialectSet, roots: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    text = write(path)
    a = analyze(text, dialects, roots=roots)
    assert [x.path for x in a.actions] == [path]
    return text, a.diagnostics


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        "a/../b",
        "./a/b.txt",
        "a/./b/../c.md",
        "docs/v1.2/notes.md",
        ".github/x.yml",
        "a b/c.txt",
    ],
)
def test_good_paths(path: str, fake_dialects: DialectSet) -> None:
    _, diags = check(path, fake_dialects)
    assert diags == []


@pytest.mark.parametrize(
    "path", ["../x", "a/../../x", "..", "a/b/../../../c", "..\\x", "a\\..\\..\\x", "./../x"]
)
def test_path_traversal(path: str, fake_dialects: DialectSet) -> None:
    text, diags = check(path, fake_dialects)
    (d,) = diags
    assert d.code == "path-traversal"
    assert d.span == path_span(text)
    assert d.severity is None  # the registry default (error)


@pytest.mark.parametrize(
    ("path", "what"),
    [
        ("/etc/passwd", "absolute"),
        ("~/x", "home"),
        ("~root/.ssh/id_rsa", "home"),
        ("C:\\x", "drive"),
        ("c:/Windows/x", "drive"),
        ("\\\\server\\share\\f", "UNC"),
        ("//server/share/f", "UNC"),
        ("\\x", "absolute"),
    ],
)
def test_absolute_paths(path: str, what: str, fake_dialects: DialectSet) -> None:
    text, diags = check(path, fake_dialects)
    (d,) = diags
    assert d.code == "absolute-path"
    assert d.span == path_span(text)
    assert what in d.message
    assert d.fixes == []  # no roots: nothing to make it relative to


def test_absolute_path_under_a_root_is_made_relative(fake_dialects: DialectSet, apply_fix) -> None:  # type: ignore[no-untyped-def]
    text, diags = check("/work/project/src/app.py", fake_dialects, roots=("/work/project/",))
    (d,) = diags
    assert d.code == "absolute-path"
    assert "inside the workspace" in d.message
    (fix,) = d.fixes
    assert fix.title.endswith("src/app.py")
    fixed = apply_fix(text, fix)
    assert "<fake-write>src/app.py</fake-write>" in fixed
    assert analyze(fixed, fake_dialects, roots=("/work/project",)).diagnostics == []


def test_second_root_and_dotted_absolute_path(fake_dialects: DialectSet, apply_fix) -> None:  # type: ignore[no-untyped-def]
    text, diags = check("/srv/b/./lib/../x.py", fake_dialects, roots=("/srv/a", "/srv/b"))
    (d,) = diags
    fixed = apply_fix(text, d.fixes[0])
    assert "<fake-write>x.py</fake-write>" in fixed


@pytest.mark.parametrize("path", ["/etc/passwd", "/work/projectile/x", "/work/project"])
def test_absolute_path_outside_the_root_has_no_fix(path: str, fake_dialects: DialectSet) -> None:
    _, diags = check(path, fake_dialects, roots=("/work/project",))
    (d,) = diags
    assert d.code == "absolute-path"
    assert d.fixes == []


def test_empty_path_is_invalid_at_the_tag_name(fake_dialects: DialectSet) -> None:
    text = "<fake-write></fake-write>\n"
    (d,) = analyze(text, fake_dialects).diagnostics
    assert d.code == "invalid-path"
    assert d.span == Span(1, 1 + len("fake-write"))  # the empty value has no width: the key


def test_nul_character_range_is_the_character(fake_dialects: DialectSet) -> None:
    text, diags = check("src/a\x00b.py", fake_dialects)
    (d,) = diags
    assert d.code == "invalid-path"
    at = text.index("\x00")
    assert d.span == Span(at, at + 1)
    assert "NUL" in d.message


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("CON.txt", "reserved"),
        ("src/nul", "reserved"),
        ("lpt1.log", "reserved"),
        ("notes.", "dot"),
        ("dir./x", "dot"),
        ("a/b ", "spaces"),
        ("what?.md", "?"),
        ("a\tb", "U+0009"),
    ],
)
def test_invalid_paths(path: str, needle: str, fake_dialects: DialectSet) -> None:
    _, diags = check(path, fake_dialects)
    (d,) = diags
    assert d.code == "invalid-path"
    assert needle in d.message


def test_reserved_names_need_the_whole_stem() -> None:
    ok = Field("path", "console.txt", Span(0, 11))
    assert paths.path_problem(ok) is None
    assert paths.path_problem(Field("path", "aux.c", Span(0, 5))).code == "invalid-path"  # type: ignore[union-attr]


def test_rule_looks_at_file_actions_and_every_path_field() -> None:
    def f(name: str, value: str, at: int) -> Field:
        return Field(
            name, value, Span(at, at + len(value)), None, SourceMap.verbatim(at, at + len(value))
        )

    rename = Action(
        "x",
        "rename",
        ActionKind.RENAME_FILE,
        Span(0, 100),
        Span(0, 1),
        {"from": f("from", "ok.txt", 10), "to": f("to", "../out.txt", 30)},
    )
    read = Action(
        "x",
        "read",
        ActionKind.READ_FILE,
        Span(0, 100),
        Span(0, 1),
        {"path": f("path", "/etc/x", 50)},
    )
    task = Action(
        "x", "task", ActionKind.OTHER, Span(0, 100), Span(0, 1), {"path": f("path", "/etc/x", 70)}
    )
    ctx = RuleContext(DialectSet())
    got = [(d.code, d.span) for d in paths.check([rename, read, task], ctx)]
    assert got == [("path-traversal", Span(30, 40)), ("absolute-path", Span(50, 56))]


# -- many absolute paths: one diagnostic, not one per action ---------------------------------

MANY = ["/Users/dev/repo/a.py", "/Users/dev/repo/src/b.py", "/Users/dev/repo/c.md"]


def test_many_absolute_paths_give_one_diagnostic(fake_dialects: DialectSet) -> None:
    """A session whose paths are all absolute and that records no working directory: one error,
    on the first action, saying that the later ones under the same place are not reported (the
    edit engine still refuses every one of them)."""
    text = "".join(write(p) for p in MANY)
    (d,) = analyze(text, fake_dialects).diagnostics
    assert d.code == "absolute-path" and d.severity is None  # an error
    assert text[d.span.start : d.span.end] == MANY[0]
    assert "no working directory" in d.message
    assert "later absolute paths under `/Users/dev` are not applied either and are not reported again" in d.message


def test_an_absolute_path_elsewhere_is_still_reported(fake_dialects: DialectSet) -> None:
    text = "".join(write(p) for p in [*MANY, "/etc/passwd", "C:\\Apps\\x.ts", "c:/apps/y.ts"])
    got = [text[d.span.start : d.span.end] for d in analyze(text, fake_dialects).diagnostics]
    assert got == [MANY[0], "/etc/passwd", "C:\\Apps\\x.ts", "c:/apps/y.ts"]  # (places compare exactly)


def test_streamed_diagnostics_report_them_once_too(fake_dialects: DialectSet) -> None:
    from action_lsp.stream import diagnostics

    text = "".join(write(p) for p in MANY) + "<fake-write>../up.txt</fake-write>\n"
    assert list(diagnostics(text, fake_dialects)) == analyze(text, fake_dialects).diagnostics
    assert [d.code for d in analyze(text, fake_dialects).diagnostics] == ["absolute-path", "path-traversal"]
