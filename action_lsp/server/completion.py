"""``textDocument/completion``: action types, field and attribute names, enum values and
workspace paths, from the dialects' specs (:mod:`action_lsp.schema`).

The context is read from the text just before the cursor on its line:

* ``"type": "cr|`` — action types of the JSON dialects whose type key (``Dialect.type_key``)
  is the key written (``"action": "`` for action plans);
* ``<cr|`` — tag names (and, inside a tag action, the fields its dialect writes as child
  elements: ``Dialect.field_syntax``);
* ``{"type": "x", "|`` — field names of that action type;
* ``"status": "|`` / ``<status>|`` — the field's allowed values (``FieldSpec.values``);
* ``"path": "src/|`` / ``<path>src/|`` / ``path="src/|`` — files and folders of the workspace;
* ``<aether-write pa|`` — the fields its dialect writes as attributes.

Which action the cursor is in comes from the document's analysis, not from a re-parse here.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from ..dialects import Dialect
from ..model import Span
from ..schema import ActionSpec
from .convert import offset_of, span_range

if TYPE_CHECKING:
    from .documents import OpenDocument
    from .server import ActionLanguageServer

PATH_FIELDS = frozenset({"path", "file", "filepath", "file_path", "target", "source", "destination", "from", "to", "dir", "directory"})
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".tox"})
MAX_FILES = 5000

_FIELD_VALUE = re.compile(r'"([\w\-]+)"\s*:\s*"([^"\\]*)$')
_FIELD_KEY = re.compile(r'(?:^|[{,])\s*"([\w\-]*)$')
_TAG_NAME = re.compile(r"<([\w\-]*)$")
_ELEMENT_VALUE = re.compile(r"<([\w\-]+)>([^<]*)$")
_ATTR_VALUE = re.compile(r'<([\w\-]+)\s[^<>]*?([\w\-]+)="([^"]*)$')
_ATTR_NAME = re.compile(r'<([\w\-]+)(?:\s+[\w\-]+="[^"]*")*\s+([\w\-]*)$')


class Completion:
    def __init__(self, ls: ActionLanguageServer) -> None:
        self.ls = ls
        self._files: tuple[float, tuple[str, ...], list[tuple[str, bool]]] | None = None
        ls.on("files_changed", lambda paths: self._forget())

    def _forget(self) -> None:
        self._files = None

    # -- sources -------------------------------------------------------------------------
    def dialects(self) -> tuple[Dialect, ...]:
        return self.ls.settings.dialect_set().dialects

    def spec(self, type_name: str) -> ActionSpec | None:
        found = self.find(type_name)
        return found[1] if found else None

    def find(self, type_name: str) -> tuple[Dialect, ActionSpec] | None:
        """The enabled dialect that defines ``type_name``, and its spec."""
        for d in self.dialects():
            s = d.spec(type_name)
            if s is not None:
                return d, s
        return None

    def type_keys(self) -> frozenset[str]:
        return frozenset(d.type_key for d in self.dialects() if d.type_key)

    def files(self, root: Path) -> list[tuple[str, bool]]:
        """(relative path, is directory) under ``root``, cached for a few seconds."""
        now = time.monotonic()
        key = (str(root),)
        if self._files is not None and self._files[1] == key and now - self._files[0] < 5:
            return self._files[2]
        out: list[tuple[str, bool]] = []
        for base, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            rel = os.path.relpath(base, root)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            out.extend((prefix + d + "/", True) for d in dirs)
            out.extend((prefix + n, False) for n in sorted(names))
            if len(out) > MAX_FILES:
                break
        self._files = (now, key, out)
        return out

    # -- items ---------------------------------------------------------------------------
    def complete(self, od: OpenDocument, offset: int) -> list[types.CompletionItem]:
        text = od.text
        lines = od.doc.lines
        line_start = lines.line_start(lines.line_of(offset))
        prefix = text[line_start:offset]
        enc = self.ls.encoding

        def edit_range(typed: str) -> types.Range:
            return span_range(lines, Span(offset - len(typed), offset), enc)

        m = _FIELD_VALUE.search(prefix)
        if m and m.group(1) in self.type_keys():
            key, typed = m.group(1), m.group(2)
            ds = [d for d in self.dialects() if d.type_key == key]
            return self._specs(ds, typed, edit_range(typed))
        if m:
            name, typed = m.group(1), m.group(2)
            return self._values(od, offset, name, typed, edit_range(typed), self._json_type(od, offset))
        if m := _FIELD_KEY.search(prefix):
            typed = m.group(1)
            spec = self.spec(self._json_type(od, offset) or "")
            return _field_items(spec, edit_range(typed), types.CompletionItemKind.Field)
        if m := _ATTR_VALUE.search(prefix):
            tag, name, typed = m.groups()
            return self._values(od, offset, name, typed, edit_range(typed), tag)
        if m := _ATTR_NAME.search(prefix):
            tag, typed = m.groups()
            found = self.find(tag)
            if found is None:
                return []
            d, spec = found
            return _field_items(
                spec, edit_range(typed), types.CompletionItemKind.Property,
                lambda f: d.field_syntax(tag, f) == "attribute",
            )
        if m := _TAG_NAME.search(prefix):
            typed = m.group(1)
            items = self._tags(typed, edit_range(typed))
            enclosing = self._enclosing_action(od, offset, "child")
            found = self.find(enclosing) if enclosing else None
            if found is not None:
                d, spec = found
                items += [
                    types.CompletionItem(
                        label=f.name,
                        kind=types.CompletionItemKind.Field,
                        detail=f"field of {spec.type}",
                        documentation=f.doc or None,
                        text_edit=types.TextEdit(range=edit_range(typed), new_text=f.name),
                        sort_text="0" + f.name,
                    )
                    for f in spec.fields
                    if d.field_syntax(spec.type, f.name) == "child"
                ]
            return items
        if m := _ELEMENT_VALUE.search(prefix):
            name, typed = m.groups()
            return self._values(od, offset, name, typed, edit_range(typed), self._enclosing_action(od, offset, "child"))
        return []

    def _specs(self, ds: Iterable[Dialect], typed: str, rng: types.Range) -> list[types.CompletionItem]:
        return [
            types.CompletionItem(
                label=s.type,
                kind=types.CompletionItemKind.Class,
                detail=d.name,
                documentation=s.doc or None,
                text_edit=types.TextEdit(range=rng, new_text=s.type),
            )
            for d in ds
            for s in d.specs.values()
        ]

    def _tags(self, typed: str, rng: types.Range) -> list[types.CompletionItem]:
        out = []
        for d in self.dialects():
            if not (d.tag_names or d.tag_prefixes):
                continue
            names = set(d.tag_names) | set(d.specs)
            for name in sorted(names):
                if d.claims_tag(name):
                    s = d.spec(name)
                    out.append(
                        types.CompletionItem(
                            label=name,
                            kind=types.CompletionItemKind.Class,
                            detail=d.name,
                            documentation=(s.doc if s else None) or None,
                            text_edit=types.TextEdit(range=rng, new_text=name),
                        )
                    )
        return out

    def _values(
        self, od: OpenDocument, offset: int, name: str, typed: str, rng: types.Range, type_name: str | None
    ) -> list[types.CompletionItem]:
        spec = self.spec(type_name) if type_name else None
        fspec = spec.field(name) if spec else None
        if fspec is not None and fspec.values:
            return [
                types.CompletionItem(
                    label=v,
                    kind=types.CompletionItemKind.EnumMember,
                    text_edit=types.TextEdit(range=rng, new_text=v),
                )
                for v in fspec.values
            ]
        if name in PATH_FIELDS:
            return self._paths(od, typed, rng)
        return []

    def _paths(self, od: OpenDocument, typed: str, rng: types.Range) -> list[types.CompletionItem]:
        ws = self.ls.workspace_for(od)
        folder = typed.rpartition("/")[0]
        folder = folder + "/" if folder else ""
        out = []
        for rel, is_dir in self.files(ws.root):
            if not rel.startswith(folder) or rel == folder:
                continue
            rest = rel[len(folder) :]
            if "/" in rest.rstrip("/"):
                continue  # only the entries of the folder typed so far
            out.append(
                types.CompletionItem(
                    label=rel,
                    kind=types.CompletionItemKind.Folder if is_dir else types.CompletionItemKind.File,
                    text_edit=types.TextEdit(range=rng, new_text=rel),
                )
            )
        return out

    # -- context -------------------------------------------------------------------------
    def _json_type(self, od: OpenDocument, offset: int) -> str | None:
        """The type of the JSON action the cursor is in: from the analysis, or -- while the
        object is too broken to be an action yet -- its nearest type key before the cursor."""
        found = self._enclosing_action(od, offset, "key")
        if found is not None:
            return found
        keys = self.type_keys()
        if not keys:
            return None
        text = od.text
        start = text.rfind("{", max(0, offset - 20000), offset)
        if start < 0:
            return None
        end = text.find("}", offset, offset + 20000)
        body = text[start : end if end >= 0 else min(len(text), offset + 2000)]
        alternatives = "|".join(re.escape(k) for k in sorted(keys))
        m = re.search(rf'"(?:{alternatives})"\s*:\s*"([\w\-.]+)"', body)
        return m.group(1) if m else None

    def _enclosing_action(self, od: OpenDocument, offset: int, syntax: str) -> str | None:
        """The type of the action holding ``offset`` when its dialect writes fields as
        ``syntax`` (``child``, ``key``)."""
        from .documents import action_at

        i = action_at(od, offset)
        if i is None:
            return None
        a = od.analysis().actions[i]
        d = od.doc.dialects.get(a.dialect)
        spec = d.spec(a.type) if d else None
        if d is None or spec is None or not spec.fields:
            return None
        return a.type if d.field_syntax(a.type, spec.fields[0].name) == syntax else None


def register(ls: ActionLanguageServer) -> Completion:
    c = Completion(ls)

    @ls.handle(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=['"', "<", "/", " "]),
    )
    def completion(params: types.CompletionParams) -> types.CompletionList:
        od = ls.document(params.text_document.uri)
        offset = offset_of(od.doc.lines, params.position, ls.encoding)
        return types.CompletionList(is_incomplete=False, items=c.complete(od, offset))

    return c


def _field_items(
    spec: ActionSpec | None,
    where: types.Range,
    kind: types.CompletionItemKind,
    keep: Callable[[str], bool] = lambda name: True,
) -> list[types.CompletionItem]:
    """The fields (JSON keys) or attributes of an action type, required ones first."""
    if spec is None:
        return []
    return [
        types.CompletionItem(
            label=f.name,
            kind=kind,
            detail="required" if f.required else "optional",
            documentation=f.doc or None,
            text_edit=types.TextEdit(range=where, new_text=f.name),
            sort_text=("0" if f.required else "1") + f.name,
        )
        for f in spec.fields
        if keep(f.name)
    ]
