"""The scanner's next event (`scan._Events.next`): a line event at the position asked is
answered before the tags and JSON objects after it are searched for (a whole JSON document's
start), which must give the answers -- and the separators passed -- of the order that searched
every kind first (kept here as the reference), on any text and any sequence of positions."""

from __future__ import annotations

import itertools
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from action_lsp.dialects import DialectSet
from action_lsp.markdown import EOL
from action_lsp.scan import _Events
from action_lsp.scan_state import ScanState

_DIALECTS = DialectSet.named(None)


class _Reference(_Events):
    def next(self, pos: int) -> tuple[int, str, re.Match[str] | None]:
        """`_Events.next` as it was: every kind searched, then the first taken."""
        text, n = self.text, self.n
        while True:
            q, tag_at, tm = self._tag
            if not q <= pos <= tag_at:
                tm = self._tag_event(pos)
                tag_at = self._tag[1]
            q, json_at = self._json
            if not q <= pos <= json_at:
                json_at = self._json_event(pos)
            q, line, lm = self._line
            if not q <= pos <= line:
                line, lm = self._line_event(pos)
            if line <= tag_at and line <= json_at:
                if lm is None:
                    return n, "", None
                if lm.lastgroup != "sep":
                    return line, lm.lastgroup, lm  # type: ignore[return-value]
                # A separator's line is passed whole (tags on it included).
                if self.ctx.cr:
                    eol = EOL.search(text, line)
                    self.seps.append((line, eol.start() if eol is not None else n))
                    pos = eol.end() if eol is not None else n
                else:
                    pos = text.find("\n", line) + 1 or n
                    self.seps.append((line, pos - 1 if pos < n or text.endswith("\n") else n))
                    # The separator lines right after it (Aider's user message, a `#### ` line
                    # each) are the next events whatever follows: passed here, the lines ended
                    # by \n at once (matched, split and measured in C), the last line a step.
                    sr = self._sep_run(text, pos)  # (it matches: emptily at least)
                    run = sr.end() if sr is not None else pos
                    if run > pos:
                        starts = list(itertools.accumulate(map((1).__add__, map(len, text[pos:run].split("\n"))), initial=pos))
                        self.seps.extend(zip(starts[:-2], map((-1).__add__, starts[1:-1]), strict=True))
                        pos = run
                    kind = self._kind.match
                    while pos < n and (sm := kind(text, pos)) is not None and sm.lastgroup == "sep":
                        line = pos
                        pos = text.find("\n", line) + 1 or n
                        self.seps.append((line, pos - 1 if pos < n or text.endswith("\n") else n))
                if pos >= n:
                    return n, "", None
            elif tag_at <= json_at:
                assert tm is not None
                if not self.ctx.in_code_span(tag_at):
                    return tag_at, "tag", tm
                pos = tm.end()  # ```<create_file>``` in prose is an example
            else:
                return json_at, "json", None


_PIECES = ['{"type": "write", "path": "a"}', "{", "}", "<create_file>", "</create_file>", "<div>", "```", "```json",
           "\n", "\n", "\r\n", "## User", "#### x", "USER:", "`", "prose ", " ", "  ", "<aether-write>", "---"]


def _answer(found: tuple[int, str, re.Match[str] | None]) -> Any:
    at, kind, m = found
    return at, kind, m.span() if m is not None else None


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=30).map("".join), data=st.data())
def test_next_answers_as_searching_every_kind_first(text: str, data: st.DataObject) -> None:
    steps = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    new, old = _Events(ScanState(text, _DIALECTS)), _Reference(ScanState(text, _DIALECTS))
    pos = 0
    for step in [0, *sorted(steps)]:  # (the scanner asks from positions that only grow)
        pos = max(pos, step)
        assert _answer(new.next(pos)) == _answer(old.next(pos))
        assert new.seps == old.seps


def test_a_whole_json_document_is_one_line_event() -> None:
    text = '{"messages": [{"role": "assistant", "content": "<create_file path=\\"a\\">"}]}'
    events = _Events(ScanState(text, _DIALECTS))
    at, kind, _ = events.next(0)
    assert (at, kind) == (0, "linejson")
    assert events._tag == (-1, -1, None)  # (the tag in the string was not searched for)
