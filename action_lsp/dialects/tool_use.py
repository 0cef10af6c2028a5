"""Tool calls as actions: shared by the session dialects (``claude-code``, ``tool-calls``).

A tool call is a name and an input object: a JSON object in the document (Claude Code's and
Anthropic's ``tool_use.input``), or a JSON *string* holding one (OpenAI's
``function.arguments``, Codex's ``function_call.arguments``). Either way every field keeps the
exact document range of its value: the input of an ``arguments`` string is parsed from the
decoded string, and each string's map is composed with the ``arguments`` string's own map
(:meth:`SourceMap.compose`), so a syntax error in code written through two levels of JSON
escapes still lands on its characters.

The common edit tools are recognised by name and input shape and mapped to canonical fields
(``path``, ``content``, ``search`` / ``replace`` edits, ``command``); any other tool is an
action of kind ``other`` named after the tool. Nothing is ever run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import model
from ..jsonlazy import strict_tree
from ..jsonnested import compose
from ..jsonscan import JMember, JNode, JResult, parse_json, trailing_data_error
from ..model import Action, ActionKind, Diagnostic, Edit, EditRules, Field, SourceMap, Span
from ..paths import under_root
from ..schema import ActionSpec, opt, req, text

__all__ = [
    "Call", "Input", "call_action", "decode_arguments", "failed", "map_field", "parse_arguments", "relative_path",
    "tool_rules", "tool_specs",
]


@dataclass(slots=True)
class Input:
    """A tool call's input object with the map from its offsets to document offsets.

    ``node`` was parsed either from the document (``outer`` None: its spans are document
    spans) or from a decoded string whose indices ``outer`` maps to the document.
    """

    node: JNode
    outer: SourceMap | None = None
    #: The members by key, the last of each (as :meth:`JNode.get` finds it), made when first asked.
    _by_key: dict[str, JMember] | None = dataclasses.field(default=None, repr=False, compare=False)
    #: What :meth:`member` found for a key, kept: a call's reader asks for most keys twice.
    _found: dict[str, tuple[str, JNode, Span]] | None = dataclasses.field(default=None, repr=False, compare=False)

    def span(self, s: Span) -> Span:
        return s if self.outer is None else self.outer.span(s.start, s.end)

    def member(self, *names: str) -> tuple[str, JNode, Span] | None:
        """The first member present among ``names``: (key, value node, key span in the doc)."""
        by_key = self._by_key
        found = self._found
        if by_key is None or found is None:
            by_key = self._by_key = {m.key: m for m in self.node.members or ()}
            found = self._found = {}
        for name in names:
            m = by_key.get(name)
            if m is not None:
                hit = found.get(name)
                if hit is None:
                    ks = m.key_span
                    if ks.end - ks.start == len(m.key) + 2:
                        ks = Span(ks.start + 1, ks.end - 1)
                    hit = found[name] = (name, m.value, ks if self.outer is None else self.outer.span(ks.start, ks.end))
                return hit
        return None

    def field(self, canonical: str, *names: str) -> Field | None:
        found = self.member(*names)
        if found is None:
            return None
        _, node, key_span = found
        return self.as_field(canonical, node, key_span)

    def as_field(self, name: str, node: JNode, key_span: Span | None) -> Field:
        smap = node.source_map if node.kind == "string" else None
        if smap is not None and self.outer is not None:
            smap = compose(self.outer, smap)
        span = Span(smap.base, smap.source_end) if smap is not None else self.span(node.span)
        return Field(name, node.value, span, key_span, smap)

    def rest(self, used: set[str]) -> dict[str, Field]:
        """The members not mapped to canonical fields, under their own names."""
        out: dict[str, Field] = {}
        for m in self.node.members or ():
            if m.key in used or m.key in out:
                continue
            member = self.member(m.key)
            assert member is not None
            out[m.key] = self.as_field(m.key, member[1], member[2])
        return out


_kept_parse: tuple[str, JResult] | None = None  # see parse_arguments


def parse_arguments(value: str, keep: bool = False) -> JResult:
    """:func:`parse_json` of a decoded ``arguments`` string. ``keep``: the call's input is read
    from the same string next (Cline's UI log reads a message's tool JSON for the tool's name,
    then for its input), so the parse is kept for that one read instead of parsing it twice."""
    global _kept_parse
    kept, _kept_parse = _kept_parse, None  # (kept for the next read only, whatever it reads)
    if kept is not None and kept[0] is value:
        result = kept[1]
    else:
        made = strict_tree(value) if model.LAZY else None  # (the eager parse's nodes, made as read)
        result = JResult(made[0], [], [], made[1]) if made is not None else parse_json(value, 0, len(value))
    if keep:
        _kept_parse = (value, result)
    return result


def decode_arguments(node: JNode, what: str) -> tuple[Input | None, list[Diagnostic]]:
    """Parse the JSON held in the string ``node`` (an ``arguments`` string): its input and
    ``bad-json`` diagnostics at the document characters of the error."""
    smap = node.source_map
    assert smap is not None
    value: str = node.value
    result = parse_arguments(value)
    diagnostics: list[Diagnostic] = []
    errors = list(result.errors)
    if result.ok and (extra := trailing_data_error(value, result.end)) is not None:
        errors.append(extra)
    for e in errors[:1]:
        end = e.end if e.end > e.offset else min(len(value), e.offset + 1)
        diagnostics.append(
            Diagnostic(
                "bad-json",
                f"bad JSON in the {what} arguments string: {e.message}",
                smap.span(e.offset, max(end, e.offset)) if end > e.offset else Span(smap.to_source(e.offset), smap.to_source(e.offset) + 1),
            )
        )
    if result.node is None or result.node.kind != "object":
        if result.node is not None and not errors:
            diagnostics.append(
                Diagnostic("invalid-value", f"the {what} arguments must be a JSON object", node.span)
            )
        return None, diagnostics
    return Input(result.node, smap), diagnostics


@dataclass(slots=True)
class Call:
    """One tool call as written: name, input, where it stands and how to label it."""

    dialect: str
    name: str
    name_span: Span
    span: Span
    input: Input | None
    group: Span
    label: str
    relativize: Callable[[Field], Field] | None = None  # maps absolute paths into the workspace
    raw: Field | None = None  # an input given as a bare string (Codex's custom_tool_call)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The actions after the first of a call that edits several files (Copilot's
    #: multi_replace_string_in_file), made by :func:`call_action`.
    more: list[Action] = field(default_factory=list)


# The tool registry: tool names, lower-cased, by what they do, and the argument keys each
# family of agents writes. One table for every shape a call stands in (an Anthropic
# ``tool_use``, an OpenAI ``function``, a Gemini ``functionCall``, a Cline UI message, ...):
#   Claude Code   Write Edit MultiEdit NotebookEdit Bash Read ...        (file_path, old_string, new_string)
#   Cline / Roo / Kilo  write_to_file replace_in_file apply_diff insert_content search_and_replace
#                 new_rule execute_command read_file ...                (path | absolutePath, content, diff)
#   Anthropic's text editor  str_replace_based_edit_tool str_replace_editor (command, path, old_str, ...)
#   Gemini CLI    write_file replace run_shell_command read_file          (file_path | absolute_path, ...)
#   Copilot       create_file insert_edit_into_file replace_string_in_file
#                 multi_replace_string_in_file apply_patch run_in_terminal (filePath, oldString, ...)
#   Codex         apply_patch shell local_shell exec_command              (input | patch, command)
#   opencode      write edit patch bash read                              (filePath, oldString, patchText)
#   OpenHands, SWE-agent  str_replace_editor, execute_bash
_WRITE = {"write", "write_file", "create_file", "writefile", "createfile", "write_to_file", "new_rule",
          "newfilecreated"}
_EDIT = {"edit", "edit_file", "str_replace", "replace_in_file", "multiedit", "multi_edit",
         "replace", "replace_string_in_file", "multi_replace_string_in_file", "single_find_and_replace",
         "apply_diff", "search_and_replace", "editedexistingfile"}
#: Edit tools whose ``diff`` argument holds SEARCH/REPLACE blocks (Cline's ``------- SEARCH`` /
#: ``+++++++ REPLACE``, Roo's ``<<<<<<< SEARCH`` / ``:start_line:`` / ``>>>>>>> REPLACE``).
_DIFF_TOOLS = {"replace_in_file": "cline", "apply_diff": "roo", "editedexistingfile": "cline"}
_EDITOR = {"str_replace_based_edit_tool", "str_replace_editor", "text_editor"}
_SHELL = {"bash", "shell", "execute_command", "run_command", "exec_command", "run_terminal_cmd",
          "shell_command", "local_shell", "container.exec", "run_shell_command", "run_in_terminal",
          "execute_bash"}
_READ = {"read", "read_file", "view", "view_file", "readfile", "cat"}
_PATCH = {"apply_patch", "applypatch", "patch"}
#: Tools that write a lazy snippet another model merges into the file (Copilot's
#: insert_edit_into_file): shown with their path, never applied.
_SNIPPET = {"insert_edit_into_file"}
_PATH_KEYS = ("file_path", "path", "filePath", "filepath", "file", "target_file", "filename", "absolutePath",
              "absolute_path")
_CONTENT_KEYS = ("content", "file_text", "contents", "text", "new_content")
_SEARCH_KEYS = ("old_string", "old_str", "oldText", "old_text", "oldString", "search")
_REPLACE_KEYS = ("new_string", "new_str", "newText", "new_text", "newString", "replace")

# What each edit tool means where agents differ (docs/edit-engine.md, "Each agent's meaning").
_NO_EMPTY = "give the text to replace"
#: Claude Code's Edit / MultiEdit: an empty old_string creates a missing file and writes one
#: that is empty or blank; on a file with content it is refused ("Cannot create new file - file
#: already exists"). MultiEdit applies its edits in sequence and refuses an old_string found in
#: a previous edit's new_string.
CLAUDE_EDIT = EditRules("Claude Code's Edit", on_missing="create", on_empty="write", empty_hint=_NO_EMPTY)
CLAUDE_MULTIEDIT = EditRules("Claude Code's MultiEdit", on_missing="create", on_empty="write",
                             rewrites=True, search_in_replacement=False, empty_hint=_NO_EMPTY)
#: Anthropic's text editor tool, OpenHands' and SWE-agent's ``str_replace_editor``: str_replace
#: needs an existing file and an old_str that occurs exactly once; an empty one never does.
STR_REPLACE = EditRules("the str_replace command", empty_hint="use the create command to write a file")
#: GitHub Copilot Chat's replace_string_in_file (``applyEdit``): an empty oldString creates a
#: missing file and writes an empty or blank one, and is refused on a file with content;
#: multi_replace_string_in_file prepares every replacement on the original file, then merges.
COPILOT_REPLACE = EditRules("Copilot's replace_string_in_file", on_missing="create", on_empty="write",
                            empty_hint=_NO_EMPTY)
COPILOT_MULTI = EditRules("Copilot's multi_replace_string_in_file", on_missing="create", on_empty="write",
                          in_original=True, empty_hint=_NO_EMPTY)
#: Gemini CLI's replace (edit.ts): an empty old_string creates a missing file; on any existing
#: file, empty or not, it is refused ("Attempted to create a file that already exists").
GEMINI_REPLACE = EditRules("Gemini CLI's replace", on_missing="create", empty_hint=_NO_EMPTY)
#: Continue's single_find_and_replace (findSearchMatch.ts): an empty (or blank) old_string
#: matches at the start of the file, so it writes an empty file; on a file with content it
#: inserts before the first line, which no rule here can express: refused, never appended.
CONTINUE_REPLACE = EditRules("Continue's single_find_and_replace", on_empty="write", empty_hint=_NO_EMPTY)
#: Any other edit tool (an MCP server's edit_file, a bare str_replace, ...): its meaning of an
#: empty search text is not known; it is refused, and its edits apply in sequence.
OTHER_EDIT = EditRules("this tool", empty_hint=_NO_EMPTY)
#: Cline's replace_in_file (``constructNewFileContent``): an empty SEARCH writes an empty file and
#: is refused on one with content; the blocks are sought in the original file. Its UI log's
#: ``editedExistingFile`` records the same diff.
CLINE_REPLACE = EditRules("Cline's replace_in_file", on_empty="write", in_original=True,
                          empty_hint="use write_to_file to write a whole file")
#: Roo Code's apply_diff refuses an empty SEARCH and applies its blocks in sequence.
ROO_DIFF = EditRules("Roo Code's apply_diff", empty_hint="use write_to_file or insert_content")
#: Roo Code's search_and_replace replaces every occurrence of its (literal) search text.
ROO_SEARCH = EditRules("Roo Code's search_and_replace", empty_hint=_NO_EMPTY)
_TOOL_RULES = {
    "replace_in_file": CLINE_REPLACE,
    "editedexistingfile": CLINE_REPLACE,
    "apply_diff": ROO_DIFF,
    "search_and_replace": ROO_SEARCH,
    "edit": CLAUDE_EDIT,
    "multiedit": CLAUDE_MULTIEDIT,
    "replace_string_in_file": COPILOT_REPLACE,
    "multi_replace_string_in_file": COPILOT_MULTI,
    "replace": GEMINI_REPLACE,
    "single_find_and_replace": CONTINUE_REPLACE,
}


@dataclass(frozen=True, slots=True)
class DeclaredTool:
    """A tool a project declares in its configuration (``[tools.NAME]`` in ``.action-lsp.toml``,
    see docs/declared-dialects.md): its kind and the argument keys that hold each role. Its
    edits have no known meaning of an empty search text (refused) and apply in sequence."""

    name: str
    kind: ActionKind
    path: tuple[str, ...] = ()
    content: tuple[str, ...] = ()
    search: tuple[str, ...] = ()
    replace: tuple[str, ...] = ()
    command: tuple[str, ...] = ()


_DECLARED_TOOLS: dict[str, DeclaredTool] = {}


def set_declared_tools(tools: tuple[DeclaredTool, ...] | list[DeclaredTool]) -> None:
    """Install the tools a project's configuration declares (replacing any before): they join
    the registry, ahead of the built-in entries of the same name."""
    global _DECLARED_TOOLS
    _DECLARED_TOOLS = {t.name.lower(): t for t in tools}


def declared_tools() -> tuple[DeclaredTool, ...]:
    return tuple(_DECLARED_TOOLS.values())


def tool_rules(action: Action) -> EditRules:
    """The rules of the edit tool ``action`` calls (its name, and its ``command``)."""
    low = action.type.lower()
    if low in _EDITOR:
        return STR_REPLACE
    return _TOOL_RULES.get(low, OTHER_EDIT)


def tool_specs(*names: str) -> dict[str, ActionSpec]:
    """Specs for the named tools (so their required fields are checked); any other tool name is
    valid too (the session dialects set ``any_type``)."""
    out: dict[str, ActionSpec] = {}
    for n in names:
        low = n.lower()
        if low in _WRITE:
            out[n] = ActionSpec(n, ActionKind.WRITE_FILE, (req("path", text(), "the file written"),
                                req("content", text(), "its whole new content")),
                                "Write a whole file (created or replaced).", open_fields=True)
        elif low in _EDIT or low == "insert_content":
            out[n] = ActionSpec(n, ActionKind.MODIFY_FILE, (req("path", text(), "the file changed"),),
                                "Replace text in a file (old -> new).", open_fields=True)
        elif low in _SHELL:
            out[n] = ActionSpec(n, ActionKind.COMMAND, (opt("command"),), "A shell command (never run).",
                                open_fields=True)
        elif low in _READ:
            out[n] = ActionSpec(n, ActionKind.READ_FILE, (opt("path", text()),), "Read a file.",
                                open_fields=True)
        else:
            out[n] = ActionSpec(n, ActionKind.OTHER, (), f"The `{n}` tool.", open_fields=True)
    return out


def relative_path(f: Field, cwd: str | None) -> Field:
    """``f`` with an absolute path under ``cwd`` made relative to it (the value and its map
    cover the relative part only; Windows drive paths too, see :func:`~action_lsp.paths.
    under_root`); any other path as written."""
    path = f.value
    if not cwd or not isinstance(path, str):
        return f
    cut = under_root(path, cwd)
    if cut is None:
        return f
    rel = path[cut:]
    smap = f.source_map.slice(cut) if f.source_map is not None else None
    span = Span(smap.base, smap.source_end) if smap is not None else f.span
    return Field(f.name, rel, span, f.key_span, smap)


def _text_value(node: JNode | None) -> bool:
    return node is not None and node.kind == "string"


def call_action(call: Call) -> Action:
    """The action a tool call stands for."""
    low = call.name.lower()
    inp = call.input
    fields: dict[str, Field] = {}
    kind = ActionKind.OTHER
    edits: list[Edit] = []
    used: set[str] = set()

    def take(canonical: str, *names: str) -> Field | None:
        if inp is None:
            return None
        found = inp.member(*names)
        if found is None:
            return None
        used.add(found[0])
        f = inp.as_field(canonical, found[1], found[2])
        fields[canonical] = f
        return f

    def path(*names: str) -> None:
        f = take("path", *names)
        if f is not None and call.relativize is not None:
            fields["path"] = call.relativize(f)

    command = ""
    if inp is not None and low in _EDITOR:
        c = inp.member("command")
        command = c[1].value if c is not None and isinstance(c[1].value, str) else ""
        if c is not None:
            used.add("command")
            fields["command"] = inp.as_field("command", c[1], c[2])
    args = _Arguments(call, take)
    others: list[tuple[Field, list[Edit]]] = []  # the files after the first of a multi-file call
    declared = _DECLARED_TOOLS.get(low)
    if declared is not None:
        kind = declared.kind
        if declared.path:
            path(*declared.path)
        if declared.content:
            args.text("content", declared.content)
        if declared.command:
            args.text("command", declared.command)
        if declared.search and declared.replace:
            s = args.text("search", declared.search)
            r = args.text("replace", declared.replace)
            if s is not None and r is not None and not args.bad:
                edits.append(Edit(s, r))
    elif low in _WRITE or command == "create":
        # The str_replace editors' create refuses an existing file ("Cannot overwrite files
        # using command `create`"); a Write tool creates or replaces.
        kind = ActionKind.CREATE_FILE if command == "create" else ActionKind.WRITE_FILE
        path(*_PATH_KEYS)
        args.text("content", _CONTENT_KEYS)
    elif low in _DIFF_TOOLS and inp is not None and _diff_member(inp, low) is not None:
        kind = ActionKind.MODIFY_FILE
        path(*_PATH_KEYS)
        diff = args.text("diff", (_diff_member(inp, low) or "diff",))
        if low == "editedexistingfile" and diff is not None and not _has_blocks(diff.value):
            kind = ActionKind.WRITE_FILE  # the UI log of a whole file written over an old one
            fields["content"] = Field("content", diff.value, diff.span, diff.key_span, diff.source_map)
        elif diff is not None:
            edits.extend(_diff_edits(call, diff, _DIFF_TOOLS[low], args))
    elif low == "insert_content":
        kind = ActionKind.MODIFY_FILE
        path(*_PATH_KEYS)
        line = args.whole("line", ("line",))
        new = args.text("content", ("content",))
        if line is not None and new is not None:  # before line N; 0 appends (Roo)
            piece = new.value if new.value.endswith(("\n", "\r")) or not new.value else new.value + "\n"
            empty = Field("search", "", Span(new.span.start, new.span.start))
            edits.append(Edit(empty, Field("replace", piece, new.span, new.key_span, new.source_map), line.value))
    elif low in _SNIPPET:
        kind = ActionKind.OTHER
        path(*_PATH_KEYS)
    elif low in _EDIT or command == "str_replace":
        kind = ActionKind.MODIFY_FILE
        path(*_PATH_KEYS)
        listed = "replacements" if low == "multi_replace_string_in_file" else "edits"
        many = inp.member(listed) if inp is not None else None
        if many is not None:
            used.add(listed)
            assert inp is not None
            by_file = _listed_edits(call, inp, many, args)
            if by_file and "path" not in fields:  # Copilot: each replacement names its file
                first, group = by_file[0]
                edits.extend(group)
                fields["path"] = call.relativize(first) if call.relativize is not None else first
                others = by_file[1:]
            elif by_file:
                edits.extend(e for _, group in by_file for e in group)
        else:
            s = args.text("search", _SEARCH_KEYS)
            # str_replace_editor's new_str is optional: none (or null) deletes the old text.
            r = args.text("replace", _REPLACE_KEYS, optional=low in _EDITOR or command == "str_replace")
            if s is not None and r is None and "replace" not in args.bad:
                r = Field("replace", "", Span(s.span.end, s.span.end))
            count = args.count(inp)
            args.flag(inp)
            if low == "search_and_replace" and inp is not None and _truthy(inp, "use_regex"):
                args.problem("search", f"this {call.name} call searches with a regular expression, which "
                             "is not applied here; it is shown, not applied", call.name_span)
            if s is not None and r is not None and not args.bad:
                every = low == "search_and_replace" or (inp is not None and _replace_all(inp))
                edits.append(Edit(s, r, replace_all=every, count=count))
    elif command == "insert":
        kind = ActionKind.MODIFY_FILE
        path(*_PATH_KEYS)
        after = args.whole("line", ("insert_line",))
        new = args.text("content", ("new_str", "text"))
        if after is not None and new is not None:
            at = after.value + 1  # insert_line N: after line N, i.e. before line N + 1
            piece = new.value if new.value.endswith(("\n", "\r")) or not new.value else new.value + "\n"
            empty = Field("search", "", Span(new.span.start, new.span.start))
            edits.append(Edit(empty, Field("replace", piece, new.span, new.key_span, new.source_map), at))
    elif command in ("view",) or low in _READ:
        kind = ActionKind.READ_FILE
        path(*_PATH_KEYS)
    elif low in _SHELL:
        kind = ActionKind.COMMAND
        _command(call, inp, fields, used)
        patch = _shell_patch(inp)
        if patch is not None:  # Codex's shell ["apply_patch", "*** Begin Patch ..."]
            kind = ActionKind.OTHER
            fields["patch"] = patch
    elif low in _PATCH:
        kind = ActionKind.OTHER
        f = call.raw
        if f is None and inp is not None:
            f = take("patch", "input", "patch", "diff", "patchText")
        if f is not None:
            fields["patch"] = Field("patch", f.value, f.span, f.key_span, f.source_map)
    if inp is not None:
        for k, f in inp.rest(used).items():
            fields.setdefault(k, f)
    call.diagnostics.extend(args.problems)
    call.more = [
        Action(call.dialect, call.name, kind, call.span, call.name_span,
               {"path": call.relativize(p) if call.relativize is not None else p},
               group=call.group, group_label=call.label, edits=group)
        for p, group in others
    ]
    return Action(
        call.dialect,
        call.name,
        kind,
        call.span,
        call.name_span,
        fields,
        group=call.group,
        group_label=call.label,
        edits=edits,
    )


_KINDS = {"string": "a string", "number": "a number", "bool": "a boolean", "null": "null",
          "object": "an object", "array": "a list"}


class _Arguments:
    """Reads a tool call's arguments by their types: a missing or mistyped one is a
    ``bad-argument`` error at the argument (or at the tool's name when it is missing), and
    its value is not taken -- the agent's tool rejects such a call; it is never applied."""

    def __init__(self, call: Call, take: Callable[..., Field | None]) -> None:
        self.call = call
        self.take = take
        self.problems: list[Diagnostic] = []
        self.bad: set[str] = set()  # canonical names of the arguments found wrong

    def problem(self, canonical: str, message: str, span: Span) -> None:
        self.bad.add(canonical)
        self.problems.append(Diagnostic("bad-argument", message, span))

    def _member(self, canonical: str, names: tuple[str, ...], optional: bool,
                what: str) -> tuple[str, JNode, Span] | None:
        inp = self.call.input
        if inp is None:
            return None
        found = inp.member(*names)
        if found is None and not optional:
            self.problem(canonical, f"this {self.call.name} call has no `{names[0]}` ({what}); the tool "
                         "rejects it, and it is never applied", self.call.name_span)
        return found

    def text(self, canonical: str, names: tuple[str, ...], *, optional: bool = False) -> Field | None:
        """The string argument among ``names`` (``null`` counts as absent when optional)."""
        found = self._member(canonical, names, optional, "a string")
        if found is None:
            return None
        key, node, _ = found
        if node.kind == "null" and optional:
            self.take(canonical, key)
            return None
        if node.kind != "string":
            self.take(canonical, key)
            self.problem(canonical, f"`{key}` of this {self.call.name} call is {_KINDS.get(node.kind, node.kind)}, "
                         "not a string; the tool rejects the call, and it is never applied",
                         self._span(node))
            return None
        return self.take(canonical, key)

    def whole(self, canonical: str, names: tuple[str, ...]) -> Field | None:
        """The argument among ``names`` that must be a whole number from 0."""
        found = self._member(canonical, names, False, "a line number")
        if found is None:
            return None
        key, node, _ = found
        f = self.take(canonical, key)
        value = node.value
        if node.kind != "number" or not isinstance(value, int) or isinstance(value, bool) or value < 0:
            shown = _KINDS.get(node.kind, node.kind) if node.kind != "number" else f"{node.value!r}"
            self.problem(canonical, f"`{key}` of this {self.call.name} call is {shown}, not a whole number "
                         "from 0; the tool rejects the call, and it is never applied", self._span(node))
            return None
        return f

    def count(self, inp: Input | None) -> int | None:
        """Gemini CLI's ``expected_replacements``: a whole number from 1 (None when absent)."""
        found = inp.member("expected_replacements") if inp is not None else None
        if found is None:
            return None
        node = found[1]
        value = node.value
        if node.kind != "number" or not isinstance(value, int) or isinstance(value, bool) or value < 1:
            self.problem("count", f"`expected_replacements` of this {self.call.name} call is not a whole "
                         "number from 1; the tool rejects the call, and it is never applied", self._span(node))
            return None
        return value

    def flag(self, inp: Input | None) -> None:
        """``replace_all`` must be a boolean when given."""
        found = inp.member("replace_all", "replaceAll") if inp is not None else None
        if found is not None and found[1].kind != "bool":
            node = found[1]
            self.problem("replace_all", f"`{found[0]}` of this {self.call.name} call is "
                         f"{_KINDS.get(node.kind, node.kind)}, not true or false; the tool rejects the call, "
                         "and it is never applied", self._span(node))

    def _span(self, node: JNode) -> Span:
        inp = self.call.input
        return inp.span(node.span) if inp is not None else node.span


def _listed_edits(call: Call, inp: Input, many: tuple[str, JNode, Span],
                  args: _Arguments) -> list[tuple[Field, list[Edit]]]:
    """The edits of a list argument (Claude Code's ``edits``, Copilot's ``replacements``), each
    an object with its old and new text; anything else is a ``bad-argument``. Grouped by the
    file an item names (Copilot's ``filePath``; the call's own path when it names none), in the
    order the files first appear."""
    key, node, _ = many
    out: list[Edit] = []
    paths: list[Field | None] = []
    if node.kind != "array":
        args.problem("edits", f"`{key}` of this {call.name} call is {_KINDS.get(node.kind, node.kind)}, not a "
                     "list of edits; the tool rejects the call, and it is never applied", inp.span(node.span))
        return []
    for k, item in enumerate(node.items or (), 1):
        if item.kind != "object":
            args.problem("edits", f"edit {k} of this {call.name} call is {_KINDS.get(item.kind, item.kind)}, not "
                         "an object; the tool rejects the call, and it is never applied", inp.span(item.span))
            continue
        sub = Input(item, inp.outer)
        got: list[Field] = []
        for canonical, names in (("search", _SEARCH_KEYS), ("replace", _REPLACE_KEYS)):
            found = sub.member(*names)
            if found is None:
                args.problem("edits", f"edit {k} of this {call.name} call has no `{names[0]}`; the tool "
                             "rejects the call, and it is never applied", inp.span(item.span))
            elif found[1].kind != "string":
                args.problem("edits", f"`{found[0]}` of edit {k} of this {call.name} call is "
                             f"{_KINDS.get(found[1].kind, found[1].kind)}, not a string; the tool rejects the "
                             "call, and it is never applied", sub.span(found[1].span))
            else:
                got.append(sub.as_field(canonical, found[1], found[2]))
        if len(got) == 2:
            out.append(Edit(got[0], got[1], replace_all=_replace_all(sub)))
            at = sub.member(*_PATH_KEYS)
            paths.append(sub.as_field("path", at[1], at[2]) if at is not None and at[1].kind == "string" else None)
    if not node.items:
        args.problem("edits", f"`{key}` of this {call.name} call is an empty list; the tool rejects the "
                     "call, and it is never applied", inp.span(node.span))
    if "edits" in args.bad or not out:
        return []
    groups: dict[str | None, tuple[Field, list[Edit]]] = {}
    anchor = Field("path", None, call.name_span)
    for p, e in zip(paths, out, strict=True):
        name = p.value if p is not None else None
        groups.setdefault(name, (p or anchor, []))[1].append(e)
    return list(groups.values())


def _diff_member(inp: Input, low: str) -> str | None:
    """The argument holding a diff tool's SEARCH/REPLACE blocks: ``diff`` (Cline's UI log:
    ``content`` too)."""
    keys = ("diff", "content") if low == "editedexistingfile" else ("diff",)
    found = inp.member(*keys)
    return found[0] if found is not None else None


_BLOCK_MARKER = ("------- SEARCH", "<<<<<<< SEARCH")


def _has_blocks(value: str) -> bool:
    return any(m in value for m in _BLOCK_MARKER)


def _diff_edits(call: Call, diff: Field, style_name: str, args: _Arguments) -> list[Edit]:
    """The SEARCH/REPLACE blocks of a ``diff`` argument, read from its decoded value with
    Cline's or Roo's markers, each field mapped to the document through the argument's map."""
    from .search_replace import CLINE, ROO, parse_blocks

    style = CLINE if style_name == "cline" else ROO
    value = diff.value
    found = parse_blocks(value, 0, len(value), style)
    smap = diff.source_map or SourceMap.verbatim(diff.span.start, diff.span.end)
    for d in found.diagnostics:
        args.problems.append(Diagnostic(d.code, d.message, smap.span(d.span.start, d.span.end), d.severity))
    if not found.blocks and not found.diagnostics and value.strip():
        args.problem("diff", f"the diff of this {call.name} call holds no `{style.search_marker()}` / `=======` / "
                     f"`{style.replace_marker()}` block; the agent changes nothing", diff.key_span or diff.span)
    if found.diagnostics:
        args.bad.add("diff")
        return []
    return [Edit(map_field(b.search, smap), map_field(b.replace, smap), b.start_line) for b in found.blocks]


def map_field(f: Field, outer: SourceMap) -> Field:
    """``f``, read from a decoded value, with its ranges mapped through ``outer`` (the map of
    that value to the document)."""
    inner = f.source_map
    smap = outer.compose(inner) if inner is not None else None
    if smap is not None and inner is not None and f.span.start == inner.base and f.span.end == inner.source_end:
        # (the composed map's ends are the field's range, mapped: `outer.span` of it)
        span = Span(smap.base, max(smap.base, smap.source_end))
    else:
        span = outer.span(f.span.start, f.span.end)
    key = outer.span(f.key_span.start, f.key_span.end) if f.key_span is not None else None
    return Field(f.name, f.value, span, key, smap)


def _truthy(inp: Input, key: str) -> bool:
    found = inp.member(key)
    return found is not None and found[1].value in (True, "true", "True")


def _shell_patch(inp: Input | None) -> Field | None:
    """The patch of a shell call that runs ``apply_patch`` (Codex: ``["apply_patch", patch]``,
    or ``["bash", "-lc", "apply_patch <<'EOF'\n*** Begin Patch ..."]``), else None."""
    found = inp.member("command", "cmd") if inp is not None else None
    if found is None or found[1].kind != "array" or not found[1].items:
        return None
    assert inp is not None
    items = found[1].items
    head = items[0].value
    if head in ("apply_patch", "applypatch") and len(items) == 2 and items[1].kind == "string":
        return inp.as_field("patch", items[1], found[2])
    script = items[-1]
    if len(items) == 3 and script.kind == "string" and script.value.lstrip().startswith(("apply_patch", "applypatch")) \
            and "*** Begin Patch" in script.value:
        return inp.as_field("patch", script, found[2])
    return None


def _replace_all(inp: Input) -> bool:
    """Claude Code's ``"replace_all": true``: every occurrence of the old string is replaced."""
    found = inp.member("replace_all", "replaceAll")
    return found is not None and found[1].value is True


def _command(call: Call, inp: Input | None, fields: dict[str, Field], used: set[str]) -> None:
    """``command`` as one string: a string as is; Codex's ``["bash", "-lc", script]`` as the
    script; any other list joined by spaces (its span the whole list)."""
    if inp is None:
        return
    found = inp.member("command", "cmd", "script")
    if found is None:
        return
    key, node, key_span = found
    used.add(key)
    if node.kind == "string":
        fields["command"] = inp.as_field("command", node, key_span)
        return
    if node.kind == "array" and node.items:
        items = node.items
        if (
            len(items) == 3
            and all(_text_value(i) for i in items)
            and items[1].value in ("-lc", "-c")
        ):
            fields["command"] = inp.as_field("command", items[2], key_span)
            return
        words = [str(i.value) for i in items]
        fields["command"] = Field("command", " ".join(words), inp.span(node.span), key_span)


def first_line(value: Any, limit: int = 120) -> str:
    """A short one-line excerpt of a tool result."""
    if isinstance(value, list):
        parts = [p.get("text", "") for p in value if isinstance(p, dict)]
        value = "\n".join(p for p in parts if isinstance(p, str))
    if not isinstance(value, str):
        return ""
    for tag in ("<tool_use_error>", "</tool_use_error>"):
        value = value.replace(tag, "")
    line = next((x.strip() for x in value.splitlines() if x.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def failed(action: Action, message: str, at: Span | None) -> tuple[Action, Diagnostic]:
    """The action of a call whose result was an error: shown, of kind ``other`` (the edit
    engine never applies it), with a ``tool-error`` hint."""
    action.kind = ActionKind.OTHER
    action.failure = message
    note = f": {message.rstrip('.')}" if message else ""
    diagnostic = Diagnostic(
        "tool-error",
        f"this {action.type} call failed in the session{note}; it is shown, not applied",
        action.name_span,
        related=[(at, "the tool result")] if at is not None else [],
    )
    return action, diagnostic


def map_action(a: Action, outer: SourceMap) -> Action:
    """``a``, found by scanning a decoded value (a message's text inside a JSON string), with
    every range mapped through ``outer`` to the document."""

    def span(s: Span) -> Span:
        return outer.span(s.start, s.end)

    return Action(
        a.dialect, a.type, a.kind, span(a.span), span(a.name_span),
        {k: map_field(f, outer) for k, f in a.fields.items()},
        span(a.group) if a.group else None, a.group_label,
        [Edit(map_field(e.search, outer), map_field(e.replace, outer), e.line, e.replace_all,
              tuple(map_field(f, outer) for f in e.anchors), e.after_previous, e.at_end, e.count)
         for e in a.edits],
        a.partial, a.in_progress, a.failure,
    )


def map_diagnostic(d: Diagnostic, outer: SourceMap) -> Diagnostic:
    """``d`` mapped like :func:`map_action`; its fixes are dropped (they would edit the text
    without its JSON escapes)."""
    return Diagnostic(d.code, d.message, outer.span(d.span.start, d.span.end), d.severity, [],
                      [(outer.span(s.start, s.end), m) for s, m in d.related], d.data)
