"""The snippet merge never writes a file that lost a definition the answer did not mention, nor
one that has a definition twice (hypothesis: random files of functions and classes, random
answers made of some of their definitions -- changed or not --, new ones and placeholders, in
Python, TypeScript and Go). Checked with ``syntax.definitions`` (not the merge's own query),
on the certain merges and on every proposal the user could accept; a certain merge also holds
every function the answer shows."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from action_lsp.edit.lazymerge import merge_snippet
from action_lsp.syntax import language_for, parse_ok
from action_lsp.syntax.tokens import definitions

NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta"]


def _count(code: str, path: str) -> Counter[tuple[str, str]]:
    """Definitions by kind (function and method as one) and qualified name."""
    lang = language_for(path)
    assert lang is not None
    out: Counter[tuple[str, str]] = Counter()
    stack: list[tuple[int, str]] = []
    for d in sorted(definitions(code, lang), key=lambda d: (d.start, -d.end)):
        while stack and stack[-1][0] <= d.start:
            stack.pop()
        name = f"{stack[-1][1]}.{d.name}" if stack else d.name
        out[("function" if d.kind in ("function", "method") else d.kind, name)] += 1
        stack.append((d.end, name))
    return out


# -- Python, TypeScript and Go pieces: (function, class with methods, placeholder) ------------

def _py_fn(name: str, body: int, indent: str = "") -> str:
    return f"{indent}def {name}(x):\n{indent}    return x + {body}\n"


def _py_class(name: str, methods: list[tuple[str, int]]) -> str:
    inner = "\n".join(_py_fn(m, b, "    ").replace("(x)", "(self, x)") for m, b in methods)
    return f"class {name}:\n{inner or '    pass' + chr(10)}"


def _ts_fn(name: str, body: int, indent: str = "") -> str:
    return f"{indent}export function {name}(x: number): number {{\n{indent}  return x + {body};\n{indent}}}\n"


def _ts_class(name: str, methods: list[tuple[str, int]]) -> str:
    inner = "\n".join(f"  {m}(x: number): number {{\n    return x + {b};\n  }}\n" for m, b in methods)
    return f"export class {name} {{\n{inner}}}\n"


def _go_fn(name: str, body: int, indent: str = "") -> str:
    return f"func {name}(x int) int {{\n\treturn x + {body}\n}}\n"


def _go_class(name: str, methods: list[tuple[str, int]]) -> str:
    out = f"type {name} struct {{\n\tn int\n}}\n"
    for m, b in methods:
        out += f"\nfunc (s *{name}) {m}(x int) int {{\n\treturn x + {b}\n}}\n"
    return out


LANGS = {
    "py": ("app.py", _py_fn, _py_class, "# ... existing code ...\n", "    # ... existing code ...\n", ""),
    "ts": ("app.ts", _ts_fn, _ts_class, "// ... existing code ...\n", "  // ... existing code ...\n", ""),
    "go": ("app.go", _go_fn, _go_class, "// ... existing code ...\n", None, "package app\n\n"),
}


@st.composite
def cases(draw):  # type: ignore[no-untyped-def]
    lang = draw(st.sampled_from(sorted(LANGS)))
    path, fn, klass, hole, inner_hole, head = LANGS[lang]
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=6, unique=True))
    items: list[tuple[str, str, list[tuple[str, int]], int]] = []  # (kind, name, methods, body)
    for n in names:
        if draw(st.booleans()):
            methods = draw(st.lists(st.sampled_from(["get", "put", "run", "stop"]), max_size=3, unique=True))
            items.append(("class", n.capitalize(), [(m, draw(st.integers(0, 3))) for m in methods], 0))
        else:
            items.append(("fn", n, [], draw(st.integers(0, 3))))

    def render(its: list[tuple[str, str, list[tuple[str, int]], int]]) -> str:
        return "\n\n".join(klass(n, ms) if k == "class" else fn(n, b) for k, n, ms, b in its)

    before = head + render(items)
    # the answer: some definitions (changed or not), new ones, placeholders between
    parts: list[str] = [head] if head and draw(st.booleans()) else []
    whole: list[str] = []  # the answer's functions, shown whole: each must be in a merge
    for kind, n, ms, b in items:
        choice = draw(st.sampled_from(["hole", "same", "changed", "skip"]))
        if choice == "hole":
            if not parts or parts[-1] != hole:
                parts.append(hole)
        elif choice == "skip":
            continue
        elif kind == "fn":
            parts.append(fn(n, b + (10 if choice == "changed" else 0)))
            whole.append(parts[-1])
        else:
            shown = [(m, mb + (10 if choice == "changed" else 0)) for m, mb in ms
                     if draw(st.booleans())]
            if draw(st.booleans()):
                shown.append(("extra", 7))
            text = klass(n, shown)
            if inner_hole is not None and draw(st.booleans()) and lang != "go":
                first_nl = text.index("\n") + 1
                text = text[:first_nl] + inner_hole + "\n" + text[first_nl:]
            parts.append(text)
        if draw(st.integers(0, 4)) == 0:
            parts.append(fn("added" + n, 5))
            whole.append(parts[-1])
    if draw(st.booleans()):
        parts.append(hole)
    answer = "\n".join(parts) or hole
    return path, before, answer, whole


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_a_merge_never_drops_or_doubles_a_definition(case) -> None:  # type: ignore[no-untyped-def]
    path, before, answer, whole = case
    lang = language_for(path)
    assert lang is not None and parse_ok(before, lang)
    m = merge_snippet(before, answer, path)
    if m.shape == "whole":
        return  # an ordinary write, guarded as writes are (truncated-content)
    for text in {m.text if m.certain else None, m.proposal} - {None}:
        assert text is not None
        had, has = _count(before, path), _count(text, path)
        shown = Counter()
        for (kind, name), n in _count(answer, path).items():
            shown[(kind, name.rsplit(".", 1)[-1])] += n
        for key, n in had.items():
            assert has[key] >= n, f"{key} dropped\n{before}\n---\n{answer}\n---\n{text}"
        for key, n in has.items():
            assert n <= max(had[key], shown[(key[0], key[1].rsplit(".", 1)[-1])]), (
                f"{key} doubled\n{before}\n---\n{answer}\n---\n{text}")
        assert parse_ok(text, lang)
        if text == m.text and m.certain:  # nothing the answer shows is lost
            said = " ".join(text.split())
            for piece in whole:
                assert " ".join(piece.split()) in said, f"{piece} lost\n{answer}\n---\n{text}"
