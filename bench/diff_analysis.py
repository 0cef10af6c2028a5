"""Differential check for speed work: dump what ``analyze`` finds, to compare two checkouts.

    PYTHONPATH=/path/to/old python bench/diff_analysis.py dump old.json [--files DIR ...]
    PYTHONPATH=$PWD          python bench/diff_analysis.py dump new.json [--files DIR ...]
    python bench/diff_analysis.py compare old.json new.json

The dump holds, per input, every diagnostic (code, span, message, severity, related, fix
titles and edits -- lazy fixes computed), every action (dialect, type, kind, spans, group,
fields with their key spans, values and source maps, edits) and its normalized file view.
Inputs: the bench generators (dense and prose, several seeds and sizes; each tag dialect;
patches; a session JSONL; the adversarial shapes) and every file under
the given directories (by default tests/fixtures and examples). A speed change must leave the
dump identical.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_dialects
import bench_patches
import bench_sessions
from adversarial import SHAPES
from bench_parse import generate, generate_prose

from action_lsp.dialects import file_view
from action_lsp.document import analyze
from action_lsp.model import Field, SourceMap, Span


def _span(s: Span | None) -> list[int] | None:
    return None if s is None else [s.start, s.end]


def _map(m: SourceMap | None) -> Any:
    if m is None:
        return None
    return [m.base, m.length, m.source_end, [[i, s + m.offset] for i, s in m.breaks]]


def _value(v: Any) -> Any:
    try:
        return json.loads(json.dumps(v))
    except (TypeError, ValueError):
        return repr(v)


def _field(f: Field | None) -> Any:
    if f is None:
        return None
    return [f.name, _value(f.value), _span(f.span), _span(f.key_span), _map(f.source_map)]


def _edit(e: Any) -> Any:
    """Every attribute of an ``Edit`` / ``FileEdit`` (fields, anchors, flags), whatever it has."""
    out = []
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, Field):
            out.append(_field(v))
        elif isinstance(v, tuple) and all(isinstance(x, Field) for x in v):
            out.append([_field(x) for x in v])
        else:
            out.append(_value(v))
    return out


def dump_text(text: str) -> dict[str, Any]:
    a = analyze(text)
    diags = []
    for d in a.diagnostics:
        diags.append(
            [
                d.code,
                _span(d.span),
                d.message,
                None if d.severity is None else int(d.severity),
                [[_span(s), m] for s, m in d.related],
                [[f.title, f.preferred, [[_span(e.span), e.new_text] for e in f.edits]] for f in d.fixes],
                _value(d.data),
            ]
        )
    actions = []
    for act in a.actions:
        view = file_view(act)
        actions.append(
            [
                act.dialect,
                act.type,
                act.kind.value,
                _span(act.span),
                _span(act.name_span),
                _span(act.group),
                act.group_label,
                act.partial,
                act.in_progress,
                act.failure,
                {k: _field(f) for k, f in act.fields.items()},
                [_edit(e) for e in act.edits],
                None
                if view is None
                else [
                    view.op,
                    _field(view.path),
                    _field(view.to),
                    _field(view.content),
                    [_edit(e) for e in view.edits],
                ],
            ]
        )
    groups = [[_span(g.span), g.label, g.actions] for g in a.groups]
    return {"diagnostics": diags, "actions": actions, "groups": groups}


def inputs(dirs: list[Path]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for seed in (1, 7, 42):
        for size in (20_000, 200_000):
            out.append((f"dense seed={seed} size={size}", generate(size, seed)[0]))
        out.append((f"prose seed={seed}", generate_prose(100_000, seed)))
    out.append(("dense size=1000000", generate(1_000_000)[0]))
    for name in bench_dialects.GENERATORS:
        out.append((f"dialect {name}", bench_dialects.transcript(name, 100_000)))
    out.append(("patches", bench_patches.generate(200_000)))
    with tempfile.TemporaryDirectory() as tmp:
        session = Path(tmp) / "session.jsonl"
        bench_sessions.generate(session, 300_000)
        out.append(("session", session.read_text(encoding="utf-8")))
    for name, shape in SHAPES.items():
        out.append((f"shape {name}", shape(300)))
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.is_file():
                try:
                    out.append((str(p), p.read_text(encoding="utf-8")))
                except (UnicodeDecodeError, OSError):
                    continue
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    d.add_argument("out", type=Path)
    d.add_argument("--files", type=Path, nargs="*", default=[Path("tests/fixtures"), Path("examples")])
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = ap.parse_args()
    if args.cmd == "dump":
        result = {name: dump_text(text) for name, text in inputs(args.files)}
        args.out.write_text(json.dumps(result), encoding="utf-8")
        import action_lsp

        print(f"{len(result)} inputs dumped to {args.out} (action_lsp from {Path(action_lsp.__file__).parent})")
        return 0
    old = json.loads(args.old.read_text(encoding="utf-8"))
    new = json.loads(args.new.read_text(encoding="utf-8"))
    bad = 0
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            bad += 1
            o, n = old.get(name) or {}, new.get(name) or {}
            for key in ("diagnostics", "actions", "groups"):
                for i, (x, y) in enumerate(zip(o.get(key, []), n.get(key, []), strict=False)):
                    if x != y:
                        print(f"{name}: {key}[{i}]\n  old {x!r:.400}\n  new {y!r:.400}")
                        break
                if len(o.get(key, [])) != len(n.get(key, [])):
                    print(f"{name}: {key}: {len(o.get(key, []))} old, {len(n.get(key, []))} new")
    print(f"{len(old)} inputs compared, {bad} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
