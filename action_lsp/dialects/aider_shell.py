"""``aider-shell``: the shell blocks Aider offers to run (```` ```bash ````, ```` ```sh ````, ...),
reported as ``command`` actions and never run.

Off by default: a ```` ```bash ```` fence in a README or an ordinary chat is an example, not
something an agent will run, and reporting every one would flood ordinary transcripts with
commands. Turn it on beside ``aider`` for Aider chat histories (``check --dialect
aider,aider-shell``, or the editor's dialect setting). As in Aider's extractor
(``find_original_update_blocks``), a fence whose info starts with one of Aider's shell words is a
command block unless a SEARCH marker stands on its first or second line (then it is an edit
block, taken by ``aider``); the command is the fence's body.
"""

from __future__ import annotations

from ..markdown import FenceOpen, line_end, next_line_start
from ..model import Action, ActionKind, Field, SourceMap, Span
from ..schema import ActionSpec, req, specs, text
from .aider import _HEAD
from .base import Construct, Dialect, ScanContext

SHELLS = ("bash", "sh", "shell", "cmd", "batch", "powershell", "ps1", "zsh", "fish", "ksh", "csh", "tcsh")
SPECS = specs(
    ActionSpec(
        "shell",
        ActionKind.COMMAND,
        (req("command", text(), "the commands, as the fence's body"),),
        "Shell commands Aider offers to run after its edits (never run here).",
    ),
)


def _head_at(text: str, pos: int) -> bool:
    end = line_end(text, pos)
    return _HEAD.match(text[pos:end].strip(" \t") + "\n") is not None


class AiderShell(Dialect):
    name = "aider-shell"
    description = "the ```bash/```sh/... blocks Aider offers to run, as commands (off by default)"
    order = 61
    default_enabled = False
    specs = SPECS
    fence_infos = frozenset(SHELLS)

    def parse_fence(self, ctx: ScanContext, fence: FenceOpen) -> Construct | None:
        t = ctx.text
        second = next_line_start(t, fence.body_start)
        if _head_at(t, fence.body_start) or (second < len(t) and _head_at(t, second)):
            return None  # an edit block in a shell fence: aider's
        close = ctx.find_fence_close(fence.body_start, fence.char, fence.length)
        body_end = close[0] if close else len(t)
        end = close[1] if close else len(t)
        body = Field("command", t[fence.body_start : body_end], Span(fence.body_start, body_end), None,
                     SourceMap.verbatim(fence.body_start, body_end))
        span = Span(fence.start, end)
        action = Action(self.name, "shell", ActionKind.COMMAND, span, fence.word_span, {"command": body},
                        group=span, group_label="aider shell")
        return Construct(span, [action], lookahead=end)


DIALECT = AiderShell()
