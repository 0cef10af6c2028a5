"""Dialects declared in a project's configuration, without code (see docs/declared-dialects.md).

A ``[tool.action-lsp.dialects.NAME]`` table (in ``pyproject.toml``, or ``[dialects.NAME]`` in
``.action-lsp.toml``) becomes a :class:`DeclaredTags` or :class:`DeclaredJson` dialect: the
same bases the built-in tag and JSON dialects use (:class:`~.tag_dialect.TagDialect`,
:class:`~.json_fields.JsonDialect` and the JSON fence scanner), so a declared dialect gets the
same diagnostics, quick fixes, completion, hover, streaming state and apply.

This module defines no ``DIALECT``: the registry does not load it as a built-in.
:func:`build` turns one table into a dialect and raises :class:`DeclaredError` with the key
at fault when the table is wrong.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..jsonscan import JNode, parse_json
from ..markdown import FenceOpen
from ..model import Action, ActionKind, Diagnostic, FileView, Fix, Span
from ..schema import ActionSpec, FieldSpec, text
from ..shared import share
from .base import Construct, Dialect, ScanContext, TagOpen, role_view
from .json_fields import (
    JsonDialect,
    fields_of,
    json_diagnostics,
    json_fence_close,
    json_fence_end,
    mark_partial,
)
from .kind_names import contradiction
from .tag_dialect import TagDialect
from .tags import StartTag
from .tool_use import DeclaredTool

KINDS: dict[str, ActionKind] = {
    "create": ActionKind.CREATE_FILE,
    "write": ActionKind.WRITE_FILE,
    "modify": ActionKind.MODIFY_FILE,
    "delete": ActionKind.DELETE_FILE,
    "rename": ActionKind.RENAME_FILE,
    "mkdir": ActionKind.CREATE_DIRECTORY,
    "read": ActionKind.READ_FILE,
    "command": ActionKind.COMMAND,
    "code": ActionKind.CODE,
    "other": ActionKind.OTHER,
}
# The roles a field may play, and the kinds that need them.
ROLES = ("path", "to", "content", "search", "replace", "command")
NEEDS: dict[ActionKind, tuple[str, ...]] = {
    ActionKind.CREATE_FILE: ("path", "content"),
    ActionKind.WRITE_FILE: ("path", "content"),
    ActionKind.MODIFY_FILE: ("path", "search", "replace"),
    ActionKind.DELETE_FILE: ("path",),
    ActionKind.RENAME_FILE: ("path", "to"),
    ActionKind.CREATE_DIRECTORY: ("path",),
    ActionKind.READ_FILE: ("path",),
    ActionKind.COMMAND: ("command",),
}
SYNTAXES = ("children", "attributes", "json")
_TAG_AT = re.compile(r"<([A-Za-z][\w\-.:]*)")
_NAME = re.compile(r"[A-Za-z][\w\-.:]*\Z")
_DIALECT_KEYS = {"description", "syntax", "fences", "type-attribute", "default-type", "type-key", "list-key", "actions"}
_ACTION_KEYS = {"tag", "kind", "doc", "required", "optional", "body", *ROLES}


class DeclaredError(ValueError):
    """A declared dialect's table is wrong; the message names the key."""


@dataclass(frozen=True, slots=True)
class Roles:
    """Which field plays which role in one action type (``content`` -> ``contents``)."""

    names: Mapping[str, str]

    def get(self, action: Action, role: str) -> Any:
        name = self.names.get(role)
        return action.fields.get(name) if name else None


def _key(raw: str) -> str:
    return raw.replace("_", "-")


def _strings(where: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise DeclaredError(f"{where}: expected a list of names")
    return list(value)


def _name(where: str, value: Any) -> str:
    if not isinstance(value, str) or not _NAME.match(value):
        raise DeclaredError(f"{where}: expected a name (letters, digits, - _ . :); got {value!r}")
    return value


def build(name: str, table: Any, reserved: frozenset[str] = frozenset()) -> Dialect:
    """The dialect a ``dialects.NAME`` table declares."""
    where = f"dialects.{name}"
    _name(where, name)
    if name in reserved:
        raise DeclaredError(f"{where}: {name!r} is a built-in dialect; choose another name")
    if not isinstance(table, Mapping):
        raise DeclaredError(f"{where}: expected a table")
    table = {_key(k): v for k, v in table.items()}
    unknown = sorted(set(table) - _DIALECT_KEYS)
    if unknown:
        raise DeclaredError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_DIALECT_KEYS))})")
    syntax = table.get("syntax", "children")
    if syntax not in SYNTAXES:
        raise DeclaredError(f"{where}.syntax: {syntax!r} is not one of {', '.join(SYNTAXES)}")
    description = table.get("description", f"declared in the project's configuration ({syntax})")
    if not isinstance(description, str):
        raise DeclaredError(f"{where}.description: expected a string")
    fences = [f.lower() for f in _strings(f"{where}.fences", table.get("fences", []))]
    actions = table.get("actions")
    if not isinstance(actions, Mapping) or not actions:
        raise DeclaredError(f"{where}.actions: declare at least one action, as a table [{where}.actions.NAME]")
    type_attribute = table.get("type-attribute")
    if type_attribute is not None:
        if syntax == "json":
            raise DeclaredError(f"{where}.type-attribute: only for tag dialects; JSON uses type-key")
        type_attribute = _name(f"{where}.type-attribute", type_attribute)
    default_type = table.get("default-type")
    if default_type is not None and not isinstance(default_type, str):
        raise DeclaredError(f"{where}.default-type: expected the name of one of its actions")
    if default_type is not None and default_type not in actions:
        raise DeclaredError(f"{where}.default-type: {default_type!r} is not one of its actions")
    specs: dict[str, ActionSpec] = {}
    roles: dict[str, Roles] = {}
    tags: dict[str, str] = {}  # action type -> the tag that writes it
    bodies: dict[str, str] = {}
    for type_name, raw in actions.items():
        spec, role, tag, body = _action(syntax, f"{where}.actions.{type_name}", type_name, raw, type_attribute)
        specs[type_name], roles[type_name], tags[type_name] = spec, role, tag
        if body:
            bodies[type_name] = body
    if syntax == "json":
        type_key = _name(f"{where}.type-key", table.get("type-key", "type"))
        list_key = table.get("list-key")
        if list_key is not None:
            list_key = _name(f"{where}.list-key", list_key)
        if not fences:
            raise DeclaredError(f"{where}.fences: a JSON dialect is read from fences; name their info words")
        return DeclaredJson(name, description, specs, roles, fences, type_key, list_key)
    if type_attribute is None:
        mismatch = next((t for t, tag in tags.items() if tag != t), None)
        if mismatch is not None:
            raise DeclaredError(
                f"{where}.actions.{mismatch}.tag: several actions share a tag only with "
                f"{where}.type-attribute naming the attribute that tells them apart"
            )
    return DeclaredTags(
        name, description, specs, roles, fences, syntax == "children", bodies,
        frozenset(tags.values()), type_attribute, default_type,
    )


def _action(
    syntax: str, where: str, type_name: str, raw: Any, type_attribute: str | None
) -> tuple[ActionSpec, Roles, str, str]:
    if not isinstance(raw, Mapping):
        raise DeclaredError(f"{where}: expected a table")
    raw = {_key(k): v for k, v in raw.items()}
    unknown = sorted(set(raw) - _ACTION_KEYS)
    if unknown:
        raise DeclaredError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_ACTION_KEYS))})")
    if syntax != "json" and type_attribute is None:
        _name(where, type_name)  # it is the tag name
    kind_name = raw.get("kind", "other")
    kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
    if kind is None:
        raise DeclaredError(f"{where}.kind: {kind_name!r} is not one of {', '.join(KINDS)}")
    names = {role: _name(f"{where}.{role}", raw[role]) for role in ROLES if role in raw}
    missing = [r for r in NEEDS.get(kind, ()) if r not in names]
    if missing:
        raise DeclaredError(
            f"{where}: a {kind_name} action needs {' and '.join(missing)} = \"FIELD\" "
            "(which attribute, child element or key holds it)"
        )
    tag = raw.get("tag", type_name)
    if syntax != "json":
        tag = _name(f"{where}.tag", tag)
    why = contradiction(kind_name, (type_name, tag) if syntax != "json" else (type_name,))
    if why is not None:
        raise DeclaredError(f"{where}.kind: {why}")
    body = raw.get("body", "")
    if body and syntax != "attributes":
        raise DeclaredError(f"{where}.body: only attribute dialects have a body field")
    if body:
        body = _name(f"{where}.body", body)
    required = _strings(f"{where}.required", raw.get("required", []))
    optional = _strings(f"{where}.optional", raw.get("optional", []))
    doc = raw.get("doc", "")
    if not isinstance(doc, str):
        raise DeclaredError(f"{where}.doc: expected a string")
    fields: dict[str, FieldSpec] = {}
    for n in required:
        fields[n] = FieldSpec(n, True, text())
    for n in [*names.values(), *optional, *([body] if body else [])]:
        fields.setdefault(n, FieldSpec(n, False, text()))
    for role, n in names.items():
        f = fields[n]
        fields[n] = FieldSpec(n, f.required, f.check, f"the {_ROLE_DOC[role]}")
    spec = ActionSpec(type_name, kind, tuple(fields.values()), doc or f"{kind_name} ({where})")
    return spec, Roles(names), tag, body


_ROLE_DOC = {
    "path": "file's path, relative to the workspace",
    "to": "new path of the renamed file",
    "content": "file's whole content",
    "search": "text to find in the file",
    "replace": "text that replaces it",
    "command": "shell command (never run here)",
}


def _file_view(roles: Mapping[str, Roles], action: Action) -> FileView | None:
    """The file operation of a declared action, reading the fields by their roles."""
    role = roles.get(action.type)
    if role is None:
        return None
    return role_view(action, lambda name: role.get(action, name))


def _path_fields(roles: Mapping[str, Roles]) -> tuple[str, ...]:
    return tuple(sorted({r.names[k] for r in roles.values() for k in ("path", "to") if k in r.names}))


class DeclaredTags(TagDialect):
    """A tag dialect from a table: fields as child elements or as attributes plus a body."""

    order = 200  # after every built-in: a declared dialect never takes a built-in's tags

    def __init__(
        self,
        name: str,
        description: str,
        specs: dict[str, ActionSpec],
        roles: dict[str, Roles],
        fences: list[str],
        children: bool,
        bodies: dict[str, str],
        tags: frozenset[str],
        type_attribute: str | None,
        default_type: str | None,
    ) -> None:
        self.name = name
        self.description = description
        self.specs = specs
        self.roles = roles
        self.fence_infos = frozenset(fences)
        self.children = children
        self.body_fields = bodies
        self.tag_names = tags
        self.type_attribute = type_attribute
        self.default_type = default_type
        self.path_fields = _path_fields(roles)
        commands = {r.names["command"] for r in roles.values() if "command" in r.names}
        self.stripped_children = frozenset({"path", "command", "description", *self.path_fields, *commands})
        contents = {r.names[k] for r in roles.values() for k in ("content",) if k in r.names}
        self.long_children = frozenset({"content", *contents})
        self._opener = re.compile(r"<(" + "|".join(re.escape(t) for t in sorted(tags, key=lambda t: -len(t))) + r")(?=[\s/>])")

    def action_type(self, ctx: ScanContext, tag: TagOpen, start: StartTag) -> tuple[str, Span]:
        if self.type_attribute is None:
            return tag.canonical, tag.name_span
        for a in start.attributes:
            if a.name == self.type_attribute and isinstance(a.value, str):
                return a.value, a.span
        return self.default_type or tag.canonical, tag.name_span

    def kind(self, type_name: str) -> ActionKind:
        spec = self.spec(type_name)
        return spec.kind if spec else ActionKind.OTHER

    def insert_field_fix(self, text: str, action: Action, field: str) -> Fix | None:
        m = _TAG_AT.match(text, action.span.start)
        if self.type_attribute is not None and m is not None:
            # The action is named by its type attribute; the element to insert into is the tag.
            action = dataclasses.replace(action, name_span=Span(m.start(1), m.end(1)))
        return super().insert_field_fix(text, action, field)

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        if self.type_attribute is None:
            return
        action.fields.pop(self.type_attribute, None)  # it names the action; it is no field
        if self.children:  # "takes no attributes" is not said of the attribute naming it
            text = ctx.text
            diagnostics[:] = [
                d for d in diagnostics
                if not (d.code == "unknown-field" and text[d.span.start : d.span.end] == self.type_attribute
                        and action.span.start <= d.span.start < action.name_span.end + 1)
            ]

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        """A fence of one of ``fences`` holding this dialect's tags (CodeCompanion's ```xml
        blocks); a fence without them is an ordinary example."""
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(ctx.text)
        end = close[1] if close else len(ctx.text)
        text = ctx.text
        actions: list[Action] = []
        diagnostics: list[Diagnostic] = []
        lookahead = end
        watch: list[str] = []
        pos = fence.body_start
        while True:
            m = self._opener.search(text, pos, body_end)
            if m is None:
                break
            name = m.group(1)
            got = self.parse_element(ctx, TagOpen(m.start(), name, Span(m.start() + 1, m.end()), name), Span(fence.start, end))
            actions.extend(got.actions)
            diagnostics.extend(got.diagnostics)
            lookahead = max(lookahead, got.lookahead)
            watch.extend(w for w in got.watch if w not in watch)
            pos = max(got.end, m.end())
        if not actions and not diagnostics:
            return None
        label = share(f"```{fence.word} block")
        for a in actions:
            a.group_label = label
        return Construct(Span(fence.start, end), actions, diagnostics, lookahead, tuple(watch))

    def file_view(self, action: Action) -> FileView | None:
        return _file_view(self.roles, action)

    def command_field(self, type_name: str) -> str:
        role = self.roles.get(type_name)
        return role.names.get("command", "command") if role else "command"


class DeclaredJson(JsonDialect):
    """A fenced-JSON dialect from a table: a fence holding one action object, a list of them,
    or an object whose ``list-key`` holds the list; ``type-key`` names each action's type."""

    order = 200

    def __init__(
        self,
        name: str,
        description: str,
        specs: dict[str, ActionSpec],
        roles: dict[str, Roles],
        fences: list[str],
        type_key: str,
        list_key: str | None,
    ) -> None:
        self.name = name
        self.description = description
        self.specs = specs
        self.roles = roles
        self.fence_infos = frozenset(fences)
        self.type_key = type_key
        self.list_key = list_key
        self.path_fields = _path_fields(roles)

    def file_view(self, action: Action) -> FileView | None:
        return _file_view(self.roles, action)

    def command_field(self, type_name: str) -> str:
        role = self.roles.get(type_name)
        return role.names.get("command", "command") if role else "command"

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct:
        text = ctx.text
        close, read_to = json_fence_close(ctx, fence)
        body_end = close[0] if close else len(text)
        result = parse_json(text, fence.body_start, body_end)
        what = share(f"```{fence.word} block")  # (every action's group label)
        diagnostics = json_diagnostics(text, result, Span(fence.body_start, body_end), f"bad JSON in {what}")
        end = json_fence_end(text, fence, result, close, body_end, what, diagnostics)
        span = Span(fence.start, end)
        actions: list[Action] = []
        if result.node is not None:
            for item in self._items(result.node, diagnostics):
                a = self._action(item, span, what, diagnostics)
                if a is not None:
                    actions.append(a)
            mark_partial(actions, result)
        return Construct(span, actions, diagnostics, lookahead=max(read_to, end))

    def _items(self, node: JNode, diagnostics: list[Diagnostic]) -> list[JNode]:
        if node.kind == "array":
            return node.items or []
        if node.kind == "object" and self.list_key is not None and node.get(self.list_key) is not None:
            member = node.get(self.list_key)
            assert member is not None
            if member.value.kind == "array":
                return member.value.items or []
            diagnostics.append(Diagnostic("invalid-value", f'"{self.list_key}" must be a list of action objects', member.value.span))
            return []
        return [node]

    def _action(self, item: JNode, group: Span, label: str, diagnostics: list[Diagnostic]) -> Action | None:
        if item.kind != "object":
            diagnostics.append(Diagnostic("invalid-value", f'each action must be an object with "{self.type_key}"', item.span))
            return None
        member = item.get(self.type_key)
        if member is None or not isinstance(member.value.value, str):
            brace = Span(item.span.start, item.span.start + 1)
            diagnostics.append(
                Diagnostic(
                    "missing-field",
                    f'this action has no "{self.type_key}"; add e.g. "{self.type_key}": "{next(iter(self.specs))}"',
                    member.value.span if member else brace,
                    data={"field": self.type_key},
                )
            )
            return None
        type_name = member.value.value
        spec = self.specs.get(type_name)
        return Action(
            self.name,
            type_name,
            spec.kind if spec else ActionKind.OTHER,
            item.span,
            member.value.inner_span,
            fields_of(item, skip=(self.type_key,)),
            group=group,
            group_label=label,
        )


_TOOL_KEYS = {"kind", "path", "content", "search", "replace", "command"}
_TOOL_KINDS = ("create", "write", "modify", "delete", "read", "command", "other")


def build_tool(name: str, table: Any) -> DeclaredTool:
    """The tool a ``tools.NAME`` table declares: ``kind`` and, for each role its kind needs,
    the argument key (or keys, the first present wins) that holds it."""
    where = f"tools.{name}"
    _name(where, name)
    if not isinstance(table, Mapping):
        raise DeclaredError(f"{where}: expected a table")
    table = {_key(k): v for k, v in table.items()}
    unknown = sorted(set(table) - _TOOL_KEYS)
    if unknown:
        raise DeclaredError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_TOOL_KEYS))})")
    kind_name = table.get("kind")
    if kind_name not in _TOOL_KINDS:
        raise DeclaredError(f"{where}.kind: {kind_name!r} is not one of {', '.join(_TOOL_KINDS)}")
    kind = KINDS[kind_name]
    keys = {role: tuple(_strings(f"{where}.{role}", table[role])) if isinstance(table.get(role), list)
            else (_name(f"{where}.{role}", table[role]),) for role in _TOOL_KEYS - {"kind"} if role in table}
    missing = next((r for r in NEEDS.get(kind, ()) if r not in keys), None)
    if missing is not None:
        raise DeclaredError(f"{where}.{missing}: a {kind_name} tool names the argument holding its {missing}")
    return DeclaredTool(name, kind, keys.get("path", ()), keys.get("content", ()), keys.get("search", ()),
                        keys.get("replace", ()), keys.get("command", ()))


__all__ = ["KINDS", "DeclaredError", "DeclaredJson", "DeclaredTags", "build", "build_tool"]
