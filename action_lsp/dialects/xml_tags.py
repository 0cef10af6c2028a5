"""``xml-tags``: action tags with child elements (seeds 001, 002) --
``<create_file><path/><content/></create_file>``, ``<modify_file><path/><search/><replace/>``
(several search/replace pairs allowed), ``<create_directory><path/>``, ``<read_file><path/>``,
``<execute_command><command/>[<description/>]``.

Better than the original on each point it got wrong: actions come in document order; file
content keeps its exact bytes (only the line break right after ``<content>`` is dropped; the
one before ``</content>`` is the file's final newline); a ``</content>`` inside the written file does not end the element
(content runs to the last ``</content>`` before the action's own closing tag, and nested
``<create_file>...</create_file>`` pairs in a file that documents the format are skipped whole);
a lone CDATA section gives its inside; unclosed and mismatched tags are reported and the parse
goes on.

Paths, commands and descriptions are trimmed (the span follows the trimmed value). Text between
child elements is ignored. Attributes on the action tag are not read by the agent and are
reported as ``unknown-field``. Several ``<search>``/``<replace>`` pairs give several
:class:`~action_lsp.model.Edit`; the fields ``search``/``replace`` hold the first pair.

``<read_file>`` and ``<execute_command>`` are also Cline's and Roo Code's tools (the ``cline``
dialect). Both dialects claim them and the first enabled one in registry order reads them
(this one, by default), so their specs here accept Cline's and Roo's optional parameters
(``requires_approval``, ``cwd``, ``start_line``, ``end_line``, ``task_progress``).
"""

from __future__ import annotations

from ..model import ActionKind, EditRules
from ..schema import ActionSpec, one_of, opt, req, specs, text
from .base import Construct, ScanContext, TagOpen
from .tag_dialect import TagDialect

SPECS = specs(
    ActionSpec(
        "create_file",
        ActionKind.CREATE_FILE,
        (
            req("path", text(), "the file to write, relative to the workspace"),
            req("content", text(), "the whole file"),
        ),
        "Write a whole file.",
    ),
    ActionSpec(
        "modify_file",
        ActionKind.MODIFY_FILE,
        (
            req("path", text(), "the file to change"),
            req("search", text(), "the exact text to find (never empty: the format gives an empty one no meaning)", empty_ok=True),
            req("replace", text(), "what replaces it (empty: delete it)", empty_ok=True),
        ),
        "Replace text in an existing file (one or more <search>/<replace> pairs).",
    ),
    ActionSpec(
        "create_directory",
        ActionKind.CREATE_DIRECTORY,
        (req("path", text(), "the directory to create"),),
        "Create a directory and its parents.",
    ),
    ActionSpec(
        "read_file",
        ActionKind.READ_FILE,
        (
            req("path", text(), "the file to read"),
            opt("start_line", text(), "Roo: the first line to read"),
            opt("end_line", text(), "Roo: the last line to read"),
            opt("task_progress", text(), "Cline's checklist of the task's progress"),
        ),
        "Read a file.",
    ),
    ActionSpec(
        "execute_command",
        ActionKind.COMMAND,
        (
            req("command", text(), "the shell command"),
            opt("description", text(), "what it is for"),
            opt("requires_approval", one_of("true", "false"), "Cline: whether the user must approve it"),
            opt("cwd", text(), "Roo: the directory to run it in"),
            opt("task_progress", text(), "Cline's checklist of the task's progress"),
        ),
        "Run a shell command (never run here).",
    ),
)



class XmlTags(TagDialect):
    name = "xml-tags"
    # The seed format defines no meaning for an empty <search>: it is refused, never appended.
    # Several <search>/<replace> pairs apply in sequence; none may match what an earlier wrote.
    rules = EditRules("<modify_file>", empty_hint="use <create_file> to write a whole file")
    description = "<create_file>, <modify_file>, <create_directory>, <read_file> and <execute_command> tags with child elements (<path>, <content>, <search>, <replace>, <command>)"
    order = 20
    specs = SPECS
    children = True
    stripped_children = frozenset(
        {"path", "command", "description", "requires_approval", "cwd", "start_line", "end_line"}
    )

    def parse_tag(self, ctx: ScanContext, tag: TagOpen) -> Construct:
        if tag.name == "read_file":  # Roo's and Kilo's multi-file form: <args><file><path>...
            from .cline import args_call

            found = args_call(self, ctx, tag)
            if found is not None:
                return found
        return super().parse_tag(ctx, tag)


DIALECT = XmlTags()
