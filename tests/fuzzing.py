"""Hostile inputs for the fuzz tests (``tests/test_fuzz.py``), made from the fixtures by seeded
mutation: every input is reproducible from its number.

- :func:`transcripts`: the transcripts under ``tests/fixtures`` (every dialect), each mutated a
  few times: a hostile token inserted (a lone-surrogate escape, a quote, brackets nested deeper
  than a decoder goes, an integer over 4,300 digits, a fence, a tag, a marker, a NUL, a
  bidirectional override...), a slice deleted, repeated or cut off, and, in a JSON document,
  a value replaced by one of another type.
- :func:`configs`: a project configuration declaring dialects of each syntax, with values
  replaced by others of any type, keys dropped or added, text cut or nested deeply.
- :func:`journals`: an interrupted write's journal planted in a workspace (its real place, or
  not), with every field open to the same replacements, the backup, commit mark and restoring
  mark present or not.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
TRANSCRIPT_SUFFIXES = (".md", ".jsonl", ".json", ".traj", ".txt")
# Fixture files that are the targets a transcript edits, not transcripts.
TARGETS = ("calc.py", "app.py", "old.txt", "modify.txt", "delete.txt")
WINDOW = 12_000  # characters of a large seed kept around a random place (the default budget)

BIG_INT = "9" * 4_400
DEEP = "[" * 3_000 + "]" * 3_000

TOKENS = (
    "\\udfff", "\\ud800", "\\ud83c", "\\u0000", '"', "\\", "{", "}", "[", "]", ",", ":",
    "[" * 1_500, '{"a":' * 1_200, BIG_INT, "-" + BIG_INT, "1e999999", "\x00", "\u202e",
    "\ufeff", "\r", "\r\n", "\n\n\n", "```", "```actions\n", "```diff\n", "<create_file>",
    "</content>", "<path>../../x</path>", "<<<<<<< SEARCH\n", "=======\n",
    ">>>>>>> REPLACE\n", "*** Begin Patch\n", "*** Update File: ", "@@ -1,2 +1,2 @@\n",
    "--- a/x\n", "+++ b/x\n", '"type": "tool_use"', '"name": "Write"', '"file_path": "/"',
    "\t", "\u00e9", "\U0001f600", "\udfff", "\ud800",
)


@dataclass
class Case:
    """One generated input: what it was made from and how, and its bytes."""

    number: int
    seed: str
    suffix: str
    data: bytes
    steps: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return f"input {self.number}: {self.seed} + {', '.join(self.steps) or 'unchanged'}"


def seeds() -> list[Path]:
    found = sorted(
        p for p in FIXTURES.rglob("*")
        if p.is_file() and p.suffix in TRANSCRIPT_SUFFIXES and p.name not in TARGETS
        and p.parent.name != "expected" and p.name != "README.md" and "gold" not in p.name
        and "spec" not in p.parts
    )
    assert found, "no fixtures found"
    return found


def target_files() -> dict[str, bytes]:
    """The files the transcripts' actions edit, to put in a workspace."""
    out: dict[str, bytes] = {}
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and (p.name in TARGETS or p.parent.name == "input"):
            out.setdefault(p.name, p.read_bytes())
    return out


def hostile_value(rng: random.Random, depth: int = 0) -> Any:
    """A JSON value of any type; strings that are paths, escapes or sentinels for what
    ``json.dumps`` cannot write (an integer over the digit limit, nesting past the decoder)."""
    choices: list[Any] = [
        None, True, False, 0, -1, 2**63, 1.5, float("1e300"), "", "x", "\udfff", "a\ud800b",
        "../../outside.txt", "/etc/passwd", "~/x", "C:\\x", "a\x00b", "\u202etxt.exe", " ",
        "@@BIGINT@@", "@@DEEP@@", "create", "delete", "write", "modify",
    ]
    if depth < 3:
        choices += [[hostile_value(rng, depth + 1)], {"k": hostile_value(rng, depth + 1)}, [], {}]
    return rng.choice(choices)


def dumps(value: Any, rng: random.Random) -> str:
    """JSON text of ``value`` with the sentinels put in as raw text."""
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5 or _has_surrogate(value))
    return text.replace('"@@BIGINT@@"', BIG_INT).replace('"@@DEEP@@"', DEEP)


def _has_surrogate(value: Any) -> bool:
    return bool(re.search("[\ud800-\udfff]", json.dumps(value, ensure_ascii=False)))


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


def replace_at(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replace_at(value[head], rest, new)}
    copy = list(value)
    copy[head] = replace_at(copy[head], rest, new)
    return copy


def mutate_json(value: Any, rng: random.Random, steps: list[str]) -> Any:
    nodes = list(_nodes(value))
    path = rng.choice(nodes)
    roll = rng.random()
    if roll < 0.15 and path and isinstance(_get(value, path[:-1]), dict):
        parent = dict(_get(value, path[:-1]))
        del parent[path[-1]]
        steps.append(f"drop {'/'.join(map(str, path))}")
        return replace_at(value, path[:-1], parent)
    new = hostile_value(rng)
    steps.append(f"set {'/'.join(map(str, path))} = {str(new)[:20]!r}")
    return replace_at(value, path, new)


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        value = value[k]
    return value


def mutate_text(text: str, rng: random.Random, steps: list[str]) -> str:
    n = len(text)
    at = rng.randrange(n + 1)
    roll = rng.random()
    if roll < 0.45:
        token = rng.choice(TOKENS)
        steps.append(f"insert {token[:12]!r} at {at}")
        return text[:at] + token + text[at:]
    end = min(n, at + rng.randrange(1, 400))
    if roll < 0.65:
        steps.append(f"delete {at}:{end}")
        return text[:at] + text[end:]
    if roll < 0.8:
        steps.append(f"repeat {at}:{end}")
        return text[:end] + text[at:end] * rng.randrange(1, 4) + text[end:]
    if roll < 0.9:
        steps.append(f"cut at {at}")
        return text[:at]
    other = rng.randrange(n + 1)
    steps.append(f"move {at}:{end} to {other}")
    piece, rest = text[at:end], text[:at] + text[end:]
    other = min(other, len(rest))
    return rest[:other] + piece + rest[other:]


def _window(text: str, rng: random.Random, size: int) -> str:
    if len(text) <= size:
        return text
    start = text.rfind("\n", 0, rng.randrange(len(text) - size)) + 1
    return text[start:start + size]


def _mutate_document(text: str, suffix: str, rng: random.Random, steps: list[str]) -> str:
    """A JSON document or JSON lines: a value replaced, else the text mutated."""
    if suffix in (".json", ".traj") and rng.random() < 0.5:
        try:
            return dumps(mutate_json(json.loads(text), rng, steps), rng)
        except (ValueError, RecursionError):  # (made so by an earlier step)
            pass
    if suffix == ".jsonl" and rng.random() < 0.5:
        lines = text.splitlines()
        i = rng.randrange(len(lines)) if lines else 0
        try:
            lines[i] = dumps(mutate_json(json.loads(lines[i]), rng, steps), rng)
            steps[-1] = f"line {i + 1}: {steps[-1]}"
            return "\n".join(lines) + "\n"
        except (ValueError, IndexError, RecursionError):
            pass
    return mutate_text(text, rng, steps)


def transcripts(start: int, count: int, *, window: int | None = WINDOW) -> Iterator[Case]:
    """``count`` mutated transcripts, numbered from ``start`` (the number seeds the mutation)."""
    all_seeds = seeds()
    for number in range(start, start + count):
        rng = random.Random(number)
        seed = all_seeds[number % len(all_seeds)]
        text = seed.read_text(encoding="utf-8")
        if window is not None and seed.suffix not in (".json", ".traj"):
            text = _window(text, rng, window)
        steps: list[str] = []
        for _ in range(rng.randrange(1, 4)):
            text = _mutate_document(text, seed.suffix, rng, steps)
        data = text.encode("utf-8", errors="surrogatepass")
        if rng.random() < 0.05:
            at = rng.randrange(len(data) + 1)
            data = data[:at] + b"\xff\xfe\xc3" + data[at:]
            steps.append(f"invalid UTF-8 at byte {at}")
        yield Case(number, seed.relative_to(FIXTURES).as_posix(), seed.suffix, data, steps)


# -- declared dialects ----------------------------------------------------------------------

CONFIG: dict[str, Any] = {
    "dialects": {
        "mytools": {
            "syntax": "attributes",
            "actions": {
                "put-file": {"kind": "write", "path": "file", "content": "text", "body": "text",
                             "required": ["file"]},
                "swap": {"kind": "modify", "path": "file", "search": "old", "replace": "new",
                         "required": ["file", "old", "new"]},
            },
        },
        "ops": {
            "syntax": "json", "fences": ["ops"], "type-key": "op", "list-key": "ops",
            "actions": {"mkfile": {"kind": "create", "path": "to", "content": "body",
                                   "required": ["to", "body"]},
                        "rm": {"kind": "delete", "path": "to"}},
        },
        "kids": {
            "syntax": "children", "type-attribute": "type", "default-type": "make",
            "actions": {"make": {"tag": "action", "kind": "create", "path": "path",
                                 "content": "contents"},
                        "run": {"tag": "action", "kind": "command", "command": "cmd"}},
        },
    }
}

DECLARED_TRANSCRIPT = """Using the project's tools.

<put-file file="new.txt">hello \\udfff
</put-file>
<swap file="calc.py" old="return a + b" new="return b + a"/>

```ops
{"ops": [{"op": "mkfile", "to": "made.txt", "body": "hi\\n"}, {"op": "rm", "to": "delete.txt"}]}
```

<action type="make"><path>kid.txt</path><contents>k</contents></action>
<action type="run"><cmd>ls</cmd></action>
"""


def toml_value(value: Any) -> str:
    """TOML for ``value`` (tables inline, so that one line holds any nesting)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value and abs(value) != float("inf") else "nan"
    if value is None:
        return '""'
    if isinstance(value, str):
        if value == "@@BIGINT@@":
            return BIG_INT
        if value == "@@DEEP@@":
            return DEEP
        return json.dumps(value)  # a TOML basic string is JSON's, but for the \U escapes
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


def configs(start: int, count: int) -> Iterator[Case]:
    for number in range(start, start + count):
        rng = random.Random(10**6 + number)
        steps: list[str] = []
        value: Any = CONFIG
        for _ in range(rng.randrange(1, 4)):
            value = mutate_json(value, rng, steps)
        if isinstance(value, dict):
            text = "".join(f"{json.dumps(str(k))} = {toml_value(v)}\n" for k, v in value.items())
        else:
            text = f"dialects = {toml_value(value)}\n"
        if rng.random() < 0.2:
            text = mutate_text(text, rng, steps)
        yield Case(number, "declared config", ".toml", text.encode("utf-8", errors="surrogatepass"), steps)


# -- planted journals -----------------------------------------------------------------------


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plant_journal(root: Path, number: int) -> list[str]:
    """Plant a journal in ``root/.action-lsp-journal`` (which must not exist), made from a
    plausible interrupted write of the workspace's files, then mutated; returns the steps."""
    rng = random.Random(2 * 10**6 + number)
    steps: list[str] = []
    jdir = root / ".action-lsp-journal"
    jdir.mkdir(mode=0o700)
    st = jdir.stat()
    jid = f"{rng.randrange(16**12):012x}"
    files = sorted(p.name for p in root.iterdir() if p.is_file())
    entries: list[dict[str, Any]] = []
    backup = b""
    for i, name in enumerate(rng.sample(files, min(len(files), rng.randrange(1, 4)))):
        old = (root / name).read_bytes()
        new = old + b"new\n"
        op = rng.choice(("rename", "inplace", "delete"))
        temp = f".action-lsp.{jid}.{i}.tmp"
        if op != "delete" and rng.random() < 0.7:
            (root / temp).write_bytes(new)
        entries.append({
            "op": op, "rel": name, "target": name, "temp": None if op == "delete" else temp,
            "old_sha": sha(old), "new_sha": None if op == "delete" else sha(new),
            "backup": [len(backup), len(old)], "mode": 0o644, "uid": None, "gid": None,
            "kept": None, "linked_new": None,
        })
        backup += old
    record: Any = {
        "version": 1, "id": jid, "place": [st.st_dev, st.st_ino], "label": f"fuzz {number}",
        "started": 1.7e9, "dirs": [], "entries": entries,
    }
    if rng.random() < 0.3:
        record["entries"].append({"op": "delete", "rel": "x", "target": rng.choice(
            ["../outside/keep.txt", str(root.parent / "outside" / "keep.txt"), "sub/../../outside/keep.txt"])})
        steps.append("an entry outside the workspace")
    for _ in range(rng.randrange(0, 4)):
        record = mutate_json(record, rng, steps)
    text = dumps(record, rng)
    if rng.random() < 0.2:
        text = mutate_text(text, rng, steps)
    (jdir / "journal.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    if rng.random() < 0.8:
        (jdir / "backup").write_bytes(backup if rng.random() < 0.8 else backup[: len(backup) // 2])
    if rng.random() < 0.5:
        (jdir / "committed").write_bytes(b"")
        steps.append("committed")
    if rng.random() < 0.2:
        (jdir / "restoring").write_bytes(rng.choice([b"", b"0", b"1", b"x", b"-1", BIG_INT.encode()]))
        steps.append("restoring")
    if rng.random() < 0.05 and hasattr(os, "symlink"):
        os.replace(jdir / "journal.json", jdir / "journal.real")
        os.symlink("/dev/zero", jdir / "journal.json")
        steps.append("journal.json -> /dev/zero")
    return steps
