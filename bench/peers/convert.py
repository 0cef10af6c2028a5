"""Convert the peers' own search/replace test suites into cases for ``bench_peers.py``.

Each case is one JSON file ``bench/peers/<suite>/<id>.json``::

    {"id", "suite", "test" (the peer's test name), "source" (path@commit),
     "files": {path: text}            # the workspace before
     "transcript": "<modify_file>..." # the same edit in the seed xml-tags dialect
     "peer": {"outcome": "apply" | "refuse", "files": {path: text}, "options": {...}},
     "notes": [...]}

A test that exercises only the peer's own marker syntax (a malformed ``=======``, a missing
``SEARCH`` marker, ...) has no counterpart in xml-tags; it is listed in ``skipped.json`` with the
reason instead. Nothing of a peer's engine is copied or run: the TypeScript specs are run by node
against ``harness.mjs``, whose stubs only record the inputs and the assertions.

Usage (the peers' repositories are git directories, e.g. from a mirror)::

    python bench/peers/convert.py roo   --git ROO_GIT   --commit C
    python bench/peers/convert.py cline --git CLINE_GIT --commit C
    python bench/peers/convert.py aider --git AIDER_GIT --commit C
    python bench/peers/convert.py codex --dir SCENARIOS_DIR --commit C
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

SUITES = {
    "roo": [
        "src/core/diff/strategies/__tests__/multi-search-replace.spec.ts",
        "src/core/diff/strategies/__tests__/multi-search-replace-trailing-newline.spec.ts",
    ],
    "cline": ["apps/vscode/src/core/assistant-message/diff.test.ts"],
    "aider": ["tests/basic/test_editblock.py"],
}


@dataclass
class Pair:
    search: str
    replace: str
    hint: int | None = None  # a line number the peer was given (Roo's :start_line:)


@dataclass
class Case:
    test: str
    source: str
    files: dict[str, str]
    edits: dict[str, list[Pair]]  # path -> pairs (an empty list: a modify without any pair)
    outcome: str  # "apply" | "refuse"
    expected: dict[str, str]
    options: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # when the peer asserts no exact text: what its result must and must not contain
    contains: dict[str, list[str]] = field(default_factory=dict)
    absent: dict[str, list[str]] = field(default_factory=dict)


# --- writing a transcript in the seed xml-tags dialect ------------------------------------------


def _element(name: str, value: str) -> str:
    """``<name>`` + a line break (the dialect drops it) + the exact value; CDATA when the value
    holds markup the dialect would read as tags."""
    if f"</{name}>" in value or "<search" in value or "<replace" in value or "</modify" in value:
        if "]]>" in value:
            raise ValueError(f"cannot carry {value!r} in <{name}>")
        return f"<{name}><![CDATA[{value}]]></{name}>"
    return f"<{name}>\n{value}</{name}>"


def transcript(edits: dict[str, list[Pair]]) -> str:
    parts = ["The edit, as an agent writing the xml-tags dialect would send it.\n"]
    for path, pairs in edits.items():
        body = [f"<modify_file>\n<path>{path}</path>\n"]
        for p in pairs:
            body.append(_element("search", p.search) + "\n")
            body.append(_element("replace", p.replace) + "\n")
        body.append("</modify_file>\n")
        parts.append("\n" + "".join(body))
    return "".join(parts)


def check_round_trip(text: str, edits: dict[str, list[Pair]]) -> None:
    """The transcript must give back exactly the pairs it was written from."""
    sys.path.insert(0, str(HERE.parent.parent))
    from action_lsp.document import analyze

    actions = [a for a in analyze(text).actions if a.type == "modify_file"]
    got = {
        a.fields["path"].value: [(e.search.value, e.replace.value) for e in a.edits]
        for a in actions
    }
    want = {path: [(p.search, p.replace) for p in pairs] for path, pairs in edits.items()}
    if got != want:
        raise ValueError(f"transcript does not round-trip:\n{got!r}\n!=\n{want!r}")


# --- the peers' block syntaxes (parsed here, in our own words) ---------------------------------


def _lines_text(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


_ROO_SEARCH = re.compile(r"^<<<<<<< SEARCH>?\s*$")
_ROO_SEP = re.compile(r"^=======\s*$")
_ROO_REPLACE = re.compile(r"^>>>>>>> REPLACE\s*$")
_ROO_HINT = re.compile(r"^:(start|end)_line:\s*(\d+)\s*$")


def parse_roo(diff: str) -> list[Pair] | None:
    """Roo Code's ``<<<<<<< SEARCH`` / ``:start_line:`` / ``-------`` / ``=======`` /
    ``>>>>>>> REPLACE`` blocks; ``None`` when the markers are not well formed."""
    lines = diff.split("\n")
    pairs: list[Pair] = []
    i = 0
    while i < len(lines):
        if not _ROO_SEARCH.match(lines[i]):
            if _ROO_SEP.match(lines[i]) or _ROO_REPLACE.match(lines[i]):
                return None
            i += 1
            continue
        i += 1
        hint: int | None = None
        header = i
        while i < len(lines) and _ROO_HINT.match(lines[i]):
            m = _ROO_HINT.match(lines[i])
            assert m is not None
            if m.group(1) == "start":
                hint = int(m.group(2))
            i += 1
        if i > header:
            if i < len(lines) and lines[i].strip() == "-------":
                i += 1
            else:
                return None
        search: list[str] = []
        while i < len(lines) and not _ROO_SEP.match(lines[i]):
            if _ROO_SEARCH.match(lines[i]) or _ROO_REPLACE.match(lines[i]):
                return None
            search.append(lines[i])
            i += 1
        if i >= len(lines):
            return None
        i += 1
        replace: list[str] = []
        while i < len(lines) and not _ROO_REPLACE.match(lines[i]):
            if _ROO_SEARCH.match(lines[i]) or _ROO_SEP.match(lines[i]):
                return None
            if _ROO_HINT.match(lines[i].strip()):
                return None  # a line marker in the REPLACE part: the peer rejects the syntax
            replace.append(lines[i])
            i += 1
        if i >= len(lines):
            return None
        i += 1
        pairs.append(Pair(_lines_text(search), _lines_text(replace), hint))
    return pairs or None


_CLINE_SEARCH = re.compile(r"^(?:-{3,}|<{3,}) SEARCH>?$")
_CLINE_SEP = re.compile(r"^={3,}$")
_CLINE_REPLACE = re.compile(r"^(?:\+{3,}|>{3,}) REPLACE>?$")


def parse_cline(diff: str) -> tuple[list[Pair], bool] | None:
    """Cline's ``------- SEARCH`` / ``=======`` / ``+++++++ REPLACE`` blocks. The second value
    is True when the last block lacked its closing marker (Cline accepts that at the end)."""
    lines = diff.split("\n")
    pairs: list[Pair] = []
    open_end = False
    state = "out"
    search: list[str] = []
    replace: list[str] = []
    for line in lines:
        if state == "out":
            if _CLINE_SEARCH.match(line):
                state, search, replace = "search", [], []
            elif line.strip():
                return None
        elif state == "search":
            if _CLINE_SEP.match(line):
                state = "replace"
            elif _CLINE_SEARCH.match(line) or _CLINE_REPLACE.match(line):
                return None
            else:
                search.append(line)
        else:
            if _CLINE_REPLACE.match(line):
                pairs.append(Pair(_lines_text(search), _lines_text(replace)))
                state = "out"
            elif _CLINE_SEARCH.match(line) or _CLINE_SEP.match(line):
                return None
            else:
                replace.append(line)
    if state == "search":
        return None
    if state == "replace":
        pairs.append(Pair(_lines_text(search), _lines_text(replace)))
        open_end = True
    return (pairs, open_end) if pairs else None


_AIDER_HEAD = re.compile(r"^<{5,9} SEARCH>?\s*$")
_AIDER_SEP = re.compile(r"^={5,9}\s*$")
_AIDER_TAIL = re.compile(r"^>{5,9} REPLACE\s*$")


def parse_aider(text: str) -> list[tuple[str, Pair]]:
    """Aider's blocks with the file name on the line before ``<<<<<<< SEARCH``."""
    lines = text.split("\n")
    out: list[tuple[str, Pair]] = []
    i = 0
    while i < len(lines):
        if _AIDER_HEAD.match(lines[i]):
            name = lines[i - 1].strip().strip("`") if i else ""
            j = i + 1
            search: list[str] = []
            while not _AIDER_SEP.match(lines[j]):
                search.append(lines[j])
                j += 1
            j += 1
            replace: list[str] = []
            while not _AIDER_TAIL.match(lines[j]):
                replace.append(lines[j])
                j += 1
            out.append((name, Pair(_lines_text(search), _lines_text(replace))))
            i = j
        i += 1
    return out


# --- running the TypeScript specs against the recording harness -------------------------------


def _git_show(git: Path, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(git), "show", f"{commit}:{path}"],
        check=True, capture_output=True, text=True,
    ).stdout


def _as_script(ts: str) -> str:
    out = []
    for line in ts.split("\n"):
        m = re.match(r"^import \{(.*)\} from \"(.*)\"$", line)
        if m:  # every imported name is a global of the harness; `a as b` becomes an alias
            aliases = [n.split(" as ") for n in m.group(1).split(",") if " as " in n]
            out.append("; ".join(f"const {b.strip()} = {a.strip()}" for a, b in aliases))
            continue
        line = re.sub(r"^(\s*let \w+): \w+\s*$", r"\1", line)
        if line.startswith("async function ") and "): Promise<" in line:
            head, _, _ = line.partition("): Promise<")
            name, _, params = head.partition("(")
            params = ", ".join(p.split(":")[0].strip() for p in params.split(","))
            line = f"{name}({params}) {{"
        out.append(line)
    return "\n".join(out)


def record_spec(source: str) -> list[dict[str, Any]]:
    prelude = (HERE / "harness.mjs").read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "spec.mjs"
        script.write_text(
            prelude + "\n" + _as_script(source) + "\nawait __runRecordedTests()\n",
            encoding="utf-8",
        )
        run = subprocess.run(["node", str(script)], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"node failed:\n{run.stderr}")
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def _placeholder(value: Any, kind: str) -> int | None:
    if isinstance(value, dict) and value.get("$placeholder") == kind:
        return int(value["call"])
    return None


def _expectations(test: dict[str, Any], call: int) -> dict[str, Any]:
    """What the test asserts about call ``call``: success, exact content, a thrown error."""
    got: dict[str, Any] = {}
    for e in test["expects"]:
        if "fail" in e:
            if e["after_call"] == call:
                got["throws"] = True
            continue
        method = e["path"][-1] if e["path"] else ""
        args = e["args"]
        if _placeholder(e["actual"], "success") == call and method == "toBe":
            got["success"] = args[0]
        exact = method in ("toBe", "equal") and args and isinstance(args[0], str)
        if _placeholder(e["actual"], "content") == call and exact:
            got["content"] = args[0]
        if _placeholder(e["actual"], "content") == call and method == "toContain":
            key = "absent" if "not" in e["path"] else "contains"
            got.setdefault(key, []).extend(a for a in args if isinstance(a, str))
    return got


def convert_roo(git: Path, commit: str) -> tuple[list[Case], list[dict[str, str]]]:
    cases: list[Case] = []
    skipped: list[dict[str, str]] = []
    for path in SUITES["roo"]:
        for test in record_spec(_git_show(git, commit, path)):
            source = f"{path}@{commit}"
            for k, call in enumerate(test["calls"]):
                name = test["name"] + (f" #{k + 1}" if len(test["calls"]) > 1 else "")
                if call["fn"] != "applyDiff":
                    skipped.append({"test": name, "source": source,
                                    "reason": "checks the peer's marker syntax only"})
                    continue
                want = _expectations(test, k)
                pairs = parse_roo(call["diff"])
                if pairs is None:
                    if want.get("success") is False:
                        skipped.append({"test": name, "source": source,
                                        "reason": "the peer refuses its own malformed markers"})
                    else:
                        raise SystemExit(f"cannot parse the diff of {name!r}")
                    continue
                if want.get("success") is True and "content" not in want \
                        and "contains" not in want:
                    skipped.append({"test": name, "source": source,
                                    "reason": "the peer asserts nothing about the result"})
                    continue
                first = call["diff"].split("\n", 1)[0].strip()
                fname = first if re.fullmatch(r"[\w.-]+\.\w+", first) else "test.ts"
                notes = []
                options = {k2: v for k2, v in call["options"].items() if v is not None}
                if call["startLine"] is not None:
                    options["startLine"] = call["startLine"]
                    notes.append(f"the peer was given line {call['startLine']} as a hint; "
                                 "xml-tags has no place for it")
                if any(p.hint is not None for p in pairs):
                    notes.append(":start_line: hints dropped (xml-tags has no place for them)")
                ok = want.get("success") is True
                expected = {fname: call["original"]} if not ok else (
                    {fname: want["content"]} if "content" in want else {}
                )
                cases.append(Case(
                    name, source, {fname: call["original"]}, {fname: pairs},
                    "apply" if ok else "refuse", expected, options, notes,
                    {fname: want["contains"]} if ok and "content" not in want else {},
                    {fname: want["absent"]} if ok and "content" not in want
                    and "absent" in want else {},
                ))
    return cases, skipped


def convert_cline(git: Path, commit: str) -> tuple[list[Case], list[dict[str, str]]]:
    cases: list[Case] = []
    skipped: list[dict[str, str]] = []
    for path in SUITES["cline"]:
        source = f"{path}@{commit}"
        for test in record_spec(_git_show(git, commit, path)):
            for k, call in enumerate(test["calls"]):
                if call["version"] is not None:
                    continue  # the same input through the peer's second implementation
                want = _expectations(test, k)
                name = test["name"]
                parsed = parse_cline(call["diff"])
                if parsed is None:
                    if want.get("throws"):
                        skipped.append({"test": name, "source": source,
                                        "reason": "the peer refuses its own malformed markers"})
                        continue
                    raise SystemExit(f"cannot parse the diff of {name!r}")
                pairs, open_end = parsed
                notes = []
                if open_end:
                    notes.append("the peer's block lacks its closing marker (Cline accepts that "
                                 "at the end of a final message); the transcript is well formed")
                fname = "file.txt"
                throws = bool(want.get("throws"))
                if not throws and "content" not in want:
                    raise SystemExit(f"no expectation for {name!r}")
                cases.append(Case(
                    name, source, {fname: call["original"]}, {fname: pairs},
                    "refuse" if throws else "apply",
                    {fname: call["original"] if throws else want["content"]},
                    {"isFinal": call["isFinal"]}, notes,
                ))
    return cases, skipped


def _const(node: ast.AST | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def convert_aider(git: Path, commit: str) -> tuple[list[Case], list[dict[str, str]]]:
    cases: list[Case] = []
    skipped: list[dict[str, str]] = []
    path = SUITES["aider"][0]
    source = f"{path}@{commit}"
    tree = ast.parse(_git_show(git, commit, path))
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef) or "test_" not in fn.name:
            continue
        values: dict[str, str] = {}
        for node in ast.walk(fn):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Name) and _const(node.value) is not None:
                    values[target.id] = _const(node.value)  # type: ignore[assignment]
        calls = {
            n.func.attr for n in ast.walk(fn)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        }
        if "replace_most_similar_chunk" in calls:
            if fn.name.startswith("__"):
                skipped.append({"test": fn.name, "source": source,
                                "reason": "disabled in the peer's suite (fuzzy logic removed)"})
                continue
            name = "file.txt"
            pair = Pair(values["part"], values["replace"])
            cases.append(Case(fn.name, source, {name: values["whole"]}, {name: [pair]},
                              "apply", {name: values["expected_output"]},
                              {"function": "replace_most_similar_chunk"}))
        elif "run" in calls and "dry_run" not in fn.name:
            cases.append(_aider_coder_case(fn, source))
        elif "run" in calls:
            skipped.append({"test": fn.name, "source": source,
                            "reason": "the peer's dry-run mode; no edit engine difference"})
        else:
            skipped.append({"test": fn.name, "source": source,
                            "reason": "checks the peer's block or file-name parsing only"})
    return cases, skipped


def _aider_coder_case(fn: ast.FunctionDef, source: str) -> Case:
    """A test that runs the coder on a reply: the files it writes, the reply, what it checks."""
    reply = next(n for n in ast.walk(fn) if isinstance(n, ast.JoinedStr))
    text = "".join(
        v.value if isinstance(v, ast.Constant) else "file.txt" for v in reply.values
    )
    written = [
        _const(n.args[0]) for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr == "write" and n.args
    ]
    names = [
        _const(n.value) for n in ast.walk(fn)
        if isinstance(n, ast.Assign) and _const(n.value) is not None
        and isinstance(n.targets[0], ast.Name) and n.targets[0].id.startswith("file")
    ]
    files = {(names[0] if names and names[0] else "file.txt"): written[0] or ""}
    edits: dict[str, list[Pair]] = {}
    for name, pair in parse_aider(text):
        edits.setdefault(name, []).append(pair)
    expected: dict[str, str] = {}
    checks = [
        n for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr == "assertEqual"
    ]
    reads = [
        n for n in ast.walk(fn)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr == "read_text"
    ]
    for read, check in zip(sorted(reads, key=lambda n: n.lineno),
                           sorted(checks, key=lambda n: n.lineno), strict=True):
        target = read.func.value  # type: ignore[attr-defined]
        arg = target.args[0]
        pname = _const(arg) or next(iter(files))
        if isinstance(arg, ast.Name):
            pname = next(iter(files))
        expected[pname] = _const(check.args[1]) or ""
    notes = []
    if any(p.search == "" for pairs in edits.values() for p in pairs):
        notes.append("an empty SEARCH creates the file (Aider's convention, kept by the engine)")
    return Case(fn.name, source, files, edits, "apply", expected, {"coder": "diff"}, notes)


def _read_tree(d: Path) -> dict[str, str]:
    if not d.is_dir():
        return {}
    return {str(p.relative_to(d)): p.read_text(encoding="utf-8")
            for p in sorted(d.rglob("*")) if p.is_file()}


def _codex_chunks(lines: list[str]) -> tuple[list[Pair], list[str]]:
    """The ``@@`` chunks of one ``*** Update File`` as search/replace pairs: context and removed
    lines are searched, context and added lines replace them."""
    chunks: list[list[str]] = []
    notes: list[str] = []
    for ln in lines:
        if ln.strip() == "*** End Patch":
            break
        if ln.startswith("@@"):
            chunks.append([])
            if ln[2:].strip():
                notes.append(f"the hunk header {ln!r} is dropped")
        elif ln.strip() == "*** End of File":
            notes.append("'*** End of File' (match at the end) has no xml-tags counterpart")
        elif chunks:
            chunks[-1].append(ln if ln else " ")
    pairs = [
        Pair(_lines_text([ln[1:] for ln in c if ln[:1] in (" ", "-")]),
             _lines_text([ln[1:] for ln in c if ln[:1] in (" ", "+")]))
        for c in chunks
    ]
    return pairs, notes


def convert_codex(root: Path, commit: str) -> tuple[list[Case], list[dict[str, str]]]:
    cases: list[Case] = []
    skipped: list[dict[str, str]] = []
    base = "codex-rs/apply-patch/tests/fixtures/scenarios"
    for scenario in sorted(p for p in root.iterdir() if p.is_dir()):
        source = f"{base}/{scenario.name}@{commit}"
        patch = (scenario / "patch.txt").read_text(encoding="utf-8")
        ops = [ln.strip() for ln in patch.split("\n") if ln.strip().startswith("*** ")]
        kinds = [op for op in ops if op not in ("*** Begin Patch", "*** End Patch",
                                                "*** End of File")]
        before, after = _read_tree(scenario / "input"), _read_tree(scenario / "expected")
        updates = [k for k in kinds if k.startswith("*** Update File: ")]
        if len(updates) != 1 or len(kinds) != 1:
            what = sorted({k.split(":")[0].removeprefix("*** ").lower() for k in kinds})
            skipped.append({"test": scenario.name, "source": source,
                            "reason": "not a single-file update: "
                                      + (", ".join(what) if what else "an empty patch")})
            continue
        target = updates[0].removeprefix("*** Update File: ")
        body = patch.split("\n")
        start = next(i for i, ln in enumerate(body) if ln.strip() == updates[0]) + 1
        pairs, notes = _codex_chunks(body[start:])
        if any(ln.strip() != ln for ln in patch.split("\n") if ln.strip().startswith("***")):
            notes.append("the peer's patch markers are padded with spaces (its parser allows "
                         "that); the transcript is well formed")
        refused = before == after and target not in after
        changed = {p: t for p, t in after.items() if before.get(p) != t}
        outcome = "apply" if changed else "refuse"
        expected = after if outcome == "apply" else before
        if refused and target not in before:
            notes.append("the file to update does not exist")
        if any(p.search == "" for p in pairs):
            notes.append("a chunk without context or removed lines appends at the end (as an "
                         "empty search block does here)")
        cases.append(Case(scenario.name, source, before, {target: pairs}, outcome,
                          {p: expected[p] for p in expected}, {}, notes))
    return cases, skipped


def write_suite(suite: str, cases: list[Case], skipped: list[dict[str, str]]) -> None:
    out = HERE / suite
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for n, case in enumerate(cases, 1):
        text = transcript(case.edits)
        check_round_trip(text, case.edits)
        slug = re.sub(r"[^a-z0-9]+", "-", case.test.lower().split(" > ")[-1]).strip("-")[:60]
        cid = f"{n:03d}-{slug}"
        doc = {
            "id": f"{suite}/{cid}",
            "suite": suite,
            "test": case.test,
            "source": case.source,
            "files": case.files,
            "transcript": text,
            "peer": {"outcome": case.outcome, "files": case.expected, "options": case.options},
            "notes": case.notes,
        }
        if case.contains:
            doc["peer"]["contains"] = case.contains
        if case.absent:
            doc["peer"]["absent"] = case.absent
        (out / f"{cid}.json").write_text(
            json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    (out / "skipped.json").write_text(
        json.dumps(skipped, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{suite}: {len(cases)} cases, {len(skipped)} tests not converted")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("suite", choices=["roo", "cline", "aider", "codex"])
    p.add_argument("--git", type=Path, help="the peer's git directory")
    p.add_argument("--dir", type=Path, help="codex: a copy of the scenarios directory")
    p.add_argument("--commit", required=True)
    args = p.parse_args(argv)
    if args.suite == "codex":
        cases, skipped = convert_codex(args.dir, args.commit)
    else:
        convert = {"roo": convert_roo, "cline": convert_cline, "aider": convert_aider}
        cases, skipped = convert[args.suite](args.git, args.commit)
    write_suite(args.suite, cases, skipped)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
