import pytest

from action_lsp.syntax import Lang, language_for, parse_ok
from action_lsp.syntax.errors import SyntaxProblem, syntax_errors


def lang(name: str) -> Lang:
    found = language_for(language=name)
    assert found is not None
    return found


def errors(code: str, name: str) -> list[tuple[str, str]]:
    """(text at the range, message) of each problem."""
    return [(code[p.start : p.end], p.message) for p in syntax_errors(code, lang(name))]


VALID = {
    "python": '''\
from __future__ import annotations

import asyncio
from dataclasses import dataclass


@dataclass(frozen=True)
class Point:
    """A point. é 😀 中文"""

    x: float = 0.0
    y: float = 0.0

    @property
    def norm(self) -> float:
        return (self.x**2 + self.y**2) ** 0.5


async def main(*args: str, **kwargs: int) -> None:
    async with asyncio.timeout(1):
        async for item in stream():
            print(f"{item!r:>10} {kwargs['k']:{width}} {{literal}}")
    values = [x for x in range(10) if x % 2]
    match values:
        case [first, *rest]:
            print(first, rest)
        case _:
            pass
    lam = lambda a, /, b, *, c: a + b + c  # noqa: E731
    if (n := len(values)) > 3:
        raise ValueError(f"too many: {n}") from None
    try:
        result = gb.create_task("Review PR #123", notes='x', status="pending")
    except* ValueError:
        pass
    finally:
        gb.log(f"Created task: {result['task_id']}")
    global counter
    del values[0]
    return
''',
    "javascript": """\
import React, { useState } from 'react';
export default function App({ items = [], ...rest }) {
  const [count, setCount] = useState(0);
  const label = `Count: ${count} é 😀`;
  const re = /a+b*/gi;
  const handler = async (event) => { await fetch('/api'); setCount((c) => c + 1); };
  return (
    <div className="app" onClick={handler} {...rest}>
      {items.map((item) => <Item key={item.id} {...item} />)}
      <>fragment</>
    </div>
  );
}
class Store extends Base {
  #secret = 1;
  static create() { return new Store(); }
  get value() { return this.#secret ?? 0; }
  *[Symbol.iterator]() { yield* this.items; }
}
label?.trim?.();
""",
    "typescript": """\
import type { Config } from './config';
export interface Repo<T extends { id: number }> { get(id: number): Promise<T | undefined>; }
type Mapped<T> = { readonly [K in keyof T]?: T[K] extends string ? K : never };
enum Color { Red = 'red', Green = 'green' }
@Component({ selector: 'app' })
export class Service<T> implements Repo<T & { id: number }> {
  private readonly cache = new Map<number, T>();
  constructor(private http: HttpClient) {}
  async get<U extends T>(id: number): Promise<U | undefined> {
    return this.cache.get(id) as U | undefined;
  }
}
function assertIsString(value: unknown): asserts value is string {}
const pair = <A, B>(a: A, b: B): [A, B] => [a, b];
let x = y!;
declare module 'x' { export const v: number; }
const s = `é 😀 ${pair(1, 2)}` satisfies string;
""",
    "tsx": """\
import * as React from 'react';
type Props<T> = { items: T[]; render: (item: T) => React.ReactNode };
export function List<T,>({ items, render }: Props<T>): JSX.Element {
  return <ul>{items.map((item, i) => <li key={i}>{render(item)}</li>)}</ul>;
}
""",
    "go": """\
package main

import (
\t"fmt"
\t"strings"
)

type Number interface {
\t~int | ~int64 | ~float64
}

type Pair[K comparable, V any] struct {
\tKey   K `json:"key"`
\tValue V
}

func Sum[T Number](xs ...T) (total T) {
\tfor _, x := range xs {
\t\ttotal += x
\t}
\treturn
}

func (p *Pair[K, V]) String() string { return fmt.Sprintf("%v=%v é 😀", p.Key, p.Value) }

func main() {
\tch := make(chan int, 1)
\tgo func() { defer close(ch); ch <- 1 }()
\tselect {
\tcase v := <-ch:
\t\tfmt.Println(v, strings.ToUpper(`raw
string`))
\tdefault:
\t}
\tvar m = map[string][]int{"a": {1, 2}}
\t_ = m
}
""",
    "rust": """\
use std::collections::HashMap;
use std::fmt;

#[derive(Debug, Clone)]
pub struct Parser<'a> {
    input: &'a str,
    cache: HashMap<&'a str, Vec<u8>>,
}

impl<'a> Parser<'a> {
    pub fn new(input: &'a str) -> Self {
        Self { input, cache: HashMap::new() }
    }

    pub fn longest<'b>(&self, x: &'b str, y: &'b str) -> &'b str where 'a: 'b {
        if x.len() > y.len() { x } else { y }
    }
}

impl fmt::Display for Parser<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} é 😀", self.input)
    }
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let v: Vec<i32> = vec![1, 2, 3].into_iter().map(|x| x * 2).collect();
    let s = r#"raw "string""#;
    let c = 'c';
    println!("{:?} {} {}", v, s, square!(c as i32));
    match v.as_slice() {
        [first, .., last] if first < last => {}
        _ => unreachable!(),
    }
    Ok(())
}
""",
    "json": """\
{
  "actions": [
    {"type": "create_task", "content": "é 😀 中文 \\u00e9", "id": 12, "ratio": -1.5e3},
    {"type": "execute_code", "code": "gb.log('x')\\n", "done": true, "skip": null}
  ],
  "empty": {}, "list": []
}
""",
}


@pytest.mark.parametrize("name", sorted(VALID))
def test_no_errors_on_valid_code(name: str) -> None:
    code = VALID[name]
    assert syntax_errors(code, lang(name)) == []
    assert parse_ok(code, lang(name))


def test_missing_token_is_a_point() -> None:
    code = "foo(1, 2;\nbar();\n"
    (problem,) = syntax_errors(code, lang("js"))
    assert problem == SyntaxProblem(8, 8, "missing `)`")


def test_unclosed_bracket() -> None:
    code = "gb.create_task('test'  # Missing closing parenthesis\nx = 1\n"
    (problem,) = syntax_errors(code, lang("py"))
    assert problem == SyntaxProblem(14, 15, "`(` is never closed")


def test_unexpected_closer() -> None:
    assert errors("print('a'))\nfoo()\n", "py") == [(")", "unexpected `)`")]
    assert errors('{"a": 1}}', "json") == [("}", "unexpected `}`")]


@pytest.mark.parametrize("prefix", ["é", "😀", "中文字", "é😀中", ""])
def test_ranges_are_code_points_after_non_ascii(prefix: str) -> None:
    code = f"title = '{prefix}'  # {prefix}\nif x = 2:\n    pass\n"
    (problem,) = syntax_errors(code, lang("py"))
    line = code.index("if x")
    assert (problem.start, problem.end) == (line + 5, line + 8)
    assert code[problem.start : problem.end] == "= 2"
    assert problem.message == "unexpected `= 2`"


def test_non_ascii_on_the_error_line() -> None:
    code = "s = '😀'; t = ('é', '中'\n"
    (problem,) = syntax_errors(code, lang("py"))
    assert code[problem.start : problem.end] == "("
    assert problem.start == code.index("(")


def test_errors_in_each_language() -> None:
    assert errors("const x = 1 +;\n", "js") == [("+", "unexpected `+`")]
    assert errors("let x: = 5;\n", "ts") == [(":", "unexpected `:`")]
    assert errors("package main\nfunc main() {\n  x := 1 +\n}\n", "go") == [("+", "unexpected `+`")]
    assert errors("fn main() { let x = ; }", "rust") == [("=", "unexpected `=`")]
    assert errors('{"a": 1,, "b": [1 2]}', "json") == [
        (",", "unexpected `,`"),
        ("1", "unexpected `1`"),
    ]
    assert errors('{"a": 1', "json") == [("", "missing `}`")]


def test_big_error_is_narrowed_to_its_first_line() -> None:
    code = "x = 1 +* 2 + total\ny = 2\nz = 3\n"
    assert errors(code, "py") == [("x = 1 +* 2 + total", "unexpected `x = 1 +* 2 + total`")]


def test_big_error_is_narrowed_to_the_nested_error() -> None:
    # one ERROR node spans all three lines; recovery first gave up at the first `)`
    code = "f0(1 +)\nf1(1 +)\nf2(1 +)\n"
    assert errors(code, "js") == [(")", "unexpected `)`")]
    (problem,) = syntax_errors(code, lang("js"))
    assert problem.start == 6


def test_long_excerpt_is_shortened() -> None:
    code = "x = 1 +* 2 + some_really_long_identifier_name_here + another_long_name_again\n"
    ((text, message),) = errors(code, "py")
    assert "\n" not in text
    assert len(message) < 60 and message.endswith("…`")


def test_limit() -> None:
    code = "".join(f"f{i}(1 +)\n" for i in range(30))
    assert len(syntax_errors(code, lang("py"), limit=5)) == 5
    found = syntax_errors(code, lang("py"))
    assert len(found) == 20
    assert [code[p.start : p.end] for p in found[:2]] == ["+", "+"]
    assert found[1].start == code.index("+", found[0].end)
