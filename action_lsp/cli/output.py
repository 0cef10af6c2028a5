"""How the command line shows things: colour, safe text, source excerpts, and the machine formats
(JSON, GitHub workflow annotations, SARIF 2.1.0).

A transcript is untrusted input, and what it says reaches the terminal inside messages and
excerpts. :func:`clean` escapes control and bidirectional-override characters and lone
surrogates (``\\u001b`` instead of ESC), so a transcript can neither forge a diagnostic line nor
send terminal escape sequences -- as ruff escapes them in its excerpts.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from typing import IO, Any, ClassVar

# C0 and C1 controls, DEL, line/paragraph separators, bidi embeddings/overrides/isolates, the
# BOM / zero-width no-break space, and lone surrogates.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    c = ord(ch)
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def clean(text: str, keep: str = "") -> str:
    """``text`` safe to print on a terminal: unsafe characters become visible escapes (``\\n``,
    ``\\x1b``, ``\\u202e``, ``\\ud800``), except those in ``keep`` (say ``"\\n\\t"``)."""
    return _UNSAFE.sub(lambda m: m.group(0) if m.group(0) in keep else _escape(m.group(0)), text)


def dumps(obj: Any) -> str:
    """JSON with non-ASCII text kept readable, and lone surrogates (which cannot be written as
    UTF-8) as ``\\udXXX`` escapes -- every raw surrogate sits inside a JSON string."""
    import json

    try:
        text = json.dumps(obj, ensure_ascii=False)
    except RecursionError:  # a transcript's value nested deeper than the encoder recurses
        text = json.dumps(_cut_deep(obj, MAX_DEPTH), ensure_ascii=False)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


MAX_DEPTH = 100  # levels of a transcript's value written out; deeper ones are named, not written


def _cut_deep(obj: Any, depth: int) -> Any:
    """``obj`` with every list or object nested more than ``depth`` levels down replaced by a
    string that says so (the JSON reader reads any depth; the encoder recurses)."""
    if isinstance(obj, dict | list | tuple):
        if depth <= 0:
            return f"(a value nested deeper than {MAX_DEPTH} levels, not written)"
        if isinstance(obj, dict):
            return {k: _cut_deep(v, depth - 1) for k, v in obj.items()}
        return [_cut_deep(v, depth - 1) for v in obj]
    return obj


# -- colour ------------------------------------------------------------------------------------


def use_color(choice: str, stream: IO[str]) -> bool:
    """``--color``: ``always``, ``never``, or ``auto`` (a terminal, unless ``NO_COLOR`` is set
    or ``TERM=dumb``; ``FORCE_COLOR`` forces it)."""
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Style:
    """ANSI styles, or nothing when colour is off."""

    CODES: ClassVar[dict[str, str]] = {
        "bold": "1",
        "dim": "2",
        "red": "1;31",
        "yellow": "1;33",
        "blue": "1;34",
        "cyan": "1;36",
        "green": "1;32",
        "magenta": "1;35",
    }
    SEVERITY: ClassVar[dict[str, str]] = {"error": "red", "warning": "yellow", "information": "blue", "hint": "cyan"}

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, style: str, text: str) -> str:
        if not self.enabled or not text:
            return text
        return f"\x1b[{self.CODES[style]}m{text}\x1b[0m"

    def severity(self, label: str, text: str | None = None) -> str:
        return self(self.SEVERITY.get(label, "bold"), label if text is None else text)


# -- source excerpts ---------------------------------------------------------------------------

MAX_EXCERPT = 100  # columns of a long line shown around the range


def _width(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _visible(text: str) -> list[tuple[str, int]]:
    """Each character as shown (tabs as 4 spaces, unsafe characters escaped) with its width."""
    out = []
    for ch in text:
        if ch == "\t":
            out.append(("    ", 4))
        elif _UNSAFE.match(ch):
            shown = clean(ch)
            out.append((shown, len(shown)))
        else:
            out.append((ch, _width(ch)))
    return out


def excerpt(line_no: int, line: str, start: int, end: int, style: Style, label: str) -> list[str]:
    """A ruff/rustc-like excerpt: the source line with carets under ``[start, end)`` (character
    columns on that line; an empty range gets one caret). Long lines are cut around the range."""
    cells = _visible(line)
    start = max(0, min(start, len(cells)))
    end = max(start, min(end, len(cells)))
    lo, hi = 0, len(cells)
    if sum(w for _, w in cells) > MAX_EXCERPT:
        lo = max(0, start - 20)
        hi = min(len(cells), max(end, start + 1) + 20, lo + MAX_EXCERPT)
    shown = "".join(s for s, _ in cells[lo:hi])
    pad = sum(w for _, w in cells[lo:start])
    marks = max(1, sum(w for _, w in cells[start:end]))
    if lo > 0:
        shown, pad = "…" + shown, pad + 1
    if hi < len(cells):
        shown += "…"
    gutter = str(line_no)
    bar = style("blue", "|")
    blank = " " * len(gutter)
    return [
        f"{blank} {bar}",
        f"{style('blue', gutter)} {bar} {shown}",
        f"{blank} {bar} {' ' * pad}{style.severity(label, '^' * marks)}",
    ]


# -- GitHub workflow annotations ---------------------------------------------------------------

GITHUB_LEVEL = {"error": "error", "warning": "warning", "information": "notice", "hint": "notice"}


def github_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped (GitHub's own rule), other
    unsafe characters made visible."""
    text = clean(text, keep="\r\n").replace("%", "%25")
    return text.replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """A workflow command's property value: also ``:`` and ``,`` escaped."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(
    label: str, path: str, start: tuple[int, int], end: tuple[int, int], code: str, message: str
) -> str:
    """``::error file=..,line=..,col=..,endLine=..,endColumn=..,title=CODE::message`` (1-based)."""
    props = ",".join(
        [
            f"file={github_property(path)}",
            f"line={start[0]}",
            f"col={start[1]}",
            f"endLine={end[0]}",
            f"endColumn={end[1]}",
            f"title={github_property(code)}",
        ]
    )
    return f"::{GITHUB_LEVEL.get(label, 'warning')} {props}::{github_data(message)}"


# -- SARIF 2.1.0 -------------------------------------------------------------------------------

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def sarif_uri(path: str) -> str:
    from pathlib import Path
    from urllib.parse import quote

    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix(), safe="/")


def sarif_log(files: list[dict[str, Any]], version: str) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``check``'s report (``files`` as in ``--format json``: LSP ranges,
    0-based lines, UTF-16 columns; SARIF's regions are 1-based with UTF-16 columns)."""
    from ..codes import CODES, docs_url

    used = sorted({d["code"] for f in files for d in f["diagnostics"]})
    index = {code: i for i, code in enumerate(used)}
    rules = []
    for code in used:
        entry = CODES.get(code)
        rule: dict[str, Any] = {"id": code, "name": code, "helpUri": docs_url(code)}
        if entry is not None:
            rule["shortDescription"] = {"text": entry.summary}
            if entry.explanation:
                rule["fullDescription"] = {"text": entry.explanation}
            rule["defaultConfiguration"] = {"level": SARIF_LEVEL[entry.severity.label]}
        rules.append(rule)
    results = []
    for f in files:
        for d in f["diagnostics"]:
            r = d["range"]
            results.append(
                {
                    "ruleId": d["code"],
                    "ruleIndex": index[d["code"]],
                    "level": SARIF_LEVEL.get(d["severity"], "warning"),
                    "message": {"text": d["message"]},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": sarif_uri(f["path"])},
                                "region": {
                                    "startLine": r["start"]["line"] + 1,
                                    "startColumn": r["start"]["character"] + 1,
                                    "endLine": r["end"]["line"] + 1,
                                    "endColumn": r["end"]["character"] + 1,
                                },
                            }
                        }
                    ],
                }
            )
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "action-lsp",
                        "version": version,
                        "semanticVersion": version,
                        "rules": rules,
                    }
                },
                "columnKind": "utf16CodeUnits",
                "results": results,
            }
        ],
    }


def write(stream: IO[str], text: str) -> None:
    stream.write(text)
    if not text.endswith("\n"):
        stream.write("\n")


def stdout() -> IO[str]:
    return sys.stdout
