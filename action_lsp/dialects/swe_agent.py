"""``swe-agent``: SWE-agent trajectories (``<instance>.traj``, a JSON object).

A trajectory holds ``trajectory[]`` steps ``{"action", "observation", "state", "thought",
"response", "query", ...}``: ``action`` is the command line the agent ran (function-calling
models' tool calls are written there too, their arguments quoted with ``shlex.quote``),
``observation`` what it printed, ``state`` the environment (``open_file``, ``working_dir``):
in 1.x an object, after the action; in 0.x a JSON *string*, recorded *before* the action runs
(an edit right after ``open`` is on the file just opened). Demonstrations hold only ``history[]``
messages, whose assistant messages carry the same ``action`` strings and whose observations end
with ``(Open file: ...)`` / ``(Current directory: ...)`` (1.x: the task names the repository in
``<uploaded_files>``). Only ``trajectory[]`` is read when it
is there (``history`` and each step's ``query`` repeat the same calls).

The action string is split into words as the shell reads it (quotes, backslashes), each word
keeping a :class:`SourceMap` composed with the JSON string's own, so every field's range is
exact through both levels. Recognised tools:

* ``str_replace_editor <command> <path> [--file_text T] [--old_str S] [--new_str S]
  [--insert_line N]`` (``tools/edit_anthropic``): ``create`` (a create: the tool refuses to
  overwrite), ``str_replace``, ``insert``, ``view``, ``undo_edit`` (shown, not applied);
* ``edit <search> <replace> [<replace-all>]`` and ``insert <text> [<line>]``
  (``tools/windowed_edit_replace``) on the file open in the step before; ``create <file>`` (a file
  holding one empty line, as the tool writes it). The tool replaces the first occurrence (or, with ``True``, every one) *in the
  lines it displayed*, which the trajectory does not record: the edit is located in the whole
  file, and several places are a question (``search-ambiguous``), never a guess;
* ``edit N:M`` ... ``end_of_edit`` (SWE-agent 0.x, ``windowed_edit_linting``) replaces lines by
  number without saying what they held. The trajectory shows them: the windows of numbered
  lines SWE-agent prints after ``open``, ``goto``, ``scroll_*``, ``create`` and each edit (and a
  linter's refusal prints the original code). :mod:`.swe_lines` keeps what was shown of each
  file; the edit becomes a modify of the open file when every line it replaces was shown since
  the file last changed by other means (a shell command or another edit tool forgets all) and
  the window printed after it agrees with the result; its search text is those lines with up to
  three known lines around them, so replaying applies it in sequence on the file as the earlier
  edits left it, and never on a file holding other lines. Otherwise it is shown, not applied,
  with a ``line-edit-unchecked`` note saying why;
* ``submit``, ``exit_*``; any other action is a shell command (never run).

Absolute paths under the step's ``working_dir`` are read relative to it. A step whose
observation says the tool refused (``No replacement was performed``, ``Your edit was not
applied``, ``Your proposed edit has introduced new syntax error(s)``, ...) is shown with a
``tool-error`` hint, carries the message as its ``failure`` and is never applied.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..jsonscan import JNode, JResult
from ..model import Action, ActionKind, Diagnostic, Edit, EditRules, Field, Fix, SourceMap, Span
from ..schema import ActionSpec, opt, req, text
from .base import Construct, Dialect, ScanContext
from .json_fields import json_diagnostics
from .swe_lines import ORIGINAL, Known, Replacement, body_lines, check
from .tool_use import failed, first_line, relative_path

# Only the editor tool has a spec: the windowed tools' names (`edit`, `create`, `open`, ...) are
# common words that other dialects' completion and hover must keep (``any_type``: every tool
# name is valid here).
SPECS = {
    "str_replace_editor": ActionSpec(
        "str_replace_editor", ActionKind.MODIFY_FILE, (req("command", text()), opt("path", text())),
        "SWE-agent's file editor: `create`, `str_replace`, `insert`, `view`, `undo_edit`.",
        open_fields=True),
}

#: Observations that say the tool did not change the file (its own messages).
_REFUSALS = (
    "No replacement was performed",
    "Your edit was not applied",
    "Your proposed edit has introduced new syntax error",
    "Your search and replace strings are the same",
    "File already exists at:",
    "The parent directory ",
    "Parameter `",
    "Invalid `",
    "No file opened.",
    "Usage: ",
)
_RETRY = "###SWE-AGENT-RETRY-WITH-OUTPUT###"
_NOT_APPLIED = frozenset({"submit", "undo_edit", "exit_forfeit", "exit_cost", "exit_context", "exit_error",
                          "exit_format", "exit_api"})


# --------------------------------------------------------------------------- shell words


@dataclass(slots=True)
class Word:
    """One shell word of a string: its value and the map from value indices to indices of the
    string (``start``/``end``: where it is written, quotes included)."""

    value: str
    smap: SourceMap
    start: int
    end: int


class _Builder:
    """A word's value and map, built piece by piece."""

    __slots__ = ("breaks", "length", "parts", "s")

    def __init__(self, s: str) -> None:
        self.s = s
        self.parts: list[str] = []
        self.breaks: list[tuple[int, int]] = []
        self.length = 0

    def piece(self, a: int, b: int) -> None:
        """Append ``s[a:b]`` (a break where it does not continue the previous piece)."""
        if b <= a:
            return
        br = self.breaks
        if not br or br[-1][1] + (self.length - br[-1][0]) != a:
            br.append((self.length, a))
        self.parts.append(self.s[a:b])
        self.length += b - a

    def word(self, begin: int, stop: int) -> Word:
        br = self.breaks
        if br:  # the value ends where its last piece ends (before a closing quote)
            base, last = br[0][1], br[-1][1] + (self.length - br[-1][0])
        else:
            base = last = begin
        return Word("".join(self.parts), SourceMap(base, self.length, last, tuple(br[1:])), begin, stop)


def shell_words(s: str, start: int = 0, end: int | None = None) -> list[Word]:
    """The words of ``s[start:end]`` as a POSIX shell splits them: blanks separate, ``'...'``
    is literal, ``"..."`` honours ``\\"``, ``\\\\``, ``\\$``, ``\\``` and a backslash-newline,
    a bare backslash quotes the next character. An unclosed quote runs to the end."""
    n = len(s) if end is None else end
    words: list[Word] = []
    i = start
    while i < n:
        while i < n and s[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        begin = i
        w = _Builder(s)
        while i < n and s[i] not in " \t\r\n":
            c = s[i]
            if c == "'":
                close = s.find("'", i + 1, n)
                close = n if close < 0 else close
                w.piece(i + 1, close)
                i = close + 1
            elif c == '"':
                i += 1
                run = i
                while i < n and s[i] != '"':
                    if s[i] == "\\" and i + 1 < n and s[i + 1] in '"\\$`\n':
                        w.piece(run, i)
                        if s[i + 1] != "\n":
                            w.piece(i + 1, i + 2)
                        i += 2
                        run = i
                    else:
                        i += 1
                w.piece(run, i)
                i += 1
            elif c == "\\" and i + 1 < n:
                if s[i + 1] != "\n":
                    w.piece(i + 1, i + 2)
                i += 2
            else:
                run = i
                while i < n and s[i] not in " \t\r\n'\"\\":
                    i += 1
                w.piece(run, i)
        words.append(w.word(begin, min(i, n)))
    return words


def sub_map(smap: SourceMap, a: int, b: int) -> SourceMap:
    """The map of ``value[a:b]`` of a value mapped by ``smap``."""
    inner = smap.slice(a) if a > 0 else smap
    length = b - a
    return SourceMap(inner.base, length, smap.to_source(b),
                     tuple((i, s + inner.offset) for i, s in inner.breaks if i < length))


# --------------------------------------------------------------------------- the dialect


@dataclass(slots=True)
class _Step:
    action: JNode  # the action string
    observation: Any  # its output (decoded), or None
    where: Span  # the observation in the document (for the tool-error's related range)
    cwd: str | None
    open_file: str | None
    group: Span


def _state(value: Any) -> dict[str, Any]:
    if isinstance(value, str):  # SWE-agent 0.x kept the state as a JSON string
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _from_prompt(text: Any, key: str) -> str | None:
    """``(Open file: X)`` / ``(Current directory: X)`` at the end of a 0.x observation."""
    if not isinstance(text, str):
        return None
    mark = f"({key}: "
    at = text.rfind(mark)
    if at < 0:
        return None
    end = text.find(")", at)
    value = text[at + len(mark) : end if end >= 0 else len(text)].strip()
    return value if value and value != "n/a" else None


def _uploaded(text: Any) -> str | None:
    """The repository of SWE-agent 1.x's task prompt: ``<uploaded_files>\n/testbed\n</uploaded_files>``."""
    if not isinstance(text, str):
        return None
    at = text.find("<uploaded_files>")
    end = text.find("</uploaded_files>", at) if at >= 0 else -1
    if end < 0:
        return None
    value = text[at + len("<uploaded_files>") : end].strip()
    return value if value.startswith("/") and "\n" not in value else None


def _items(node: JNode, key: str) -> list[JNode]:
    m = node.get(key)
    if m is None or m.value.kind != "array":
        return []
    return [i for i in m.value.items or () if i.kind == "object"]


def _string(node: JNode, key: str) -> JNode | None:
    m = node.get(key)
    return m.value if m is not None and m.value.kind == "string" else None


class SweAgent(Dialect):
    name = "swe-agent"
    # str_replace_editor (edit_anthropic) and the windowed `edit` refuse an empty search text.
    rules = EditRules("SWE-agent's edit tools", empty_hint="use create to write a file")
    description = "SWE-agent trajectories (.traj JSON): str_replace_editor, edit/insert of the open file, shell commands"
    order = 73
    prose_json = True
    specs = SPECS
    any_type = True

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None  # a recorded trajectory is not written by hand

    @staticmethod
    def shaped(node: JNode) -> bool:
        v = node.value
        if not isinstance(v, dict):
            return False
        steps = v.get("trajectory")
        if isinstance(steps, list) and steps and all(isinstance(s, dict) for s in steps[:3]):
            first = steps[0]
            return isinstance(first.get("action"), str) and "observation" in first and "args" not in first
        history = v.get("history")
        if isinstance(history, list) and history and isinstance(history[0], dict):
            return any(isinstance(h, dict) and "message_type" in h for h in history[:4])
        return False

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        node = result.node
        if node is None or node.kind != "object" or not self.shaped(node):
            return None
        span = Span(start, result.end)
        actions: list[Action] = []
        diagnostics = json_diagnostics(ctx.text, result, span, "bad JSON in the trajectory")
        known = Known()
        for step in self._steps(node):
            found = self._action(step)
            message = _refused(step.observation)
            seen = _text(step.observation)
            if message is not None:  # nothing changed; a linter's refusal shows the original lines
                at = seen.find(ORIGINAL)
                known.see(seen[at:] if at >= 0 else "")
            elif found is not None and found.type == "edit" and "lines" in found.fields:
                note = self._check_lines(found, step, known, seen)
                if note is not None:
                    diagnostics.append(note)
            elif found is None or found.kind is ActionKind.READ_FILE or _reads(found):
                known.see(seen)
            else:  # it may have changed any file
                known.forget()
                known.see(seen)
            if found is None:
                continue
            if message is not None and found.kind is not ActionKind.COMMAND:
                found, note = failed(found, message, step.where)
                diagnostics.append(note)
            actions.append(found)
        return Construct(span, actions, diagnostics, lookahead=result.end)

    def _check_lines(self, found: Action, step: _Step, known: Known, seen: str) -> Diagnostic | None:
        """Make a 0.x ``edit N:M`` a modify when the trajectory shows what it replaced and its
        observation agrees with the result (:mod:`.swe_lines`); else say why it is not applied."""
        lines, content = found.fields["lines"], found.fields["content"]
        first, _, last = lines.value.partition(":")
        if step.open_file is None or found.path is None:
            result: Replacement | str = "no file is open"
        else:
            result = check(known, step.open_file, int(first), int(last), body_lines(content.value), seen)
        if isinstance(result, str):
            known.forget()
            known.see(seen)
            found.fields["unchecked"] = Field("unchecked", result, found.name_span)  # hover says why
            return Diagnostic("line-edit-unchecked",
                              f"edit {lines.value} replaces lines by number: not applied, {result}",
                              found.name_span, related=[(step.where, "the observation after it")])
        search = Field("search", result.search, lines.span)
        replace = Field("replace", result.replace, content.span)
        found.kind = ActionKind.MODIFY_FILE
        found.edits = [Edit(search, replace, result.line)]
        return None

    def _steps(self, node: JNode) -> list[_Step]:
        out: list[_Step] = []
        steps = _items(node, "trajectory")
        if steps:
            before: dict[str, Any] = {}
            for step in steps:
                action = _string(step, "action")
                state_m = step.get("state")
                state = _state(state_m.value.value) if state_m is not None else {}
                if state_m is not None and state_m.value.kind == "string":
                    before = state  # 0.x records the state before the step's action runs
                obs = step.get("observation")
                if action is not None:
                    was = before.get("open_file") or state.get("open_file")
                    out.append(_Step(action, obs.value.value if obs else None,
                                     obs.value.inner_span if obs else action.inner_span,
                                     _path_or_none(state.get("working_dir") or before.get("working_dir")),
                                     _path_or_none(was), step.span))
                if state:
                    before = state
            return out
        history = _items(node, "history")
        cwd: str | None = None
        opened: str | None = None
        for k, item in enumerate(history):
            v = item.value
            if v.get("message_type") == "observation" or v.get("role") in ("tool", "user"):
                cwd = _from_prompt(v.get("content"), "Current directory") or _uploaded(v.get("content")) or cwd
                opened = _from_prompt(v.get("content"), "Open file") or opened
                continue
            action = _string(item, "action")
            if v.get("role") != "assistant" or action is None:
                continue
            reply = next((h for h in history[k + 1 : k + 3]
                          if h.value.get("message_type") == "observation" or h.value.get("role") == "tool"), None)
            content = reply.get("content") if reply is not None else None
            out.append(_Step(action, content.value.value if content else None,
                             content.value.inner_span if content else action.inner_span,
                             cwd, opened, item.span))
        return out

    # -- one action string -----------------------------------------------------------------------

    def _action(self, step: _Step) -> Action | None:
        node = step.action
        value: str = node.value
        outer = node.source_map
        if outer is None or not value.strip():
            return None
        words = shell_words(value, 0, _first_line_end(value))
        if not words:
            return None
        name = words[0].value
        name_span = outer.span(words[0].start, words[0].end)
        whole = node.inner_span

        def field(canonical: str, w: Word) -> Field:
            smap = outer.compose(w.smap)
            return Field(canonical, w.value, Span(smap.base, smap.source_end), None, smap)

        def path_field(f: Field) -> Field:
            if step.cwd and isinstance(f.value, str) and f.value.rstrip("/") == step.cwd.rstrip("/"):
                return Field("directory", f.value, f.span, f.key_span, f.source_map)  # the repository itself
            return relative_path(f, step.cwd)

        def action(type_: str, kind: ActionKind, fields: dict[str, Field], edits: list[Edit] | None = None) -> Action:
            return Action(self.name, type_, kind, whole, name_span, fields, step.group, "trajectory step",
                          edits or [])

        if name == "str_replace_editor" and len(words) >= 2:
            return self._editor(words, field, path_field, action)
        if name in ("edit", "insert", "create") and len(words) >= 2:
            opened = self._open_file(step, name_span)
            if name == "create":
                # The tool writes the file with one empty line (`printf "\n"`): its window after
                # shows `1 lines total`, line 1 empty. The text is not in the transcript: the
                # field has no source map, its span is empty at the command's end.
                path = path_field(field("path", words[1]))
                return action("create", ActionKind.CREATE_FILE,
                              {"path": path, "content": Field("content", "\n", Span(whole.end, whole.end))})
            if name == "edit" and _line_range(words[1].value) and "\n" in value:
                return self._line_edit(value, outer, words[1], opened, action)
            if opened is None:
                return action(name, ActionKind.OTHER, {"text": field("text", words[1])})
            if name == "edit" and len(words) >= 3:
                search, replace = field("search", words[1]), field("replace", words[2])
                return action("edit", ActionKind.MODIFY_FILE, {"path": opened, "search": search, "replace": replace},
                              [Edit(search, replace)])
            if name == "insert":
                new = field("content", words[1])
                piece = new.value if new.value.endswith("\n") else new.value + "\n"
                at = 0  # no line: at the end of the file (the tool's default)
                if len(words) >= 3 and words[2].value.lstrip("-").isdigit():
                    at = max(0, int(words[2].value)) + 1
                empty = Field("search", "", Span(new.span.start, new.span.start))
                return action("insert", ActionKind.MODIFY_FILE, {"path": opened, "content": new},
                              [Edit(empty, Field("replace", piece, new.span, None, new.source_map), at)])
        if name == "open" and len(words) >= 2:  # the windowed tools' file viewer
            where = path_field(field("path", words[1]))
            return action("open", ActionKind.READ_FILE, {where.name: where})
        if name in _NOT_APPLIED or name.startswith("exit_"):
            return action(name, ActionKind.OTHER, {})
        command = Field("command", value, whole, None, outer)
        return action(name, ActionKind.COMMAND, {"command": command})

    def _open_file(self, step: _Step, at: Span) -> Field | None:
        if not step.open_file:
            return None
        f = relative_path(Field("path", step.open_file, at, None, None), step.cwd)
        return Field("path", f.value, at, None, None)

    def _editor(self, words: list[Word], field: Any, path_field: Any, action: Any) -> Action:
        command = field("command", words[1])
        fields: dict[str, Field] = {"command": command}
        rest = words[2:]
        positional: list[Word] = []
        flags: dict[str, Word] = {}
        k = 0
        while k < len(rest):
            w = rest[k]
            if w.value.startswith("--") and k + 1 < len(rest):
                flags[w.value[2:]] = rest[k + 1]
                k += 2
                if w.value == "--view_range" and k < len(rest) and not rest[k].value.startswith("--"):
                    k += 1
                continue
            positional.append(w)
            k += 1
        if positional:
            where = path_field(field("path", positional[0]))
            fields[where.name] = where
        for key, w in flags.items():
            fields[key] = field(key, w)
        cmd = command.value
        if cmd == "create" and "file_text" in fields:
            fields["content"] = fields.pop("file_text")
            return action("str_replace_editor", ActionKind.CREATE_FILE, fields)
        if cmd == "str_replace" and "old_str" in fields:
            search = fields.pop("old_str")
            search.name = "search"
            replace = fields.pop("new_str", None)
            if replace is None:
                replace = Field("replace", "", Span(search.span.end, search.span.end))
            replace.name = "replace"
            fields["search"], fields["replace"] = search, replace
            return action("str_replace_editor", ActionKind.MODIFY_FILE, fields, [Edit(search, replace)])
        if cmd == "insert" and "new_str" in fields and "insert_line" in fields:
            line = fields["insert_line"].value.strip()
            new = fields.pop("new_str")
            if line.isdigit():
                piece = new.value if new.value.endswith(("\n", "\r")) or not new.value else new.value + "\n"
                empty = Field("search", "", Span(new.span.start, new.span.start))
                fields["content"] = new
                return action("str_replace_editor", ActionKind.MODIFY_FILE, fields,
                              [Edit(empty, Field("replace", piece, new.span, None, new.source_map), int(line) + 1)])
            fields["new_str"] = new
        if cmd == "view":
            return action("str_replace_editor", ActionKind.READ_FILE, fields)
        return action("str_replace_editor", ActionKind.OTHER, fields)

    def _line_edit(self, value: str, outer: SourceMap, rng: Word, opened: Field | None, action: Any) -> Action:
        """SWE-agent 0.x ``edit N:M`` + lines + ``end_of_edit``: shown, not applied (it names line
        numbers, not the text it replaces)."""
        body_start = value.find("\n") + 1
        stop = value.rfind("end_of_edit")
        body_end = stop if stop >= body_start else len(value)
        content = value[body_start:body_end]
        smap = sub_map(outer, body_start, body_end)
        fields = {"lines": Field("lines", rng.value, outer.span(rng.start, rng.end)),
                  "content": Field("content", content, Span(smap.base, smap.source_end), None, smap)}
        if opened is not None:
            fields["path"] = opened
        return action("edit", ActionKind.OTHER, fields)


def _first_line_end(value: str) -> int:
    """Where the command's words end: the whole string, unless it is a 0.x ``edit N:M`` whose
    body follows on the next lines (outside any quote)."""
    nl = value.find("\n")
    if nl < 0:
        return len(value)
    head = value[:nl].split()
    if len(head) == 2 and head[0] == "edit" and _line_range(head[1]):
        return nl
    return len(value)


def _line_range(word: str) -> bool:
    a, sep, b = word.partition(":")
    return bool(sep) and a.isdigit() and b.isdigit()


def _path_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value and value != "n/a" else None


#: SWE-agent's own tools that only show files (the windowed tools' viewer and searches).
_READ_TOOLS = frozenset({"open", "goto", "scroll_up", "scroll_down", "search_file", "search_dir", "find_file"})


def _reads(found: Action) -> bool:
    return found.kind is ActionKind.COMMAND and found.type in _READ_TOOLS


def _text(observation: Any) -> str:
    """An observation as text (a history message's content parts joined)."""
    if isinstance(observation, list):
        return "\n".join(p.get("text", "") for p in observation if isinstance(p, dict)
                         and isinstance(p.get("text"), str))
    return observation if isinstance(observation, str) else ""


def _refused(observation: Any) -> str | None:
    """The tool's own message when the observation says it changed nothing."""
    observation = _text(observation)
    if not observation:
        return None
    head = observation.lstrip()
    if head.startswith("OBSERVATION:"):
        head = head[len("OBSERVATION:"):].lstrip()
    if (head.startswith(_REFUSALS) or _RETRY in observation
            or (head.startswith("The path ") and "does not exist" in head[:300])):
        return first_line(head)
    return None


DIALECT = SweAgent()
