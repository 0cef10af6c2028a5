import pytest

from action_lsp.syntax import Lang, definitions, language_for, tokens


def lang(name: str) -> Lang:
    found = language_for(language=name)
    assert found is not None
    return found


def texts(code: str, name: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokens(code, lang(name))]


def test_tokens_cover_their_text_with_code_point_ranges() -> None:
    code = "# é\nx = gb.create_task('é 😀 中文', notes=\"n\")  # done 😀\ny = x\n"
    toks = tokens(code, lang("py"))
    for tok in toks:
        assert code[tok.start : tok.end] == tok.text
    assert [t.text for t in toks] == [
        "x", "=", "gb", ".", "create_task", "(", "'é 😀 中文'", ",", "notes", "=", '"n"', ")",
        "y", "=", "x",
    ]  # fmt: skip
    assert toks[6].kind == "string"


@pytest.mark.parametrize(
    ("name", "one", "two"),
    [
        (
            "py",
            "result = gb.create_task('Review', notes='x', status='pending')  # go\n",
            "result = gb.create_task(\n    'Review',\n    # why\n    notes='x',"
            "\n    status='pending')\n",
        ),
        (
            "js",
            "const r = call(a, `t ${b}`, /re+/g); // c\n",
            "const r = call(\n  a,\n  /* inline */ `t ${b}`,\n  /re+/g\n);\n",
        ),
        (
            "ts",
            "function f<T>(x: T): T { return g(x, 'a'); }",
            "function f<T>(x: T): T {\n    // comment\n    return g(\n        x,\n        'a');\n}",
        ),
        ("go", 'func f() { g(1, "s", `raw`) }', 'func f() {\n\tg(1,\n\t\t"s", // c\n\t\t`raw`)\n}'),
        (
            "rust",
            'fn f() { g(1, "s", r#"raw"#, \'c\'); }',
            'fn f() {\n    /* c */ g(\n        1,\n        "s", // x\n        r#"raw"#,\n        \'c\');\n}',
        ),
        ("json", '{"a": [1, "b"]}', '{\n  "a": [\n    1,\n    "b"\n  ]\n}'),
    ],
)
def test_two_layouts_same_tokens(name: str, one: str, two: str) -> None:
    assert texts(one, name) == texts(two, name)


def test_comments_are_skipped() -> None:
    assert [t for t in texts("# only\n  # comments\n", "py")] == []
    assert texts("/// doc\n// c\n/* b */ fn f() {}", "rust") == [
        ("fn", "fn"),
        ("identifier", "f"),
        ("(", "("),
        (")", ")"),
        ("{", "{"),
        ("}", "}"),
    ]


def test_strings_are_whole_tokens() -> None:
    assert texts("x = f'a{b!r}c' 'd'", "py")[2:] == [("string", "f'a{b!r}c'"), ("string", "'d'")]
    assert texts("x = `a${b}c`", "js")[-1] == ("template_string", "`a${b}c`")
    assert texts('fn f() { r#"a"b"#; }', "rust")[5] == ("raw_string_literal", 'r#"a"b"#')


def test_different_code_different_tokens() -> None:
    assert texts("f(a, b)", "py") != texts("f(b, a)", "py")
    assert texts("f('a b')", "py") != texts("f('a  b')", "py")


def defs(code: str, name: str) -> list[tuple[str, str, str]]:
    return [(d.kind, d.name, code[d.start : d.end]) for d in definitions(code, lang(name))]


def test_python_definitions() -> None:
    code = (
        "import gb\n\n"
        "@dec\n@dec2(1)\nasync def fetch(a, b=1):\n    def inner(): pass\n    return a\n\n"
        "class Repo(Base):\n    @property\n    def name(self):\n        return 1\n"
    )
    found = defs(code, "py")
    assert [(k, n) for k, n, _ in found] == [
        ("function", "fetch"),
        ("function", "inner"),
        ("class", "Repo"),
        ("method", "name"),
    ]
    assert found[0][2].startswith("@dec\n@dec2(1)\nasync def fetch")
    assert found[0][2].endswith("return a")
    assert found[3][2] == "@property\n    def name(self):\n        return 1"


def test_javascript_definitions() -> None:
    code = (
        "export function load(a) { return a }\n"
        "const double = async (x) => x * 2;\n"
        "const n = 3;\n"
        "class View extends Base { constructor() {} static make() {} }\n"
        "const render = () => <div className='x'>{n}</div>;\n"
    )
    found = defs(code, "jsx")
    assert [(k, n) for k, n, _ in found] == [
        ("function", "load"),
        ("function", "double"),
        ("class", "View"),
        ("method", "constructor"),
        ("method", "make"),
        ("function", "render"),
    ]
    assert found[1][2] == "const double = async (x) => x * 2;"


def test_typescript_definitions() -> None:
    code = (
        "interface Box<T> { value: T }\n"
        "type Id = string | number;\n"
        "enum Color { Red, Green }\n"
        "export class Store<T extends object> { get<K extends keyof T>(k: K): T[K] { return this.s[k] } }\n"
        "const id = <T,>(x: T): T => x;\n"
    )
    assert [(k, n) for k, n, _ in defs(code, "ts")] == [
        ("interface", "Box"),
        ("type", "Id"),
        ("enum", "Color"),
        ("class", "Store"),
        ("method", "get"),
        ("function", "id"),
    ]
    tsx = "export const App = (): JSX.Element => <main>{1}</main>;\n"
    assert [(k, n) for k, n, _ in defs(tsx, "tsx")] == [("function", "App")]


def test_go_definitions() -> None:
    code = (
        "package store\n\n"
        "type Store struct{ items map[string]int }\n"
        "type (\n\tID int\n\tName = string\n)\n"
        "func Map[T, U any](xs []T, f func(T) U) []U { return nil }\n"
        "func (s *Store) Get(k string) int { return s.items[k] }\n"
    )
    found = defs(code, "go")
    assert [(k, n) for k, n, _ in found] == [
        ("type", "Store"),
        ("type", "ID"),
        ("type", "Name"),
        ("function", "Map"),
        ("method", "Get"),
    ]
    assert found[0][2] == "type Store struct{ items map[string]int }"
    assert found[1][2] == "ID int"


def test_rust_definitions() -> None:
    code = (
        "#[derive(Debug)]\n/// A store.\npub struct Store<'a> { name: &'a str }\n"
        "enum Kind { A, B }\n"
        "trait Named { fn name(&self) -> &str; }\n"
        "impl<'a> Store<'a> { pub fn new(name: &'a str) -> Self { Self { name } } }\n"
        "impl fmt::Display for Store<'_> {\n"
        '    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, "{}", self.name) }\n}\n'
        "fn helper() {}\n"
    )
    found = defs(code, "rust")
    assert [(k, n) for k, n, _ in found] == [
        ("struct", "Store"),
        ("enum", "Kind"),
        ("trait", "Named"),
        ("method", "name"),
        ("impl", "Store<'a>"),
        ("method", "new"),
        ("impl", "fmt::Display for Store<'_>"),
        ("method", "fmt"),
        ("function", "helper"),
    ]
    assert found[0][2].startswith("#[derive(Debug)]\n")
    assert found[0][2].endswith("}")


def test_definition_ranges_are_code_points() -> None:
    code = "# 😀 é 中\ns = '😀'\ndef f():\n    return '中'\n"
    (found,) = definitions(code, lang("py"))
    assert code[found.start : found.end] == "def f():\n    return '中'"


def test_no_definitions_for_json() -> None:
    assert definitions('{"a": 1}', lang("json")) == []
