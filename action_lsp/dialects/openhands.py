"""``openhands``: OpenHands trajectories (the event stream as JSON).

OpenHands saves a run as a JSON list of events (``save_trajectory_path``, written with
``indent=4``), the web UI exports ``{"trajectory": [...]}``, and the evaluation harness writes
one JSON line per instance, ``{"instance_id", "instruction", "history": [...], ...}``. An *action* event is
``{"id", "timestamp", "source", "message", "action", "args", "tool_call_metadata", ...}``; an
*observation* ``{"id", "cause", "observation", "content", "extras", ...}`` answers the action
whose ``id`` is its ``cause``. The events with file edits (``openhands/events/action/files.py``):

* ``edit`` with ``args.command`` (the ``str_replace_editor`` tool, ``impl_source`` ``oh_aci``):
  ``create`` (``file_text``; a create: the tool refuses to overwrite), ``str_replace``
  (``old_str`` / ``new_str``), ``insert`` (``insert_line``, ``new_str``), ``view``;
  a ``str_replace`` / ``insert`` / ``create`` missing its text (``old_str: null``; OpenHands
  answers ``Parameter `old_str` is required``) keeps its text arguments as written, null, so it
  reads as the (refused, never applied) edit of that file it was, with no edit made up;
  ``undo_edit`` and the LLM-based edit (``content`` that another model merges into lines
  ``start``-``end``) are shown, never applied; the edits of early 2025 whose ``args`` stand
  only in ``translated_ipython_code`` (a Python call) are read from the model's own call in
  ``tool_call_metadata`` (its JSON ``arguments``), as the tool registry reads
  ``str_replace_editor``;
* ``write`` (``path``, ``content``): a whole file (a ``start``/``end`` line range: shown only);
* ``read``; ``run`` (``command``) and ``run_ipython`` (``code``), never run.

In a list saved with indentation each event is its own JSON object in the text: an action is
read with the event right after it when that is its observation. An ``error`` observation, or a
``run`` whose ``exit_code`` is not 0, marks its action failed (a ``tool-error`` hint; never
applied). Absolute paths under the sandbox's working directory (a ``run`` observation's
``metadata.working_dir`` in a ``{"trajectory": ...}`` export, else OpenHands' ``/workspace``)
are read relative to it.
"""

from __future__ import annotations

from typing import Any

from ..jsonscan import JNode, JResult, parse_json
from ..model import Action, ActionKind, Diagnostic, Edit, EditRules, Field, Fix, Span
from ..schema import ActionSpec
from .base import Construct, Dialect, ScanContext
from .json_fields import json_diagnostics, key_span
from .tool_use import Call, Input, call_action, decode_arguments, failed, first_line, relative_path

WORKSPACE = "/workspace"  # OpenHands' default workspace_mount_path_in_sandbox

# No specs: the event names (`edit`, `write`, `read`, `run`) are common words that other
# dialects' completion and hover must keep (``any_type``: every event name is valid here).
SPECS: dict[str, ActionSpec] = {}
_FILE_ACTIONS = frozenset({"edit", "write", "read", "run", "run_ipython"})
# The text arguments of each editing command, as the action's fields name them.
_TEXTS = {"str_replace": (("search", "old_str"), ("replace", "new_str")), "insert": (("content", "new_str"),),
          "create": (("content", "file_text"),)}


def _is_event(v: Any) -> bool:
    return isinstance(v, dict) and (
        (isinstance(v.get("action"), str) and isinstance(v.get("args"), dict))
        or (isinstance(v.get("observation"), str) and "cause" in v))


def _failure(obs: dict[str, Any]) -> str | None:
    """The message of an observation that says its action failed, else None."""
    kind = obs.get("observation")
    if kind == "error":
        content = obs.get("content")
        if isinstance(content, str) and content.lstrip().startswith("ERROR:"):
            content = content.lstrip()[len("ERROR:"):]
        return first_line(content) or "error"
    if kind == "run":
        extras = obs.get("extras")
        meta = extras.get("metadata") if isinstance(extras, dict) else None
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        if isinstance(code, int) and code not in (0, -1):
            return f"exit code {code}"
    content = obs.get("content")
    if kind == "edit" and isinstance(content, str) and content.lstrip().startswith("ERROR:"):
        return first_line(content.lstrip()[len("ERROR:"):]) or "error"
    return None


def _events_under(v: dict[str, Any]) -> str | None:
    """The member holding a run's events: ``trajectory`` (the web UI's export) or ``history``
    (a line of the evaluation harness's ``output.jsonl``: ``{"instance_id", "history", ...}``)."""
    for key in ("trajectory", "history"):
        events = v.get(key)
        if isinstance(events, list) and any(_is_event(e) for e in events[:3]):
            return key
    return None


def _working_dir(events: list[JNode]) -> str | None:
    for e in events:
        v = e.value
        if v.get("observation") != "run":
            continue
        extras = v.get("extras")
        meta = extras.get("metadata") if isinstance(extras, dict) else None
        wd = meta.get("working_dir") if isinstance(meta, dict) else None
        if isinstance(wd, str) and wd.startswith("/"):
            return wd
    return None


class OpenHands(Dialect):
    name = "openhands"
    # str_replace_editor (openhands-aci): str_replace needs an existing file and an old_str that
    # occurs exactly once; an empty one is refused. One edit per event.
    rules = EditRules("OpenHands' str_replace", empty_hint="use the create command to write a file")
    description = "OpenHands trajectories (event-stream JSON): edit/write/read/run events and their observations"
    order = 74
    prose_json = True
    specs = SPECS
    any_type = True

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None  # a recorded trajectory is not written by hand

    def claims_json(self, value: Any) -> bool:
        """A trajectory (``{"trajectory": [...]}``, an evaluation output line's ``history``, a
        list of events) or one event."""
        if isinstance(value, dict) and isinstance(value.get("trajectory"), list):
            return True
        if isinstance(value, dict) and _events_under(value) is not None:
            return True
        return _is_event(value) or (isinstance(value, list) and any(_is_event(e) for e in value[:3]))

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        node = result.node
        if node is None or node.kind != "object":
            return None
        v = node.value
        text = ctx.text
        key = _events_under(v)
        if key is not None:
            events = [e for e in (node.get(key).value.items or ()) if e.kind == "object"]  # type: ignore[union-attr]
            span = Span(start, result.end)
            diagnostics = json_diagnostics(text, result, span, "bad JSON in the trajectory")
            actions = self._events(events, _working_dir(events) or WORKSPACE, span, diagnostics)
            return Construct(span, actions, diagnostics, lookahead=result.end)
        if not (_is_event(v) and "action" in v and ("id" in v or "source" in v)):
            return None
        # One event of a saved list: its observation, when it is the next object, joins it.
        events = [node]
        end = result.end
        read = result.end
        at = _next_object(text, result.end)
        read = max(read, at + 1)  # what decided whether an observation follows
        if at < len(text) and text[at] == "{":
            following = parse_json(text, at, ctx.next_bound(at))
            read = max(read, following.end)
            obs = following.node
            fv = obs.value if obs is not None and obs.kind == "object" else None
            if obs is not None and isinstance(fv, dict) and fv.get("cause") == v.get("id") and "observation" in fv \
                    and following.ok:
                events.append(obs)
                end = following.end
        span = Span(start, end)
        diagnostics = json_diagnostics(text, result, Span(start, result.end), "bad JSON in the event")
        actions = self._events(events, WORKSPACE, span, diagnostics)
        return Construct(span, actions, diagnostics, lookahead=max(read, end))

    def _events(self, events: list[JNode], cwd: str, group: Span, diagnostics: list[Diagnostic]) -> list[Action]:
        actions: list[Action] = []
        by_id: dict[Any, int] = {}
        for e in events:
            v = e.value
            if "observation" in v:
                k = by_id.get(v.get("cause"))
                message = _failure(v) if k is not None else None
                if k is not None and message is not None:
                    content = e.get("content")
                    where = content.value.inner_span if content is not None else e.span
                    actions[k], note = failed(actions[k], message, where)
                    diagnostics.append(note)
                continue
            found = self._action(e, cwd, group)
            if found is not None:
                by_id[v.get("id")] = len(actions)
                actions.append(found)
        return actions

    def _action(self, event: JNode, cwd: str, group: Span) -> Action | None:
        kind_m = event.get("action")
        args_m = event.get("args")
        if kind_m is None or args_m is None or args_m.value.kind != "object":
            return None
        name = kind_m.value.value
        if name not in _FILE_ACTIONS:
            return None
        args = args_m.value
        fields: dict[str, Field] = {}

        def take(canonical: str, key: str) -> Field | None:
            m = args.get(key)
            if m is None or m.value.value is None:
                return None
            node = m.value
            smap = node.source_map if node.kind == "string" else None
            f = Field(canonical, node.value, node.inner_span, key_span(m), smap)
            fields[canonical] = f
            return f

        path = take("path", "path")
        if path is not None and isinstance(path.value, str):
            if path.value.rstrip("/") == cwd.rstrip("/"):  # the workspace itself (a `view` of it)
                del fields["path"]
                fields["directory"] = Field("directory", path.value, path.span, path.key_span, path.source_map)
            else:
                fields["path"] = relative_path(path, cwd)
        kind = ActionKind.OTHER
        edits: list[Edit] = []
        a = args.value
        if name == "edit":
            command = take("command", "command")
            cmd = command.value if command is not None else ""
            if cmd == "create" and take("content", "file_text") is not None:
                kind = ActionKind.CREATE_FILE
            elif cmd == "str_replace" and (search := take("search", "old_str")) is not None:
                replace = take("replace", "new_str") or Field("replace", "", Span(search.span.end, search.span.end))
                fields["replace"] = replace
                kind = ActionKind.MODIFY_FILE
                edits.append(Edit(search, replace))
            elif cmd == "insert" and isinstance(a.get("insert_line"), int) and (new := take("content", "new_str")):
                take("insert_line", "insert_line")
                piece = new.value if new.value.endswith(("\n", "\r")) or not new.value else new.value + "\n"
                empty = Field("search", "", Span(new.span.start, new.span.start))
                kind = ActionKind.MODIFY_FILE
                edits.append(Edit(empty, Field("replace", piece, new.span, new.key_span, new.source_map),
                                  max(0, a["insert_line"]) + 1))
            elif cmd == "view":
                kind = ActionKind.READ_FILE
            elif command is None and (called := _metadata_call(event, name, cwd, group)) is not None:
                return called  # early 2025: the arguments stand in the model's call only
            elif cmd in _TEXTS:
                # A call missing its text (old_str null): OpenHands refuses it. Its text arguments
                # stay as written (null), so it reads as the edit of that file it was, with none made up.
                for canonical, key in _TEXTS[cmd]:
                    if (m := args.get(key)) is not None and m.value.value is None:
                        fields[canonical] = Field(canonical, None, m.value.inner_span, key_span(m))
                    else:
                        take(canonical, key)
            else:  # undo_edit, or an LLM-based edit of lines start..end: nothing to check it against
                take("content", "content")
        elif name == "write":
            take("content", "content")
            whole = a.get("start", 0) in (0, 1) and a.get("end", -1) == -1
            kind = ActionKind.WRITE_FILE if whole and "content" in fields else ActionKind.OTHER
        elif name == "read":
            kind = ActionKind.READ_FILE
        elif name == "run":
            take("command", "command")
            kind = ActionKind.COMMAND
        elif name == "run_ipython":
            take("code", "code")
            fields.setdefault("language", Field("language", "python", kind_m.value.inner_span))
            kind = ActionKind.CODE
        return Action(self.name, name, kind, event.span, kind_m.value.inner_span, fields, group,
                      "trajectory event", edits)


def _metadata_call(event: JNode, name: str, cwd: str, group: Span) -> Action | None:
    """The edit of an event whose ``args`` hold no command (OpenHands early 2025 kept them only
    as ``translated_ipython_code``, a Python call): read from the model's own tool call in
    ``tool_call_metadata.model_response`` (the call whose id is ``tool_call_id``; its
    ``arguments`` a JSON string), as the tool registry reads ``str_replace_editor``."""
    meta = event.get("tool_call_metadata")
    if meta is None or meta.value.kind != "object":
        return None
    want = meta.value.value.get("tool_call_id")
    found: JNode | None = None
    stack = [meta.value]
    while stack and found is None:
        node = stack.pop()
        if node.kind == "array":
            stack.extend(node.items or ())
        elif node.kind == "object":
            v = node.value
            fn = node.get("function")
            if fn is not None and fn.value.kind == "object" and (want is None or v.get("id") == want):
                found = fn.value
            else:
                stack.extend(m.value for m in node.members or () if m.value.kind in ("object", "array"))
    args = found.get("arguments") if found is not None else None
    tool = found.get("name") if found is not None else None
    if args is None or tool is None or tool.value.value not in ("str_replace_editor", "edit_file"):
        return None
    inp: Input | None = None
    if args.value.kind == "string":
        inp = decode_arguments(args.value, f"`{tool.value.value}`")[0]
    elif args.value.kind == "object":
        inp = Input(args.value)
    if inp is None:
        return None
    kind_m = event.get("action")
    assert kind_m is not None
    call = Call("openhands", tool.value.value, kind_m.value.inner_span, event.span, inp, group,
                "trajectory event", lambda f: relative_path(f, cwd))
    action = call_action(call)
    if call.diagnostics or not action.kind.is_file_action:
        return None
    action.type = name
    return action


def _next_object(text: str, pos: int) -> int:
    """Where the next value after ``pos`` starts (past blanks and one comma): a ``{`` there is
    the event after this one."""
    i = pos
    comma = False
    n = len(text)
    while i < n and (text[i] in " \t\r\n" or (text[i] == "," and not comma)):
        comma = comma or text[i] == ","
        i += 1
    return i


DIALECT = OpenHands()
