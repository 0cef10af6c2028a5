"""``tool-calls``: tool calls in OpenAI- and Anthropic-style JSON, and Codex CLI rollouts.

Recognised by shape, as a whole JSON document (a ``.json`` export), a JSON object in prose, or
line by line in a JSON Lines file:

* OpenAI chat: ``{"messages": [{"role": "assistant", "tool_calls": [{"id", "type":
  "function", "function": {"name", "arguments"}}]}]}`` (also a response's ``choices[].message``
  and fine-tuning JSONL, one ``{"messages": [...]}`` per line). ``arguments`` is a JSON
  *string*: its fields are read from the decoded string, with ranges through both levels of
  escapes.
* Anthropic messages: ``content[]`` blocks ``{"type": "tool_use", "id", "name", "input"}`` in a
  message, a ``messages`` list or a response; a ``tool_result`` with ``is_error`` marks its call
  failed (a ``tool-error`` hint; never applied).
* Codex CLI rollouts (``~/.codex/sessions/.../rollout-*.jsonl``): records ``{"type":
  "response_item", "payload": {...}}`` (and the older bare items) with ``function_call``
  (``name``, ``arguments`` string), ``custom_tool_call`` (``apply_patch`` with its patch as
  ``input``) and ``local_shell_call``.

The edit tools are recognised by name and input (see :mod:`.tool_use`):
``str_replace_based_edit_tool`` / ``str_replace_editor`` (``create``, ``str_replace``,
``insert``, ``view``), ``write_file`` / ``create_file`` / ``edit_file``, ``shell`` / ``bash`` /
``execute_command`` as commands, ``apply_patch`` as a Codex patch (read by the ``codex-patch``
dialect's parser when it is installed; otherwise shown as a call that is not applied).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import re
from collections.abc import Callable
from typing import Any

from ..jsonlazy import LazyNode, descendants, keys_unique
from ..jsonrecord import record_node
from ..jsonscan import JNode, JResult, parse_json
from ..markdown import FenceOpen
from ..model import Action, Diagnostic, EditRules, Field, FileView, Fix, Span
from ..session_dirs import FIRST_CWD, TURN_CWD, find_cwd
from .base import Construct, Dialect, ScanContext
from .json_fields import json_diagnostics
from .tool_use import (
    Call,
    Input,
    call_action,
    decode_arguments,
    failed,
    first_line,
    map_action,
    map_diagnostic,
    parse_arguments,
    relative_path,
    tool_rules,
    tool_specs,
)

SPECS = tool_specs(
    "str_replace_based_edit_tool", "str_replace_editor", "write_file", "create_file", "edit_file",
    "apply_patch", "shell", "bash", "execute_command", "read_file",
)
_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_MARKERS = ('"tool_calls"', '"tool_use"', '"function_call"', '"custom_tool_call"', '"local_shell_call"',
            '"functionCall"', '"toolCalls"', '"tool_name"', '"toolName"', '"recipient_name"', '"tool"',
            '"function"', '"assistant"', '"model"', '"gemini"')  # (assistant text is read too)

# One pass over a line for all of them (they all begin with a quote: the search looks for it, then tries
# each marker there), where one str.find per marker was fifteen.
_MARKED = re.compile("|".join(map(re.escape, _MARKERS)))
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})


def _failure(output: Any) -> str | None:
    """The message of a Codex call output that reports a failure, else None: a JSON output
    whose ``metadata.exit_code`` is not 0, a text starting ``Exit code: N`` with N not 0, or
    apply_patch's ``verification failed``."""
    if not isinstance(output, str):
        return None
    text = output
    if output.startswith("{"):
        try:
            data = json.loads(output)
        except (ValueError, RecursionError):
            data = None
        if isinstance(data, dict):
            meta = data.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            if isinstance(code, int) and code != 0:
                return first_line(data.get("output")) or f"exit code {code}"
            return None
    head = text.lstrip()
    if head.startswith("Exit code:"):
        number = head[len("Exit code:"):].split(None, 1)[0] if head[len("Exit code:"):].strip() else "0"
        if number.lstrip("-").isdigit() and int(number) != 0:
            return first_line(text)
        return None
    if "verification failed" in head[:200] or head.startswith(("Failed to apply", "error:")):
        return first_line(text)
    return None


# Claude Code's answer to a call the user refused (its tool_result may lack ``is_error``, and a
# conversion to OpenAI chat keeps only the text): "... The tool use was rejected (eg. if it was a
# file edit, the new_string was NOT written to the file)."
_REJECTED = ("The user doesn't want to proceed with this tool use", "The tool use was rejected")


def _parts_text(content: Any, most: int | None = None) -> Any:
    """A tool result's ``content`` as text when it is a list of text parts (of its first ``most``
    parts); any other value as it is."""
    if isinstance(content, list):
        return "".join(p["text"] for p in content[:most] if isinstance(p, dict) and isinstance(p.get("text"), str))
    return content


def rejected(content: Any) -> str | None:
    """The first line of a tool result's ``content`` (a text, or text parts) when it says the
    user rejected the call, else None."""
    content = _parts_text(content, 4)  # (its first words are enough)
    if isinstance(content, str) and content.lstrip().startswith(_REJECTED):
        return first_line(content)
    return None


def _resolve(actions: list[Action], diagnostics: list[Diagnostic], calls: dict[str, list[int]],
             errors: dict[str, tuple[str, Span]]) -> None:
    """Mark the calls whose results were errors as failed (shown, not applied)."""
    for call_id, (message, where) in errors.items():
        for k in calls.get(call_id, ()):
            actions[k], note = failed(actions[k], message, where)
            diagnostics.append(note)


def _where(text: str, call_id: str, start: int, end: int) -> Span:
    at = text.find(call_id, start, end) if call_id else -1
    return Span(at, at + len(call_id)) if at >= 0 else Span(start, end)


def _decoded_results(value: Any, text: str, start: int, end: int,
                     found: dict[str, tuple[str | None, Span]], depth: int) -> None:
    """The ``tool_result`` objects (and Gemini ``functionResponse`` parts) of a decoded record,
    the first for each call id: (failure message or None, where)."""
    if depth > 8:
        return
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                _decoded_results(item, text, start, end, found, depth + 1)
        return
    if not isinstance(value, dict):
        return
    if value.get("type") == "tool_result":
        call_id = next((value[k] for k in ("tool_use_id", "tool_id", "call_id", "id") if isinstance(value.get(k), str)), None)
        if call_id is not None and call_id not in found:
            if value.get("is_error") or value.get("status") == "error":
                error = value.get("error")
                message = first_line(error.get("message") if isinstance(error, dict) else value.get("content") or value.get("output"))
                found[call_id] = (message or "error", _where(text, call_id, start, end))
            elif (refused := rejected(value.get("content"))) is not None:
                found[call_id] = (refused, _where(text, call_id, start, end))
            else:
                found[call_id] = (None, Span(start, start))
        return
    response = value.get("functionResponse")
    if isinstance(response, dict) and isinstance(response.get("id"), str):
        inner = response.get("response")
        failed_with = first_line(inner.get("error")) or "error" if isinstance(inner, dict) and "error" in inner else None
        found.setdefault(response["id"], (failed_with, _where(text, response["id"], start, end)))
        return
    for item in value.values():
        if isinstance(item, dict | list):
            _decoded_results(item, text, start, end, found, depth + 1)


def _type(record: dict[str, Any]) -> str | None:
    """A record's ``"type"`` when it is a string (a half-typed line may hold anything)."""
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


def _patch_parser() -> Any:
    """``parse_patch`` of the ``codex-patch`` dialect, when this installation has it."""
    try:
        return importlib.import_module(f"{__package__}.codex_patch").parse_patch
    except (ImportError, AttributeError):
        return None


def _patch_view() -> Any:
    """``patch_view`` of the ``codex-patch`` dialect (an ``apply_patch`` call's file views)."""
    try:
        return importlib.import_module(f"{__package__}.codex_patch").patch_view
    except (ImportError, AttributeError):
        return None

_NAME_KEYS = ("name", "tool_name", "toolName", "recipient_name")
_ARG_KEYS = ("input", "parameters", "arguments", "args")
_ID_KEYS = ("id", "tool_id", "call_id", "tool_call_id", "toolCallId", "tool_use_id")
# Members holding tool *definitions* or requests, never calls.
_NOT_CALLS = frozenset({"tools", "functions", "tool_definitions", "input_schema", "schema"})


_ARG_KEYS_SET = frozenset(_ARG_KEYS)


def _named(v: dict[str, Any]) -> bool:
    """Does the decoded object give a name (a non-empty string under one of ``_NAME_KEYS``)?
    (A loop: asked of every object of every record, where ``any`` over a generator cost a
    frame each time.)"""
    for k in _NAME_KEYS:
        n = v.get(k)
        if n and isinstance(n, str):
            return True
    return False


def _string(node: JNode | None) -> JNode | None:
    return node if node is not None and node.kind == "string" and node.value else None


def _call_id(v: dict[str, Any]) -> Any:
    return next((v[k] for k in _ID_KEYS if isinstance(v.get(k), str)), None)


def call_shape(obj: JNode) -> tuple[JNode, JNode | None, Any] | None:
    """(name, arguments, call id) of an object shaped like a tool call, else None.

    The name stands under ``name`` / ``tool_name`` / ``toolName`` / ``recipient_name`` or
    ``function.name`` (OpenAI), the arguments under ``input`` / ``parameters`` /
    ``arguments`` / ``args`` (an object, or a string holding one); a Gemini part's
    ``functionCall`` and an Anthropic ``tool_use`` block are calls too. Cline's UI log writes a
    call as a ``say``/``ask`` ``tool`` message whose ``text`` is the JSON of the call (its name
    under ``tool``). A tool *definition* (``parameters`` holding a JSON schema) is no call.
    """
    v = obj.value
    fn = obj.get("function") or obj.get("functionCall") if "function" in v or "functionCall" in v else None
    if fn is not None and fn.value.kind == "object":
        inner = fn.value
        name = _string(m.value) if (m := inner.get("name")) is not None else None
        if name is None:
            return None
        args = next((m.value for k in ("arguments", "args") if (m := inner.get(k)) is not None), None)
        if args is None and fn.key == "function":
            return None  # a definition ({"name", "parameters"}) or a bare reference
        return name, args, _call_id(v) or _call_id(inner.value)
    if (v.get("say") == "tool" or v.get("ask") == "tool") and (t := obj.get("text")) is not None \
            and t.value.kind == "string" and t.value.value.lstrip().startswith("{"):
        return _ui_tool(t.value)
    if v.get("type") == "tool" and isinstance(v.get("tool"), str) and (st := obj.get("state")) is not None \
            and st.value.kind == "object" and (inp := st.value.get("input")) is not None:
        tool = obj.get("tool")  # opencode: {"type": "tool", "tool", "callID", "state": {"input", "status"}}
        assert tool is not None
        return tool.value, inp.value, _call_id(v) or v.get("callID")
    if not _named(v):
        return None  # (no name: the members are not read)
    name = next((n for k in _NAME_KEYS if (m := obj.get(k)) is not None and (n := _string(m.value))), None)
    if name is None:
        return None
    args = next((m.value for k in _ARG_KEYS if (m := obj.get(k)) is not None), None)
    if args is None or args.kind not in ("object", "string"):
        return None if v.get("type") != "tool_use" else (name, None, _call_id(v))
    if args.kind == "object" and _is_schema(args.value):
        return None
    return name, args, _call_id(v)


def _ui_tool(text: JNode) -> tuple[JNode, JNode | None, Any] | None:
    """Cline's UI message ``{"tool": "editedExistingFile", "path", "diff" | "content"}``: the
    tool's name is read from the decoded text, with its range through the text's map."""
    smap = text.source_map
    if smap is None:
        return None
    parsed = parse_arguments(text.value, keep=True).node  # (its input is read from this parse)
    tool = parsed.get("tool") if parsed is not None and parsed.kind == "object" else None
    if tool is None or tool.value.kind != "string" or tool.value.source_map is None:
        return None
    inner = tool.value
    assert inner.source_map is not None
    name = JNode("string", smap.span(inner.span.start, inner.span.end), inner.value,
                 source_map=smap.compose(inner.source_map))
    return name, text, None


def _is_schema(v: dict[str, Any]) -> bool:
    return v.get("type") == "object" and isinstance(v.get("properties"), dict)


def _result(obj: JNode) -> tuple[str, str | None, Span] | None:
    """A tool result: (call id, failure message or None, where it says so), else None.

    Anthropic's ``tool_result`` (``tool_use_id``, ``is_error``), Gemini CLI's stream-json
    ``tool_result`` (``tool_id``, ``status: "error"``) and a Gemini ``functionResponse``
    (``response.error``)."""
    v = obj.value
    if v.get("type") == "tool_result":
        call_id = _call_id(v)
        if call_id is None:
            return None
        if v.get("is_error") or v.get("status") == "error":
            member = next((m for k in _ID_KEYS if (m := obj.get(k)) is not None), None)
            where = member.value.inner_span if member is not None else obj.span
            error = v.get("error")
            message = first_line(error.get("message") if isinstance(error, dict) else v.get("content") or v.get("output"))
            return call_id, message or "error", where
        if (refused := rejected(v.get("content"))) is not None:
            member = next((m for k in _ID_KEYS if (m := obj.get(k)) is not None), None)
            return call_id, refused, member.value.inner_span if member is not None else obj.span
        return call_id, None, obj.span
    if v.get("role") == "tool" and isinstance(v.get("tool_call_id"), str):
        # An OpenAI tool message: failed only when it says so as Claude Code does.
        content = _parts_text(v.get("content"))
        if isinstance(content, str) and (content.lstrip().startswith("<tool_use_error>") or rejected(content)):
            member = obj.get("tool_call_id")
            where = member.value.inner_span if member is not None else obj.span
            return v["tool_call_id"], first_line(content) or "error", where
        return v["tool_call_id"], None, obj.span
    response = v.get("functionResponse")
    if isinstance(response, dict):
        call_id = response.get("id") if isinstance(response.get("id"), str) else None
        if call_id is None:
            return None
        inner = response.get("response")
        if isinstance(inner, dict) and "error" in inner:
            return call_id, first_line(inner.get("error")) or "error", obj.span
        return call_id, None, obj.span
    return None


_TEXT_TYPES = frozenset({"text", "output_text"})
_ACTION_HINT = re.compile(r"<[A-Za-z]|```|^[ \t]*[-<]{3,}|\*\*\* Begin Patch|^diff --git", re.M)


def _said(obj: JNode) -> list[JNode]:
    """The text an assistant message object says, worth reading for actions: an Anthropic
    ``text`` block, a Gemini part's ``text`` (not a thought), an OpenAI or Gemini-chat message
    whose ``content`` is a string. Text with no tag, fence, marker or patch in it is skipped."""
    v = obj.value
    if not _said_value(v):
        return []  # (the decoded value says: nothing to read, no member read)
    kind = _type(v)
    if kind in _TEXT_TYPES or (kind is None and "text" in v and not v.get("thought")):
        m = obj.get("text")
    elif "role" in v or kind == "gemini":
        m = obj.get("content")
    else:
        return []
    said = m.value if m is not None else None
    if said is None or said.kind != "string" or _ACTION_HINT.search(said.value) is None:
        return []
    return [said]


_PATH_FIELDS = ("path", "from", "to")  # (a patch's move: from and to)


def _absolute_path(value: Any) -> bool:
    return isinstance(value, str) and (value.startswith("/") or (len(value) > 2 and value[1] == ":"))


def _absolute(a: Action) -> bool:
    return any(k in a.fields and _absolute_path(a.fields[k].value) for k in _PATH_FIELDS)


def in_workdir(f: Field, wd: Any) -> Field:
    """A relative path of a patch run in the directory ``wd`` (Codex's ``shell`` call with a
    ``workdir`` member) as the path it names: ``b.py`` run in ``/p/sub`` is ``/p/sub/b.py``, read
    under the session's ``cwd`` like any absolute path (the project's ``sub/b.py``, not its
    ``b.py``; outside the project an ``absolute-path`` error), and run in a relative ``backend``
    it is ``backend/b.py``. (Its value is no longer the text written: no source map, the span of
    the path as written.)"""
    path = f.value
    if not isinstance(wd, str) or wd in ("", ".", "./") or not isinstance(path, str) or not path or _absolute_path(path):
        return f
    sep = "\\" if "\\" in wd and "/" not in wd else "/"
    return Field(f.name, wd.rstrip("/\\") + sep + path, f.span, f.key_span, None)


def _opencode_added(a: Action) -> None:
    """An ``*** Add File:`` of opencode's apply_patch as opencode writes it: its ``+`` lines
    joined by newlines, the text ended by one newline -- a last ``+`` line that is empty adds no
    blank line (Codex's, read by the codex-patch dialect, ends each line with one), and a lone
    ``+`` makes an empty file. (opencode's own record of the files it added says so.)"""
    content = a.fields.get("content")
    if a.type != "add-file" or content is None or not isinstance(content.value, str):
        return
    text = content.value
    if text != "\n" and not text.endswith("\n\n"):
        return
    n = len(text) - 1
    smap = content.source_map
    if smap is not None:
        smap = dataclasses.replace(smap, length=n, source_end=smap.to_source(n))
    span = Span(smap.base, smap.source_end) if smap is not None else content.span
    a.fields["content"] = Field(content.name, text[:n], span, content.key_span, smap)


def first_cwd(ctx: ScanContext) -> tuple[str, int] | None:
    """The session's working directory -- the first ``"cwd"`` member of the text, the project
    directory the agent started in (Claude Code's first record, Codex's ``session_meta``) -- and
    its offset; None when it records none. Found once per scan, or given by the scan's start
    state (a re-scan of part of a text: :mod:`action_lsp.session_dirs`)."""
    memo = ctx.cache.get(FIRST_CWD)
    if memo is None:
        memo = ctx.cache[FIRST_CWD] = (find_cwd(ctx.text),)
    return memo[0]


def _session_cwd(first: tuple[str, int] | None, actions: list[Action]) -> None:
    """Absolute paths of a record that records no working directory itself (a Codex call after
    its ``session_meta`` / ``turn_context`` records) are read under the session's first ``cwd``
    (:func:`first_cwd`), as Claude Code's are: a later ``turn_context`` may carry another
    directory (a turn run in ``/p/sub``), and reading ``/p/sub/b.py`` under it would edit the
    project's ``b.py``. (An open document re-reads every line when the first ``cwd`` changes:
    :mod:`action_lsp.session_dirs`.)"""
    if first is None:
        return
    for a in actions:
        for key in _PATH_FIELDS:
            if key in a.fields and _absolute_path(a.fields[key].value):
                a.fields[key] = relative_path(a.fields[key], first[0])


def _somewhere(value: Any, test: Callable[[dict[str, Any], bool], bool], speaking: bool = False,
               depth: int = 0) -> bool:
    """Does ``test`` hold for an object of the decoded ``value`` where the walker goes (not
    under ``_NOT_CALLS`` members), given whether it sits in an assistant message (``speaking``,
    as the walker has it)? Past 48 levels, deeper than any session shape, yes: the walker
    decides. (Plain loops, in the order ``any`` over generators took: this walk visits every
    object of every record, and a generator's frame per container was a third of its cost.)"""
    if depth > 48:
        return True
    depth += 1
    if isinstance(value, list):
        for v in value:
            if isinstance(v, _CONTAINERS) and _somewhere(v, test, speaking, depth):
                return True
        return False
    if not isinstance(value, dict):
        return False
    role = value.get("role")
    kind = value.get("type")
    if not isinstance(kind, str):
        kind = None
    if isinstance(role, str) or kind == "user" or kind == "gemini":
        speaking = role == "assistant" or role == "model" or kind == "gemini"
    if test(value, speaking):
        return True
    for k, v in value.items():
        if isinstance(v, _CONTAINERS) and k not in _NOT_CALLS and _somewhere(v, test, speaking, depth):
            return True
    return False


_CONTAINERS = (dict, list)


def _wanted(v: dict[str, Any], speaking: bool) -> bool:
    """A Responses-API item, a tool-call-shaped object (:func:`call_shape`), or assistant text
    that may hold actions (:func:`_said`): what needs the ranges of the span-keeping parser."""
    return _type(v) in _ITEMS or (speaking and _said_value(v)) or _call_value(v)


def _wants(value: Any) -> bool:
    """Does the decoded ``value`` (a session record) hold what :func:`_wanted` says? Decided on
    the C decoder's values; a line holding nothing wanted is not parsed again."""
    return _somewhere(value, _wanted)


_READ_KEYS = frozenset({"function", "functionCall", "functionResponse", "tool_call_id", "toolCallResults"})
_READ_TYPES = frozenset({*_ITEMS, "tool_result", "tool", "tool_use", "gemini"})


def _reads(v: dict[str, Any], speaking: bool) -> bool:
    """Might :meth:`ToolCalls._visit` do anything with this decoded object itself (a call, a
    result, text it reads, a working directory), inside an assistant message or not
    (``speaking``)? Never False where it would; True may be wrong (the walker then looks and
    finds nothing)."""
    if not _READ_KEYS.isdisjoint(v) or v.get("say") == "tool" or v.get("ask") == "tool":
        return True
    kind = _type(v)  # (a string or None: a "type" may be an object)
    if kind in _READ_TYPES:
        return True
    if kind == "text":
        said = v.get("text")
        if isinstance(said, str) and (said.startswith("[") or "# Current Working Directory (" in said):
            return True
    if _named(v) and not _ARG_KEYS_SET.isdisjoint(v):
        return True
    return speaking and _said_value(v)


def _holds(value: Any, speaking: bool) -> bool:
    """Does the decoded ``value`` hold an object the walker reads (:func:`_reads`)? The walker
    leaves a subtree that holds none unexpanded, and a tree made as it is read
    (:mod:`action_lsp.jsonlazy`) then makes no node of it."""
    return _somewhere(value, _reads, speaking)


def _read_below(value: Any, speaking: bool, path: list[int],
                found: list[tuple[tuple[int, ...], Any, bool]], depth: int = 0) -> None:
    """The objects below the decoded container ``value`` that the walker reads (:func:`_reads`),
    nearest first, in document order, none below them: each one's path of member or item
    indices (``path``: the one to ``value``), value, and whether it sits in an assistant
    message (as :func:`_somewhere` walks; past 48 levels, the container there: the walker
    decides)."""
    if depth > 48:
        found.append((tuple(path), value, speaking))
        return
    depth += 1
    keys = list(value) if isinstance(value, dict) else None
    path.append(0)
    for i, v in enumerate(value.values() if keys is not None else value):
        if keys is not None and keys[i] in _NOT_CALLS:
            continue
        if isinstance(v, dict):
            if not v:
                continue
            path[-1] = i
            role = v.get("role")
            kind = v.get("type")
            said = speaking
            if isinstance(role, str) or kind == "user" or kind == "gemini":
                said = role == "assistant" or role == "model" or kind == "gemini"
            if _reads(v, said):
                found.append((tuple(path), v, said))
            else:
                _read_below(v, said, path, found, depth)
        elif isinstance(v, list):
            path[-1] = i
            _read_below(v, speaking, path, found, depth)
    path.pop()


def _call_value(v: dict[str, Any]) -> bool:
    """:func:`call_shape` on a decoded object."""
    fn = v.get("function") or v.get("functionCall")
    if isinstance(fn, dict):
        return isinstance(fn.get("name"), str) and ("arguments" in fn or "args" in fn or "functionCall" in v)
    if v.get("say") == "tool" or v.get("ask") == "tool":
        said = v.get("text")
        return isinstance(said, str) and said.lstrip().startswith("{")
    if v.get("type") == "tool" and isinstance(v.get("tool"), str):  # opencode
        state = v.get("state")
        if isinstance(state, dict) and "input" in state:
            return True
    if not _named(v):
        return False
    args = next((v[k] for k in _ARG_KEYS if k in v), None)
    if isinstance(args, dict):
        return not _is_schema(args)
    return isinstance(args, str) or v.get("type") == "tool_use"


def _said_value(v: dict[str, Any]) -> bool:
    """:func:`_said` on a decoded object."""
    kind = _type(v)
    if kind in _TEXT_TYPES or (kind is None and "text" in v and not v.get("thought")):
        said = v.get("text")
    elif "role" in v or kind == "gemini":
        said = v.get("content")
    else:
        return False
    return isinstance(said, str) and _ACTION_HINT.search(said) is not None


_CLINE_RESULT = re.compile(r"\[(\w+)(?: for '[^'\r\n]*')?\] Result:")
#: How Cline's results say a call was not carried out (formatResponse.toolDenied, toolError, ...),
#: and Roo's and Kilo's refused ``apply_diff`` (``Unable to apply diff to file: ...`` with its
#: ``<error_details>``, the multi-file form's bare ``<error_details>``, unparsable XML).
_CLINE_FAILURES = ("The user denied this operation", "The tool execution failed", "[ERROR]", "Error:",
                   "Unable to apply diff to file", "<error_details>", "Failed to parse apply_diff XML")
#: How Copilot Chat answers a call it refused (``ERROR while calling tool: Invalid input path ...``).
_COPILOT_FAILURE = "ERROR while calling tool"


def _copilot_results(answers: JNode, errors: dict[str, tuple[str, Span]], answered: set[str] | None) -> None:
    """Copilot Chat's ``toolCallResults`` (an exported request's metadata): call id -> the
    answer, ``{"content": [{"value": text}, ...]}``; a refused call is an error."""
    for m in answers.members or ():
        if answered is not None:
            answered.add(m.key)
        v = m.value.value
        parts = v.get("content") if isinstance(v, dict) else None
        text = "".join(p["value"] for p in parts if isinstance(p, dict) and isinstance(p.get("value"), str)) \
            if isinstance(parts, list) else ""
        if text.startswith(_COPILOT_FAILURE):
            errors.setdefault(m.key, (first_line(text) or _COPILOT_FAILURE, m.key_span))


_CWD_LINE = re.compile(r"# Current Working Directory \(([^)\r\n]+)\)")


def _cwd(node: JNode) -> str | None:
    """The working directory a document records: a ``cwd`` member at its top (Claude Code),
    or the ``# Current Working Directory (...)`` line of Cline's environment details."""
    v = node.value
    if isinstance(v, dict):
        info = v.get("info")  # opencode's session export
        for holder in (v, info if isinstance(info, dict) else {}):
            for key in ("cwd", "workspace", "working_dir", "workspace_root", "directory"):
                found = holder.get(key)
                if isinstance(found, str) and (found.startswith(("/", "\\")) or found[1:2] == ":"):
                    return found
        payload = v.get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("cwd"), str):
            return payload["cwd"]
    return _cwd_in(v)


def _cwd_in(value: Any, depth: int = 0) -> str | None:
    """Cline's environment details line, in the first messages' text."""
    if depth > 4:
        return None
    if isinstance(value, str):
        if "# Current Working Directory (" in value:
            m = _CWD_LINE.search(value)
            return m.group(1).strip() if m else None
        return None
    items = value[:8] if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else ()
    for item in items:
        found = _cwd_in(item, depth + 1)
        if found:
            return found
    return None


class ToolCalls(Dialect):
    name = "tool-calls"
    description = "OpenAI/Anthropic tool-call JSON (messages, tool_calls, tool_use) and Codex CLI rollout JSONL"
    order = 75
    records = True
    # function_call_output, custom_tool_call_output; tool_result blocks and lines; Gemini's
    # functionResponse; Codex's patch_apply_end events
    result_markers = ('_output"', '"tool_result"', '"functionResponse"', '"patch_apply_end"')
    prose_json = True
    fence_infos = frozenset({"json"})
    fence_body_needs = re.compile(r"messages|choices|input|output|role|type|\\")  # keys _shaped reads
    specs = SPECS
    any_type = True  # any tool name is a valid call

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        return None

    def edit_rules(self, action: Action) -> EditRules:
        return tool_rules(action)

    def file_view(self, action: Action) -> FileView | None:
        view = super().file_view(action)
        patched = _patch_view() if action.edits else None
        return patched(view) if patched is not None else view

    # -- recognising ---------------------------------------------------------------------------

    def claims_records(self, first: Any) -> bool:
        """Any record: its tool-call-shaped objects, wherever they sit, are read."""
        return isinstance(first, dict | list)

    @staticmethod
    def _shaped(node: JNode) -> bool:
        """A tool-call document: messages, a response with choices/content/output, one
        message (OpenAI, Anthropic, Gemini ``parts``), a rollout item, or a call itself."""
        v = node.value
        if not isinstance(v, dict):
            return False
        for key in ("messages", "choices", "input", "output", "contents", "history", "toolCalls"):
            if isinstance(v.get(key), list):
                return True
        if isinstance(v.get("requests"), list) and "responderUsername" in v:
            return True  # VS Code Copilot Chat's "Export Chat": calls and their results per request
        if v.get("role") in ("assistant", "user", "tool", "model") and (
            "tool_calls" in v or isinstance(v.get("content"), list) or isinstance(v.get("parts"), list)
        ):
            return True
        if _type(v) in _ITEMS or (v.get("type") == "message" and isinstance(v.get("content"), list)):
            return True
        if v.get("type") == "tool_use" or v.get("say") == "tool" or v.get("ask") == "tool":
            return call_shape(node) is not None  # one call: an Anthropic block, a Cline UI message
        return False

    def parse_prose_json(self, ctx: ScanContext, start: int, result: JResult) -> Construct | None:
        node = result.node
        if node is None or node.kind != "object" or not self._shaped(node):
            return None
        span = Span(start, result.end)
        actions, diagnostics = self._walk(node, span, "tool calls", getattr(ctx, "dialects", None))
        diagnostics[:0] = json_diagnostics(ctx.text, result, span, "bad JSON in tool calls")
        return Construct(span, actions, diagnostics, lookahead=result.end)

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """A ```` ```json ```` fence whose body is a tool-call document (else an example)."""
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(ctx.text)
        result = parse_json(ctx.text, fence.body_start, body_end)
        if result.node is None or result.node.kind != "object" or not self._shaped(result.node):
            return None
        end = close[1] if close else len(ctx.text)
        span = Span(fence.start, end)
        actions, diagnostics = self._walk(result.node, span, "```json tool calls", getattr(ctx, "dialects", None))
        diagnostics[:0] = json_diagnostics(ctx.text, result, Span(fence.body_start, body_end), "bad JSON in tool calls")
        return Construct(span, actions, diagnostics, lookahead=end)

    # -- JSON Lines ----------------------------------------------------------------------------

    def parse_record(
        self, ctx: ScanContext, start: int, end: int, record: Any, problem: Diagnostic | None
    ) -> tuple[Construct, dict[str, list[int]]]:
        """One line: its tool calls (failed ones by the results in the same line marked). A
        Codex call's output comes on a later line (:meth:`record_results`); one that says it
        failed makes the call a ``tool-error`` hint, not applied."""
        text = ctx.text
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        calls: dict[str, list[int]] = {}
        waiting: dict[str, list[int]] = {}
        if problem is not None:
            diagnostics.append(problem)
        elif isinstance(record, dict | list):
            payload = record.get("payload") if isinstance(record, dict) else None
            item: Any = payload if isinstance(payload, dict) else record
            outputs = isinstance(item, dict) and _type(item) in _OUTPUTS
            shaped = not outputs and _MARKED.search(text, start, end) is not None and _wants(record)
            node = record_node(text, start, end, record) if shaped else None
            if node is not None:
                errors: dict[str, tuple[str, Span]] = {}
                answered: set[str] = set()
                self._visit(node, Span(start, end), "session record", actions, diagnostics, calls, errors, answered,
                            getattr(ctx, "dialects", None))
                _resolve(actions, diagnostics, calls, errors)
                # the calls no result in this line answers: a later line may
                waiting = {k: v for k, v in calls.items() if k not in answered}
        construct = Construct(Span(start, end), actions, diagnostics, lookahead=end)
        turn = ctx.cache.get(TURN_CWD) if actions else None
        if turn is not None:
            self._in_turn(turn, first_cwd(ctx), actions)
        if any(_absolute(a) for a in actions):
            _session_cwd(first_cwd(ctx), actions)
        return construct, waiting

    def _in_turn(self, turn: str, first: tuple[str, int] | None, actions: list[Action]) -> None:
        """The relative paths of this line's calls, read in the directory of the turn they ran
        in (the last Codex ``turn_context`` before the line, given by the scan: see
        :mod:`action_lsp.session_dirs`): Codex resolves ``b.py`` there, so a turn run in
        ``/p/sub`` wrote ``/p/sub/b.py`` -- the project's ``sub/b.py`` once read under the
        session's first ``cwd``, and outside the project an ``absolute-path`` error. A turn in
        the session's own directory changes nothing. (The text of the assistant's messages,
        read by the markdown dialects, ran nowhere: left as written.)"""
        if first is not None and turn == first[0]:
            return
        for a in actions:
            if a.dialect != self.name:
                continue
            for key in _PATH_FIELDS:
                if key in a.fields:
                    a.fields[key] = in_workdir(a.fields[key], turn)

    def record_results(self, record: Any, text: str, start: int, end: int) -> dict[str, tuple[str | None, Span]]:
        """The results a line gives: a Codex call output (whether it says the call failed), a
        Codex ``patch_apply_end`` event, and ``tool_result`` objects anywhere in it."""
        if not isinstance(record, dict | list):
            return {}
        payload = record.get("payload") if isinstance(record, dict) else None
        item: Any = payload if isinstance(payload, dict) else record
        if isinstance(item, dict) and _type(item) in _OUTPUTS:
            call_id = str(item.get("call_id", ""))
            message = _failure(item.get("output"))
            if message is None:
                return {call_id: (None, Span(start, start))}
            return {call_id: (message, _where(text, call_id, start, end))}
        if isinstance(item, dict) and _type(item) == "patch_apply_end" and isinstance(item.get("call_id"), str):
            call_id = item["call_id"]
            if item.get("success") is False:
                message = first_line(item.get("stderr")) or "the patch was not applied"
                return {call_id: (message, _where(text, call_id, start, end))}
            return {call_id: (None, Span(start, start))}
        found: dict[str, tuple[str | None, Span]] = {}
        _decoded_results(record, text, start, end, found, 0)
        return found

    # -- walking the shapes --------------------------------------------------------------------

    def _walk(self, node: JNode, group: Span, label: str, dialects: Any = None) -> tuple[list[Action], list[Diagnostic]]:
        """The calls of one JSON document, failed ones (by their results in it) marked."""
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        calls: dict[str, list[int]] = {}
        errors: dict[str, tuple[str, Span]] = {}
        self._visit(node, group, label, actions, diagnostics, calls, errors, None, dialects)
        _resolve(actions, diagnostics, calls, errors)
        return actions, diagnostics

    def _visit(self, node: JNode, group: Span, label: str, actions: list[Action],
               diagnostics: list[Diagnostic], calls: dict[str, list[int]],
               errors: dict[str, tuple[str, Span]], answered: set[str] | None = None,
               dialects: Any = None) -> None:
        """Every tool-call-shaped object in ``node``, wherever it sits, in document order (see
        :func:`call_shape`); the results met on the way (by call id) in ``errors`` (failed) and
        ``answered`` (any). A call's own arguments are not searched for calls. With the scan's
        ``dialects``, the text of the assistant's messages is read by them (:func:`_said`)."""
        cwd = [_cwd(node)]  # the working directory recorded last (Cline's changes as it goes)

        def relativize(f: Field) -> Field:
            return relative_path(f, cwd[0])

        # A subtree whose decoded value holds nothing read here is left unread (and, in a tree
        # made as read, unmade), when the values show every member: no key written twice.
        prune: bool | None = None if isinstance(node, LazyNode) else False  # (asked when first needed)
        named: list[tuple[str, str]] = []  # (tool name, call id) of the calls, in order
        stack: list[tuple[JNode, bool]] = [(node, False)]  # (value, inside an assistant message)
        while stack:
            obj, speaking = stack.pop()
            if obj.kind == "array":
                if prune is not False:
                    if prune is None:
                        prune = keys_unique(node)
                    if prune and self._below(obj, speaking, stack):
                        continue
                stack.extend((item, speaking) for item in reversed(obj.items or ()))
                continue
            if obj.kind != "object" or not obj.value:  # (no members: its value is {} too)
                continue
            v = obj.value
            kind = _type(v)
            role = v.get("role")
            if isinstance(role, str) or kind in ("user", "gemini"):
                speaking = role in ("assistant", "model") or kind == "gemini"
            if speaking and dialects is not None:
                for text in _said(obj):
                    self._scan_said(text, dialects, actions, diagnostics)
            if kind in _ITEMS:
                self._item(obj, group, label, actions, diagnostics, calls)
                continue
            answers = obj.get("toolCallResults") if "toolCallResults" in v else None
            if answers is not None and answers.value.kind == "object":
                _copilot_results(answers.value, errors, answered)
            said = v.get("text") if kind == "text" else None
            if isinstance(said, str) and said.startswith("["):
                self._cline_result(obj, said, named, errors, answered)
            elif isinstance(said, str) and "# Current Working Directory (" in said:
                cwd[0] = _cwd_in(said) or cwd[0]
            result = _result(obj)
            if result is not None:
                call_id, message, where = result
                if answered is not None:
                    answered.add(call_id)
                if message is not None:
                    errors.setdefault(call_id, (message, where))
                continue
            shape = call_shape(obj)
            if shape is not None:
                self._shaped_call(obj, shape, group, label, actions, diagnostics, calls, errors, relativize)
                if isinstance(shape[2], str):
                    named.append((shape[0].value, shape[2]))
                continue
            if prune is not False:
                if prune is None:
                    prune = keys_unique(node)
                if prune and self._below(obj, speaking, stack):
                    continue
            if prune is not False:
                kids = [(k, x) for k, x in v.items() if isinstance(x, dict | list) and k not in _NOT_CALLS]
                keep = {k for k, x in kids if _holds(x, speaking)}
                if len(keep) < len(kids) or not kids:  # something to leave unread (or nothing to read)
                    if prune is None:
                        prune = keys_unique(node)
                    if prune:
                        if keep:
                            stack.extend((m.value, speaking) for m in reversed(obj.members or ()) if m.key in keep)
                        continue
            for m in reversed(obj.members or ()):
                if m.key not in _NOT_CALLS and m.value.kind in ("object", "array"):
                    stack.append((m.value, speaking))

    @staticmethod
    def _below(obj: JNode, speaking: bool, stack: list[tuple[JNode, bool]]) -> bool:
        """Push the objects below ``obj`` the walker reads (:func:`_read_below`), made straight
        from a long document's separators (:func:`~action_lsp.jsonlazy.descendants`: no node
        for what lies between). False, nothing pushed, when they cannot be made so."""
        found: list[tuple[tuple[int, ...], Any, bool]] = []
        _read_below(obj.value, speaking, [], found)
        made = descendants(obj, [(path, value) for path, value, _ in found])
        if made is None:
            return False
        stack.extend(zip(reversed(made), [said for _, _, said in reversed(found)], strict=True))
        return True

    @staticmethod
    def _scan_said(text: JNode, dialects: Any, actions: list[Action], diagnostics: list[Diagnostic]) -> None:
        """Read a message's text (a decoded JSON string) with the markdown dialects: the XML
        tools, SEARCH/REPLACE blocks, diffs and patches in it, their ranges mapped through the
        string's escapes to the document."""
        from ..scan import scan

        smap = text.source_map
        if smap is None:
            return
        for unit in scan(text.value, dialects):
            actions.extend(map_action(a, smap) for a in unit.actions)
            diagnostics.extend(map_diagnostic(d, smap) for d in unit.diagnostics)

    @staticmethod
    def _cline_result(obj: JNode, said: str, named: list[tuple[str, str]],
                      errors: dict[str, tuple[str, Span]], answered: set[str] | None) -> None:
        """Cline's result of a call as text (``[replace_in_file for 'a.ts'] Result:`` then what
        happened): it answers the first call of that tool not answered yet; a denied or failed
        one is an error."""
        m = _CLINE_RESULT.match(said)
        if m is None:
            return
        k = next((k for k, (name, call_id) in enumerate(named) if name == m.group(1)), None)
        if k is None:
            return
        call_id = named.pop(k)[1]
        if answered is not None:
            answered.add(call_id)
        body = said[m.end():].lstrip()
        if body.startswith(_CLINE_FAILURES):
            member = obj.get("text")
            where = member.value.inner_span if member is not None else obj.span
            errors.setdefault(call_id, (first_line(body), where))

    def _shaped_call(self, obj: JNode, shape: tuple[JNode, JNode | None, Any], group: Span, label: str,
                     actions: list[Action], diagnostics: list[Diagnostic], calls: dict[str, list[int]],
                     errors: dict[str, tuple[str, Span]], relativize: Any) -> None:
        name, args, call_id = shape
        if isinstance(call_id, str) and call_id in calls:
            return  # the same call written twice in one message (content[] and tool_calls[])
        inp: Input | None = None
        problems: list[Diagnostic] = []
        if args is not None and args.kind == "string":
            inp, problems = decode_arguments(args, f"`{name.value}`")
        elif args is not None and args.kind == "object":
            inp = Input(args)
        call = Call(self.name, name.value, name.inner_span, obj.span, inp, group, label, relativize,
                    diagnostics=problems)
        before = len(actions)
        self._add(call, call_id, actions, diagnostics, calls)
        holder = obj
        state = obj.get("state")  # opencode keeps the outcome in the call's state
        if state is not None and state.value.kind == "object":
            holder = state.value
            if "callID" in obj.value:  # (opencode's patch: an added file as opencode writes it)
                for a in actions[before:]:
                    _opencode_added(a)
        status = holder.value.get("status")
        if status in ("error", "cancelled", "canceled") and len(actions) > before:
            # Gemini CLI's saved chats, opencode: the call records its own outcome.
            hv = holder.value
            message = first_line(hv.get("resultDisplay")) or first_line(hv.get("error")) or first_line(
                hv.get("output")) or str(status)
            member = holder.get("status")
            where = member.value.inner_span if member is not None else obj.span
            for k in range(before, len(actions)):
                actions[k], note = failed(actions[k], message, where)
                diagnostics.append(note)

    def _add(self, call: Call, call_id: Any, actions: list[Action], diagnostics: list[Diagnostic],
             calls: dict[str, list[int]]) -> None:
        action = call_action(call)
        diagnostics.extend(call.diagnostics)
        patch = action.fields.get("patch")
        found = self._patch_actions(action, patch) if patch is not None else None
        workdir = action.fields["workdir"].value if "workdir" in action.fields else None
        for a in found[0] if found else ():
            for key in _PATH_FIELDS:
                if key in a.fields:
                    f = in_workdir(a.fields[key], workdir)
                    a.fields[key] = call.relativize(f) if call.relativize is not None else f
        added = found[0] if found else [action, *call.more]
        if isinstance(call_id, str):
            calls[call_id] = list(range(len(actions), len(actions) + len(added)))
        actions.extend(added)
        if found:
            diagnostics.extend(found[1])

    def _patch_actions(self, action: Action, patch: Field) -> tuple[list[Action], list[Diagnostic]] | None:
        parse_patch = _patch_parser()
        value = patch.value
        if parse_patch is None or not isinstance(value, str) or patch.source_map is None:
            return None
        begin = value.find("*** Begin Patch")
        if begin < 0:
            return None
        result = parse_patch(value, begin, len(value), dialect=self.name, outer=patch.source_map,
                             group=action.group)
        if not result.actions:
            return None
        for a in result.actions:
            a.group_label = action.group_label
        return list(result.actions), list(result.diagnostics)

    def _item(self, item: JNode, group: Span, label: str, actions: list[Action],
              diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        """A Responses-API / Codex item: function_call, custom_tool_call, local_shell_call."""
        v = item.value
        call_id = v.get("call_id") or v.get("id")
        if v.get("type") == "local_shell_call":
            act = item.get("action")
            inp = Input(act.value) if act is not None and act.value.kind == "object" else None
            kind_member = item.get("type")
            assert kind_member is not None
            self._add(Call(self.name, "local_shell", kind_member.value.inner_span, item.span, inp, group, label),
                      call_id, actions, diagnostics, calls)
            return
        if v.get("type") == "custom_tool_call":
            name = item.get("name")
            raw = item.get("input")
            if name is None or name.value.kind != "string":
                return
            field = None
            if raw is not None and raw.value.kind == "string":
                smap = raw.value.source_map
                field = Field("patch", raw.value.value, raw.value.inner_span, None, smap)
            call = Call(self.name, name.value.value, name.value.inner_span, item.span, None, group, label, raw=field)
            self._add(call, call_id, actions, diagnostics, calls)
            return
        self._function(item, item, call_id, group, label, actions, diagnostics, calls)

    def _function(self, fn: JNode, whole: JNode, call_id: Any, group: Span, label: str,
                  actions: list[Action], diagnostics: list[Diagnostic], calls: dict[str, list[int]]) -> None:
        name = fn.get("name")
        if name is None or name.value.kind != "string":
            return
        args = fn.get("arguments")
        inp: Input | None = None
        problems: list[Diagnostic] = []
        if args is not None and args.value.kind == "string":
            inp, problems = decode_arguments(args.value, f"`{name.value.value}`")
        elif args is not None and args.value.kind == "object":
            inp = Input(args.value)
        call = Call(self.name, name.value.value, name.value.inner_span, whole.span, inp, group, label,
                    diagnostics=problems)
        self._add(call, call_id, actions, diagnostics, calls)


DIALECT = ToolCalls()
