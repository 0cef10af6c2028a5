"""Benchmark of the edit engine (a script, not a test): ``python bench/bench_edit.py``.

1. Time of locating and planning one modify action in files of 1,000 / 10,000 / 100,000 lines,
   for an exact block, a re-indented block and a re-wrapped block.
2. Success per strategy on drifted copies of real functions (Python standard library): for each
   drift type, which strategy found the block, how often it was refused, and how often a wrong
   place was chosen (must be 0).
"""

from __future__ import annotations

import argparse
import ast
import io
import random
import sys
import sysconfig
import tempfile
import time
import tokenize
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path

from action_lsp.edit import Located, Workspace, locate, plan_changes
from action_lsp.model import Action, ActionKind, Edit, Field, Span

# --------------------------------------------------------------------------- timing


def synthetic(lines: int) -> tuple[str, list[str]]:
    """A Python module of ``lines`` lines made of small distinct functions."""
    out: list[str] = []
    i = 0
    while len(out) < lines:
        out += [
            f"def func_{i}(alpha, beta, gamma):\n",
            f"    total = compute_value(alpha, beta, gamma, offset={i}, scale=beta * {i % 7})\n",
            "    if total > beta:\n",
            f"        return total - {i}\n",
            "    return total\n",
            "\n",
            "\n",
        ]
        i += 1
    return "".join(out[:lines]), out


def block_at(lines: list[str], line: int) -> str:
    start = line - line % 7
    return "".join(lines[start : start + 5])


def rewrap(block: str) -> str:
    return block.replace("(alpha, beta, gamma, ", "(\n        alpha,\n        beta,\n        gamma,\n        ")


def reindent(block: str) -> str:
    return "".join("  " + ln if ln.strip() else ln for ln in block.splitlines(keepends=True))


def modify_action(path: str, search: str, replace: str) -> Action:
    f = {"path": Field("path", path, Span(0, len(path)))}
    a = Action("bench", "modify_file", ActionKind.MODIFY_FILE, Span(0, 1), Span(0, 1), f)
    a.edits = [Edit(Field("search", search, Span(0, 1)), Field("replace", replace, Span(0, 1)))]
    return a


def timing(sizes: list[int], repeat: int) -> list[tuple[int, str, str, float, float]]:
    rows = []
    for size in sizes:
        text, lines = synthetic(size)
        block = block_at(lines, int(size * 0.7))
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "big.py").write_text(text)
            ws = Workspace(tmp)
            for name, search in (("exact", block), ("re-indented", reindent(block)),
                                 ("re-wrapped", rewrap(block))):
                replace = block.replace("return total\n", "return total + 1\n")
                best_locate = best_plan = float("inf")
                strategy = "?"
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    found = locate(text, search, path="big.py")
                    best_locate = min(best_locate, time.perf_counter() - t0)
                    strategy = found.strategy if isinstance(found, Located) else found.code
                    t0 = time.perf_counter()
                    plan = plan_changes([modify_action("big.py", search, replace)], ws)
                    best_plan = min(best_plan, time.perf_counter() - t0)
                    assert plan.ok, plan.outcomes[0].diagnostics
                rows.append((size, name, strategy, best_locate * 1000, best_plan * 1000))
    return rows


# --------------------------------------------------------------------------- drift


def functions(source: str) -> list[tuple[int, int]]:
    """(first line, last line), 1-based, of every function (decorators included)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if 4 <= node.end_lineno - first + 1 <= 60:
                out.append((first, node.end_lineno))
    return out


def _untokenize_pairs(block: str, keep: Callable[[tokenize.TokenInfo], bool]) -> str | None:
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(block).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return tokenize.untokenize([(t.type, t.string) for t in toks if keep(t)])


def drift_reindent(block: str) -> str | None:
    return "".join("    " + ln if ln.strip() else ln for ln in block.splitlines(keepends=True))


def drift_trailing_ws(block: str) -> str | None:
    return "".join(ln.rstrip("\n") + "   \n" for ln in block.splitlines(keepends=True))


def drift_tabs(block: str) -> str | None:
    out = []
    for ln in block.splitlines(keepends=True):
        body = ln.lstrip(" ")
        n = len(ln) - len(body)
        out.append("\t" * (n // 4) + " " * (n % 4) + body)
    new = "".join(out)
    return new if new != block else None


def drift_blank_lines(block: str) -> str | None:
    lines = block.splitlines(keepends=True)
    if any(not ln.strip() for ln in lines):
        return "".join(ln for ln in lines if ln.strip())
    return "".join([lines[0], "\n", *lines[1:]])


def drift_rewrap(block: str) -> str | None:
    """Join the lines of every bracketed continuation (what a formatter undoes or does)."""
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(block).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    lines = block.splitlines(keepends=True)
    joins = {t.start[0] for t in toks if t.type == tokenize.NL and t.line.strip()
             and not t.line.strip().startswith("#")}
    depth_lines = set()
    depth = 0
    for t in toks:
        if t.type == tokenize.OP and t.string in "([{":
            depth += 1
        elif t.type == tokenize.OP and t.string in ")]}":
            depth -= 1
        elif t.type == tokenize.NL and depth > 0:
            depth_lines.add(t.start[0])
    joins &= depth_lines
    if not joins:
        return None
    out: list[str] = []
    for i, ln in enumerate(lines, 1):
        if out and (i - 1) in joins:
            out[-1] = out[-1].rstrip("\n").rstrip() + " " + ln.strip() + "\n"
        else:
            out.append(ln)
    if any("#" in out_ln for out_ln in out):
        return None  # a comment joined into code would change the meaning
    return "".join(out)


def drift_respace(block: str) -> str | None:
    new = _untokenize_pairs(block, lambda t: True)
    return new if new and new != block else None


def drift_comments(block: str) -> str | None:
    if "#" not in block:
        return None
    new = _untokenize_pairs(block, lambda t: t.type != tokenize.COMMENT)
    return new if new and new != block else None


def drift_rename(block: str) -> str | None:
    """Rename one local name used at least twice (the fuzzy strategy's case)."""
    try:
        tree = ast.parse(block if not block.startswith((" ", "\t")) else "if 1:\n" + block)
    except SyntaxError:
        return None
    names = Counter(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and len(n.id) > 2)
    stores = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    candidates = sorted(n for n, c in names.items() if c >= 2 and n in stores)
    if not candidates:
        return None
    name = candidates[0]
    try:
        toks = list(tokenize.generate_tokens(io.StringIO(block).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    lines = block.splitlines(keepends=True)
    for t in reversed(toks):
        if t.type == tokenize.NAME and t.string == name:
            row, col = t.start
            ln = lines[row - 1]
            lines[row - 1] = ln[:col] + name + "_v2" + ln[col + len(name):]
    return "".join(lines)


DRIFTS: dict[str, Callable[[str], str | None]] = {
    "none (exact)": lambda b: b,
    "re-indent +4": drift_reindent,
    "trailing spaces": drift_trailing_ws,
    "spaces to tabs": drift_tabs,
    "blank lines": drift_blank_lines,
    "re-wrapped": drift_rewrap,
    "re-spaced tokens": drift_respace,
    "comments dropped": drift_comments,
    "variable renamed": drift_rename,
}


def drift_cases(files: int, per_file: int, seed: int) -> list[tuple[str, str, int, int]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    paths = sorted(p for p in stdlib.glob("*.py"))
    rnd = random.Random(seed)
    rnd.shuffle(paths)
    cases = []
    for p in paths[:files]:
        try:
            source = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        funcs = functions(source)
        rnd.shuffle(funcs)
        for first, last in funcs[:per_file]:
            cases.append((p.name, source, first, last))
    return cases


def drift_table(files: int, per_file: int, seed: int) -> tuple[dict, int]:
    results: dict[str, Counter[str]] = defaultdict(Counter)
    wrong_examples: list[str] = []
    cases = drift_cases(files, per_file, seed)
    for name, source, first, last in cases:
        lines = source.splitlines(keepends=True)
        block = "".join(lines[first - 1 : last])
        for drift, fn in DRIFTS.items():
            search = fn(block)
            if search is None or (drift != "none (exact)" and search == block):
                continue
            found = locate(source, search, path=name)
            if isinstance(found, Located):
                got_first = source.count("\n", 0, found.start) + 1
                got_last = source.count("\n", 0, max(found.start, found.end - 1)) + 1
                if (got_first, got_last) == (first, last):
                    results[drift][found.strategy] += 1
                else:
                    results[drift]["WRONG"] += 1
                    wrong_examples.append(f"{name}:{first}-{last} {drift} -> "
                                          f"{got_first}-{got_last} by {found.strategy}")
            else:
                results[drift][found.code.replace("search-", "")] += 1
    for w in wrong_examples[:10]:
        print("  wrong:", w, file=sys.stderr)
    return results, len(cases)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--files", type=int, default=80, help="standard-library modules sampled")
    ap.add_argument("--per-file", type=int, default=6, help="functions per module")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    print("## Time to locate / plan one modify action (best of", args.repeat, "runs)\n")
    print("| lines | block | strategy | locate ms | plan ms |")
    print("|---:|---|---|---:|---:|")
    for size, name, strategy, loc_ms, plan_ms in timing(
        [int(s) for s in args.sizes.split(",")], args.repeat
    ):
        print(f"| {size:,} | {name} | {strategy} | {loc_ms:.1f} | {plan_ms:.1f} |")

    t0 = time.perf_counter()
    results, n_cases = drift_table(args.files, args.per_file, args.seed)
    elapsed = time.perf_counter() - t0
    columns = ["exact", "whitespace", "blank-lines", "syntax", "definition", "fuzzy",
               "ambiguous", "not-found", "WRONG"]
    print(f"\n## Drifted stdlib functions ({n_cases} functions from {args.files} modules, "
          f"{elapsed:.1f} s)\n")
    # Layout-only strategies apply; definition and fuzzy only find a candidate the user is
    # asked about (a question, never a silent write).
    print("| drift | cases | " + " | ".join(columns) + " | applied | asked |")
    print("|---|---:|" + "---:|" * (len(columns) + 2))
    for drift in DRIFTS:
        c = results.get(drift, Counter())
        total = sum(c.values())
        applied = sum(c[k] for k in columns[:4])
        asked = sum(c[k] for k in columns[4:6])

        def pct(n: int, total: int = total) -> str:
            return f"{100 * n / total:.0f}%" if total else "-"

        print(f"| {drift} | {total} | " + " | ".join(str(c.get(k, 0)) for k in columns)
              + f" | {pct(applied)} | {pct(asked)} |")


if __name__ == "__main__":
    main()
