"""The model's copies: a shifted or copied action keeps everything it was found with."""

from __future__ import annotations

import dataclasses

from action_lsp.model import Action, ActionKind, Field, Span, copy_action, shift_action


def _action() -> Action:
    return Action(
        "claude-code",
        "Edit",
        ActionKind.MODIFY_FILE,
        Span(10, 40),
        Span(12, 16),
        {"path": Field("path", "a.py", Span(20, 24))},
        group=Span(0, 50),
        group_label="message",
        partial=True,
        in_progress=True,
        failure="String to replace not found in file.",
    )


def test_a_shifted_action_keeps_its_failed_result() -> None:
    # An edit before a failed tool call shifts it; it must still say it failed (and so not be
    # offered for applying).
    moved = shift_action(_action(), 5)
    assert moved.failure == "String to replace not found in file."
    assert (moved.span, moved.name_span, moved.group) == (Span(15, 45), Span(17, 21), Span(5, 55))
    assert (moved.partial, moved.in_progress) == (True, True)


def test_copy_action_copies_every_field() -> None:
    a = _action()
    b = copy_action(a)
    assert b is not a
    for f in dataclasses.fields(Action):
        assert getattr(b, f.name) is getattr(a, f.name), f.name
    b.group = None
    assert a.group == Span(0, 50)
