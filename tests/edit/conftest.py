"""Hand-built actions for the edit-engine tests (a transcript is faked field by field)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from action_lsp.model import Action, ActionKind, Edit, Field, Span


class Transcript:
    """Builds actions whose fields have distinct, checkable spans."""

    def __init__(self) -> None:
        self.pos = 0

    def field(self, name: str, value: str) -> Field:
        start = self.pos
        self.pos += len(value) + 10
        return Field(name, value, Span(start, start + len(value)))

    def action(self, kind: ActionKind, path: str, **fields: str) -> Action:
        start = self.pos
        f = {"path": self.field("path", path)}
        for k, v in fields.items():
            f[k] = self.field(k, v)
        return Action("test", kind.value, kind, Span(start, self.pos), Span(start, start + 1), f)

    def create(self, path: str, content: str) -> Action:
        return self.action(ActionKind.CREATE_FILE, path, content=content)

    def modify(self, path: str, *pairs: tuple[str, str]) -> Action:
        a = self.action(ActionKind.MODIFY_FILE, path)
        a.edits = [Edit(self.field("search", s), self.field("replace", r)) for s, r in pairs]
        return a

    def mkdir(self, path: str) -> Action:
        return self.action(ActionKind.CREATE_DIRECTORY, path)

    def other(self) -> Action:
        start = self.pos
        self.pos += 10
        return Action("test", "create_task", ActionKind.OTHER, Span(start, self.pos),
                      Span(start, start + 1), {})


@pytest.fixture
def tx() -> Callable[[], Transcript]:
    return Transcript
