"""Aider's chat history: how many of the blocks Aider's own extractor finds we extract alike.

    python bench/bench_aider.py CHAT_HISTORY.md GOLD.txt [--aider-wheel aider_chat-*.whl]

``GOLD.txt`` is Aider's ``tests/fixtures/chat-history-search-replace-gold.txt`` (what its
``find_original_update_blocks`` extracts from the history, message by message, as its test
``tests/basic/test_find_or_blocks.py`` prints it). A block counts when our path, search and
replace texts are identical to one of the gold blocks (as a multiset). With ``--aider-wheel``
(``pip download --no-deps aider-chat``) Aider's extractor module is loaded from the wheel
alone (its package is stubbed) and timed on the same text in the same process; without it,
only our time is reported.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import re
import sys
import time
import types
import zipfile
from pathlib import Path

from action_lsp.codes import default_severity
from action_lsp.dialects import DialectSet
from action_lsp.document import analyze
from action_lsp.model import Severity

_GOLD = re.compile(
    r"^@@@ SEARCH: (?P<path>[^\n]*) @{20}\n(?P<search>.*?)^@{20}\n(?P<replace>.*?)^@@@ REPLACE @{20}\n",
    re.MULTILINE | re.DOTALL,
)


def gold_blocks(gold: str) -> list[tuple[str, str, str]]:
    return [(m["path"], m["search"], m["replace"]) for m in _GOLD.finditer(gold)]


def our_blocks(text: str) -> tuple[list[tuple[str, str, str]], float, list[int], int]:
    t0 = time.perf_counter()
    analysis = analyze(text, DialectSet.named(["aider"]))
    elapsed = time.perf_counter() - t0
    out = []
    for a in analysis.actions:
        path = a.fields.get("path")
        for e in a.edits:
            out.append((path.value if path else "", e.search.value, e.replace.value))
    errors = [d.span.start for d in analysis.diagnostics if (d.severity or default_severity(d.code)) == Severity.ERROR]
    return out, elapsed, errors, sum(1 for a in analysis.actions if a.failure is not None)


def load_aider_extractor(wheel: str) -> types.ModuleType:
    """``aider/coders/editblock_coder.py`` from the wheel, with its package imports stubbed."""
    for name in ("aider", "aider.coders", "aider.utils", "aider.dump", "aider.coders.base_coder",
                 "aider.coders.editblock_prompts"):
        mod = types.ModuleType(name)
        mod.__path__ = []  # type: ignore[attr-defined]
        sys.modules[name] = mod
    sys.modules["aider.dump"].dump = lambda *a: None  # type: ignore[attr-defined]
    sys.modules["aider.coders.base_coder"].Coder = object  # type: ignore[attr-defined]
    sys.modules["aider.coders.editblock_prompts"].EditBlockPrompts = object  # type: ignore[attr-defined]
    source = zipfile.ZipFile(wheel).read("aider/coders/editblock_coder.py").decode()
    module = types.ModuleType("aider.coders.editblock_coder")
    module.__package__ = "aider.coders"
    exec(compile(source, "editblock_coder.py", "exec"), module.__dict__)
    return module


def aider_time(module: types.ModuleType, text: str) -> tuple[float, int, list[tuple[int, int]]]:
    """Aider's extractor over the history as its test runs it (per message, fence chosen):
    its time, its block count, and the (start, end) of the messages it rejects."""
    t0 = time.perf_counter()
    count = 0
    rejected = []
    at = 0
    for section in re.split(r"(?=####\s)", text):
        content = "".join(section.splitlines(keepends=True)[1:])
        fence = ("````", "````") if "\n````" in content else ("```", "```")
        try:
            count += sum(1 for b in module.find_original_update_blocks(content, fence) if b[0] is not None)
        except ValueError:
            rejected.append((at, at + len(section)))
        at += len(section)
    return time.perf_counter() - t0, count, rejected


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("history")
    p.add_argument("gold")
    p.add_argument("--aider-wheel")
    p.add_argument("--show", type=int, default=0, help="print this many missed gold blocks")
    args = p.parse_args()
    text = Path(args.history).read_text(encoding="utf-8")
    gold = gold_blocks(Path(args.gold).read_text(encoding="utf-8"))
    ours, elapsed, errors, failed = our_blocks(text)
    have = collections.Counter(ours)
    missed = []
    matched = 0
    for g in gold:
        if have[g] > 0:
            have[g] -= 1
            matched += 1
        else:
            missed.append(g)
    print(f"history: {len(text) / 1e6:.1f} MB; Aider's gold blocks: {len(gold)}")
    print(f"identical (path, search, replace): {matched} of {len(gold)}")
    print(f"our blocks: {len(ours)} ({sum(have.values())} not in the gold: messages Aider's test "
          "skips or rejects as a whole)")
    print(f"error diagnostics: {len(errors)}")
    print(f"blocks Aider reported failed (shown failed): {failed}")
    print(f"our parse (aider dialect only): {elapsed * 1000:.0f} ms")
    if args.aider_wheel:
        module = load_aider_extractor(args.aider_wheel)
        t, n, rejected = aider_time(module, text)
        print(f"Aider's find_original_update_blocks, same process: {t * 1000:.0f} ms ({n} blocks)")
        starts = [r[0] for r in rejected]
        inside = sum(1 for e in errors if (k := bisect.bisect_right(starts, e) - 1) >= 0 and e < rejected[k][1])
        print(f"our errors in messages Aider itself rejects: {inside} of {len(errors)} "
              f"(Aider rejects {len(rejected)} messages)")
    for g in missed[: args.show]:
        print("MISSED", repr(g[0]), repr(g[1][:120]), repr(g[2][:120]))


if __name__ == "__main__":
    main()
