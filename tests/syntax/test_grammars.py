"""The grammars of the files people edit beyond the first seven: Java, C, C++, C#, Ruby, PHP,
Kotlin, Swift, Bash, HTML, CSS, YAML, TOML and Markdown. For each: which files it reads, valid
code is clean, a broken file is flagged at the fault, two layouts give the same tokens (where
layout is not structure), and its definitions. How far each grammar's errors are trusted
(``Lang.judged``) is measured in docs/languages.md."""

from __future__ import annotations

import pytest

from action_lsp.syntax import Lang, definitions, language_for, parse_ok, syntax_errors, tokens


def lang(name: str) -> Lang:
    found = language_for(language=name)
    assert found is not None, name
    return found


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("src/main/java/App.java", "java"),
        ("src/util.c", "c"),
        ("include/util.h", "cpp"),  # `.h` is read as C++ (the C++ grammar reads C too)
        ("src/app.cpp", "cpp"), ("src/app.cc", "cpp"), ("a.cxx", "cpp"), ("a.hpp", "cpp"),
        ("a.hh", "cpp"), ("a.ipp", "cpp"),
        ("Program.cs", "csharp"),
        ("app/models/user.rb", "ruby"), ("Gemfile", "ruby"), ("lib/tasks/db.rake", "ruby"),
        ("x/Rakefile", "ruby"), ("app.gemspec", "ruby"), ("config.ru", "ruby"),
        ("Podfile", "ruby"), ("Vagrantfile", "ruby"),
        ("src/Controller.php", "php"), ("views/page.phtml", "php"),
        ("Main.kt", "kotlin"), ("build.gradle.kts", "kotlin"),
        ("Sources/App.swift", "swift"),
        ("install.sh", "bash"), ("x.bash", "bash"), ("home/.bashrc", "bash"),
        (".bash_profile", "bash"), (".profile", "bash"), ("PKGBUILD", "bash"),
        ("index.html", "html"), ("page.htm", "html"),
        ("style.css", "css"),
        (".github/workflows/ci.yml", "yaml"), ("k8s/deploy.yaml", "yaml"), (".clang-format", "yaml"),
        ("pyproject.toml", "toml"), ("Cargo.lock", "toml"), ("Pipfile", "toml"),
        ("README.md", "markdown"), ("docs/x.markdown", "markdown"),
    ],
)
def test_language_from_path(path: str, name: str) -> None:
    found = language_for(path)
    assert found is not None and found.name == name


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("java", "java"), ("c", "c"), ("cpp", "cpp"), ("c++", "cpp"), ("csharp", "csharp"),
        ("C#", "csharp"), ("cs", "csharp"), ("ruby", "ruby"), ("rb", "ruby"), ("php", "php"),
        ("kotlin", "kotlin"), ("kt", "kotlin"), ("swift", "swift"), ("bash", "bash"),
        ("sh", "bash"), ("shell", "bash"), ("html", "html"), ("css", "css"), ("yaml", "yaml"),
        ("yml", "yaml"), ("toml", "toml"), ("markdown", "markdown"), ("md", "markdown"),
    ],
)
def test_language_from_name(alias: str, name: str) -> None:
    assert lang(alias).name == name


@pytest.mark.parametrize(
    "path",
    [
        # Not a shell script, whatever the agent declares.
        "Dockerfile", "docker/Dockerfile.prod", "api.dockerfile", "Containerfile", "Makefile",
        "rules.mk", "Jenkinsfile", "Procfile", "justfile",
        # A Blade template is not PHP; a zsh or fish file is not Bash; .bats is Bats, not Bash;
        # MDX is not Markdown; SCSS is not CSS; Gemfile.lock is not Ruby.
        "resources/views/welcome.blade.php", ".zshrc", "home/.zprofile", "x.zsh", "conf.fish",
        "test/a.bats", "page.mdx", "style.scss", "Gemfile.lock",
    ],
)
def test_files_no_grammar_describes(path: str) -> None:
    assert language_for(path) is None
    assert language_for(path, "bash") is None  # whatever the agent declares


def test_a_declared_language_does_not_make_a_dockerfile_bash() -> None:
    assert language_for("Dockerfile", "bash") is None
    assert language_for("Makefile", "sh") is None
    found = language_for("bin/deploy", "bash")  # a script without an extension
    assert found is not None and found.name == "bash"


VALID = {
    "java": """\
package com.example;

import java.util.*;

/** A repository. é 😀 */
@Deprecated
public class Repo<T extends Comparable<T>> implements Iterable<T> {
    private final List<T> items = new ArrayList<>();
    private static final String NAME = "repo" + 'x' + \"\"\"
        text block\"\"\";

    public Repo() {}

    @Override
    public Iterator<T> iterator() { return items.iterator(); }

    public <U> Optional<U> map(java.util.function.Function<T, U> f) {
        return items.stream().map(f).findFirst();
    }

    record Pair(int a, int b) {}
    enum Kind { A, B }
    sealed interface Shape permits Circle {}
    final class Circle implements Shape {}

    int sw(Object o) {
        return switch (o) {
            case Integer i when i > 0 -> i;
            default -> { yield 0; }
        };
    }
}
""",
    "c": """\
#include <stdio.h>
#include "util.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct point { int x, y; } point_t;

static const char *names[] = {"a", "b", NULL};

/* é 😀 */
int add(int a, int b) { return a + b; }

int main(int argc, char **argv) {
    point_t p = {.x = 1, .y = 2};
    for (int i = 0; i < argc; i++) {
        printf("%s %d\\n", argv[i], MAX(p.x, p.y));
    }
    switch (argc) { case 1: break; default: return 1; }
    return 0;
}
""",
    "cpp": """\
#include <memory>
#include <vector>

namespace app {

template <typename T>
class Box {
 public:
  explicit Box(T v) : v_(std::move(v)) {}
  T get() const noexcept { return v_; }
  auto operator<=>(const Box&) const = default;

 private:
  T v_;
};

enum class Color { Red, Green };

auto make() {
  auto items = std::vector<std::unique_ptr<Box<int>>>{};
  items.push_back(std::make_unique<Box<int>>(1));
  auto f = [&items](int x) -> int { return x + static_cast<int>(items.size()); };
  const char* raw = R"(raw "text")";
  return f(0);
}

}  // namespace app
""",
    "csharp": """\
using System;
using System.Collections.Generic;

namespace App;

[Serializable]
public sealed class Repo<T> where T : class
{
    private readonly List<T> _items = new();
    public int Count => _items.Count;
    public string Name { get; init; } = "repo";

    public async Task<T?> FindAsync(Func<T, bool> f)
    {
        await Task.Yield();
        var s = $"é 😀 {Count}" + @"C:\\x" + 'c';
        return _items.Find(x => f(x)) switch { null => null, var x => x };
    }
}

public record Point(int X, int Y);
""",
    "ruby": """\
# frozen_string_literal: true

require "json"

module Shop
  class Cart < Base
    attr_reader :items

    def initialize(items = [])
      @items = items
    end

    def total = items.sum { |i| i.price * i.qty }

    def self.load(path, **opts, &blk)
      data = JSON.parse(File.read(path), symbolize_names: true)
      new(data.map { |h| Item.new(**h) }).tap(&blk)
    rescue Errno::ENOENT => e
      warn "missing #{path}: #{e.message} é 😀"
      nil
    end

    private

    def check!
      raise ArgumentError, 'empty' if items.empty?
      %w[a b].each_with_index.to_h
      /\\d+/.match?("12") ? :ok : :bad
    end
  end
end
""",
    "php": """\
<?php

declare(strict_types=1);

namespace App\\Http;

use App\\Models\\User;

/** é 😀 */
final class UserController extends Controller
{
    public function __construct(private readonly Repo $repo) {}

    public function show(int $id): ?User
    {
        $user = $this->repo->find($id) ?? throw new NotFound("no user {$id}");
        return match (true) {
            $user->active => $user,
            default => null,
        };
    }
}

function helper(array $xs): array
{
    return array_map(fn ($x) => $x * 2, $xs);
}
""",
    "kotlin": """\
package com.example

import kotlinx.coroutines.flow.Flow

/** é 😀 */
@Suppress("unused")
class Repo<T : Any>(private val items: MutableList<T> = mutableListOf()) : Base(), Source<T> {
    val size: Int get() = items.size

    fun find(predicate: (T) -> Boolean): T? = items.firstOrNull(predicate)

    suspend fun stream(): Flow<T> = flow { items.forEach { emit(it) } }

    companion object {
        const val NAME = "repo"
        fun <T : Any> of(vararg xs: T) = Repo(xs.toMutableList())
    }
}

sealed interface Shape
data class Circle(val r: Double) : Shape
object Empty : Shape

fun area(s: Shape): Double = when (s) {
    is Circle -> Math.PI * s.r * s.r
    Empty -> 0.0
}
""",
    "swift": """\
import Foundation

/// é 😀
@available(iOS 15, *)
public final class Repo<T: Hashable>: Store {
    private var items: [T] = []
    public var count: Int { items.count }

    init(items: [T] = []) {
        self.items = items
    }

    func find(where predicate: (T) -> Bool) -> T? {
        items.first(where: predicate)
    }

    func load() async throws -> [T] {
        guard !items.isEmpty else { throw RepoError.empty }
        return items.map { $0 }
    }
}

enum RepoError: Error { case empty }

struct Point: Codable { var x: Double; var y: Double }

extension Repo: CustomStringConvertible {
    public var description: String { "Repo(\\(count))" }
}
""",
    "bash": """\
#!/usr/bin/env bash
set -euo pipefail

# é 😀
readonly ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
  cat <<EOF
usage: $0 [-v] file...
EOF
}

function build {
  local target=${1:-all}
  for f in "$ROOT"/src/*.c; do
    [[ -f "$f" ]] || continue
    gcc -c "$f" -o "${f%.c}.o" 2>/dev/null || echo 'failed' >&2
  done
  case "$target" in
    all|release) echo "building $target" ;;
    *) usage; return 1 ;;
  esac
  arr=(a b c); echo "${#arr[@]}" $((1 + 2))
}

build "$@"
""",
    "html": """\
<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>é 😀</title>
  <style>body { margin: 0; } a > b { color: red; }</style>
  <script>if (1 < 2 && 3 > 2) { console.log("<b>"); }</script>
</head>
<body class='app' data-x=1>
  <!-- a comment -->
  <p>Hello <b>world</b><br>
  <img src="a.png" alt="">
  <ul><li>one<li>two</ul>
</body>
</html>
""",
    "css": """\
@import url("base.css");
@charset "utf-8";

/* é 😀 */
:root { --main: #fff; --gap: calc(1rem + 2px); }

a.button > span:hover::before,
input[type="text"] {
  content: '→';
  margin: 0 auto !important;
  background: url(img/bg.png) no-repeat;
}

@media (max-width: 600px) and (orientation: portrait) {
  .grid { display: grid; grid-template-columns: repeat(2, 1fr); }
}

@keyframes spin { from { transform: rotate(0deg); } to { transform: rotate(360deg); } }
""",
    "yaml": """\
# é 😀
name: CI
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, macos-latest]
    steps:
      - uses: actions/checkout@v4
      - name: Run
        run: |
          make test
          echo "done"
defaults: &defaults
  retries: 3
other:
  <<: *defaults
  quoted: 'it''s'
---
second: document
""",
    "toml": """\
# é 😀
[project]
name = "app"
version = "1.0.0"
dependencies = [
  "requests>=2",
  "rich",
]
authors = [{ name = "A", email = "a@example.com" }]

[tool.ruff]
line-length = 100
exclude = ['build', "dist"]

[[tool.mypy.overrides]]
module = "x.*"
ignore_missing_imports = true
when = 1979-05-27T07:32:00Z
ratio = 1.5e3
text = \"\"\"
multi
line\"\"\"
""",
    "markdown": """\
# Title é 😀

Some *text* with `code` and a [link](http://example.com).

## Install

1. one
2. two

```python
x = (1
```

> quote

| a | b |
|---|---|
| 1 | 2 |
""",
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_no_errors_on_valid_code(name: str) -> None:
    code = VALID[name]
    assert syntax_errors(code, lang(name)) == []
    assert parse_ok(code, lang(name))


def errors(code: str, name: str) -> list[tuple[int, str, str]]:
    """(line, text at the range, message) of each problem."""
    return [
        (code.count("\n", 0, p.start) + 1, code[p.start : p.end], p.message)
        for p in syntax_errors(code, lang(name))
    ]


# A broken file of each language and where the first error must be: (line, text at the range).
BROKEN = {
    "java": ("class A {\n  void f() {\n    int x = ;\n  }\n}\n", (3, "=")),
    "c": ("int f(void) {\n  int x = 1 +;\n  return x;\n}\n", (2, "+")),
    "cpp": ("class A {\n  int f() { return (1; }\n};\n", (2, "")),
    "csharp": ("class A {\n  void F() {\n    var x = ;\n  }\n}\n", (3, "=")),
    "ruby": ("def f(x\n  x + 1\nend\n", (1, "")),
    "php": ("<?php\nfunction f($x) {\n  return $x +;\n}\n", (3, "")),
    "kotlin": ("fun f(x: Int): Int {\n    return x +\n}\n", (2, "")),
    "swift": ("func f() -> Int {\n    let x = (1 + 2\n    return x\n}\n", (2, "")),
    "bash": ('if [ -f x ]; then\n  echo "yes"\n', (3, "")),
    "html": ('<p class="a>text</p>\n', (1, "")),
    "css": ("a { color: red;\n  margin: 0\n", (1, "{")),
    "yaml": ("a: [1, 2\nb: 3\n", (1, "")),
    "toml": ('[a]\nx = "1\ny = 2\n', (2, "")),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_code_is_flagged_at_the_fault(name: str) -> None:
    code, (line, text) = BROKEN[name]
    found = errors(code, name)
    assert found, name
    first_line, first_text, message = found[0]
    assert first_line == line, found
    if text:
        assert first_text == text, found
    assert message


def test_markdown_has_no_syntax_errors() -> None:
    # Every text is a Markdown document: nothing there is ever a syntax error.
    for text in ("```python\nx = (1\n", "# a\n\n* b\n  * c\n[x](", "<div>\n\n| a |\n"):
        assert syntax_errors(text, lang("markdown")) == []


def texts(code: str, name: str) -> list[str]:
    return [t.text for t in tokens(code, lang(name))]


# The same code in two layouts (re-wrapped, re-indented, comments added): same tokens.
LAYOUTS = {
    "java": ("int s = add(a, \"x y\", 'c'); // c", "int s = add(\n    a, /* why */\n    \"x y\",\n    'c');"),
    "c": ('x = f(a, "s t", \'c\');', 'x = f(a,\n      /* c */ "s t",\n      \'c\');'),
    "cpp": ('auto x = f(a, R"(r s)");', 'auto x =\n    f(a,  // c\n      R"(r s)");'),
    "csharp": ('var x = F(a, $"s {b}", @"v w");', 'var x = F(\n    a, // c\n    $"s {b}",\n    @"v w");'),
    "ruby": ('x = f(a, "s #{b}", :c)', 'x = f(\n  a, # c\n  "s #{b}",\n  :c\n)'),
    "php": ('<?php $x = f($a, "s {$b}", \'c\');', '<?php $x = f(\n    $a, // c\n    "s {$b}",\n    \'c\'\n);'),
    "kotlin": ('val x = f(a, "s ${b}")', 'val x = f(\n    a, // c\n    "s ${b}"\n)'),
    "swift": ('let x = f(a, "s \\(b)")', 'let x = f(\n    a, // c\n    "s \\(b)"\n)'),
    "bash": ('cp -r "$src dir" \'b c\' "$dst"', 'cp -r   "$src dir"   \'b c\' "$dst"  # c'),
    "html": ('<a href="x y" class="b">t</a>', '<a\n  href="x y"\n  class="b"\n>t</a>'),
    "css": ("a > b { color: red; content: 'x y'; }", "a>b {\n  color: red; /* c */\n  content: 'x y';\n}"),
    "toml": ('a = [1, "x y"]', 'a = [\n  1, # c\n  "x y"\n]'),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_two_layouts_same_tokens(name: str) -> None:
    one, two = LAYOUTS[name]
    assert texts(one, name) == texts(two, name)
    assert texts(one, name)  # not empty


def test_string_contents_stay_whole() -> None:
    # A space inside a string is content, not layout.
    for name, one, two in (
        ("java", 'f("a b");', 'f("a  b");'),
        ("ruby", 'f("a #{b} c")', 'f("a #{b}  c")'),
        ("bash", 'echo "a b"', 'echo "a  b"'),
        ("yaml", 'a: "x y"', 'a: "x  y"'),
    ):
        assert texts(one, name) != texts(two, name), name


def test_layout_is_structure_in_yaml_and_markdown() -> None:
    for name in ("yaml", "markdown"):
        assert not lang(name).layout_tokens
    for name in ("java", "c", "cpp", "csharp", "ruby", "php", "kotlin", "swift", "bash", "html",
                 "css", "toml"):
        assert lang(name).layout_tokens


def defs(code: str, name: str) -> list[tuple[str, str]]:
    return [(d.kind, d.name) for d in definitions(code, lang(name))]


DEFINITIONS = {
    "java": [("class", "Repo"), ("method", "Repo"), ("method", "iterator"), ("method", "map"),
             ("class", "Pair"), ("enum", "Kind"), ("interface", "Shape"), ("class", "Circle"),
             ("method", "sw")],
    "c": [("macro", "MAX"), ("struct", "point"), ("function", "add"), ("function", "main")],
    "cpp": [("namespace", "app"), ("class", "Box"), ("method", "Box"), ("method", "get"),
            ("method", "operator<=>"), ("enum", "Color"), ("function", "make")],
    "csharp": [("class", "Repo"), ("property", "Count"), ("property", "Name"),
               ("method", "FindAsync"), ("class", "Point")],
    "ruby": [("module", "Shop"), ("class", "Cart"), ("method", "initialize"), ("method", "total"),
             ("method", "load"), ("method", "check!")],
    "php": [("class", "UserController"), ("method", "__construct"), ("method", "show"),
            ("function", "helper")],
    "kotlin": [("class", "Repo"), ("method", "find"), ("method", "stream"), ("method", "of"),
               ("class", "Shape"), ("class", "Circle"), ("class", "Empty"), ("function", "area")],
    "swift": [("class", "Repo"), ("method", "init"), ("method", "find"), ("method", "load"),
              ("enum", "RepoError"), ("struct", "Point"), ("extension", "Repo")],
    "bash": [("function", "usage"), ("function", "build")],
    "markdown": [("section", "Title é 😀"), ("section", "Install")],
}


@pytest.mark.parametrize("name", sorted(DEFINITIONS))
def test_definitions(name: str) -> None:
    assert defs(VALID[name], name) == DEFINITIONS[name]


def test_c_type_uses_are_not_definitions() -> None:
    code = "struct node { struct node *next; };\nvoid f(struct node *n) {}\n"
    assert defs(code, "c") == [("struct", "node"), ("function", "f")]


def test_definitions_cover_attributes_and_annotations() -> None:
    code = VALID["java"]
    (repo, *_) = definitions(code, lang("java"))
    assert code[repo.start :].startswith("@Deprecated\npublic class Repo")
    code = VALID["csharp"]
    (repo, *_) = definitions(code, lang("csharp"))
    assert code[repo.start :].startswith("[Serializable]\npublic sealed class Repo")


def test_grammars_load_only_when_used() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, action_lsp.syntax as s\n"
        "s.language_for('a.rb'); s.language_for('a.kt')\n"
        "loaded = lambda: sorted(m for m in sys.modules if m.startswith('tree_sitter_')"
        " and '.' not in m)\n"
        "print(loaded())\n"
        "s.parse_ok('x = 1', s.language_for('a.rb'))\n"
        "print(loaded())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "[]"
    assert after == "['tree_sitter_ruby']"
