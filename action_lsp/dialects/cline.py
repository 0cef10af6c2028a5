"""``cline``: the XML tools of Cline (cline/cline) and Roo Code (RooCodeInc/Roo-Code).

A tool is a tag whose parameters are child elements::

    <replace_in_file>
    <path>src/app.ts</path>
    <diff>
    ------- SEARCH
    const a = 1;
    =======
    const a = 2;
    +++++++ REPLACE
    </diff>
    </replace_in_file>

File tools: ``<write_to_file>`` (``path``, ``content``: the whole file, created or replaced),
``<replace_in_file>`` (``path``, ``diff`` with Cline's ``------- SEARCH`` / ``=======`` /
``+++++++ REPLACE`` blocks or the older ``<<<<<<< SEARCH`` / ``>>>>>>> REPLACE``), Roo's
``<apply_diff>`` (``path``, ``diff`` with ``<<<<<<< SEARCH``, an optional ``:start_line: N``
hint and ``-------`` line, ``=======``, ``>>>>>>> REPLACE``), ``<insert_content>`` (``path``,
``line``, ``content``) and ``<search_and_replace>`` (``path``, ``search``, ``replace``, ...).
Other tools are recognised with their parameters and never run: ``execute_command``,
``read_file``, ``list_files``, ``search_files``, ``list_code_definition_names``,
``attempt_completion``, ``ask_followup_question``, ``new_task``, ``plan_mode_respond``,
``browser_action``, ``use_mcp_tool``, ``access_mcp_resource``, ``switch_mode``,
``codebase_search``, ``update_todo_list``, ``fetch_instructions``, ``web_fetch``.

``<execute_command>`` and ``<read_file>`` are written the same way by the seed agents of the
``xml-tags`` dialect. Both dialects claim them; the registry gives a tag to the first enabled
dialect in its order, so with the defaults ``xml-tags`` reads them (its specs accept Cline's
and Roo's parameters) and with ``--dialect cline`` alone, ``cline`` does.

Roo's and Kilo's "Export task" markdown answers each call in the next ``**User:**`` turn with
``[apply_diff for 'a.py'] Result:``: the first result line after a call answers it when it names
its tool (and path); a refusal (``_CLINE_FAILURES``, shared with the JSON side) makes it failed.
A ```` ```xml ```` / ```` ```tool_code ```` fence whose body is one call is a call when such a
result answers it, else an example. Roo's multi-file form (``<args><file>...``, Kilo writes it)
is read by :func:`args_call`: one modify per ``<diff>``, one read per ``<file>``.

Parameter values as Cline reads them: paths, commands and flags trimmed; diffs kept byte for
byte (only the line break after the opening tag is dropped); ``write_to_file``'s content as each
agent's parser gives it (Cline trims it; Roo and Kilo, whose calls carry ``line_count``, drop one
line break at each end) and its file ended as each agent's editor ends it
(``EditRules.final_eol``); ``content`` may hold
``</content>`` (it ends at the last one before the tool's closing tag). Malformed SEARCH/REPLACE
markers are ``bad-marker`` diagnostics on the marker line, as Cline's and Roo's parsers reject
them.
"""

from __future__ import annotations

import bisect
import re

from ..markdown import FenceOpen, line_end
from ..model import (
    Action,
    ActionKind,
    Diagnostic,
    Edit,
    EditRules,
    Field,
    FileEdit,
    FileView,
    SourceMap,
    Span,
)
from ..schema import ActionSpec, FieldSpec, one_of, opt, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .search_replace import CLINE, ROO, MarkerStyle, parse_blocks
from .tag_dialect import TagDialect
from .tags import find_close, parse_start_tag
from .tool_calls import _CLINE_FAILURES
from .tool_use import CLINE_REPLACE, ROO_DIFF, failed, first_line

_PROGRESS = opt("task_progress", text(), "Cline's checklist of the task's progress")


def _line_number(value: object) -> str | None:
    if isinstance(value, str) and value.strip().isdigit():
        return None
    return f"must be a line number (0 appends); got {value!r}"


def _tool(name: str, kind: ActionKind, doc: str, *fields: FieldSpec) -> ActionSpec:
    return ActionSpec(name, kind, (*fields, _PROGRESS), doc)


_LINE = opt("start_line", text(), "Roo: the line where the search text starts (a hint)")

SPECS = specs(
    _tool(
        "write_to_file", ActionKind.WRITE_FILE, "Write a whole file, creating it or replacing it.",
        req("path", text(), "the file to write, relative to the workspace"),
        req("content", text(), "the whole new file"),
        opt("line_count", text(), "Roo: the number of lines of the content"),
    ),
    _tool(
        "replace_in_file", ActionKind.MODIFY_FILE, "Change parts of a file with SEARCH/REPLACE blocks.",
        req("path", text(), "the file to change"),
        req("diff", text(), "------- SEARCH / ======= / +++++++ REPLACE blocks"),
    ),
    _tool(
        "apply_diff", ActionKind.MODIFY_FILE, "Roo: change parts of a file with SEARCH/REPLACE blocks.",
        req("path", text(), "the file to change"),
        req("diff", text(), "<<<<<<< SEARCH / :start_line: / ------- / ======= / >>>>>>> REPLACE blocks"),
        _LINE,
        opt("end_line", text(), "Roo (older form): the line where the search text ends"),
    ),
    _tool(
        "insert_content", ActionKind.MODIFY_FILE, "Roo: insert lines before a line (0: at the end).",
        req("path", text(), "the file to change"),
        req("line", _line_number, "insert before this line; 0 appends"),
        req("content", text(), "the lines to insert"),
    ),
    _tool(
        "search_and_replace", ActionKind.MODIFY_FILE, "Roo: replace every occurrence of a text.",
        req("path", text(), "the file to change"),
        req("search", text(), "the text (or regex) to find"),
        req("replace", text(), "what replaces it (empty: delete it)", empty_ok=True),
        opt("use_regex", one_of("true", "false"), "whether search is a regular expression"),
        opt("ignore_case", one_of("true", "false"), "whether case is ignored"),
        _LINE,
        opt("end_line", text(), "the last line to search"),
    ),
    _tool(
        "execute_command", ActionKind.COMMAND, "Run a shell command (never run here).",
        req("command", text(), "the command"),
        opt("requires_approval", one_of("true", "false"), "Cline: whether the user must approve it"),
        opt("cwd", text(), "Roo: the directory to run it in"),
    ),
    _tool(
        "read_file", ActionKind.READ_FILE, "Read a file.",
        req("path", text(), "the file to read"),
        _LINE,
        opt("end_line", text(), "Roo: the last line to read"),
    ),
    _tool(
        "list_files", ActionKind.OTHER, "List a directory.",
        req("path", text(), "the directory"),
        opt("recursive", one_of("true", "false"), "whether to list subdirectories"),
    ),
    _tool(
        "search_files", ActionKind.OTHER, "Search files with a regular expression.",
        req("path", text(), "the directory to search"),
        req("regex", text(), "the regular expression"),
        opt("file_pattern", text(), "a glob that filters the files"),
    ),
    _tool(
        "list_code_definition_names", ActionKind.OTHER, "List the definitions in a directory.",
        req("path", text(), "the directory"),
    ),
    _tool(
        "codebase_search", ActionKind.OTHER, "Roo: semantic search of the codebase.",
        req("query", text(), "what to look for"),
        opt("path", text(), "where to look"),
    ),
    _tool(
        "attempt_completion", ActionKind.OTHER, "Present the result of the task.",
        req("result", text(), "the result"),
        opt("command", text(), "a command that shows the result (never run here)"),
    ),
    _tool(
        "ask_followup_question", ActionKind.OTHER, "Ask the user a question.",
        req("question", text(), "the question"),
        opt("options", text(), "Cline: a JSON array of answers to choose from"),
        opt("follow_up", text(), "Roo: <suggest> answers to choose from"),
    ),
    _tool(
        "plan_mode_respond", ActionKind.OTHER, "Cline: answer in plan mode.",
        req("response", text(), "the answer"),
        opt("options", text(), "a JSON array of answers to choose from"),
        opt("needs_more_exploration", one_of("true", "false"), "whether to explore further"),
    ),
    _tool(
        "new_task", ActionKind.OTHER, "Start a new task.",
        opt("context", text(), "Cline: what the new task needs to know"),
        opt("mode", text(), "Roo: the mode of the new task"),
        opt("message", text(), "Roo: the new task's instructions"),
        opt("todos", text(), "Roo: the new task's checklist"),
    ),
    _tool(
        "switch_mode", ActionKind.OTHER, "Roo: switch to another mode.",
        req("mode_slug", text(), "the mode"),
        opt("reason", text(), "why"),
    ),
    _tool(
        "update_todo_list", ActionKind.OTHER, "Roo: replace the task's checklist.",
        req("todos", text(), "the checklist, one `[ ]` / `[x]` item per line"),
    ),
    _tool(
        "fetch_instructions", ActionKind.OTHER, "Roo: fetch instructions for a task.",
        req("task", text(), "which instructions"),
    ),
    _tool(
        "browser_action", ActionKind.OTHER, "Drive a browser (never run here).",
        req("action", one_of("launch", "click", "hover", "type", "scroll_down", "scroll_up", "resize", "close"), "what to do"),
        opt("url", text(), "the page to launch"),
        opt("coordinate", text(), "x,y for click and hover"),
        opt("size", text(), "w,h for resize"),
        opt("text", text(), "what to type"),
    ),
    _tool(
        "use_mcp_tool", ActionKind.OTHER, "Call a tool of an MCP server (never run here).",
        req("server_name", text(), "the server"),
        req("tool_name", text(), "the tool"),
        opt("arguments", text(), "the tool's JSON arguments"),
    ),
    _tool(
        "access_mcp_resource", ActionKind.OTHER, "Read a resource of an MCP server.",
        req("server_name", text(), "the server"),
        req("uri", text(), "the resource"),
    ),
    _tool(
        "web_fetch", ActionKind.OTHER, "Cline: fetch a web page.",
        req("url", text(), "the page"),
    ),
)

#: How each agent ends a file its ``write_to_file`` writes (a Roo or Kilo call carries
#: ``line_count``, Cline's never does): Cline's diff editor ends it with one line break; Roo's
#: and Kilo's ``DiffViewProvider`` only when the file it replaces ended with one.
CLINE_WRITE = EditRules("Cline's write_to_file", final_eol="always")
ROO_WRITE = EditRules("Roo Code's write_to_file", final_eol="as-file")

_STYLES: dict[str, MarkerStyle] = {"replace_in_file": CLINE, "apply_diff": ROO}

#: The same tools' semantics as the tool registry states them for their JSON calls (Cline's
#: ``replace_in_file`` seeks its blocks in the original file; Roo's ``apply_diff`` in sequence).
_RULES = {"replace_in_file": CLINE_REPLACE, "apply_diff": ROO_DIFF}


class Cline(TagDialect):
    name = "cline"
    description = "Cline's and Roo Code's XML tools: <write_to_file>, <replace_in_file>, <apply_diff>, <execute_command>, ..."
    order = 70
    specs = SPECS
    children = True
    long_children = frozenset({"content", "diff", "result", "follow_up", "context", "message", "todos", "response", "arguments"})
    stripped_children = frozenset(
        {"path", "command", "regex", "file_pattern", "recursive", "requires_approval", "line", "mode",
         "mode_slug", "start_line", "end_line", "use_regex", "ignore_case", "url", "server_name",
         "tool_name", "uri", "action", "coordinate", "size", "query", "question", "reason", "task",
         "cwd", "line_count", "needs_more_exploration"}
    )

    fence_infos = frozenset({"xml", "tool_code"})
    fence_glued_tags = frozenset(SPECS)  # Kilo: ```<update_todo_list> closes a fence
    fence_body_needs = re.compile(
        r"<(?:apply_diff|write_to_file|replace_in_file|insert_content|search_and_replace)>|^---[ \t]*\r?\n\r?\n\*\*",
        re.MULTILINE,
    )

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        construct = args_call(self, ctx, tag) if tag.name in _ARGS_TOOLS else None
        if construct is not None:  # the calls of <args>: answered together (one result line)
            _answer(ctx, construct)
            return construct
        construct = super().parse_tag(ctx, tag)
        if len(construct.actions) == 1:
            _answer(ctx, construct)
        return construct

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """A fence whose body is exactly one call (gemini-2.5-pro wraps Roo's calls in
        ```` ```xml ```` / ```` ```tool_code ````) is a call when the next result line answers
        it (Roo ran it); else it is an example and holds no action."""
        text = ctx.text
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        turn = _TURN.search(text, fence.body_start, close[0] if close else len(text))
        if turn is not None:
            # An export's turn ends a fence its text never closed (Roo pastes the user's rules,
            # unclosed ```xml and all): the next turn is read, not swallowed.
            return Construct(Span(fence.start, turn.start()), lookahead=turn.end())
        if close is None:
            return None
        m = _FENCED_CALL.match(text, fence.body_start, close[0])
        if m is None or m.group("name") not in self.tag_names:
            return None
        at, name = m.start("tag"), m.group("name")
        inner = self.parse_element(ctx, TagOpen(at, name, Span(at + 1, at + 1 + len(name)), name))
        if len(inner.actions) != 1 or text[inner.end : close[0]].strip():
            return None
        span = Span(fence.start, close[1])
        construct = Construct(span, lookahead=max(inner.lookahead, close[1]), watch=inner.watch)
        found = _result_after(ctx, close[1])
        if found is None:
            construct.watch = (*construct.watch, "] Result:")
            return construct
        construct.lookahead = max(construct.lookahead, line_end(text, found.end()) + 1)
        if _answers(found, inner.actions[0]):
            construct.actions, construct.diagnostics = inner.actions, inner.diagnostics
            _answer(ctx, construct)
        return construct

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        if action.type == "write_to_file" and "content" in action.fields:
            _unfence(ctx.text, action.fields["content"])
            _trim_content(ctx.text, action.fields["content"], roo="line_count" in action.fields)
        style = _STYLES.get(action.type)
        diff = action.fields.get("diff")
        if style is None or diff is None:
            return
        found = parse_blocks(ctx.text, diff.span.start, diff.span.end, style)
        diagnostics.extend(found.diagnostics)
        action.edits = [Edit(b.search, b.replace, b.start_line) for b in found.blocks]
        if not found.blocks and not found.diagnostics and diff.value.strip():
            diagnostics.append(
                Diagnostic(
                    "bad-marker",
                    f"this diff holds no `{style.search_marker()}` / `=======` / "
                    f"`{style.replace_marker()}` block; the agent changes nothing",
                    diff.key_span or diff.span,
                )
            )

    def edit_rules(self, action: Action) -> EditRules:
        if action.type == "write_to_file":
            return ROO_WRITE if "line_count" in action.fields else CLINE_WRITE
        return _RULES.get(action.type, self.rules)

    def file_view(self, action: Action) -> FileView | None:
        path = action.fields.get("path")
        if action.type == "insert_content" and path is not None:
            content, line = action.fields.get("content"), action.fields.get("line")
            if content is None or line is None or not str(line.value).strip().isdigit():
                return None
            empty = Field("search", "", Span(content.span.start, content.span.start))
            return FileView("modify", path, edits=(FileEdit(empty, content, int(str(line.value).strip())),))
        return super().file_view(action)


def args_call(dialect: TagDialect, ctx: ScanContext, tag: TagOpen) -> Construct | None:
    """Roo's multi-file form (Kilo writes it): ``<apply_diff><args><file><path>..</path>
    <diff><content>..</content><start_line>N</start_line></diff>...</file>...</args>``, read
    as Roo's multiApplyDiffTool reads it: one modify per ``<diff>`` (its ``start_line``
    the hint for its blocks), applied in order; ``read_file`` likewise, one read per file.
    None: not this form (the ordinary reading applies). ``xml-tags``, which reads ``read_file``
    by default, asks it too."""
    text = ctx.text
    start = parse_start_tag(ctx, tag.start, tag.name_span.end)
    if not start.closed or start.self_closing:
        return None
    args = _ARGS_OPEN.match(text, start.end)
    if args is None:
        return None
    close = find_close(ctx, tag.name, start.end)
    if close is None:
        return None
    inner_end = text.rfind("</args>", args.end(), close.start)
    if inner_end < 0 or text[inner_end + len("</args>") : close.start].strip():
        return None
    actions: list[Action] = []
    diagnostics: list[Diagnostic] = []
    for file in _FILE.finditer(text, args.end(), inner_end):
        path = _element(text, "path", file.start(1), file.end(1), strip=True)
        if path is None:
            return None
        if tag.name == "read_file":
            span = Span(file.start(), file.end())
            actions.append(Action(dialect.name, "read_file", ActionKind.READ_FILE, span, tag.name_span,
                                  {"path": path}))
            continue
        for diff in _DIFF.finditer(text, file.start(1), file.end(1)):
            content = _content(text, diff.start(1), diff.end(1))
            if content is None:
                # Roo reads a diff's blocks from its <content> only, and its XML parser refuses
                # the call when the content (or its CDATA) is never closed: no edit (its result
                # says "Failed to parse apply_diff XML").
                how = "never closes its <content>" if "<content>" in diff.group(1) else "holds no <content>"
                raw = Field("diff", diff.group(1), Span(diff.start(1), diff.end(1)),
                            Span(diff.start() + 1, diff.start() + 5), SourceMap.verbatim(diff.start(1), diff.end(1)))
                actions.append(Action(dialect.name, "apply_diff", ActionKind.MODIFY_FILE,
                                      Span(diff.start(), diff.end()), tag.name_span, {"path": path, "diff": raw}))
                diagnostics.append(Diagnostic(
                    "bad-argument", f"this <diff> {how}: Roo's and Kilo's apply_diff read the "
                    "SEARCH/REPLACE blocks only from a whole <content>; it changes nothing",
                    raw.key_span or raw.span))
                continue
            fields = {"path": path, "diff": content}
            line = _element(text, "start_line", content.span.end, diff.end(1), strip=True)
            if line is not None:
                fields["start_line"] = line
            action = Action(dialect.name, "apply_diff", ActionKind.MODIFY_FILE,
                            Span(diff.start(), diff.end()), tag.name_span, fields)
            dialect.finish(ctx, action, diagnostics)
            hint = str(line.value).strip() if line is not None else ""
            if hint.isdigit():  # the diff's start_line is every block's hint (Roo's _paramStartLine)
                action.edits = [Edit(e.search, e.replace, int(hint)) for e in action.edits]
            actions.append(action)
    if not actions:
        return None
    group = Span(tag.start, close.end)
    for a in actions:
        a.group = group
    return Construct(group, actions, diagnostics, close.lookahead)


#: The tools whose parameters Roo's multi-file form puts in ``<args>``.
_ARGS_TOOLS = frozenset({"apply_diff", "read_file"})
_ARGS_OPEN = re.compile(r"\s*<args>")
_FILE = re.compile(r"<file>(.*?)</file>", re.DOTALL)
_DIFF = re.compile(r"<diff>(.*?)</diff>", re.DOTALL)
_CDATA_OPEN, _CDATA_CLOSE = "<![CDATA[", "]]>"


def _element(text: str, name: str, start: int, end: int, *, strip: bool) -> Field | None:
    """The first ``<name>value</name>`` in ``text[start:end]`` as a field (its value trimmed,
    as Roo's XML parser trims values, when ``strip``)."""
    m = re.compile(rf"<{name}>(.*?)</{name}>", re.DOTALL).search(text, start, end)
    if m is None:
        return None
    vs, ve = m.start(1), m.end(1)
    if strip:
        while vs < ve and text[vs].isspace():
            vs += 1
        while ve > vs and text[ve - 1].isspace():
            ve -= 1
    return Field(name, text[vs:ve], Span(vs, ve), Span(m.start() + 1, m.start() + 1 + len(name)),
                 SourceMap.verbatim(vs, ve))


def _content(text: str, start: int, end: int) -> Field | None:
    """A ``<diff>``'s ``<content>``: the text inside a CDATA section when it is one (a
    ``</content>`` inside the CDATA stays content), else up to the first ``</content>``. It is
    read as a diff field: its SEARCH/REPLACE blocks are what the agent applies."""
    m = re.compile(r"<content>").search(text, start, end)
    if m is None:
        return None
    vs = m.end()
    lead = vs
    while lead < end and text[lead] in " \t\r\n":
        lead += 1
    if text.startswith(_CDATA_OPEN, lead, end):
        vs = lead + len(_CDATA_OPEN)
        ve = text.find(_CDATA_CLOSE, vs, end)
        if ve < 0 or not re.compile(r"\s*</content>").match(text, ve + len(_CDATA_CLOSE)):
            return None
    else:
        ve = text.find("</content>", vs, end)
        if ve < 0:
            return None
    if text.startswith("\n", vs, ve):
        vs += 1
    elif text.startswith("\r\n", vs, ve):
        vs += 2
    return Field("diff", text[vs:ve], Span(vs, ve), Span(m.start() + 1, m.start() + 8),
                 SourceMap.verbatim(vs, ve))


#: A tool's result as Roo's and Kilo's "Export task" markdown writes it, at a line start in the
#: next ``**User:**`` turn: ``[apply_diff for 'a.py'] Result:`` (read_file adds a sentence).
_RESULT = re.compile(r"\[(\w+)(?: for '([^'\r\n]*)'[^\]\r\n]*)?\] Result:[ \t]*\r?\n?")

#: The boundary between two turns of Roo's and Kilo's "Export task" markdown.
_TURN = re.compile(r"(?:(?<=\n)|(?<=\r))---[ \t]*\r?\n\r?\n\*\*(?:User|Assistant):\*\*")
#: A fence body that is one call: its opening tag at the start (blanks before it).
_FENCED_CALL = re.compile(r"\s*(?P<tag><(?P<name>[a-z_]+)>)")


def _result_after(ctx: ScanContext, pos: int) -> re.Match[str] | None:
    """The first result line after ``pos`` (the results of a text are found once per scan)."""
    found = ctx.cache.get("cline-results")
    if found is None:
        text = ctx.text  # a literal first character lets `re` skip ahead; line starts checked here
        matches = [m for m in _RESULT.finditer(text) if m.start() == 0 or text[m.start() - 1] in "\r\n"]
        found = ctx.cache["cline-results"] = ([m.start() for m in matches], matches)
    starts, matches = found
    k = bisect.bisect_left(starts, pos)
    return matches[k] if k < len(starts) else None


def _answers(m: re.Match[str], action: Action) -> bool:
    """Does the result line ``m`` name the call's tool (and its path, when both say one)?"""
    path = action.text("path")
    return m.group(1) == action.type and (m.group(2) is None or path is None or m.group(2) == path)


def _answer(ctx: ScanContext, construct: Construct) -> None:
    """The outcome of the construct's one call: the first result line after it answers it when
    it names the same tool (and path); a refusal (the strings the JSON side knows) makes the
    call failed: shown, never applied. What was read is the construct's lookahead."""
    text = ctx.text
    m = _result_after(ctx, construct.end)
    if m is None:
        construct.watch = (*construct.watch, "] Result:")
        return
    construct.lookahead = max(construct.lookahead, line_end(text, m.end()) + 1)
    if not all(_answers(m, a) for a in construct.actions):
        return  # (the diffs of a multi-file call are answered together only when of one file)
    body = m.end()
    while body < len(text) and text[body] in " \t\r\n":
        body += 1
    if text.startswith(_CLINE_FAILURES, body):
        message = first_line(text[body : body + 400])
        for k, a in enumerate(construct.actions):
            construct.actions[k], note = failed(a, message, Span(m.start(), m.end()))
            construct.diagnostics.append(note)


def _trim_content(text: str, f: Field, *, roo: bool) -> None:
    """The content as the agent's parser gives it: Roo's and Kilo's drop one line break before
    ``</content>`` (the one after ``<content>`` is dropped by the reading); Cline's trims
    blanks and line breaks at both ends."""
    start, end = f.span.start, f.span.end
    if roo:
        if text.startswith("\n", end - 1, end) and end > start:
            end -= 1
            if text.startswith("\r", end - 1, end) and end > start:
                end -= 1  # a CRLF transcript: the line break is the pair
    else:
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
    _narrow(text, f, start, end)


def _narrow(text: str, f: Field, start: int, end: int) -> None:
    if (start, end) != (f.span.start, f.span.end):
        f.span = Span(start, end)
        f.value = text[start:end]
        f.source_map = SourceMap.verbatim(start, end)


def _unfence(text: str, f: Field) -> None:
    """Cline drops a Markdown fence line that opens or closes written content (weaker models
    wrap files in ```` ```python ````): the same here, the span following."""
    start, end = f.span.start, f.span.end
    if text.startswith("```", start, end):
        nl = text.find("\n", start, end)
        start = end if nl < 0 else nl + 1
    tail = end
    while tail > start and text[tail - 1] in " \t\r\n":
        tail -= 1
    if tail - start >= 3 and text.endswith("```", start, tail):
        line = max(text.rfind("\n", start, tail - 3) + 1, start)
        end = line
    _narrow(text, f, start, end)


DIALECT = Cline()
