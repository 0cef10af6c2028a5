"""SpecStory's 2025 exports of Cursor chats: ```` ```diff ```` blocks that name no file.

Read by the ``chat-answer`` dialect. SpecStory (before its Markdown v2) wrote each ``edit_file``
of a Cursor agent as a diff fence *without any file name*, between ``---`` lines, in an
``_**Assistant**_`` turn::

    I'll create the main Go program. First, let's create the main.go file:

    ---

    ```diff
    -
    + package main
    ```

    ---

Each line has a two-character prefix (``- ``, ``+ ``, two spaces of context); consecutive
fences separated only by blank lines are one edit (each fence an edit of it), unless a later one
is a new file; a ``---`` line between two fences ends a tool call, so the next is another edit. A fence whose lines are all added (after removed blank
lines) is a new file (``create``); any other is a ``modify`` located by its text (context and
removed lines, replaced by context and added lines).

The file is inferred, never read from the block: the nearest prose line before the fence in
the same turn that names a file (a path in backticks, or a file name with a known extension:
``main.go``, ``README.md``), else the first line after the edit when it reports it done ("The
`CHANGELOG.md` has been updated"), else for a new file the ``chmod +x PATH`` its next step runs
or the one file the report after it says created, else a ``Read file: PATH`` line before it. A bare name
becomes a longer path only when the same lines name exactly one (``src/main.go``). Such an
action carries ``named_by`` (where its file came from, for hover) and a ``shown-only``
information note: it is listed, and applied only when the user confirms the file ("Apply
anyway" after its diff, ``apply --force``). When no prose names the file, the document may
still: an edit whose unchanged and removed lines are found, in order, in the text the document
showed for exactly one file (a diff that created it, or earlier diffs of it), or a new file that
its turn's report names as the one file no other diff of the turn is (:mod:`specstory_infer`);
those are shown-only too. A fence whose file nothing names is an action with no path: shown,
never applied.

What makes a fence SpecStory's (so that a README's ```` ```diff ```` is untouched): ``---`` (or the
``_**Assistant**_`` line) right before it and ``---`` (or the end of the text) right after its
group, every line in the two-character form, and no other chat's turn around it: the nearest
role line within the dialect's look-back is SpecStory's ``_**Assistant**_`` (agent turns run
long: none in sight is accepted). Everything read lies within that look-back or is declared
as look-ahead, so an open document re-reads the block when any of it changes.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..codes import SHOWN_ONLY
from ..markdown import fence_open_at, next_line_start
from ..model import Action, ActionKind, Diagnostic, Edit, Field, SourceMap, Span
from .base import Construct, ScanContext
from .hunks import Line, lines_of
from .specstory_infer import Ops, Record, model, reported_names

TYPE = "cursor-diff"
_RULE = re.compile(r"[ \t]{0,3}-{3,}[ \t]*(?=\r|\n|\Z)")
_ASSISTANT = re.compile(r"_\*\*Assistant\*\*_[ \t]*(?=\r|\n|\Z)")
_ROLE = re.compile(r"_\*\*[A-Za-z][A-Za-z ]{0,20}?(?:[ \t]*\([^\r\n]{0,80}\))?\*\*_[ \t]*(?=\r|\n|\Z)")
_READ = re.compile(r"Read file: (?P<path>[^\s`<>|]+)[ \t]*(?=\r|\n|\Z)")
_CLOSE = re.compile(r"(?<![^\r\n])```[ \t]*(?=\r|\n|\Z)")
_FENCE_LINE = re.compile(r" {0,3}(?:```|~~~)")
# Names of files in prose: a path in backticks, or a bare name with an extension files have.
_EXTS = (
    "go|py|pyi|js|jsx|mjs|cjs|ts|tsx|json|jsonc|md|mdc|mdx|txt|sh|bash|zsh|yaml|yml|toml|ini|cfg|"
    "rs|c|h|cc|cpp|hpp|cs|java|kt|rb|php|swift|sql|html|css|scss|vue|svelte|xml|lock|mod|sum|env|"
    "conf|gradle|lua|ex|exs|dart|r|scala|proto|graphql|tf"
)
_TICKED = re.compile(r"`(?P<path>(?:\.{1,2}/|/)?[\w.@+\-]+(?:/[\w.@+\-]+)*\.[A-Za-z][A-Za-z0-9]{0,11})`")
_BARE = re.compile(rf"(?<![\w./\-`])(?P<path>(?:[\w.\-]+/)*[\w\-][\w.\-]*\.(?:{_EXTS}))(?![\w/`]|\.[A-Za-z])")
_DONE = re.compile(r"\b(?:has been|have been|was|were|is now|updated|created|modified|added|changed|edited|rewritten)\b",
                   re.IGNORECASE)
# The last sentence of a line: what follows the last sentence end (". " then a capital).
_SENTENCE = re.compile(r"(?<=[.!?])[ \t]+(?=[A-Z])(?!.*[.!?][ \t]+[A-Z])")
LOOK_BACK_LINES = 60  # prose lines before a fence that may announce its file


Locate = Callable[[int], tuple[int, int]]  # a fence's nearest role line (-1: none) and look-back floor


def parse(dialect: str, ctx: ScanContext, start: int, floor: int, role: int, plain_end: int,
          locate: Locate | None = None) -> Construct:
    """The edit whose first ```` ```diff ```` fence opens at ``start``, if it is SpecStory's (see
    the module docstring); else the fence as an example (to ``plain_end``), with what was read
    to decide declared. ``floor`` is the first offset the look-back may read, ``role`` the start
    of the nearest chat-role line at or after it (-1: none). ``locate`` gives the same two for
    any fence: with it, a diff no prose names may be named from the document
    (:mod:`specstory_infer`)."""
    t = ctx.text
    behind = min(floor, start)

    def example(read_to: int) -> Construct:
        return Construct(Span(start, plain_end), lookahead=max(plain_end, read_to), behind=behind)

    if role >= 0 and _ASSISTANT.match(t, role) is None:
        return example(plain_end)  # another chat's turn, or the user's
    if not may_be(t, start):
        return example(plain_end)  # a diff in prose: an illustration
    fences, read_to = _group(ctx, start)
    if not fences:
        return example(read_to)
    end = fences[-1].end
    after = _nonblank_after(t, end)
    reach = max(read_to, after[1] if after is not None else len(t))
    if after is not None and _RULE.fullmatch(t, *after) is None:
        return example(reach)
    span = Span(start, end)
    name_span = Span(start, max(start + 3, _line_end(t, start)))
    new_file = len(fences) == 1 and fences[0].content is not None
    fields, named, reach = inferred_file(
        t, start, max(floor, role if role >= 0 else floor), floor, after[1] if after is not None else None, reach,
        new_file)
    if named is None and locate is not None:
        rec = Record(start, end, t.count("\n", 0, start) + 1, new_file, None, tuple(f.ops for f in fences))
        found, read_from, read_to = _from_document(ctx, rec, locate)
        behind, reach = min(behind, read_from), max(reach, read_to)
        if found is not None:
            fields["path"] = Field("path", found[0], name_span)
            fields["named_by"] = Field("named_by", found[1], name_span)
            named = (found[0], name_span, found[1])
    if len(fences) == 1 and fences[0].content is not None:
        fields["content"] = fences[0].content
        action = Action(dialect, TYPE, ActionKind.CREATE_FILE, span, name_span, fields,
                        group=span, group_label="SpecStory (Cursor) diff")
    else:
        action = Action(dialect, TYPE, ActionKind.MODIFY_FILE, span, name_span, fields,
                        group=span, group_label="SpecStory (Cursor) diff", edits=[f.edit for f in fences])
    note = shown_only(fields, named, "SpecStory names no file for this diff", name_span)
    return Construct(span, [action], [note], lookahead=max(reach, end), behind=behind)


def inferred_file(
    t: str, start: int, since: int, floor: int, after: int | None, reach: int, new_file: bool = False
) -> tuple[dict[str, Field], Named | None, int]:
    """The ``path`` and ``named_by`` fields of an edit at ``start`` whose export names no file,
    inferred from the prose around it (the module docstring's order: the prose before it from
    ``since`` on, the line after ``after`` -- None: nothing follows --, for a ``new_file`` the
    ``chmod`` run right after it or the one file the report after it says created, a ``Read
    file:`` line), the name found, and how far the text was read (at least ``reach``). ``floor``
    bounds the lines read for a longer path. Shared by every export of an edit without its file
    (:mod:`cursor_export`)."""
    named, back = _named_before(t, start, since)
    if named is None and after is not None:
        named, read = _reported(t, after)
        reach = max(reach, read)
    if named is None and after is not None and new_file:
        named, read = _chmod_after(t, after)
        reach = max(reach, read)
        if named is None:
            named, read = _created_after(t, after)
            reach = max(reach, read)
    if named is None:
        named = back
    fields: dict[str, Field] = {}
    if named is not None:
        value, mention, where = named
        value = _longer(t, value, floor, reach)
        fields["path"] = Field("path", value, mention)
        fields["named_by"] = Field("named_by", where, mention)
    return fields, named, reach


def shown_only(fields: dict[str, Field], named: Named | None, unnamed: str, at: Span) -> Diagnostic:
    """The ``shown-only`` note of an edit whose export names no file: ``unnamed`` says so (\"SpecStory
    names no file for this diff\"); with ``fields`` from :func:`inferred_file`."""
    if named is None:
        message = (f"file not named in the export: {unnamed}, and no file is named around it; shown, never "
                   "applied")
    else:
        message = (f"file not named in the export: `{fields['path'].value}` is inferred from {named[2]}; shown, "
                   "not applied unless you confirm that file (\"Apply anyway\" after its diff, or apply --force)")
    return Diagnostic(SHOWN_ONLY, message, at)


def _from_document(ctx: ScanContext, rec: Record, locate: Locate) -> tuple[tuple[str, str] | None, int, int]:
    """The file of a diff no prose names, from the document (:mod:`specstory_infer`): a new
    file from its turn's report, an edit from the files the document showed before it; and the
    first and last offsets read."""
    if rec.new_file:
        a, b = _turn_bounds(ctx, rec.start)
        return _report(ctx, rec, locate, a, b), a, b
    m = model(ctx.cache, rec.start, lambda stop: _records(ctx, locate, 0, stop),
              lambda r: _report(ctx, r, locate, *_turn_bounds(ctx, r.start)))
    return m.by_content(rec.fences), 0, rec.end


def _turn_bounds(ctx: ScanContext, start: int) -> tuple[int, int]:
    """The start of the assistant turn holding ``start`` (its role line; 0: none) and its end
    (the next role line; the end of the text: none)."""
    roles = _starts(ctx, "specstory-roles", _ROLE_LINE)
    k = bisect.bisect_left(roles, start)
    return (roles[k - 1] if k > 0 else 0), (roles[k] if k < len(roles) else len(ctx.text))


# Each is a line's start (see _starts): a pattern that begins with ``^`` has no literal prefix
# for ``re`` to skip to, and was tried at every character (20 ms through 4 MB each).
_ROLE_LINE = re.compile(r"_\*\*[A-Za-z][A-Za-z ]{0,20}?(?:[ \t]*\([^\r\n]{0,80}\))?\*\*_[ \t]*\r?$", re.MULTILINE)
_DIFF_OPEN = re.compile(r"```diff[ \t]*\r?$", re.MULTILINE)


def _starts(ctx: ScanContext, key: str, pattern: re.Pattern[str]) -> list[int]:
    """The starts of the lines that begin with a match of ``pattern`` (at the text's start or
    after a ``\n``, as ``^`` in multi-line mode), in order (found once per scan)."""
    found = ctx.cache.get(key)
    if not isinstance(found, list):
        t = ctx.text
        found = ctx.cache[key] = [at for m in pattern.finditer(t) if (at := m.start()) == 0 or t[at - 1] == "\n"]
    return found


def _records(ctx: ScanContext, locate: Locate, a: int, b: int) -> list[Record]:
    """The SpecStory diffs that open in ``[a, b)``, in order (each read once per scan)."""
    memo = ctx.cache.setdefault("specstory-records", {})
    out: list[Record] = []
    starts = _starts(ctx, "specstory-diffs", _DIFF_OPEN)
    for s in starts[bisect.bisect_left(starts, a):bisect.bisect_left(starts, b)]:
        if out and s < out[-1].end:
            continue  # a later fence of the same edit
        if s not in memo:
            memo[s] = _record(ctx, s, locate)
        if memo[s] is not None:
            out.append(memo[s])
    return out


def _record(ctx: ScanContext, s: int, locate: Locate) -> Record | None:
    """The diff at ``s`` as :func:`parse` reads it (its file named by its prose only), if SpecStory's."""
    t = ctx.text
    role, floor = locate(s)
    if (role >= 0 and _ASSISTANT.match(t, role) is None) or not may_be(t, s):
        return None
    fences, _ = _group(ctx, s)
    if not fences:
        return None
    end = fences[-1].end
    after = _nonblank_after(t, end)
    if after is not None and _RULE.fullmatch(t, *after) is None:
        return None
    new_file = len(fences) == 1 and fences[0].content is not None
    fields, _, _ = inferred_file(t, s, max(floor, role if role >= 0 else floor), floor,
                                 after[1] if after is not None else None, end, new_file)
    path = fields.get("path")
    return Record(s, end, t.count("\n", 0, s) + 1, new_file, path.value if path is not None else None,
                  tuple(f.ops for f in fences))


def _report(ctx: ScanContext, rec: Record, locate: Locate, a: int, b: int) -> tuple[str, str] | None:
    """The file a new file ``rec`` (in the turn ``[a, b)``) is, by the turn's report of the files
    it created: every other new file of the turn named by its prose, and one name left."""
    turn = _records(ctx, locate, a, b)
    if not turn:
        return None
    new = [r for r in turn if r.new_file]
    if [r.start for r in new if r.prose_path is None] != [rec.start]:
        return None
    names = reported_names(ctx.text, turn[-1].end, b)
    if names is None or len(names) != len(new):
        return None
    others = [r.prose_path for r in new if r.prose_path is not None]
    left = [n for n, _ in names if not any(n == p or n.endswith("/" + p) or p.endswith("/" + n) for p in others)]
    if len(left) != 1:
        return None
    return left[0], f"the turn's report after it, which lists the files it created (`{left[0]}` is the one no other diff is)"


@dataclass(slots=True)
class _Fence:
    body_start: int
    end: int  # after the closing fence line
    edit: Edit
    content: Field | None  # the new file, when the fence adds lines to nothing
    ops: Ops  # its lines: (op, line without the two-character prefix)


def _group(ctx: ScanContext, start: int) -> tuple[list[_Fence], int]:
    """The fence at ``start`` and the fences after it that belong to the same edit, and how far
    the text was read to find them."""
    out: list[_Fence] = []
    t = ctx.text
    at = start
    while True:
        fence, read_to = _fence(ctx, at)
        if fence is None or (out and (out[0].content is not None or fence.content is not None)):
            return out, read_to  # (a new file is an edit of its own)
        out.append(fence)
        pos = fence.end
        rule = False  # a --- line ends the tool call: a fence after it is the next call's
        while pos < len(t):
            stop = _line_end(t, pos)
            if t[pos:stop].strip():
                if _RULE.fullmatch(t, pos, stop) is None:
                    break
                rule = True
            pos = next_line_start(t, stop) if stop < len(t) else len(t)
        if rule or pos >= len(t) or not t.startswith("```diff", pos):
            return out, max(read_to, _line_end(t, pos) if pos < len(t) else len(t))
        at = pos


def _fence(ctx: ScanContext, at: int) -> tuple[_Fence | None, int]:
    """The ```` ```diff ```` fence at ``at`` in SpecStory's two-character form, or None; and how
    far the text was read."""
    t = ctx.text
    fence = fence_open_at(t, at)
    if fence is None or fence.info != "diff" or fence.char != "`":
        return None, _line_end(t, at)
    # Its own closing line: ``` at the line start. A context line holding ``` (two spaces, a
    # Markdown file's fence) would close a CommonMark fence; in this form it is a line of it.
    close = _close(ctx, fence.body_start)
    if close is None:
        return None, len(t)
    body_end, end = close.start(), next_line_start(t, close.end()) if close.end() < len(t) else len(t)
    return _body(t, fence.body_start, body_end, end), end


def _close(ctx: ScanContext, pos: int) -> re.Match[str] | None:
    """The first closing line (```` ``` ```` at a line start) at or after the line start
    ``pos``. The first one after a query is remembered: a later query before it gets it
    without reading again (fences that never close this way cost one pass, not one each)."""
    t = ctx.text
    memo = ctx.cache.get("specstory-diff-close")
    if isinstance(memo, tuple) and memo[0] <= pos <= memo[1]:
        found = memo[1]
    else:
        found = len(t)
        k = t.find("```", pos)
        while k >= 0:
            if (k == pos or t[k - 1] in "\r\n") and _CLOSE.match(t, k) is not None:
                found = k
                break
            k = t.find("```", k + 3)
        ctx.cache["specstory-diff-close"] = (pos, found)
    return _CLOSE.match(t, found) if found < len(t) else None


def _body(t: str, body_start: int, body_end: int, end: int) -> _Fence | None:
    """The edit of a fence body ``[body_start, body_end)`` (the fence ending at ``end``)."""
    lines = lines_of(t, body_start, body_end)
    ops: list[tuple[Line, str]] = []
    for ln in lines:
        if ln.end == ln.start:
            ops.append((ln, " "))
            continue
        op = t[ln.start]
        if op not in "+- " or (ln.end - ln.start >= 2 and t[ln.start + 1] != " "):
            return None  # not the two-character form (a git diff's `+x`, prose)
        ops.append((ln, op))
    if not any(op in "+-" for _, op in ops):
        return None
    span = Span(body_start, body_end)
    search = _joined(t, "search", [ln for ln, op in ops if op != "+"], span)
    replace = _joined(t, "replace", [ln for ln, op in ops if op != "-"], span)
    new_file = not any(op == " " for _, op in ops) and not search.value.strip() and any(op == "+" for _, op in ops)
    content = _joined(t, "content", [ln for ln, op in ops if op == "+"], span) if new_file else None
    return _Fence(body_start, end, Edit(search, replace), content,
                  [(op, t[min(ln.start + 2, ln.end):ln.end]) for ln, op in ops])


def _joined(text: str, name: str, lines: list[Line], span: Span) -> Field:
    """The field of ``lines`` without their two-character prefix, each ended by ``\\n``; its
    map restarts at every line."""
    if not lines:
        return Field(name, "", span, None, SourceMap(span.start, 0, span.start))
    parts: list[str] = []
    breaks: list[tuple[int, int]] = []
    length = 0
    for ln in lines:
        a = min(ln.start + 2, ln.end)
        breaks.append((length, a))
        parts.append(text[a:ln.end] + "\n")
        length += ln.end - a + 1
    last = lines[-1]
    return Field(name, "".join(parts), span, None,
                 SourceMap(breaks[0][1], length, last.next if last.next > last.end else last.end, tuple(breaks)))


Named = tuple[str, Span, str]  # the file's name, where it is written, where it came from


def _named_before(text: str, start: int, floor: int) -> tuple[Named | None, Named | None]:
    """The file named by the nearest prose line before ``start`` that names one, and the
    nearest ``Read file:`` line, both after ``floor`` and after the previous code block or
    tool block (the prose of this step only)."""
    read: Named | None = None
    pos = start
    for _ in range(LOOK_BACK_LINES):
        line = _line_before(text, pos)
        if line is None or line[0] < floor:
            break
        a, b = line
        pos = a
        if a == b or _RULE.fullmatch(text, a, b) is not None:
            continue
        if _FENCE_LINE.match(text, a, b) or _ROLE.fullmatch(text, a, b) or text.startswith("</details>", a, b):
            break  # the previous block, or the turn's start
        if (m := _READ.match(text, a, b)) is not None:
            if read is None:
                read = (m.group("path"), Span(m.start("path"), m.end("path")), "the `Read file:` line before it")
            continue
        if text[a] in "|<":
            continue  # a table row (a directory listing), a tag
        # The sentence that leads into the block ("First, let's create the main.go file:"),
        # not an earlier one that announces another file of the same answer.
        last = _SENTENCE.search(text, a, b)
        names = _names(text, last.start() if last is not None else a, b)
        if names:
            value, mention = names[-1]
            return (value, mention, f"the prose before it (\u201c{_quote(text, a, b)}\u201d)"), read
        return None, read
    return None, read


def _reported(text: str, at: int) -> tuple[Named | None, int]:
    """The one file named by the first line after an edit, when it says the edit is done; and
    how far the text was read."""
    line = _nonblank_after(text, at)
    if line is None:
        return None, len(text)
    a, b = line
    if _FENCE_LINE.match(text, a, b) or text[a] in "|<_" or _DONE.search(text, a, b) is None:
        return None, b
    names = _names(text, a, b)
    if len({v for v, _ in names}) != 1:
        return None, b
    value, mention = names[0]
    return (value, mention, f"the prose after it (\u201c{_quote(text, a, b)}\u201d)"), b


_SHELL = re.compile(r" {0,3}```(?:bash|sh|shell|shellscript|zsh|console)?[ \t]*(?=\r|\n|\Z)")
_CHMOD = re.compile(r"[ \t]*(?:\$[ \t]+)?chmod[ \t]+(?:[ugoa]*\+x|[0-7]{3,4})[ \t]+(?P<path>[^\s;&|`'\"<>]+)[ \t]*(?=\r|\n|\Z)")
STEP_LINES = 20  # lines after an edit read for what names its file


def _chmod_after(text: str, at: int) -> tuple[Named | None, int]:
    """The file a new file's next step makes executable: at most one prose line after the edit
    (``Let's make the build script executable:``), then a shell block whose one command is
    ``chmod +x PATH``; and how far the text was read."""
    pos, prose = at, 0
    for _ in range(STEP_LINES):
        line = _nonblank_after(text, pos)
        if line is None:
            return None, len(text)
        a, b = line
        pos = next_line_start(text, b) if b < len(text) else len(text)
        if _RULE.fullmatch(text, a, b) is not None:
            continue
        if _SHELL.fullmatch(text, a, b) is None:
            prose += 1
            if prose > 1 or _FENCE_LINE.match(text, a, b) or _ROLE.fullmatch(text, a, b):
                return None, b
            continue
        command = _nonblank_after(text, pos)
        close = _nonblank_after(text, next_line_start(text, command[1])) if command and command[1] < len(text) else None
        if command is None or close is None:
            return None, len(text)
        m = _CHMOD.fullmatch(text, *command)
        if m is None or text[close[0]:close[1]].strip() != "```":
            return None, close[1]
        return (m.group("path"), Span(m.start("path"), m.end("path")),
                f"the command run right after it (\u201c{_quote(text, *command)}\u201d)"), close[1]
    return None, pos


_CREATED = re.compile(r"\bcreated\b", re.IGNORECASE)


def _created_after(text: str, at: int) -> tuple[Named | None, int]:
    """The one file the report after a new file's edit says created (``- **Created detailed
    spec:**`` and the path on it or on the item under it), up to the next block; and how far
    the text was read."""
    found: list[tuple[str, Span]] = []
    pos = at
    lines: list[tuple[int, int]] = []
    for _ in range(STEP_LINES):
        line = _nonblank_after(text, pos)
        if line is None:
            break
        a, b = line
        if _RULE.fullmatch(text, a, b) or _FENCE_LINE.match(text, a, b) or _ROLE.fullmatch(text, a, b):
            break
        lines.append(line)
        pos = next_line_start(text, b) if b < len(text) else len(text)
    read = lines[-1][1] if lines else at
    for k, (a, b) in enumerate(lines):
        if _CREATED.search(text, a, b) is None:
            continue
        names = _names(text, a, b)
        if not names and k + 1 < len(lines):
            c, d = lines[k + 1]
            if _indent(text, c, d) > _indent(text, a, b):  # the item under it
                names = _names(text, c, d)
        found.extend(names)
    if len({v for v, _ in found}) != 1:
        return None, read
    value, mention = found[0]
    return (value, mention, f"the report after it, which says it created `{value}`"), read


def _indent(text: str, a: int, b: int) -> int:
    return len(text[a:b]) - len(text[a:b].lstrip(" \t"))


def _names(text: str, a: int, b: int) -> list[tuple[str, Span]]:
    """The file names written in the line ``[a, b)``, in order."""
    out: list[tuple[str, Span]] = []
    for m in _TICKED.finditer(text, a, b):
        out.append((m.group("path"), Span(m.start("path"), m.end("path"))))
    for m in _BARE.finditer(text, a, b):
        out.append((m.group("path"), Span(m.start("path"), m.end("path"))))
    out.sort(key=lambda item: item[1].start)
    return [(v, s) for v, s in out if "://" not in v and not v.startswith("http")]


def _longer(text: str, name: str, floor: int, stop: int) -> str:
    """``name`` as the one longer path ending in ``/name`` that the lines read name, if exactly
    one does (``main.go`` -> ``src/main.go``); else ``name``."""
    if "/" in name or text.find("/" + name, floor, stop) < 0:
        return name
    found = {m.group(0) for m in re.finditer(rf"(?<![\w.\-/])(?:[\w.@\-]+/)+{re.escape(name)}(?![\w.\-/])",
                                            text[floor:stop])}
    found = {p for p in found if not p.startswith("/")} or found
    return found.pop() if len(found) == 1 else name


def _quote(text: str, a: int, b: int) -> str:
    s = " ".join(text[a:b].split())
    return s if len(s) <= 80 else s[:77] + "..."


def _line_end(text: str, pos: int) -> int:
    n = text.find("\n", pos)
    n = len(text) if n < 0 else n
    return n - 1 if n > pos and text[n - 1] == "\r" else n


def _line_before(text: str, start: int) -> tuple[int, int] | None:
    """``(start, end)`` of the last non-blank line before the line at ``start``."""
    pos = start
    while pos > 0:
        end = pos - (2 if text.startswith("\r\n", pos - 2) else 1)
        a = text.rfind("\n", 0, end) + 1
        if text[a:end].strip():
            return a, end
        pos = a
    return None


def _nonblank_after(text: str, pos: int) -> tuple[int, int] | None:
    """``(start, end)`` of the first non-blank line at or after the line start ``pos``."""
    while pos < len(text):
        b = _line_end(text, pos)
        if text[pos:b].strip():
            return pos, b
        pos = next_line_start(text, b) if b < len(text) else len(text)
    return None


def may_be(text: str, start: int) -> bool:
    """Cheap test before :func:`parse`: is the line before the fence at ``start`` a ``---``
    line or SpecStory's ``_**Assistant**_``?"""
    before = _line_before(text, start)
    return before is not None and (
        _RULE.fullmatch(text, *before) is not None or _ASSISTANT.fullmatch(text, *before) is not None)


def hover_note(action: Action) -> str:
    """What hover says of a SpecStory diff: the file is not named in the export, and where the
    name shown comes from."""
    how = "a new file (its lines all added)" if action.kind is ActionKind.CREATE_FILE else "an edit located by its text"
    head = f"SpecStory's export of a Cursor edit, as a diff that names no file: {how}."
    named_by = action.fields.get("named_by")
    if named_by is None:
        return head + " The file is not named in the export, nor around it: shown, never applied."
    return (head + f" The file is not named in the export: `{action.path}` is inferred from {named_by.value}."
            " Applied only when you confirm that file (\"Apply anyway\" after its diff, or apply --force).")
