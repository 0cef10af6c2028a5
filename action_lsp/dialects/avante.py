"""``avante``: avante.nvim's SEARCH/REPLACE answers (yetone/avante.nvim, its ``legacy`` mode,
``lua/avante/templates/legacy.avanterules``)::

    <FILEPATH>mathweb/flask/app.py</FILEPATH>
    <SEARCH>
    from flask import Flask
    </SEARCH>
    <REPLACE>
    import math
    from flask import Flask
    </REPLACE>

The file path stands alone between ``<FILEPATH>`` tags on its line; each block follows with its
SEARCH lines and its REPLACE lines, every tag on a line of its own. An empty SEARCH makes a new
file (avante's own example); a FILEPATH may be followed by several blocks. Tag names are read in
any letter case, as avante reads them, and a fence line right inside a SEARCH or REPLACE
(```` ```python ```` after the opening tag, ```` ``` ```` before the closing one) is dropped, as
avante drops it. A block whose closing tag is missing is ``unclosed-tag`` (in progress while a
chat buffer still streams it in) and no action.

This raw form is what the model writes and what avante keeps in its history; its sidebar
(the ``Avante`` answer buffer) *shows* each block differently, without the SEARCH text::

    Filepath: mathweb/flask/app.py
    Replace lines: 1-1
    ```python
    import math
    from flask import Flask
    ```

Those line numbers are where avante found the SEARCH text when it drew the answer; nothing in
the buffer says what the lines held, so the shown form is read as a ``replace-lines`` action
that is shown (outline, hover) and never applied, like SWE-agent's ``edit N:M``.
"""

from __future__ import annotations

import re

from ..markdown import line_end, line_start, next_line_start
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    Fix,
    SourceMap,
    Span,
    TextEdit,
)
from ..schema import ActionSpec, opt, req, specs, text
from .base import Construct, Dialect, ScanContext, TagOpen

TYPE = "search-replace"
LINES = "replace-lines"
SPECS = specs(
    ActionSpec(
        TYPE,
        ActionKind.MODIFY_FILE,
        (
            req("path", text(), "the file, between <FILEPATH> tags on the line before the blocks"),
            opt("search", text(), "the lines to find (empty: a new file)"),
            opt("replace", text(), "the lines that replace them"),
        ),
        "Replace the <SEARCH> lines of a file with the <REPLACE> lines (an empty <SEARCH> "
        "creates the file).",
    ),
    ActionSpec(
        LINES,
        ActionKind.OTHER,
        (
            req("path", text(), "the file, on the `Filepath:` line"),
            req("lines", text(), "the lines avante found the SEARCH text at (`first-last`)"),
            opt("content", text(), "the lines that replace them"),
        ),
        "How avante's answer buffer shows a SEARCH/REPLACE block: by line numbers only (shown, "
        "never applied: nothing says what those lines held).",
    ),
)

_PATH_LINE = re.compile(r"[ \t]*<filepath>[ \t]*(?P<path>[^<\r\n]*?)[ \t]*</filepath>[ \t]*(?=\r|\n|\Z)", re.I)
_OPEN = {name: re.compile(rf"[ \t]*<{name}>[ \t]*(?:\r\n|\r|\n|\Z)", re.I) for name in ("search", "replace")}
_CLOSE = {name: re.compile(rf"[ \t]*</{name}>[ \t]*(?:\r\n|\r|\n|\Z)", re.I) for name in ("search", "replace")}
_FENCE_OPEN = re.compile(r"[ \t]*```[\w+#.-]*[ \t]*(?:\r\n|\r|\n)")
_FENCE_CLOSE = re.compile(r"[ \t]*```[ \t]*(?:\r\n|\r|\n)")
_BLANKS = re.compile(r"(?:[ \t]*(?:\r\n|\r|\n))*")
_SHOWN = re.compile(
    r"Filepath:[ \t]*(?P<path>[^\r\n]*?)[ \t]*(?:\r\n|\r|\n)"
    r"Replace lines:[ \t]*(?P<lines>\d+-\d+)[ \t]*(?:\r\n|\r|\n)"
    r"(?P<fence>[ \t]*```[^\r\n`]*(?:\r\n|\r|\n))"
)


class Avante(Dialect):
    name = "avante"
    description = (
        "avante.nvim's answers: <FILEPATH> then <SEARCH>/<REPLACE> blocks (and its sidebar's "
        "`Filepath:` / `Replace lines:` form, shown only)"
    )
    order = 62
    specs = SPECS
    tag_names = frozenset({"FILEPATH", "filepath", "FilePath"})
    line_markers = ("Filepath:",)
    # avante's example makes a new file with an empty SEARCH; on a file with content an empty
    # SEARCH has no place to go and is refused. Blocks apply in sequence.
    rules = EditRules(
        "avante", on_missing="create", on_empty="write", on_text="refuse",
        empty_hint="an empty <SEARCH> makes a new file",
    )

    # -- the model's form ---------------------------------------------------------------
    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        text = ctx.text
        line = line_start(text, tag.start)
        m = _PATH_LINE.match(text, line)
        if m is None or not m.group("path") or text[line : tag.start].strip(" \t"):
            end = next_line_start(text, tag.start)
            return Construct(Span(tag.start, end), lookahead=line_end(text, tag.start))
        path = Field("path", m.group("path"), Span(m.start("path"), m.end("path")), None,
                     SourceMap.verbatim(m.start("path"), m.end("path")))
        at = next_line_start(text, m.end())
        edits: list[Edit] = []
        diagnostics: list[Diagnostic] = []
        end = at
        lookahead = at
        while True:
            start = _BLANKS.match(text, at).end()  # type: ignore[union-attr]
            lookahead = max(lookahead, line_end(text, start))
            if _OPEN["search"].match(text, start) is None:
                break
            block = self._block(text, start, diagnostics)
            if block is None:
                end = lookahead = len(text)
                break
            edit, at = block
            edits.append(edit)
            end = lookahead = at
        if not edits:
            if not diagnostics:  # a FILEPATH line with no block after it: prose
                return Construct(Span(line, next_line_start(text, m.end())), lookahead=lookahead)
            return Construct(Span(line, end), [], diagnostics, lookahead=lookahead)
        first = edits[0]
        fields = {"path": path, "search": first.search, "replace": first.replace}
        name_span = Span(tag.start + 1, tag.start + 1 + len(tag.name))
        action = Action(self.name, TYPE, ActionKind.MODIFY_FILE, Span(line, end), name_span, fields)
        action.edits = edits
        return Construct(Span(line, end), [action], diagnostics, lookahead=lookahead)

    def _block(self, text: str, start: int, diagnostics: list[Diagnostic]) -> tuple[Edit, int] | None:
        """The SEARCH/REPLACE block whose ``<SEARCH>`` line starts at ``start``: its edit and
        where the next line starts; None (and a diagnostic) when it is never closed."""
        search = self._section(text, start, "search", diagnostics)
        if search is None:
            return None
        field_s, after = search
        at = _BLANKS.match(text, after).end()  # type: ignore[union-attr]
        if _OPEN["replace"].match(text, at) is None:
            opening = _tag_span(text, start)
            diagnostics.append(
                Diagnostic(
                    "missing-field", "this <SEARCH> has no <REPLACE> after it", opening,
                    data={"field": "replace", "type": TYPE},
                )
            )
            return None
        replace = self._section(text, at, "replace", diagnostics)
        if replace is None:
            return None
        field_r, after = replace
        return Edit(field_s, field_r), after

    @staticmethod
    def _section(
        text: str, start: int, name: str, diagnostics: list[Diagnostic]
    ) -> tuple[Field, int] | None:
        """The lines between ``<name>`` (a line at ``start``) and ``</name>``: the field and
        where the line after the closing tag starts."""
        body = _OPEN[name].match(text, start).end()  # type: ignore[union-attr]
        at = body
        while at < len(text):
            close = _CLOSE[name].match(text, at)
            if close is not None:
                break
            at = next_line_start(text, at)
        else:
            opening = _tag_span(text, start)
            diagnostics.append(
                Diagnostic(
                    "unclosed-tag",
                    f"<{name.upper()}> is never closed; add </{name.upper()}> on a line of its own after its lines",
                    opening,
                    fixes=[Fix(f"Insert </{name.upper()}>", [TextEdit(Span(len(text), len(text)),
                                                                       _closing(text, name))], True)],
                )
            )
            return None
        first, last = body, at
        fence = _FENCE_OPEN.match(text, first)
        if fence is not None and fence.end() <= last:
            first = fence.end()
            prev = line_start(text, last - 1) if last > first else last
            if last > first and _FENCE_CLOSE.fullmatch(text, prev, last):
                last = prev
        value = text[first:last]
        field = Field(name, value, Span(first, last), None, SourceMap.verbatim(first, last))
        return field, close.end()

    # -- the sidebar's form -------------------------------------------------------------
    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        text = ctx.text
        m = _SHOWN.match(text, start)
        if m is None or not m.group("path"):
            return None
        body = m.end()
        ticks = len(m.group("fence").strip(" \t")) - len(m.group("fence").strip(" \t").lstrip("`"))
        close = ctx.find_fence_close(body, "`", ticks)
        if close is None:
            end = body_end = len(text)
        else:
            body_end, end = close
        fields = {
            "path": Field("path", m.group("path"), Span(m.start("path"), m.end("path")), None,
                          SourceMap.verbatim(m.start("path"), m.end("path"))),
            "lines": Field("lines", m.group("lines"), Span(m.start("lines"), m.end("lines"))),
            "content": Field("content", text[body:body_end], Span(body, body_end), None,
                             SourceMap.verbatim(body, body_end)),
        }
        action = Action(self.name, LINES, ActionKind.OTHER, Span(start, end), Span(start, start + 8), fields)
        return Construct(Span(start, end), [action], lookahead=end)

    def field_syntax(self, type_name: str, field: str) -> str:
        return ""


def _tag_span(text: str, start: int) -> Span:
    at = text.index("<", start)
    return Span(at, text.index(">", at) + 1)


def _closing(text: str, name: str) -> str:
    sep = "" if not text or text.endswith(("\n", "\r")) else "\n"
    return f"{sep}</{name.upper()}>\n"


DIALECT = Avante()
