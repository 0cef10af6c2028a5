"""The edit engine with the grammars of Java, C, C++, C#, Ruby, PHP, Kotlin, Swift, Bash, HTML, CSS,
YAML, TOML and Markdown: the token strategy finds a search block whose layout drifted (not in
YAML and Markdown, where layout is structure), a modify that breaks a file that parsed is
``new-syntax-error``, and created content is ``syntax-error`` -- each at the strength the
grammar has earned on real files (``Lang.judged``: error, warning, or nothing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_lsp.document import analyze
from action_lsp.edit import Workspace, plan_changes
from action_lsp.edit.locate import Located, locate
from action_lsp.model import Severity
from action_lsp.syntax import language_for, syntax_errors, tokens

# path: (file, a search block of a part of it in another layout, its replacement)
DRIFTED = {
    "App.java": (
        "class App {\n    int total(int a, int b) {\n        return add(a,\n                   b);\n"
        "    }\n}\n",
        "return add(a, b);",
        "return add(b, a);",
    ),
    "util.c": (
        "int total(int a, int b)\n{\n    return add(a,\n               b);\n}\n",
        "int total(int a, int b) {\n  return add(a, b);\n}",
        "int total(int a, int b) {\n  return add(b, a);\n}",
    ),
    "util.cpp": (
        "namespace n {\nauto total(int a, int b) -> int {\n  return add(a,  // first\n             b);\n}\n}\n",
        "return add(a, // first\n b);",  # (a comment it lacked would make the place a question)
        "return add(b, a);",
    ),
    "App.cs": (
        "class App\n{\n    int Total(int a, int b)\n    {\n        return Add(a,\n            b);\n    }\n}\n",
        "int Total(int a, int b) { return Add(a, b); }",
        "int Total(int a, int b) { return Add(b, a); }",
    ),
    "app.rb": (
        "class App\n  def total(a, b)\n    add(a,\n        b)\n  end\nend\n",
        "add(a, b)",
        "add(b, a)",
    ),
    "app.php": (
        "<?php\nfunction total($a, $b) {\n    return add($a,\n        $b);\n}\n",
        "return add($a, $b);",
        "return add($b, $a);",
    ),
    "App.kt": (
        "class App {\n    fun total(a: Int, b: Int): Int {\n        return add(a,\n            b)\n    }\n}\n",
        "return add(a, b)",
        "return add(b, a)",
    ),
    "App.swift": (
        "struct App {\n    func total(a: Int, b: Int) -> Int {\n        return add(a,\n"
        "                   b)\n    }\n}\n",
        "return add(a, b)",
        "return add(b, a)",
    ),
    "build.sh": (
        'build() {\n  gcc -O2 \\\n    -o "$out" \\\n    main.c\n}\n',
        'gcc -O2 -o "$out" main.c',
        'gcc -O3 -o "$out" main.c',
    ),
    "index.html": (
        '<ul>\n  <li><a\n      href="/a"\n      class="x">A</a></li>\n</ul>\n',
        '<a href="/a" class="x">A</a>',
        '<a href="/b" class="x">A</a>',
    ),
    "style.css": (
        "a.button,\na.link {\n  color: red;\n  margin: 0 auto;\n}\n",
        "a.button, a.link { color: red; margin: 0 auto; }",
        "a.button, a.link { color: blue; margin: 0 auto; }",
    ),
    "pyproject.toml": (
        '[project]\ndependencies = [\n  "a",\n  "b",\n]\n',
        'dependencies = ["a", "b"]',
        'dependencies = ["a", "b", "c"]',
    ),
}


@pytest.mark.parametrize("path", sorted(DRIFTED))
def test_token_strategy_finds_a_drifted_block(path: str) -> None:
    text, search, replace = DRIFTED[path]
    found = locate(text, search, path=path)
    assert isinstance(found, Located), found
    assert found.strategy == "syntax" and found.certain
    new = text[: found.start] + found.replacement(replace) + text[found.end :]
    lang = language_for(path)
    assert lang is not None
    # The edit lands on the drifted code (its tokens are replaced), and the file still parses.
    joined = " ".join(t.text for t in tokens(new, lang))
    assert " ".join(t.text for t in tokens(replace, lang.for_snippet(replace))) in joined
    assert " ".join(t.text for t in tokens(search, lang.for_snippet(search))) not in joined
    assert syntax_errors(new, lang) == []


@pytest.mark.parametrize(
    ("path", "text", "search"),
    [
        # `b: 2` moved under `a:` is another document, not another layout.
        ("config.yml", "a:\n  x: 1\nb: 2\n", "a:\n  x: 1\n  b: 2\n"),
        ("k8s/app.yaml", "spec:\n  containers:\n    - name: app\n      image: x\n",
         "spec: {containers: [{name: app, image: x}]}"),
        # A list item is not a paragraph.
        ("README.md", "# Title\n\n- one\n- two\n", "# Title\n\n- one - two\n"),
    ],
)
def test_no_token_strategy_where_layout_is_structure(path: str, text: str, search: str) -> None:
    found = locate(text, search, path=path)
    assert not (isinstance(found, Located) and found.strategy == "syntax")
    assert not (isinstance(found, Located) and found.certain)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    return r


# path: (a file that parses, a modify that breaks it)
BREAKS = {
    "App.java": ("class App {\n    int f() { return 1; }\n}\n", ("return 1;", "return (1;")),
    "app.rb": ("def f\n  1\nend\n", ("  1\n", "  (1\n")),
    "app.php": ("<?php\nfunction f() { return 1; }\n", ("return 1;", "return (1;")),
    "build.sh": ('if [ -f x ]; then\n  echo "yes"\nfi\n', ("fi\n", "")),
    "ci.yml": ("a: [1, 2]\nb: 3\n", ("[1, 2]", "[1, 2")),
    "pyproject.toml": ('[a]\nx = "1"\n', ('"1"', '"1')),
    # judged as a warning only
    "App.cs": ("class App {\n    int F() { return 1; }\n}\n", ("return 1;", "return (1;")),
    "App.kt": ("fun f(): Int {\n    return 1\n}\n", ("return 1", "return (1")),
    "App.swift": ("func f() -> Int {\n    return 1\n}\n", ("return 1", "return (1")),
    "index.html": ('<p class="a">x</p>\n', ('class="a"', 'class="a')),
    "style.css": ("a { color: red; }\n", ("red; }", "red;")),
    # not judged
    "util.c": ("int f(void) { return 1; }\n", ("return 1;", "return (1;")),
    "util.cpp": ("int f() { return 1; }\n", ("return 1;", "return (1;")),
    "util.h": ("int f(void);\n", ("f(void);", "f(void;")),
    "README.md": ("# A\n\ntext\n", ("text", "```\ncode")),
}
JUDGED = {
    "App.java": "error", "app.rb": "error", "app.php": "error", "build.sh": "error",
    "ci.yml": "error", "pyproject.toml": "error",
    "App.cs": "warning", "App.kt": "warning", "App.swift": "warning", "index.html": "warning",
    "style.css": "warning",
    "util.c": "off", "util.cpp": "off", "util.h": "off", "README.md": "off",
}


def test_every_break_case_has_a_verdict() -> None:
    assert sorted(BREAKS) == sorted(JUDGED)
    for path, verdict in JUDGED.items():
        lang = language_for(path)
        assert lang is not None and lang.judged == verdict, path


@pytest.mark.parametrize("path", sorted(BREAKS))
def test_new_syntax_error_on_a_breaking_modify(root: Path, tx, path: str) -> None:
    text, (search, replace) = BREAKS[path]
    (root / path).write_text(text)
    action = tx().modify(path, (search, replace))
    plan = plan_changes([action], Workspace(root))
    found = [d for d in plan.outcomes[0].diagnostics if d.code == "new-syntax-error"]
    verdict = JUDGED[path]
    if verdict == "off":
        assert plan.ok and found == []
        return
    (d,) = found
    if verdict == "error":
        assert not plan.ok and d.severity is None  # the registry's: error, blocks
        forced = plan_changes([action], Workspace(root), force=True)
        assert forced.ok
    else:
        assert plan.ok and d.severity is Severity.WARNING  # shown, never blocks
        assert "a warning" in d.message
        assert plan.changes[0].new_text == text.replace(search, replace, 1)


@pytest.mark.parametrize("path", sorted(BREAKS))
def test_a_valid_modify_is_clean(root: Path, tx, path: str) -> None:
    text, (search, _) = BREAKS[path]
    (root / path).write_text(text)
    plan = plan_changes([tx().modify(path, (search, search + " "))], Workspace(root))
    assert plan.ok
    assert not [d for d in plan.outcomes[0].diagnostics if d.code == "new-syntax-error"]


def create(path: str, content: str) -> str:
    return f"<create_file>\n<path>{path}</path>\n<content>\n{content}</content>\n</create_file>\n"


@pytest.mark.parametrize("path", sorted(BREAKS))
def test_syntax_error_in_created_content(path: str) -> None:
    text, (search, replace) = BREAKS[path]
    broken = text.replace(search, replace, 1)
    assert not [d for d in analyze(create(path, text)).diagnostics if d.code == "syntax-error"]
    found = [d for d in analyze(create(path, broken)).diagnostics if d.code == "syntax-error"]
    verdict = JUDGED[path]
    if verdict == "off":
        assert found == []
    elif verdict == "error":
        assert found and all(d.severity is None for d in found)
    else:
        assert found and all(d.severity is Severity.WARNING for d in found)


@pytest.mark.parametrize(
    ("path", "content"),
    [
        # Helm and ERB templates of YAML are not YAML: never judged.
        ("templates/deploy.yaml", "spec:\n  {{- if .Values.x }}\n  replicas: 1\n  {{- end }}\n"),
        ("test/fixtures/users.yml", "<% 3.times do |i| %>\nuser_<%= i %>:\n  id: <%= i %>\n<% end %>\n"),
    ],
)
def test_yaml_templates_are_not_judged(root: Path, tx, path: str, content: str) -> None:
    assert not [d for d in analyze(create(path, content)).diagnostics if d.code == "syntax-error"]
    (root / "templates").mkdir()
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text("a: 1\n")
    plan = plan_changes([tx().modify(path, ("a: 1\n", content))], Workspace(root))
    assert plan.ok and not plan.outcomes[0].diagnostics


def test_a_github_workflow_expression_is_yaml_not_a_template() -> None:
    # `${{ matrix.os }}` is a plain scalar of valid YAML: a workflow is still judged.
    broken = "jobs:\n  test:\n    runs-on: ${{ matrix.os }}\n    steps: [a\n"
    found = [d for d in analyze(create(".github/workflows/ci.yml", broken)).diagnostics
             if d.code == "syntax-error"]
    assert found and found[0].severity is None


def test_a_rewrite_of_a_c_file_is_not_called_truncated_by_a_grammar_that_misreads_it() -> None:
    from action_lsp.rules.truncation import dropped_definitions

    old = "".join(f"int f{i}(void) {{ return {i}; }}\n" for i in range(6))
    # Valid C the grammar misreads (a macro in a type's place): its functions are not seen.
    new = "#define T int\n" + "".join(f"T f{i}(void) {{ return va_arg(ap, void *); }}\n"
                                      for i in range(6))
    assert dropped_definitions(old, new, "util.c") is None
    # Java, judged at error, keeps the check.
    jold = "class A {\n" + "".join(f"  void m{i}() {{}}\n" for i in range(6)) + "}\n"
    assert dropped_definitions(jold, "class A {\n  void m0() {}\n}\n", "A.java") == (2, 7)


def test_a_warning_only_new_syntax_error_is_not_offered_apply_anyway(root: Path, tx) -> None:
    # A Kotlin break only warns and is applied as it is: "Apply anyway" would lift nothing.
    from action_lsp.server.commands import forcible

    text, (search, replace) = BREAKS["App.kt"]
    (root / "App.kt").write_text(text)
    plan = plan_changes([tx().modify("App.kt", (search, replace))], Workspace(root))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "new-syntax-error" and not forcible(d, [])
    text, (search, replace) = BREAKS["App.java"]
    (root / "App.java").write_text(text)
    plan = plan_changes([tx().modify("App.java", (search, replace))], Workspace(root))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "new-syntax-error" and forcible(d, [])


def test_code_to_run_is_checked_in_its_declared_language() -> None:
    def found(language: str, code: str) -> list[str]:
        text = f'<aether-sandbox language="{language}">\n{code}</aether-sandbox>\n'
        return [d.message for d in analyze(text).diagnostics if d.code == "syntax-error"]

    # PHP run as code has no `<?php`: it is read as PHP, not as HTML text.
    assert found("php", "echo strlen('abc');\n") == []
    (message,) = found("php", "echo strlen('abc';\n")
    assert message.startswith("php syntax error in aether-sandbox code")
    assert found("bash", 'for f in *.txt; do echo "$f"; done\n') == []
    assert found("bash", 'for f in *.txt; do echo "$f"\n')
    assert found("ruby", "puts [1, 2].sum\n") == []
    assert found("ruby", "puts [1, 2.sum\n")
