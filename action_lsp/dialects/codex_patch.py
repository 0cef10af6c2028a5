"""``codex-patch``: the ``apply_patch`` envelope of OpenAI's Codex CLI::

    *** Begin Patch
    *** Add File: path          (every content line starts with +)
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       (optional, right after Update File)
    @@ optional context line
     context / -removed / +added lines
    *** End of File             (optional: the chunk ends the file)
    *** End Patch

Found in prose (a line starting ``*** Begin Patch``), in any fence whose body starts with
it, and in a fence whose first line is Codex's shell form ``apply_patch <<'EOF'``. Read as Codex's parser (``codex-rs/apply-patch/src/parser.rs``) reads it: marker lines may
be padded with blanks, an empty line in a chunk is an empty context line, the first chunk of an
update may omit its ``@@``, and an unknown ``***`` line, an empty update or a patch with no
operation is an error (Codex applies nothing).

The file view: Add File is a ``write`` (Codex's add replaces an existing file), Delete File a
``delete``, Update File a ``modify`` whose chunks are search/replace edits (a chunk with no
context or removed line appends, as Codex inserts it at the end of the file), and Move to a
``rename`` after the update. ``parse_patch`` reads a patch held in any string (a tool call's
``apply_patch`` argument) through the string's :class:`SourceMap`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..markdown import FenceOpen
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    FileView,
    Fix,
    SourceMap,
    Span,
    TextEdit,
)
from ..schema import ActionSpec, opt, req, specs, text
from .aider_architect import settle
from .aider_hunks import mark_failed_patch
from .base import Construct, Dialect, ScanContext
from .hunks import Line, doc_span, joined, lines_of, plain

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
EOF_MARK = "*** End of File"

SPECS = specs(
    ActionSpec(
        "add-file",
        ActionKind.WRITE_FILE,
        (req("path", text(), "the file to write"), req("content", text(), "its `+` lines")),
        "Write a file (Codex replaces an existing one).",
    ),
    ActionSpec(
        "delete-file",
        ActionKind.DELETE_FILE,
        (req("path", text(), "the file to delete"),),
        "Delete a file.",
    ),
    ActionSpec(
        "update-file",
        ActionKind.MODIFY_FILE,
        (req("path", text(), "the file to change"), opt("diff", text(), "its chunks")),
        "Change a file: each chunk's context and removed lines are found and replaced.",
    ),
    ActionSpec(
        "move-file",
        ActionKind.RENAME_FILE,
        (req("from", text(), "the updated file"), req("to", text(), "`*** Move to:`")),
        "Move the updated file.",
    ),
)


@dataclass(slots=True)
class Patch:
    """What :func:`parse_patch` found: actions, diagnostics, and where the patch ends."""

    actions: list[Action] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    end: int = 0  # offset in the parsed text after the last line read as the patch
    closed: bool = False


def _trimmed(text: str, line: Line) -> tuple[int, int]:
    a, b = line.start, line.end
    while a < b and text[a] in " \t":
        a += 1
    while b > a and text[b - 1] in " \t":
        b -= 1
    return a, b


def _is(text: str, line: Line, marker: str) -> bool:
    a, b = _trimmed(text, line)
    return text[a:b] == marker


def _header(text: str, line: Line) -> tuple[str, int, int] | None:
    """(kind, path start, path end) of an ``*** Add/Delete/Update File:`` or Move line."""
    a, b = _trimmed(text, line)
    for marker in (ADD, DELETE, UPDATE, MOVE):
        if text.startswith(marker, a, b):
            return marker, a + len(marker), b
    return None


def parse_patch(
    text: str,
    start: int,
    end: int,
    *,
    dialect: str = "codex-patch",
    outer: SourceMap | None = None,
    group: Span | None = None,
) -> Patch:
    """Parse the patch beginning at the ``*** Begin Patch`` line at ``start`` in ``text[:end]``.

    ``text`` is the document, or a decoded string (a tool call's argument) whose offsets
    ``outer`` maps to the document: every span of the result is a document span.
    """
    lines = lines_of(text, start, end)
    out = Patch()
    diag = out.diagnostics

    def span(a: int, b: int) -> Span:
        return doc_span(a, b, outer)

    if not lines or not _is(text, lines[0], BEGIN):
        out.end = start
        return out
    begin = lines[0]
    # Never closed: the patch ends at the first line that cannot belong to it (prose after it).
    # (looked for from the last line: a closed patch ends with it)
    closed_ahead = any(_is(text, lines[k], END) for k in range(len(lines) - 1, 0, -1))
    i = 1
    n = len(lines)
    ops = 0
    last = begin
    grp = group if group is not None else span(start, end)

    def action(type_: str, fields: dict[str, Field], head: Line, stop: int,
               edits: list[Edit] | None = None) -> Action:
        return Action(dialect, type_, SPECS[type_].kind, span(head.start, max(head.end, stop)),
                      span(head.start, head.end), fields, grp, "apply_patch", edits or [])

    while i < n:
        line = lines[i]
        if _is(text, line, END):
            out.closed = True
            last = line
            i += 1
            break
        h = _header(text, line)
        if h is None or h[0] == MOVE:
            a, b = _trimmed(text, line)
            if a == b:  # blank lines between operations
                i += 1
                continue
            if text.startswith("***", a, b) or h is not None:
                diag.append(Diagnostic(
                    "bad-patch", f"`{text[a:b]}` is not a valid hunk header; Codex expects "
                    "`*** Add File:`, `*** Delete File:`, `*** Update File:` or `*** End Patch` "
                    "and rejects the whole patch", span(a, b)))
                last = line
                i += 1
                continue
            break  # prose after an unterminated patch
        marker, pa, pb = h
        path = plain(text, "path", pa, pb, outer)
        ops += 1
        if marker == DELETE:
            out.actions.append(action("delete-file", {"path": path}, line, line.end))
            last = line
            i += 1
            continue
        if marker == ADD:
            body: list[tuple[Line, bool]] = []
            j = i + 1
            while j < n and text.startswith("+", lines[j].start, lines[j].end):
                body.append((lines[j], True))
                j += 1
            stop = body[-1][0].end if body else line.end
            content = joined(text, "content", body, 1,
                             Span(body[0][0].start, body[-1][0].next) if body else Span(line.next, line.next),
                             outer)
            out.actions.append(action("add-file", {"path": path, "content": content}, line, stop))
            last = body[-1][0] if body else line
            i = j
            continue
        # Update File
        j = i + 1
        move: tuple[Line, Field] | None = None
        if j < n:
            mh = _header(text, lines[j])
            if mh is not None and mh[0] == MOVE:
                move = (lines[j], plain(text, "to", mh[1], mh[2], outer))
                j += 1
        # (first @@ line, its `@@ context` lines, body lines, ends the file)
        chunks: list[tuple[Line | None, list[Line], list[tuple[Line, str, bool]], int]] = []
        cur: list[tuple[Line, str, bool]] | None = None
        chunk_head: Line | None = None
        anchors: list[Line] = []
        while j < n:
            ln = lines[j]
            a, b = _trimmed(text, ln)
            if text.startswith("@@", ln.start, ln.end) and not text.startswith("@@@", ln.start):
                if cur:  # a chunk with lines ends; consecutive @@ lines narrow one chunk
                    chunks.append((chunk_head, anchors, cur, 0))
                    cur = None
                if cur is None:
                    cur, chunk_head, anchors = [], ln, []
                if text.startswith("@@ ", ln.start, ln.end) and text[ln.start + 3 : ln.end].strip():
                    anchors.append(ln)
                j += 1
                continue
            if text[a:b] == EOF_MARK:
                if cur is not None:
                    chunks.append((chunk_head, anchors, cur, 1))
                    cur, chunk_head, anchors = None, None, []
                j += 1
                continue
            if text.startswith("***", a, b):
                break
            c = text[ln.start] if ln.end > ln.start else " "
            if not closed_ahead and ln.end == ln.start and (
                    j + 1 >= n or not text.startswith((" ", "+", "-", "@@", "***"), lines[j + 1].start)):
                break  # a blank line before prose
            if c not in " +-":
                if (cur is None and not chunks) or not closed_ahead:
                    break
                diag.append(Diagnostic(
                    "bad-patch", "a chunk line starts with ` `, `+` or `-`; Codex rejects this "
                    "line and the whole patch", span(ln.start, ln.end)))
                j += 1
                continue
            if cur is None:
                cur, chunk_head, anchors = [], None, []  # the first chunk may omit its @@ line
            cur.append((ln, c, True))
            j += 1
        if cur is not None:
            chunks.append((chunk_head, anchors, cur, 0))
        stop_line = lines[j - 1] if j - 1 > i else line
        diff_field = plain(text, "diff", (move[0].next if move else line.next),
                           stop_line.next if j - 1 > i else line.next, outer)
        edits: list[Edit] = []
        carried: list[Field] = []  # the context of chunks that change nothing, for the next chunk
        changing = [any(k != " " for _, k, _ in body) for _, _, body, _ in chunks]
        for ci, (head, context, body_lines, eof) in enumerate(chunks):
            if not body_lines:
                continue
            first = head if head is not None else body_lines[0][0]
            cspan = Span(first.start, body_lines[-1][0].end)
            found = tuple(plain(text, "context", ln.start + 3, ln.end, outer) for ln in context)
            if not changing[ci] and not eof and any(changing[ci + 1 :]):
                # A chunk of context lines only (opencode writes them): Codex's applier finds
                # its lines, in a run, and seeks the next chunk after them. They are the next
                # chunk's anchors, a run of lines (no edit that changes nothing).
                run = joined(text, "context", [(ln, e) for ln, _, e in body_lines], 1,
                             Span(body_lines[0][0].start, body_lines[-1][0].end), outer)
                carried += [*found, run]
                continue
            search = joined(text, "search", [(ln, e) for ln, k, e in body_lines if k in " -"], 1,
                            cspan, outer)
            replace = joined(text, "replace", [(ln, e) for ln, k, e in body_lines if k in " +"], 1,
                             cspan, outer)
            edits.append(Edit(search, replace, anchors=(*carried, *found), after_previous=True, at_end=bool(eof)))
            carried = []
        if not edits:
            diag.append(Diagnostic(
                "bad-patch", f"the update of {path.value} has no chunk (`@@` and ` `/`-`/`+` "
                "lines); Codex rejects the whole patch", span(line.start, line.end)))
        else:
            out.actions.append(action("update-file", {"path": path, "diff": diff_field}, line,
                                      stop_line.end, edits))
        if move is not None:
            mline, to = move
            frm = Field("from", path.value, path.span, None, path.source_map)
            out.actions.append(action("move-file", {"from": frm, "to": to}, mline, mline.end))
        last = stop_line
        i = j
    out.end = last.next
    if not out.closed:
        at = last.next
        nl = "" if at > 0 and text[at - 1] in "\r\n" else "\n"
        diag.append(Diagnostic(  # unclosed-block: a patch still streaming in is in progress
            "unclosed-block", "this patch never ends: Codex rejects a patch without `*** End Patch`",
            span(begin.start, begin.end),
            fixes=[Fix("Insert `*** End Patch`", [TextEdit(span(at, at), nl + END + "\n")], True)]))
    elif ops == 0 and not diag:
        diag.append(Diagnostic(
            "bad-patch", "this patch changes nothing; Codex rejects an empty patch",
            span(begin.start, begin.end)))
    return out


_PATCH_LINE = (" ", "\t", "+", "-", "@@", "***")


def patch_extent(text: str, start: int) -> int:
    """Where the patch starting at ``start`` can end at the latest: after its ``*** End Patch``
    line, or (never closed) before the first line that cannot belong to a patch. Linear in the
    patch's own length, so a run of unterminated patches costs no more than their text."""
    n = len(text)
    pos = text.find("\n", start)
    pos = n if pos < 0 else pos + 1  # past the Begin line
    while pos < n:
        nl = text.find("\n", pos)
        nxt = n if nl < 0 else nl + 1
        line = text[pos:nxt].strip()
        if line == END:
            return nxt
        if not line:
            if nxt >= n or not text.startswith(_PATCH_LINE, nxt):
                return pos
        elif not text.startswith(_PATCH_LINE, pos) and (
                nxt >= n or not text.startswith(_PATCH_LINE, nxt)):
            return pos  # a stray line between patch lines is the patch's (and reported)
        pos = nxt
    return n


#: Codex's rules (``apply_patch``'s ``compute_replacements``): a chunk with no old lines
#: appends its new lines to the file (empty or not); an update of a missing file is refused.
#: The chunks of one update are sought in order, each after the place of the one before.
RULES = EditRules("Codex's apply_patch", on_missing="refuse", on_empty="append", on_text="append",
                  empty_hint="`*** Update File:` needs an existing file; `*** Add File:` creates one")


def patch_view(view: FileView | None) -> FileView | None:
    """The file view of an action read from a patch: Codex ends every file it updates with a
    line break (``apply_patch`` joins the lines and adds one), and reads it by its rules."""
    if view is not None and view.op == "modify" and view.edits and all(e.after_previous for e in view.edits):
        return dataclasses.replace(view, final_newline=True, rules=RULES)
    return view


class CodexPatch(Dialect):
    name = "codex-patch"
    description = "Codex's apply_patch envelopes (*** Begin Patch ... *** End Patch), in prose or a fence"
    order = 61
    line_markers = (BEGIN,)
    # The patch itself, or Codex's shell form `apply_patch <<'EOF'` with the patch after it.
    fence_body_markers = (BEGIN, "apply_patch <<", "apply_patch<<")
    specs = SPECS

    def file_view(self, action: Action) -> FileView | None:
        return patch_view(super().file_view(action))

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        text = ctx.text
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(text)
        i = fence.body_start
        while i < body_end and text[i] in " \t":
            i += 1
        if not text.startswith(BEGIN, i):  # `apply_patch <<'EOF'`: the patch is on the next line
            nl = text.find("\n", i, body_end)
            i = body_end if nl < 0 else nl + 1
            while i < body_end and text[i] in " \t":
                i += 1
            if not text.startswith(BEGIN, i):
                return None
        start = text.rfind("\n", 0, i) + 1
        end = close[1] if close else len(text)
        patch = parse_patch(text, start, body_end, dialect=self.name, group=Span(fence.start, end))
        if close is None:
            end = patch.end
        # (Aider's patch format: what Aider reported failed after the reply is shown failed.)
        read, watch = mark_failed_patch(ctx.cache, text, patch.actions, end, patch.diagnostics)
        return settle(ctx, Construct(Span(fence.start, end), patch.actions, patch.diagnostics,
                                     lookahead=max(end if close else len(text), read), watch=watch))

    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        text = ctx.text
        end = patch_extent(text, start)
        patch = parse_patch(text, start, end, dialect=self.name)
        if patch.end <= start:
            return None
        for a in patch.actions:
            a.group = Span(start, patch.end)
        read, watch = mark_failed_patch(ctx.cache, text, patch.actions, patch.end, patch.diagnostics)
        return settle(ctx, Construct(Span(start, patch.end), patch.actions, patch.diagnostics,
                                     lookahead=max(min(len(text), end + 1), read), watch=watch))


DIALECT = CodexPatch()
