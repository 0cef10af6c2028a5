"""``unified-diff``: unified diffs, as models answer with them (``git diff`` / ``diff -u``).

Claimed: ```` ```diff ```` / ```` ```patch ```` / ```` ```udiff ```` fences, any fence whose body
starts with ``diff --git``, and bare ``diff --git`` sections in prose (they run while their
lines read as a diff). A fence counts as an action only when it names a file (``---``/``+++`` or
``diff --git``): a ```` ```diff ```` fence of bare ``-``/``+`` lines is an illustration.

Each file section is one action: ``--- /dev/null`` creates a file (its added lines), ``+++
/dev/null`` deletes one, ``rename from``/``rename to`` renames (and its hunks modify the source
first), anything else modifies. A hunk is a search/replace edit of the normalized file view:
context and removed lines are the search, context and added lines the replacement, ``\\ No
newline at end of file`` drops the line break it follows; its line hint is the hunk's old start
moved by the hunks before it (where its text stands once they are applied). The edit engine
locates each hunk by its text, so a hunk whose line numbers are off applies where ``patch``
would apply it with an offset, and a hunk whose text is not in the file is ``search-not-found``
with the hunk's range. A hunk header without numbers (``@@ ... @@``, as Aider's ``udiff`` and
``udiff-simple`` formats write every hunk) gives no line hint: the hunk is found by its text
alone, and refused when that text stands in several places (``search-ambiguous``); an empty line
inside such a hunk is an empty context line (its space dropped) while hunk lines follow it. A
file whose hunks all lack numbers follows Aider's rules (``AIDER_UDIFF``): a hunk of added lines
only appends them to the file, creating it when it is missing.

The lines are classified in one linear pass here (hunk extents, counts, where each field is
written); each file section is then parsed by the ``unidiff`` package (with recounted headers,
so a miscounted hunk is still read) for what it says about the file: added, removed, renamed,
source and target. Diagnostics: ``bad-hunk`` (header counts that disagree with the body, with
the "Recount hunk header" fix; a header with no line numbers), ``bad-patch`` (a missing ``+++``
line, a hunk before any file header, ``---`` and ``+++`` naming different files without a
rename, what ``unidiff`` rejects).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..markdown import FenceOpen, next_line_start
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    Fix,
    Severity,
    Span,
    TextEdit,
)
from ..schema import ActionSpec, opt, req, specs, text
from .aider_architect import settle
from .aider_hunks import mark_failed_hunks
from .base import Construct, Dialect, ScanContext
from .hunks import Line, joined, lines_of, plain

SPECS = specs(
    ActionSpec(
        "modify",
        ActionKind.MODIFY_FILE,
        (req("path", text(), "the file the hunks change (the `+++` line)"),
         opt("diff", text(), "the hunks")),
        "Change a file: each hunk's context and removed lines are found and replaced by its "
        "context and added lines.",
    ),
    ActionSpec(
        "new-file",
        ActionKind.CREATE_FILE,
        (req("path", text(), "the file created (`--- /dev/null`)"),
         req("content", text(), "its added lines")),
        "Create a file.",
    ),
    ActionSpec(
        "deleted-file",
        ActionKind.DELETE_FILE,
        (req("path", text(), "the file deleted (`+++ /dev/null`)"),),
        "Delete a file.",
    ),
    ActionSpec(
        "rename",
        ActionKind.RENAME_FILE,
        (req("from", text(), "`rename from`"), req("to", text(), "`rename to`")),
        "Rename a file.",
    ),
)

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_EXTENDED = (
    "index ", "new file mode", "deleted file mode", "old mode", "new mode", "similarity index",
    "dissimilarity index", "rename from ", "rename to ", "copy from ", "copy to ", "Binary files",
)


@dataclass(slots=True)
class _Hunk:
    header: Line
    match: re.Match[str] | None
    body: list[tuple[Line, str, bool]] = field(default_factory=list)  # (line, kind, has eol)
    end: int = 0
    old: int = 0  # lines of the old side (context and removed), counted as read
    new: int = 0

    def counts(self) -> tuple[int, int]:
        return self.old, self.new


@dataclass(slots=True)
class _Section:
    start: Line
    git: Line | None = None
    minus: Line | None = None
    plus: Line | None = None
    rename_from: Line | None = None
    rename_to: Line | None = None
    copy_from: Line | None = None
    copy_to: Line | None = None
    new_mode: bool = False
    deleted_mode: bool = False
    hunks: list[_Hunk] = field(default_factory=list)
    end: int = 0


def _starts(text: str, line: Line | None, prefix: str) -> bool:
    return line is not None and text.startswith(prefix, line.start, line.end)


class _Parser:
    def __init__(self, text: str, lines: list[Line], prose: bool) -> None:
        self.text = text
        self.lines = lines
        self.prose = prose
        self.sections: list[_Section] = []
        self.orphans: list[_Hunk] = []
        self.diagnostics: list[Diagnostic] = []
        self.stop = lines[-1].next if lines else 0  # where a prose diff ends
        self.read_to = self.stop

    def at(self, i: int, prefix: str) -> bool:
        return i < len(self.lines) and _starts(self.text, self.lines[i], prefix)

    def run(self) -> None:
        text, lines = self.text, self.lines
        cur: _Section | None = None
        i = 0
        n = len(lines)
        while i < n:
            line = lines[i]
            if self.at(i, "diff --git "):
                cur = _Section(line, git=line)
                self.sections.append(cur)
                cur.end = line.next
                i += 1
                continue
            if (cur is not None and cur.git is not None and cur.minus is None and not cur.hunks
                    and text.startswith(_EXTENDED, line.start, line.end)):
                if self.at(i, "rename from "):
                    cur.rename_from = line
                elif self.at(i, "rename to "):
                    cur.rename_to = line
                elif self.at(i, "copy from "):
                    cur.copy_from = line
                elif self.at(i, "copy to "):
                    cur.copy_to = line
                elif self.at(i, "new file mode"):
                    cur.new_mode = True
                elif self.at(i, "deleted file mode"):
                    cur.deleted_mode = True
                cur.end = line.next
                i += 1
                continue
            if self.at(i, "--- ") and (self.at(i + 1, "+++ ") or self.at(i + 1, "@@")):
                if cur is None or cur.minus is not None or cur.hunks:
                    cur = _Section(line)
                    self.sections.append(cur)
                cur.minus = line
                if self.at(i + 1, "+++ "):
                    cur.plus = lines[i + 1]
                    cur.end = lines[i + 1].next
                    i += 2
                else:
                    cur.end = line.next
                    self._missing_plus(line)
                    i += 1
                continue
            if self.at(i, "+++ ") and (cur is None or cur.minus is None) and self.at(i + 1, "@@"):
                if cur is None or cur.hunks:
                    cur = _Section(line)
                    self.sections.append(cur)
                cur.plus = line
                cur.end = line.next
                self.diagnostics.append(Diagnostic(
                    "bad-patch", "this file header has no `---` line before its `+++` line; "
                    "`patch` and `git apply` reject it", Span(line.start, line.end)))
                i += 1
                continue
            if self.at(i, "@@"):
                hunk, i = self._hunk(i)
                if cur is None:
                    self.orphans.append(hunk)
                    self.diagnostics.append(Diagnostic(
                        "bad-patch", "this hunk names no file: no `--- a/FILE` / `+++ b/FILE` "
                        "lines before it", Span(hunk.header.start, hunk.header.end),
                        severity=Severity.WARNING))
                else:
                    cur.hunks.append(hunk)
                    cur.end = hunk.end
                continue
            if self.prose:
                self.stop = line.start
                self.read_to = line.next
                return
            i += 1

    def _missing_plus(self, minus: Line) -> None:
        text = self.text
        token = text[minus.start + 4 : minus.end].split("\t")[0].rstrip()
        target = "b/" + token[2:] if token.startswith("a/") else token
        self.diagnostics.append(Diagnostic(
            "bad-patch", "this file header has no `+++` line after its `---` line; `patch` and "
            "`git apply` reject it", Span(minus.start, minus.end),
            fixes=[Fix("Insert the `+++` line", [TextEdit(Span(minus.next, minus.next),
                                                          f"+++ {target}\n")], True)]))

    def _hunk(self, i: int) -> tuple[_Hunk, int]:
        text, lines = self.text, self.lines
        header = lines[i]
        m = _HEADER.match(text, header.start, header.end)
        hunk = _Hunk(header, m)
        old_left = new_left = -1  # -1: no counts given
        if m is not None:
            old_left = int(m.group(2)) if m.group(2) is not None else 1
            new_left = int(m.group(4)) if m.group(4) is not None else 1
        i += 1
        n = len(lines)
        while i < n:
            line = lines[i]
            counted = old_left >= 0
            exhausted = counted and old_left <= 0 and new_left <= 0
            if line.start == line.end:
                # An empty line is a context line whose space was stripped, while the header
                # still expects lines (or, in a hunk without numbers, as Aider's udiff reads
                # one, while hunk lines follow it); otherwise it ends the hunk.
                if not counted and not self._hunk_goes_on(i + 1):
                    break
                if counted and (exhausted or old_left <= 0 or new_left <= 0):
                    break
                kind = " "
            else:
                kind = text[line.start]
                if kind == "\\":
                    if hunk.body:
                        last, k, _ = hunk.body[-1]
                        hunk.body[-1] = (last, k, False)
                    i += 1
                    continue
                if kind not in " +-":
                    break
                if kind == "-" and (self.at(i, "--- ") and (self.at(i + 1, "+++ ")
                                                            or self.at(i + 1, "@@"))) and (
                        not counted or old_left <= 0):
                    break  # the next file's header
            hunk.body.append((line, kind, True))
            if kind != "+":
                old_left -= 1
                hunk.old += 1
            if kind != "-":
                new_left -= 1
                hunk.new += 1
            i += 1
        hunk.end = hunk.body[-1][0].next if hunk.body else header.next
        self._check_counts(hunk)
        return hunk, i

    def _hunk_goes_on(self, i: int) -> bool:
        """Do hunk lines follow the empty lines from ``i`` on (a context, removed or added line
        that is no file header)?"""
        text, lines = self.text, self.lines
        while i < len(lines) and lines[i].start == lines[i].end:
            i += 1
        if i >= len(lines) or text[lines[i].start] not in " +-":
            return False
        return not ((self.at(i, "--- ") and (self.at(i + 1, "+++ ") or self.at(i + 1, "@@")))
                    or (self.at(i, "+++ ") and self.at(i + 1, "@@")))

    def _check_counts(self, hunk: _Hunk) -> None:
        m = hunk.match
        h = hunk.header
        old, new = hunk.counts()
        if m is None:
            self.diagnostics.append(Diagnostic(
                "bad-hunk", "this hunk header has no line numbers (`@@ -START,COUNT +START,COUNT "
                "@@`); `patch` and `git apply` reject it; action-lsp finds the hunk by its text",
                Span(h.start, h.end), severity=Severity.WARNING))
            return
        said_old = int(m.group(2)) if m.group(2) is not None else 1
        said_new = int(m.group(4)) if m.group(4) is not None else 1
        if (said_old, said_new) == (old, new):
            return
        rewritten = f"@@ -{m.group(1)},{old} +{m.group(3)},{new} @@"
        self.diagnostics.append(Diagnostic(
            "bad-hunk",
            f"the hunk header says {said_old} old and {said_new} new lines, but the hunk has "
            f"{old} and {new}; `patch` and `git apply` reject it",
            Span(m.start(), m.end()),
            fixes=[Fix("Recount hunk header", [TextEdit(Span(m.start(), m.end()), rewritten)], True)],
            data={"old": old, "new": new},
        ))


def _path(text: str, line: Line, skip: int, strip: bool) -> Field | None:
    """The path on a ``---``/``+++``/``rename``/``diff --git`` line (None for /dev/null)."""
    start = line.start + skip
    end = line.end
    tab = text.find("\t", start, end)
    if tab >= 0:
        end = tab
    while end > start and text[end - 1] in " \t":
        end -= 1
    if start < end and text[start] == '"' and text[end - 1] == '"':
        start, end = start + 1, end - 1
    token = text[start:end]
    if token == "/dev/null" or not token:
        return None
    if strip and token[:2] in ("a/", "b/") and len(token) > 2:
        start += 2
    return plain(text, "path", start, end)


def _unidiff_view(text: str, section: _Section) -> tuple[bool, bool, bool] | str:
    """(added, removed, renamed) as ``unidiff`` reads the section's file header (its ``diff
    --git``, extended and ``---``/``+++`` lines), or the message of its parse error. The hunk
    lines were classified by the linear pass already; parsing them again costs a third of the
    time for nothing."""
    from unidiff import PatchSet
    from unidiff.errors import UnidiffParseError

    out: list[str] = []
    for line in (section.git, section.rename_from, section.rename_to, section.minus, section.plus):
        if line is not None:
            out.append(text[line.start : line.end])
    if section.new_mode:
        out.insert(1, "new file mode 100644")
    if section.deleted_mode:
        out.insert(1, "deleted file mode 100644")
    if section.minus is not None and section.plus is None:
        out.append("+++ " + text[section.minus.start + 4 : section.minus.end])
    if section.plus is not None and section.minus is None:
        out.insert(len(out) - 1, "--- " + text[section.plus.start + 4 : section.plus.end])
    try:
        patch = PatchSet("\n".join(out) + "\n")
    except UnidiffParseError as exc:
        return str(exc)
    if len(patch) != 1:
        return "no file in this section"
    f = patch[0]
    return f.is_added_file or section.new_mode, f.is_removed_file or section.deleted_mode, f.is_rename


def _edits(text: str, section: _Section) -> list[Edit]:
    edits: list[Edit] = []
    delta = 0
    for h in section.hunks:
        span = Span(h.header.start, h.body[-1][0].end if h.body else h.header.end)
        search = joined(text, "search", [(ln, eol) for ln, k, eol in h.body if k in " -"], 1, span)
        replace = joined(text, "replace", [(ln, eol) for ln, k, eol in h.body if k in " +"], 1, span)
        line: int | None = None
        old, new = h.counts()
        if h.match is not None:
            start = int(h.match.group(1))
            line = start + delta if old else start + 1 + delta
            if line < 1:
                line = 1
        delta += new - old
        edits.append(Edit(search, replace, line))
    return edits


def _copy_not_applied(text: str, sec: _Section) -> Diagnostic:
    """A git copy (``copy from``/``copy to``): reported, not applied (its hunks change the copy,
    not the file named after it, and action-lsp makes no copies)."""
    lines = [ln for ln in (sec.copy_from, sec.copy_to) if ln is not None]
    names = " / ".join(f"`{text[ln.start : ln.end].strip()}`" for ln in lines)
    return Diagnostic(
        "bad-patch", f"a git copy ({names}) is not applied: action-lsp does not copy files; "
        "copy it yourself, then apply the rest", Span(lines[0].start, lines[-1].end))


def _actions(dialect: str, text: str, parser: _Parser, group: Span) -> list[Action]:
    actions: list[Action] = []
    for sec in parser.sections:
        head = sec.git or sec.minus or sec.plus or sec.start
        name_span = Span(head.start, head.end)
        span = Span(sec.start.start, max(sec.end, sec.start.end))
        view = _unidiff_view(text, sec)
        if isinstance(view, str):
            parser.diagnostics.append(Diagnostic(
                "bad-patch", f"this diff does not parse: {view}", name_span))
            continue
        if sec.copy_from is not None or sec.copy_to is not None:
            parser.diagnostics.append(_copy_not_applied(text, sec))
            continue
        # unidiff calls any two names a rename and a hunk `+0,0` a deletion: what the header
        # lines say decides (`/dev/null`, git's mode and rename lines).
        added, removed, _ = view
        old = _path(text, sec.minus, 4, True) if sec.minus is not None else None
        new = _path(text, sec.plus, 4, True) if sec.plus is not None else None
        added = sec.new_mode or (sec.minus is not None and old is None)
        removed = sec.deleted_mode or (sec.plus is not None and new is None)
        renamed = False
        if sec.rename_from is not None and sec.rename_to is not None:
            old = _path(text, sec.rename_from, len("rename from "), False)
            new = _path(text, sec.rename_to, len("rename to "), False)
            renamed = True
        if new is None and old is None and sec.git is not None:
            # `diff --git a/x b/x` with a mode change only, or a binary file: nothing to apply.
            continue

        def make(type_: str, fields: dict[str, Field], edits: list[Edit] | None = None,
                 span: Span = span, name_span: Span = name_span) -> Action:
            return Action(dialect, type_, SPECS[type_].kind, span, name_span, fields, group,
                          "diff", edits or [])

        if added and new is not None and not sec.deleted_mode:
            body = [(ln, eol) for h in sec.hunks for ln, k, eol in h.body if k == "+"]
            content_span = Span(sec.hunks[0].header.start, sec.end) if sec.hunks else name_span
            content = joined(text, "content", body, 1, content_span)
            actions.append(make("new-file", {"path": new, "content": content}))
        elif removed and old is not None:
            actions.append(make("deleted-file", {"path": old}))
        elif renamed and old is not None and new is not None:
            if sec.hunks:
                diff = plain(text, "diff", sec.hunks[0].header.start, sec.end)
                actions.append(make("modify", {"path": old, "diff": diff}, _edits(text, sec)))
            actions.append(make("rename", {"from": Field("from", old.value, old.span, None, old.source_map),
                                           "to": Field("to", new.value, new.span, None, new.source_map)}))
        else:
            target = new or old
            if target is None or not sec.hunks:
                continue
            if old is not None and new is not None and old.value != new.value:
                parser.diagnostics.append(Diagnostic(
                    "bad-patch", f"`---` names {old.value} but `+++` names {new.value} and the "
                    f"diff says no rename; the hunks are applied to {new.value}", new.span,
                    severity=Severity.WARNING))
            diff = plain(text, "diff", sec.hunks[0].header.start, sec.end)
            actions.append(make("modify", {"path": target, "diff": diff}, _edits(text, sec)))
    return actions


# Aider's udiff (``udiff_coder.do_replace``): a hunk with no context or removed line appends its
# lines to the file, creating a missing one; the hunks apply in sequence. Hunks without numbers
# are Aider's (git and ``diff -u`` always number theirs).
AIDER_UDIFF = EditRules("Aider's udiff", on_missing="create", on_empty="append", on_text="append", rewrites=True)


class UnifiedDiff(Dialect):
    name = "unified-diff"
    description = "unified diffs (```diff / ```patch fences, bare `diff --git` sections), each hunk a located edit"
    order = 60
    fence_infos = frozenset({"diff", "patch", "udiff"})
    line_markers = ("diff --git ",)
    fence_body_markers = ("diff --git ",)
    specs = SPECS

    def edit_rules(self, action: Action) -> EditRules:
        if action.edits and all(e.line is None for e in action.edits):
            return AIDER_UDIFF  # every hunk without numbers: Aider's udiff
        return self.rules

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        text = ctx.text
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(text)
        # Never closed: only the lines that read as a diff are split (a run of unclosed fences
        # must not each split the rest of the document).
        lines = lines_of(text, fence.body_start, body_end) if close else _prose_lines(text, fence.body_start)
        parser = _Parser(text, lines, prose=close is None)
        parser.run()
        if not parser.sections and not parser.orphans:
            return None  # ```diff of bare -/+ lines: an illustration
        end = close[1] if close else parser.stop
        span = Span(fence.start, end)
        actions = _actions(self.name, text, parser, span)
        diagnostics = parser.diagnostics
        if close is None:
            diagnostics.append(Diagnostic(
                "unclosed-block", f"```{fence.word} block is never closed; add a line with "
                f"{fence.char * fence.length} after the diff", fence.opener_span,
                fixes=[Fix("Insert the closing fence", [TextEdit(Span(end, end),
                           ("" if end == 0 or text[end - 1] in "\r\n" else "\n")
                           + fence.char * fence.length + "\n")], True)]))
        lookahead = end if close else max(end, parser.read_to)
        # (Hunks Aider's udiff reported failed to apply are shown failed.)
        actions, read, watch = mark_failed_hunks(ctx.cache, text, actions, end, diagnostics)
        return settle(ctx, Construct(span, actions, diagnostics, lookahead=max(lookahead, read), watch=watch))

    def parse_line(self, ctx: ScanContext, start: int) -> Construct | None:
        text = ctx.text
        # A prose diff ends at its first line that does not read as a diff; the walk reads
        # lines one by one up to there, so only the lines it takes are split.
        lines = _prose_lines(text, start)
        parser = _Parser(text, lines, prose=True)
        parser.run()
        if not parser.sections:
            return None
        end = parser.stop
        span = Span(start, end)
        actions = _actions(self.name, text, parser, span)
        diagnostics = parser.diagnostics
        actions, read, watch = mark_failed_hunks(ctx.cache, text, actions, end, diagnostics)
        return settle(ctx, Construct(span, actions, diagnostics,
                                     lookahead=max(end, min(len(text), parser.read_to), read), watch=watch))


_DIFF_LINE = (" ", "+", "-", "@@", "\\", "diff --git ", *_EXTENDED)


def _prose_lines(text: str, start: int) -> list[Line]:
    """The lines from ``start`` that may belong to a diff: up to the first blank line followed
    by a line that cannot, or the first line that cannot (plus that line, to decide)."""
    out: list[Line] = []
    pos = start
    n = len(text)
    while pos < n:
        end = next_line_start(text, pos)
        content_end = end
        while content_end > pos and text[content_end - 1] in "\r\n":
            content_end -= 1
        line = Line(pos, content_end, end)
        out.append(line)
        if content_end == pos:
            if end >= n or not text.startswith(_DIFF_LINE, end):
                break
        elif not text.startswith(_DIFF_LINE, pos):
            break
        pos = end
    return out


DIALECT = UnifiedDiff()
