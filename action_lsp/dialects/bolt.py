"""``bolt``: bolt.new's artifacts (stackblitz/bolt.new).

``<boltArtifact id="kebab-id" title="Title">`` holds ``<boltAction type="file"
filePath="src/a.js">file</boltAction>`` (writes the whole file, creating or replacing it) and
``<boltAction type="shell">npm install</boltAction>`` (a command; ``type="start"`` starts a dev
server). Text around the actions inside the artifact is ignored, as bolt's streaming parser
(``app/lib/runtime/message-parser.ts``) ignores it.

As in bolt: an action counts only inside an artifact; its body is trimmed, and a file's content
gets one final line break. The action's type is its ``type`` attribute (``file``, ``shell``,
``start``); its range names that value. An action outside any artifact is reported
(``action-outside-block``); bolt does not run it.
"""

from __future__ import annotations

from types import MappingProxyType

from ..model import Action, ActionKind, Diagnostic, FileView, SourceMap, Span
from ..schema import ActionSpec, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .tag_dialect import TagDialect
from .tags import StartTag, find_close, parse_start_tag, unclosed_start_tag, watched_tags

ARTIFACT = "boltArtifact"
ACTION = "boltAction"

SPECS = specs(
    ActionSpec(
        "file",
        ActionKind.WRITE_FILE,
        (
            req("filePath", text(), "the file to write, relative to the project"),
            req("content", text(), "the whole file, as the tag's body"),
        ),
        "Write a whole file, creating it or replacing it.",
    ),
    ActionSpec(
        "shell",
        ActionKind.COMMAND,
        (req("command", text(), "the shell command, as the tag's body"),),
        "Run a shell command in the WebContainer (never run here).",
    ),
    ActionSpec(
        "start",
        ActionKind.COMMAND,
        (req("command", text(), "the command that starts the app, as the tag's body"),),
        "Start the app's dev server (never run here).",
    ),
)
ARTIFACT_SPEC = ActionSpec(
    ARTIFACT,
    ActionKind.OTHER,
    (
        req("id", text(), "a unique kebab-case identifier, reused for updates"),
        req("title", text(), "the artifact's title"),
    ),
    "A group of bolt actions.",
)


class Bolt(TagDialect):
    name = "bolt"
    description = "bolt.new's <boltArtifact> holding <boltAction type=\"file\" filePath> and type=\"shell\" actions"
    order = 60
    specs = SPECS
    tag_names = frozenset({ARTIFACT, ACTION})
    body_fields = MappingProxyType({"file": "content", "shell": "command", "start": "command"})
    prose_bodies = frozenset({"shell", "start"})
    path_fields = ("filePath",)

    def spec(self, type_name: str) -> ActionSpec | None:
        return ARTIFACT_SPEC if type_name == ARTIFACT else super().spec(type_name)

    def action_type(self, ctx: ScanContext, tag: TagOpen, start: StartTag) -> tuple[str, Span]:
        attr = start.attribute("type")
        if attr is None or not isinstance(attr.value, str):
            return ACTION, tag.name_span
        return attr.value, attr.span

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        if tag.canonical == ARTIFACT:
            return self._artifact(ctx, tag)
        construct = self.parse_element(ctx, tag)
        if construct.actions:
            construct.diagnostics.append(
                Diagnostic(
                    "action-outside-block",
                    f"<{ACTION}> outside a <{ARTIFACT}>: bolt does not run it; put it inside one",
                    tag.name_span,
                )
            )
        construct.actions = []
        return construct

    def _artifact(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        text = ctx.text
        start = parse_start_tag(ctx, tag.start, tag.name_span.end)
        if not start.closed:
            return Construct(
                Span(tag.start, max(start.end, tag.name_span.end)),
                diagnostics=[unclosed_start_tag(start)],
                lookahead=max(start.lookahead, start.end),
            )
        diagnostics = [
            Diagnostic(
                "missing-field",
                f"<{ARTIFACT}> needs `{name}`: {ARTIFACT_SPEC.field(name).doc}",  # type: ignore[union-attr]
                tag.name_span,
                data={"field": name, "type": ARTIFACT},
            )
            for name in ("id", "title")
            if start.attribute(name) is None
        ]
        if start.self_closing:
            return Construct(Span(tag.start, start.end), [], diagnostics, start.end)
        close = find_close(ctx, tag.name, start.end)
        watch: set[str] = set()
        if close is not None:
            bound, end, lookahead = close.start, close.end, close.lookahead
        else:
            nxt = ctx.find(f"<{ARTIFACT}", start.end)
            bound = end = lookahead = nxt if nxt >= 0 else len(text)
            watch.update(watched_tags(tag.name))
            diagnostics.append(
                Diagnostic(
                    "unclosed-tag",
                    f"<{tag.name}> is never closed; add </{tag.name}> after its last action",
                    tag.name_span,
                )
            )
        title = start.attribute("title")
        label = title.value if title is not None and isinstance(title.value, str) else ARTIFACT
        group = Span(tag.start, end)
        actions: list[Action] = []
        pos = start.end
        while pos < bound:
            at = ctx.find(f"<{ACTION}", pos)
            if at < 0 or at >= bound:
                break
            name_end = at + 1 + len(ACTION)
            if name_end < len(text) and not (text[name_end].isspace() or text[name_end] in "/>"):
                pos = name_end
                continue
            inner = self.parse_element(ctx, TagOpen(at, ACTION, Span(at + 1, name_end), ACTION), group)
            for a in inner.actions:
                a.group_label = label
            actions.extend(inner.actions)
            diagnostics.extend(inner.diagnostics)
            lookahead = max(lookahead, inner.lookahead)
            watch.update(inner.watch)
            pos = max(inner.end, name_end)
        end = max(end, pos)
        return Construct(Span(tag.start, end), actions, diagnostics, max(lookahead, end), tuple(sorted(watch)))

    def finish(self, ctx: ScanContext, action: Action, diagnostics: list[Diagnostic]) -> None:
        content = action.fields.get("content")
        if content is None or action.type != "file":
            return
        # bolt trims the body and ends a file with one line break.
        text = ctx.text
        start, end = content.span.start, content.span.end
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        content.span = Span(start, end)
        content.value = text[start:end] + "\n"
        content.source_map = SourceMap(start, end - start + 1, end)

    def file_view(self, action: Action) -> FileView | None:
        path, content = action.fields.get("filePath"), action.fields.get("content")
        if action.kind is not ActionKind.WRITE_FILE or path is None or content is None:
            return None
        if not isinstance(path.value, str) or not isinstance(content.value, str):
            return None
        return FileView("write", path, content=content)


DIALECT = Bolt()
