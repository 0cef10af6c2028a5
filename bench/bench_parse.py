"""Benchmark: parse + rules (``action_lsp.document.analyze``) on real and generated transcripts.

Measures, per input:

- time of ``analyze(text)`` (best of N runs), throughput in MB/s (10**6 bytes of UTF-8),
- peak memory two ways: the growth of the process's peak RSS during the first timed run
  (``VmHWM`` in ``/proc/self/status``, reset through ``/proc/self/clear_refs`` before the run;
  costs nothing) and the ``tracemalloc`` peak of one extra, untimed run (Python allocations only;
  slow, so it can be skipped with ``--no-tracemalloc``),
- actions and diagnostics found,
- beside it a naive baseline in the same process on the same text: the seed's own approach (seed
  000, GemBrain), one regex over all ```` ```actions ```` blocks + ``json.loads(strict=False)``.

Inputs: transcripts given as arguments (none by default) and generated transcripts of 40 KB,
400 KB, 4 MB and 40 MB that mix all four dialects (actions-json, xml-tags, aether, action-plan)
with prose, ordinary example fences and a few deliberate errors. Generation is deterministic
(fixed seed) and happens in memory.

Then ``IncrementalDocument`` keystrokes on the 4 MB generated transcript: single-character
inserts at random positions, timed per edit, with a check for a few of them that the incremental
analysis equals a full ``analyze`` of the same text.

Run: ``.venv/bin/python bench/bench_parse.py [--sizes 40k,400k,4m] [--quick] [--json]``
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import signal
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from action_lsp.document import Analysis, IncrementalDocument, analyze

SEED = 20240601
ALL_SIZES = ("40k", "400k", "4m", "40m")
NOT_LINEAR_RATIO = 12.0

# --------------------------------------------------------------------------------------------
# The naive baseline: seed 000's parser, applied to every block (finditer) instead of the first.

_SEED_BLOCK = re.compile(r"```actions\s*\n(.*?)\n```", re.DOTALL)


@dataclass
class BaselineResult:
    actions: int
    blocks: int
    failed: int  # blocks json.loads rejected


def baseline(text: str) -> BaselineResult:
    actions = blocks = failed = 0
    for m in _SEED_BLOCK.finditer(text):
        blocks += 1
        try:
            data = json.loads(m.group(1), strict=False)
        except json.JSONDecodeError:
            failed += 1
            continue
        if isinstance(data, dict) and isinstance(data.get("actions"), list):
            actions += len(data["actions"])
    return BaselineResult(actions, blocks, failed)


# --------------------------------------------------------------------------------------------
# The generator.

_TOPICS = (
    "authentication",
    "billing",
    "search index",
    "rate limiter",
    "scheduler",
    "cache layer",
    "report export",
    "user settings",
    "audit log",
    "webhook relay",
    "image resizer",
    "CLI parser",
)
_NAMES = (
    "auth",
    "billing",
    "search",
    "limiter",
    "scheduler",
    "cache",
    "export",
    "settings",
    "audit",
    "webhooks",
    "images",
    "cli",
    "models",
    "utils",
    "storage",
    "api",
)
_SENTENCES = (
    "The {topic} module currently mixes I/O with the business rules, which makes it hard to test.",
    "I looked at how `{name}.py` is used and only two call sites depend on the return value.",
    "We should keep the public interface stable and move the helpers into a private module.",
    "Before changing anything, let me check what the existing tests cover for the {topic}.",
    "This is a small change, but it touches the error path, so I will add a regression test.",
    "The previous attempt failed because the configuration was read at import time.",
    "Note that the `{name}` package is imported lazily; keep it that way to avoid cycles.",
    "If the request times out we retry twice with exponential backoff and then give up.",
    "Tags like `<create_file>` inside backticks are just text and must not be executed.",
    "The agent answers with an action block when it wants something done \u2014 otherwise prose.",
    "Let me summarise: the {topic} needs a clearer boundary and a test for the empty case.",
    "I'm not sure the old behaviour was intended; the commit message does not explain it.",
)
_USER_ASKS = (
    "Can you refactor the {topic} so it is easier to test?",
    "Please add a regression test for the {topic} bug we saw yesterday.",
    "Why does `{name}.py` fail when the input is empty?",
    "Write a small script that checks the {topic} end to end.",
    "Remember that I prefer type hints everywhere, and track this as a task.",
)


def _code(rng: random.Random, name: str) -> str:
    fn = rng.choice(("load", "parse", "render", "update", "fetch", "check"))
    n = rng.randint(2, 9)
    return (
        f'"""Helpers for {name}."""\n'
        "from __future__ import annotations\n\n"
        "import json\n"
        "from pathlib import Path\n\n\n"
        f"def {fn}_{name}(path: Path, limit: int = {n}) -> list[dict[str, object]]:\n"
        f'    """{fn.capitalize()} at most `limit` records from `path`."""\n'
        "    records: list[dict[str, object]] = []\n"
        '    with path.open(encoding="utf-8") as f:\n'
        "        for line in f:\n"
        "            if not line.strip():\n"
        "                continue\n"
        "            records.append(json.loads(line))\n"
        "            if len(records) >= limit:\n"
        "                break\n"
        "    return records\n\n\n"
        f"class {name.capitalize()}Store:\n"
        "    def __init__(self, root: Path) -> None:\n"
        "        self.root = root\n\n"
        "    def get(self, key: str) -> str | None:\n"
        '        p = self.root / f"{key}.json"\n'
        "        return p.read_text() if p.exists() else None\n"
    )


@dataclass
class Expected:
    """What the generator put in: actions per dialect and deliberate errors."""

    actions: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)


class Generator:
    """Builds a transcript of varied messages; every random choice comes from one seeded RNG."""

    def __init__(self, seed: int = SEED) -> None:
        self.rng = random.Random(seed)
        self.expected = Expected()
        self.turn = 0

    def text(self, size: int) -> str:
        parts: list[str] = []
        total = 0
        while total < size:
            msg = self.message()
            parts.append(msg)
            total += len(msg)
        return "".join(parts)

    # ---- pieces

    def _fill(self, template: str) -> str:
        return template.format(topic=self.rng.choice(_TOPICS), name=self.rng.choice(_NAMES))

    def prose(self, sentences: tuple[int, int] = (2, 6)) -> str:
        k = self.rng.randint(*sentences)
        return " ".join(self._fill(self.rng.choice(_SENTENCES)) for _ in range(k)) + "\n\n"

    def example_fence(self) -> str:
        """An ordinary fence: an example, never an action (even when it mentions action syntax)."""
        name = self.rng.choice(_NAMES)
        kind = self.rng.randrange(4)
        if kind == 0:
            return f"For example:\n\n```python\n{_code(self.rng, name)}```\n\n"
        if kind == 1:
            return (
                "Run it like this:\n\n```bash\n"
                f"cd src && python -m {name} --limit {self.rng.randint(1, 99)}\n"
                f"grep -rn 'def ' {name}/ | wc -l\n"
                f'curl -s -X POST localhost:8000/api -d \'{{"type": "create_task", "content": "x"}}\'\n'
                "echo '<create_file><path>x</path></create_file>'\n```\n\n"
            )
        if kind == 2:
            return (
                "The payload the API expects looks like this:\n\n```python\n"
                f'payload = {{"type": "create_task", "content": "check {name}", "status": "pending"}}\n'
                'plan = {"actions": [{"action": "THINK", "context": "not a plan, an example"}]}\n'
                "client.post('/tasks', json=payload)\n```\n\n"
            )
        return (
            "The config file is plain JSON:\n\n```json\n"
            f'{{\n  "name": "{name}",\n  "retries": {self.rng.randint(0, 5)},\n'
            f'  "actions": ["lint", "test"],\n  "debug": false\n}}\n```\n\n'
        )

    def actions_block(self) -> str:
        rng, name, topic = self.rng, self.rng.choice(_NAMES), self.rng.choice(_TOPICS)
        items = [
            f'{{\n      "type": "create_task",\n      "content": "Refactor the {topic}",\n'
            f'      "notes": "Priority: {rng.choice(("high", "low", "medium"))}",\n      "status": "pending"\n    }}',
            f'{{\n      "type": "create_memory",\n      "content": "User prefers type hints in {name}.py",\n'
            '      "notes": "preference"\n    }',
            f'{{"type": "update_task", "task_id": {rng.randint(1, 500)}, "status": "ongoing"}}',
            f'{{"type": "search_memories", "query": "{topic}", "limit": {rng.randint(1, 20)}}}',
            '{\n      "type": "execute_code",\n      "code": "tasks = gb.tasks.list(status=\\"pending\\")\\n'
            'for t in tasks:\\n    if \\"'
            + topic
            + '\\" in t.content:\\n        print(t.id, t.content)\\n'
            'result = len(tasks)\\nprint(f\\"{result} pending\\")"\n    }',
        ]
        k = rng.randint(3, 5)
        chosen = [*rng.sample(items, k - 1), items[4]]  # always one execute_code
        rng.shuffle(chosen)
        error = rng.randrange(8)
        if error == 0:
            chosen[0] = (
                chosen[0]
                .replace('"create_task"', '"create_taks"')
                .replace('"update_task"', '"send_email"')
                .replace('"create_memory"', '"make_memory"')
                .replace('"search_memories"', '"search_everything"')
            )
            if '"execute_code"' in chosen[0]:
                chosen[0] = chosen[0].replace('"execute_code"', '"run_python"', 1)
            self.expected.errors["unknown type"] += 1
        body = ",\n    ".join(chosen)
        if error == 1:
            body += ","  # trailing comma: the seed's json.loads rejects the whole block
            self.expected.errors["trailing comma"] += 1
        self.expected.actions["actions-json"] += k
        return f'I\'ll record this and check the data.\n\n```actions\n{{\n  "actions": [\n    {body}\n  ]\n}}\n```\n\n'

    def xml_tags(self) -> str:
        rng, name = self.rng, self.rng.choice(_NAMES)
        path = f"src/{name}/{rng.choice(('core', 'io', 'api'))}.py"
        if rng.randrange(8) == 0:
            path = f"../outside/{name}.py"
            self.expected.errors["../ path"] += 1
        out = [
            f"I'll create the module.\n\n<create_file>\n<path>{path}</path>\n<content>\n"
            f"{_code(rng, name)}</content>\n</create_file>\n\n"
        ]
        n = 1
        if rng.random() < 0.7:
            out.append(
                f"Then fix the caller.\n\n<modify_file>\n<path>src/{name}/__init__.py</path>\n<search>\n"
                f'from .core import load_{name}\n\n__all__ = ["load_{name}"]\n</search>\n<replace>\n'
                f'from .core import load_{name}, parse_{name}\n\n__all__ = ["load_{name}", "parse_{name}"]\n'
                "</replace>\n</modify_file>\n\n"
            )
            n += 1
        out.append(
            f"<execute_command>\n<command>python -m pytest -q tests/test_{name}.py</command>\n"
            "<description>Run the tests</description>\n</execute_command>\n\n"
        )
        n += 1
        self.expected.actions["xml-tags"] += n
        return "".join(out)

    def aether(self) -> str:
        rng, name = self.rng, self.rng.choice(_NAMES)
        path = f"{name}.py"
        if rng.randrange(8) == 0:
            path = f"../secrets/{name}.py"
            self.expected.errors["../ path"] += 1
        out = [
            f"<think>\n\u2022 **Identify requirements**\n  - {self._fill(rng.choice(_SENTENCES))}\n"
            f"  - keep `{name}` importable\n\u2022 **Plan**\n  - write the module, then test it\n</think>\n\n",
            f'<aether-write path="{path}" language="python" description="{name} helpers">\n'
            f"{_code(rng, name)}</aether-write>\n\n",
        ]
        n = 2
        if rng.random() < 0.6:
            out.append(
                f'<aether-sandbox language="python" test="true">\nfrom {name} import {name.capitalize()}Store\n'
                "from pathlib import Path\n\n"
                f"store = {name.capitalize()}Store(Path('.'))\nassert store.get('missing') is None\n"
                "print('ok')\n</aether-sandbox>\n\n"
            )
            n += 1
        if rng.random() < 0.3:
            out.append('<aether-install packages="requests beautifulsoup4"></aether-install>\n\n')
            n += 1
        self.expected.actions["aether"] += n
        return "".join(out)

    def action_plan(self) -> str:
        rng, topic = self.rng, self.rng.choice(_TOPICS)
        steps = [
            ("THINK", f"How the user feels about the {topic} delay"),
            ("UPDATE_MOOD", "Slightly worried but hopeful"),
            ("ADD_MEMORY", f"User is working on the {topic} this week"),
            ("ADD_GOAL", f"Help finish the {topic}"),
            ("SPEAK", "Reassure them and offer to review the code"),
        ]
        k = rng.randint(2, 5)
        chosen = [*steps[: k - 1], steps[4]]
        if rng.randrange(8) == 0:
            chosen[0] = ("DANCE", "celebrate")  # an unknown action type
            self.expected.errors["unknown type"] += 1
        items = ",\n    ".join(f'{{"action": "{a}", "context": "{c}"}}' for a, c in chosen)
        self.expected.actions["action-plan"] += k
        return (
            'Planned actions:\n\n```json\n{\n  "actions": [\n    ' + items + "\n  ],\n"
            f'  "can_extend": {rng.choice(("true", "false"))},\n'
            f'  "reasoning": "The user mentioned the {topic}; respond warmly and remember it."\n}}\n```\n\n'
        )

    def message(self) -> str:
        """One user turn and one assistant turn."""
        self.turn += 1
        rng = self.rng
        out = [
            f"#### user\n\n{self._fill(rng.choice(_USER_ASKS))}\n\n",
            "#### assistant\n\n",
            self.prose(),
        ]
        if rng.random() < 0.6:
            out.append(self.example_fence())
        makers: list[Callable[[], str]] = [
            self.actions_block,
            self.xml_tags,
            self.aether,
            self.action_plan,
        ]
        out.append(makers[self.turn % 4]())
        if rng.random() < 0.3:
            out.append(rng.choice(makers)())
        out.append(self.prose((1, 3)))
        return "".join(out)


def generate(size: int, seed: int = SEED) -> tuple[str, Expected]:
    g = Generator(seed)
    return g.text(size), g.expected


class ProseGenerator(Generator):
    """Prose-heavy chat (like a long Aider history): questions, explanations, example fences
    (Python, shell, JSON config), inline code that mentions action syntax -- and no actions."""

    def message(self) -> str:
        self.turn += 1
        rng = self.rng
        out = [f"#### user\n\n{self._fill(rng.choice(_USER_ASKS))}\n\n", "#### assistant\n\n"]
        for _ in range(rng.randint(2, 5)):
            out.append(self.prose())
            if rng.random() < 0.5:
                out.append(self.example_fence())
        return "".join(out)


def generate_prose(size: int, seed: int = SEED) -> str:
    return ProseGenerator(seed).text(size)


# The naive scan of all four dialects: one lazy regex per construct + json.loads, no positions,
# no recovery, no checks -- what a quick script would do.
_NAIVE_JSON = re.compile(r"```(?:actions|iteration|json)[ \t]*\n(.*?)\n```", re.DOTALL)
_NAIVE_XML = re.compile(
    r"<(create_file|modify_file|create_directory|read_file|execute_command)>(.*?)</\1>", re.DOTALL
)
_NAIVE_AETHER = re.compile(r"<(aether-[\w-]+|think)\b[^>]*>(.*?)</\1>", re.DOTALL)


def naive_all(text: str) -> int:
    """Actions found by the naive scan of all four dialects."""
    found = 0
    for m in _NAIVE_JSON.finditer(text):
        try:
            data = json.loads(m.group(1), strict=False)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("actions"), list):
            found += len(data["actions"])
    found += sum(1 for _ in _NAIVE_XML.finditer(text))
    found += sum(1 for _ in _NAIVE_AETHER.finditer(text))
    return found


# --------------------------------------------------------------------------------------------
# Measuring.


def _read_status(key: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak_rss() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


class TimedOut(Exception):
    """An ``analyze`` run exceeded ``--timeout`` (raised from a SIGALRM handler)."""


def _alarm(signum: int, frame: object) -> None:
    raise TimedOut


def _run_limited(fn: Callable[[], Any], timeout: float) -> Any:
    """``fn()``, interrupted after ``timeout`` wall seconds (0: no limit)."""
    if timeout <= 0 or not hasattr(signal, "setitimer"):
        return fn()
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Timing:
    best: float  # wall clock (perf_counter), best run
    runs: list[float]
    cpu_best: float  # process CPU time (process_time), best run: robust when the machine is busy
    rss_peak_delta: int | None  # bytes: VmHWM growth during the first run
    tracemalloc_peak: int | None  # bytes: tracemalloc peak of an extra run
    timed_out: float = (
        0.0  # the --timeout that stopped the first run (best/cpu_best are lower bounds)
    )


def measure(
    fn: Callable[[], Any], runs: int, trace: bool, timeout: float = 0.0
) -> tuple[Timing, Any]:
    times: list[float] = []
    cpu: list[float] = []
    result: Any = None
    rss_delta: int | None = None
    for i in range(runs):
        result = None
        gc.collect()
        first = i == 0 and _reset_peak_rss()
        before = _read_status("VmRSS") if first else None
        c0 = time.process_time()
        t0 = time.perf_counter()
        try:
            result = _run_limited(fn, timeout)
        except TimedOut:
            wall, used = time.perf_counter() - t0, time.process_time() - c0
            return Timing(wall, [wall], used, None, None, timeout), None
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if first and before is not None:
            peak = _read_status("VmHWM")
            rss_delta = None if peak is None else max(0, peak - before)
    traced: int | None = None
    if trace:
        result = None
        gc.collect()
        tracemalloc.start()
        try:
            result = fn()
            traced = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    return Timing(min(times), times, min(cpu), rss_delta, traced), result


@dataclass
class Row:
    name: str
    chars: int
    bytes: int
    core: Timing
    base: Timing
    actions: int
    diagnostics: int
    base_actions: int
    base_blocks: int
    base_failed: int
    by_dialect: dict[str, int]
    by_code: dict[str, int]
    expected_actions: dict[str, int] | None = None
    expected_errors: dict[str, int] | None = None

    @property
    def mb(self) -> float:
        return self.bytes / 1e6


def bench_text(
    name: str, text: str, runs: int, trace: bool, expected: Expected | None, timeout: float = 0.0
) -> Row:
    log(f"  {name}: {len(text):,} chars, analyze x{runs} ...")
    core, analysis = measure(lambda: analyze(text), runs, trace, timeout)
    if analysis is None:  # timed out
        log(f"    TIMEOUT: analyze did not finish in {timeout:.0f}s (CPU {core.cpu_best:.1f}s)")
        analysis = Analysis(text, [], [], [])
    assert isinstance(analysis, Analysis)
    base, base_result = measure(lambda: baseline(text), max(runs, 3), trace)
    row = Row(
        name,
        len(text),
        len(text.encode("utf-8")),
        core,
        base,
        len(analysis.actions),
        len(analysis.diagnostics),
        base_result.actions,
        base_result.blocks,
        base_result.failed,
        dict(Counter(a.dialect for a in analysis.actions)),
        dict(Counter(d.code for d in analysis.diagnostics).most_common()),
        dict(expected.actions) if expected else None,
        dict(expected.errors) if expected else None,
    )
    if not core.timed_out:
        log(
            f"    {core.best:.3f}s (CPU {core.cpu_best:.3f}s)  {row.mb / core.best:.2f} MB/s  "
            f"{row.actions} actions  {row.diagnostics} diagnostics"
        )
    return row


# --------------------------------------------------------------------------------------------
# Keystrokes.


def _signature(a: Analysis) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    acts = [(x.dialect, x.type, x.span.start, x.span.end) for x in a.actions]
    diags = [(d.code, d.span.start, d.span.end) for d in a.diagnostics]
    return acts, diags


@dataclass
class EditResult:
    edits: int
    init_seconds: float
    edit_median: float
    edit_p95: float
    edit_max: float
    with_analysis_median: float
    with_analysis_p95: float
    rescanned_median: float
    rescanned_p95: float
    rescanned_max: int
    checked: int
    mismatches: list[str]
    per_edit: list[tuple[int, str, int, float]]  # (offset, inserted, re-scanned chars, edit() ms)


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, round(0.95 * (len(s) - 1)))]


def bench_edits(text: str, n: int, checks: int, seed: int = SEED) -> EditResult:
    rng = random.Random(seed + 1)
    log(f"  IncrementalDocument on {len(text):,} chars: {n} single-character inserts ...")
    t0 = time.perf_counter()
    doc = IncrementalDocument(text)
    doc.analysis()
    init = time.perf_counter() - t0
    edit_t: list[float] = []
    full_t: list[float] = []
    rescanned: list[int] = []
    check_at = {round(i * (n - 1) / max(1, checks - 1)) for i in range(checks)} if checks else set()
    mismatches: list[str] = []
    per_edit: list[tuple[int, str, int, float]] = []
    chars = 'abcdefghij   \n{}<>",`#-'
    for i in range(n):
        pos = rng.randrange(len(doc.text) + 1)
        ch = rng.choice(chars)
        gc.collect()
        t0 = time.perf_counter()
        doc.edit(pos, pos, ch)
        t1 = time.perf_counter()
        got = doc.analysis()
        t2 = time.perf_counter()
        edit_t.append(t1 - t0)
        full_t.append(t2 - t0)
        rescanned.append(doc.rescanned)
        per_edit.append((pos, ch, doc.rescanned, (t1 - t0) * 1e3))
        if i in check_at:
            want = analyze(doc.text)
            ga, gd = _signature(got)
            wa, wd = _signature(want)
            if ga != wa or gd != wd:
                mismatches.append(
                    f"edit {i} (insert {ch!r} at {pos}): incremental {len(ga)} actions/{len(gd)} diagnostics, "
                    f"full {len(wa)}/{len(wd)}; first difference: "
                    + _first_diff([*ga, ("--",), *gd], [*wa, ("--",), *wd])
                )
    return EditResult(
        n,
        init,
        statistics.median(edit_t),
        _p95(edit_t),
        max(edit_t),
        statistics.median(full_t),
        _p95(full_t),
        statistics.median(rescanned),
        _p95([float(r) for r in rescanned]),
        max(rescanned),
        len(check_at),
        mismatches,
        per_edit,
    )


def _first_diff(a: list[tuple[Any, ...]], b: list[tuple[Any, ...]]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"#{i}: incremental {x} vs full {y}"
    return f"lengths {len(a)} vs {len(b)}"


# --------------------------------------------------------------------------------------------
# Output.


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def parse_size(s: str) -> int:
    s = s.strip().lower().removesuffix("b")
    mult = {"k": 10**3, "m": 10**6}.get(s[-1:], 1)
    return int(float(s[:-1] if mult > 1 else s) * mult)


def _mem(n: int | None) -> str:
    return "-" if n is None else f"{n / 1e6:.0f}" if n >= 1e7 else f"{n / 1e6:.1f}"


def print_table(rows: list[Row]) -> None:
    head = (
        "| input | MB | runs | analyze s (wall, best) | CPU s (best) | MB/s (wall) | RSS peak Δ MB "
        "| tracemalloc peak MB | actions | diagnostics | baseline s | baseline MB/s "
        "| baseline actions (blocks, failed) |"
    )
    print(head)
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for r in rows:
        gt = "> " if r.core.timed_out else ""
        found = "-" if r.core.timed_out else None
        print(
            f"| {r.name} | {r.mb:.2f} | {len(r.core.runs)} | {gt}{r.core.best:.3f} | {gt}{r.core.cpu_best:.3f} "
            f"| {'< ' if gt else ''}{r.mb / r.core.best:.2f} | {_mem(r.core.rss_peak_delta)} "
            f"| {_mem(r.core.tracemalloc_peak)} | {found or r.actions} | {found or r.diagnostics} "
            f"| {r.base.best:.4f} | {r.mb / r.base.best:.0f} "
            f"| {r.base_actions} ({r.base_blocks}, {r.base_failed}) |"
        )


_RATIOS = (("400k", "40k", "400KB/40KB"), ("4m", "400k", "4MB/400KB"), ("40m", "4m", "40MB/4MB"))


def ratios(rows: list[Row], cpu: bool = False) -> dict[str, float]:
    """Time ratios between consecutive generated sizes (10x the text each)."""
    by = {r.name: (r.core.cpu_best if cpu else r.core.best) for r in rows}
    return {
        label: by[f"gen {big}"] / by[f"gen {small}"]
        for big, small, label in _RATIOS
        if f"gen {big}" in by and f"gen {small}" in by
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--sizes", default=",".join(ALL_SIZES), help="generated sizes, e.g. 40k,400k,4m"
    )
    ap.add_argument("--quick", action="store_true", help="skip sizes above 4 MB")
    ap.add_argument("--json", action="store_true", help="print machine-readable results only")
    ap.add_argument(
        "transcripts",
        nargs="*",
        help="transcripts to measure as well (e.g. a real chat history); none are read by default",
    )
    ap.add_argument("--no-tracemalloc", action="store_true", help="skip the extra tracemalloc run")
    ap.add_argument(
        "--edits", type=int, default=50, help="keystrokes on the 4 MB transcript (0: skip)"
    )
    ap.add_argument(
        "--checks", type=int, default=3, help="keystrokes verified against a full analyze"
    )
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument(
        "--timeout",
        type=float,
        default=240.0,
        help="stop an analyze run after this many wall seconds and report a lower bound (0: none)",
    )
    args = ap.parse_args(argv)

    sizes = [s.strip().lower() for s in args.sizes.split(",") if s.strip()]
    if args.quick:
        sizes = [s for s in sizes if parse_size(s) <= 4 * 10**6]
    trace = not args.no_tracemalloc
    t_start = time.perf_counter()
    rows: list[Row] = []
    log(f"bench_parse: python {sys.version.split()[0]}, {os.cpu_count()} cpus, seed {args.seed}")
    for path in args.transcripts:
        with open(path, encoding="utf-8") as f:
            given = f.read()
        rows.append(bench_text(os.path.basename(path), given, 3, trace, None, args.timeout))
        del given
    texts: dict[str, str] = {}
    for s in sizes:
        size = parse_size(s)
        t0 = time.perf_counter()
        text, expected = generate(size, args.seed)
        log(f"  generated {s} in {time.perf_counter() - t0:.2f}s")
        runs = 3 if size <= 4 * 10**6 else 1
        rows.append(
            bench_text(f"gen {s}", text, runs, trace and size <= 4 * 10**6, expected, args.timeout)
        )
        if parse_size(s) == 4 * 10**6:
            texts["4m"] = text
        del text
    edit: EditResult | None = None
    if args.edits > 0:
        text = texts.get("4m") or generate(4 * 10**6, args.seed)[0]
        texts.clear()
        edit = bench_edits(text, args.edits, args.checks, args.seed)
        del text
    rat = ratios(rows)
    rat_cpu = ratios(rows, cpu=True)
    # Judged on CPU time: on a shared machine wall time also counts waiting for a core.
    flags = ["NOT LINEAR"] if rat_cpu.get("40MB/4MB", 0.0) > NOT_LINEAR_RATIO else []
    elapsed = time.perf_counter() - t_start

    if args.json:
        out = {
            "python": sys.version.split()[0],
            "cpus": os.cpu_count(),
            "seed": args.seed,
            "elapsed_seconds": elapsed,
            "rows": [asdict(r) | {"mb": r.mb, "mb_per_s": r.mb / r.core.best} for r in rows],
            "ratios": rat,
            "ratios_cpu": rat_cpu,
            "flags": flags,
            "edits": asdict(edit) if edit else None,
        }
        print(json.dumps(out, indent=2))
        return 1 if flags or (edit and edit.mismatches) else 0

    print(
        "\nanalyze(text) = parse + rules; baseline = seed 000 regex over all ```actions blocks + json.loads"
    )
    print(
        "RSS peak Δ: growth of VmHWM during the first timed run; tracemalloc peak: one extra run\n"
    )
    print_table(rows)
    print()
    for r in rows:
        exp = (
            f"; generated: {r.expected_actions}, errors {r.expected_errors}"
            if r.expected_actions
            else ""
        )
        print(f"{r.name}: actions by dialect {r.by_dialect}{exp}")
        print(f"{' ' * len(r.name)}  diagnostics by code {r.by_code}")
    print()
    timed_out = {r.name for r in rows if r.core.timed_out}
    for big, _small, label in _RATIOS:
        if label in rat:
            at_least = "at least " if f"gen {big}" in timed_out else ""
            print(
                f"ratio {label}: {at_least}{rat[label]:.2f} (wall), {at_least}{rat_cpu[label]:.2f} (CPU)"
            )
    for f in flags:
        print(f"{f}: 40MB/4MB = {rat_cpu['40MB/4MB']:.1f} (CPU) > {NOT_LINEAR_RATIO}")
    if not flags and rat.get("40MB/4MB", 0.0) > NOT_LINEAR_RATIO:
        print(
            f"note: wall 40MB/4MB = {rat['40MB/4MB']:.1f} > {NOT_LINEAR_RATIO} but CPU "
            f"{rat_cpu['40MB/4MB']:.1f} is not: the machine was busy"
        )
    if edit:
        print(
            f"\nIncrementalDocument, 4 MB generated: {edit.edits} single-character inserts "
            f"(initial open {edit.init_seconds:.2f}s)\n"
            f"  edit():            median {edit.edit_median * 1e3:.2f} ms, p95 {edit.edit_p95 * 1e3:.2f} ms, "
            f"max {edit.edit_max * 1e3:.2f} ms\n"
            f"  edit()+analysis(): median {edit.with_analysis_median * 1e3:.2f} ms, "
            f"p95 {edit.with_analysis_p95 * 1e3:.2f} ms\n"
            f"  re-scanned chars:  median {edit.rescanned_median:.0f}, p95 {edit.rescanned_p95:.0f}, "
            f"max {edit.rescanned_max}\n"
            f"  verified against analyze(doc.text): {edit.checked} edits, {len(edit.mismatches)} mismatches"
        )
        worst = sorted(edit.per_edit, key=lambda e: -e[2])[:5]
        print(
            "  largest re-scans: "
            + ", ".join(f"{c!r} at {p:,}: {r:,} chars {ms:.0f} ms" for p, c, r, ms in worst)
        )
        for m in edit.mismatches:
            print(f"  WARNING: incremental analysis differs from a full analyze: {m}")
    print(f"\ntotal {elapsed:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
