"""The peers' own search/replace test suites, run through action-lsp's edit engine.

``python bench/bench_peers.py [--suite NAME] [--json] [--data DIR]``

Each case under ``bench/peers/<suite>/`` (see ``bench/peers/README.md``) holds a workspace, a
transcript in the seed xml-tags dialect, and what the peer's own test expects: the resulting
files, or a refusal. The transcript is run in the peer's own format (:func:`own_transcript`:
Aider's blocks, Cline's ``replace_in_file``, Roo Code's ``apply_diff``, a Codex patch), so the
peer's own meaning of an edit applies (what an empty search text means differs between agents).
The case is run exactly as a user would run it: the files are written to a temporary directory
and ``action-lsp apply --write --root DIR TRANSCRIPT`` runs in-process (no ``--force``, no
``--accept-fuzzy``). It is then classified:

- ``applied right``: we wrote what the peer's test expects;
- ``refused right``: the peer refuses and so do we (nothing written);
- ``missed``: the peer applies, we refuse (a question for the user, not a wrong write);
- ``applied, peer refuses``: we wrote where the peer refuses;
- ``wrong``: we wrote something else than the peer's test expects.

Exit status 1 when a case is ``wrong`` or ``applied, peer refuses`` (allow-listed ones aside,
see tests/edit/test_peer_suites.py), 0 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "peers"
SUITES = ("roo", "cline", "aider", "codex", "claude-code", "gemini", "copilot", "str-replace", "continue",
          "avante")
CLASSES = ("applied right", "refused right", "missed", "applied, peer refuses", "wrong")
RIGHT = frozenset({"applied right", "refused right"})


@dataclass
class Result:
    id: str
    suite: str
    test: str
    verdict: str
    reason: str
    exit_code: int
    stderr: str
    got: dict[str, str | None]
    expected: dict[str, str]
    strategy: str = ""  # how we located the blocks of an applied case (exact unless named)


def load_cases(suite: str, data: Path = DATA) -> list[dict[str, Any]]:
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted((data / suite).glob("*.json"))
        if p.name != "skipped.json"
    ]


def load_skipped(suite: str, data: Path = DATA) -> list[dict[str, str]]:
    path = data / suite / "skipped.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def _read_tree(root: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".action-lsp" not in p.relative_to(root).parts:
            out[p.relative_to(root).as_posix()] = p.read_bytes().decode("utf-8", "replace")
    return out


def _first_difference(got: str, want: str) -> str:
    g, w = got.split("\n"), want.split("\n")
    for n, (a, b) in enumerate(zip(g, w, strict=False), 1):
        if a != b:
            return f"line {n}: got {a!r}, peer expects {b!r}"
    if len(g) != len(w):
        return f"got {len(g)} lines, peer expects {len(w)} (final line break?)"
    return "differs"


def _finding(stderr: str) -> str:
    for line in stderr.splitlines():
        if ": error: " in line:
            return line.split(": error: ", 1)[1]
    for line in stderr.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _mismatch(after: dict[str, str], expected: dict[str, str], peer: dict[str, Any]) -> str | None:
    """Where our files differ from what the peer's test asserts (``None``: they agree). A file
    the peer only checks for some text (``contains`` / ``absent``) is checked for that text."""
    loose: dict[str, list[str]] = peer.get("contains", {})
    for path in sorted(set(after) | set(expected)):
        text = after.get(path)
        if path in loose:
            if text is None or text == expected.get(path):
                return f"{path}: not changed"
            for needle in loose[path]:
                if needle not in text:
                    return f"{path}: lacks {needle!r}"
            for needle in peer.get("absent", {}).get(path, []):
                if needle in text:
                    return f"{path}: still holds {needle!r}"
        elif text != expected.get(path):
            return f"{path}: " + _first_difference(text or "", expected.get(path) or "")
    return None


def strategies(stderr: str) -> list[str]:
    """The locate strategies our messages name (``search-fuzzy`` notes), in order."""
    found = []
    for line in stderr.splitlines():
        if "[search-fuzzy]" in line and " only by the " in line:
            found.append(line.split(" only by the ", 1)[1].split(" strategy", 1)[0].split(" (")[0])
    return found


def _pairs(transcript: str) -> list[tuple[str, list[tuple[str, str]]]] | None:
    """The ``(path, [(search, replace), ...])`` of each ``<modify_file>`` of a seed transcript,
    read by action-lsp's own parser; None when it holds anything else."""
    from action_lsp.dialects import DialectSet, by_name
    from action_lsp.document import analyze

    dialect = by_name("xml-tags")
    assert dialect is not None
    out = []
    for a in analyze(transcript, DialectSet([dialect])).actions:
        if a.type != "modify_file" or not isinstance(a.path, str):
            return None
        out.append((a.path, [(str(e.search.value), str(e.replace.value)) for e in a.edits]))
    return out


def _lines(text: str) -> list[str]:
    return text[:-1].split("\n") if text else []


def _block(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def own_transcript(case: dict[str, Any]) -> str:
    """The case's edit in its peer's own format (Aider's SEARCH/REPLACE block, Cline's
    ``<replace_in_file>``, Roo Code's ``<apply_diff>``, a Codex patch), so that the peer's own
    meaning of it applies (an empty search, several blocks). The stored seed transcript is kept
    when a block is not whole lines (the peers' formats are line based)."""
    pairs = _pairs(case["transcript"])
    seed: str = case["transcript"]
    if not pairs or any(t and not t.endswith("\n") for _, ps in pairs for p in ps for t in p):
        return seed
    suite = case["suite"]
    out = ["The edit, in the peer's own format.", ""]
    for path, ps in pairs:
        if suite == "aider":
            for search, replace in ps:
                out += [path, "```", "<<<<<<< SEARCH", search + "=======", replace + ">>>>>>> REPLACE", "```", ""]
        elif suite in ("cline", "roo"):
            tag, opener, closer = (("replace_in_file", "------- SEARCH", "+++++++ REPLACE") if suite == "cline"
                                   else ("apply_diff", "<<<<<<< SEARCH", ">>>>>>> REPLACE"))
            body = "".join(f"{opener}\n{search}=======\n{replace}{closer}\n" for search, replace in ps)
            out += [f"<{tag}>", f"<path>{path}</path>", "<diff>", body + "</diff>", f"</{tag}>", ""]
        elif suite == "codex":
            chunks = ["@@\n" + "".join(f"-{ln}\n" for ln in _lines(s)) + "".join(f"+{ln}\n" for ln in _lines(r))
                      for s, r in ps]
            out += ["*** Begin Patch", f"*** Update File: {path}", "".join(chunks) + "*** End Patch", ""]
        else:
            return seed
    return "\n".join(out)


def run_case(case: dict[str, Any], *, force: bool = False) -> Result:
    """Run one case (``force``: with ``--force``, which also lets transcript errors through)."""
    from action_lsp.cli import main as cli_main

    with tempfile.TemporaryDirectory(prefix="peer-") as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        for rel, text in case["files"].items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        transcript = Path(tmp) / "transcript.md"
        transcript.write_bytes(own_transcript(case).encode("utf-8"))
        err, out = io.StringIO(), io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            extra = ["--force"] if force else []
            code = cli_main(["apply", "--write", *extra, "--root", str(root), str(transcript)])
        after = _read_tree(root)

    before: dict[str, str] = case["files"]
    peer = case["peer"]
    expected: dict[str, str] = dict(before)
    expected.update(peer["files"])
    changed = after != before
    stderr = err.getvalue()
    got: dict[str, str | None] = {p: after.get(p) for p in sorted(set(after) | set(expected))}

    if code not in (0, 1):
        verdict, reason = "wrong", f"exit {code}: {_finding(stderr)}"
    elif code != 0 and changed:
        verdict, reason = "wrong", "exit 1 but files were changed: " + _finding(stderr)
    elif peer["outcome"] == "apply":
        problem = _mismatch(after, expected, peer)
        if code != 0:
            verdict, reason = "missed", _finding(stderr)
        elif problem is None:
            verdict, reason = "applied right", ""
        else:
            verdict, reason = "wrong", problem
    elif code == 0 and changed:
        verdict, reason = "applied, peer refuses", "we wrote " + ", ".join(
            p for p in got if got[p] != before.get(p)
        )
    else:
        verdict = "refused right"
        reason = _finding(stderr) if code else "nothing written (exit 0)"
    used = "" if code != 0 else ("+".join(dict.fromkeys(strategies(stderr))) or "exact")
    return Result(case["id"], case["suite"], case["test"], verdict, reason, code, stderr, got,
                  expected, used)


def run_suite(suite: str, data: Path = DATA) -> list[Result]:
    return [run_case(c) for c in load_cases(suite, data)]


def table(results_by_suite: dict[str, list[Result]], data: Path = DATA) -> str:
    head = ["suite", "cases", *CLASSES, "not converted"]
    rows = [head]
    totals: Counter[str] = Counter()
    for suite, results in results_by_suite.items():
        counts = Counter(r.verdict for r in results)
        skipped = len(load_skipped(suite, data))
        totals.update(counts)
        totals["cases"] += len(results)
        totals["not converted"] += skipped
        rows.append([suite, str(len(results)), *(str(counts[c]) for c in CLASSES), str(skipped)])
    if len(results_by_suite) > 1:
        rows.append(["all", str(totals["cases"]), *(str(totals[c]) for c in CLASSES),
                     str(totals["not converted"])])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(rows[0], widths, strict=True)) + " |"]
    lines.append("|" + "|".join("-" * (w + 1) + ":" if i else "-" * (w + 2)
                                for i, w in enumerate(widths)) + "|")
    for r in rows[1:]:
        lines.append("| " + " | ".join(
            c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", choices=SUITES, action="append",
                   help="only this suite (repeatable; default: all)")
    p.add_argument("--json", action="store_true", help="every case's result as JSON")
    p.add_argument("--data", type=Path, default=DATA, help="the cases (default: bench/peers)")
    args = p.parse_args(argv)
    suites = args.suite or list(SUITES)
    results = {s: run_suite(s, args.data) for s in suites}
    bad = [r for rs in results.values() for r in rs
           if r.verdict in ("wrong", "applied, peer refuses")]
    if args.json:
        json.dump({s: [asdict(r) for r in rs] for s, rs in results.items()}, sys.stdout,
                  indent=1, ensure_ascii=False)
        print()
        return 1 if bad else 0
    print(table(results, args.data))
    print()
    for suite, rs in results.items():
        used = Counter(r.strategy for r in rs if r.verdict == "applied right")
        print(f"{suite}: applied right by " + ", ".join(f"{k} {n}" for k, n in used.most_common()))
    others = [r for rs in results.values() for r in rs if r.verdict not in RIGHT]
    if others:
        print()
        for r in others:
            print(f"{r.verdict:>22}  {r.id}: {r.reason}")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
