"""A Claude Code session JSONL in the server: diagnostics at the exact characters (UTF-16 or
UTF-8 columns inside JSON escapes), and a keystroke in one line updating them."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import Session

FIXTURE = Path(__file__).parent.parent / "fixtures" / "dialects" / "claude-code" / "session.jsonl"


def _column(line: str, index: int, encoding: str) -> int:
    if encoding == "utf-8":
        return len(line[:index].encode("utf-8"))
    if encoding == "utf-16":
        return len(line[:index].encode("utf-16-le")) // 2
    return index


async def test_session_diagnostics_and_a_keystroke(session: Session) -> None:
    text = FIXTURE.read_text(encoding="utf-8")
    uri = session.open("session.jsonl", text)
    diags = await session.diagnostics(uri)
    by_code = {d.code: d for d in diags}
    assert set(by_code) == {"tool-error", "absolute-path"}
    lines = text.split("\n")
    hosts = by_code["absolute-path"].range
    assert hosts.start.line == 11
    start = lines[11].index("/etc/hosts")
    assert hosts.start.character == _column(lines[11], start, session.encoding)
    # A keystroke that breaks line 4 (the Write): one bad-json there, the rest still read
    # (the edits of the file the Write no longer creates may then miss it in the workspace).
    session.change(uri, (3, 0), (3, 1), "")
    diags = await session.diagnostics(uri)
    codes = [str(d.code) for d in diags]
    assert codes.count("bad-json") == 1 and {"absolute-path", "tool-error"} <= set(codes)
    assert set(codes) <= {"absolute-path", "bad-json", "tool-error", "file-not-found"}
    bad = next(d for d in diags if d.code == "bad-json")
    assert bad.range.start.line == 3
    json.loads(lines[3])  # the fixture line itself is valid JSON
