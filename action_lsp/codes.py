"""The diagnostic-code registry: one entry per code, the single source for severities and docs.

``action-lsp rules`` prints it, ``docs/rules.md`` is generated from it (a test keeps the two in
step) and the server's ``codeDescription`` links point into that page.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .model import Severity


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: Severity
    summary: str  # one line: when it fires
    explanation: str = ""  # a paragraph: why it matters and what to do
    needs_workspace: bool = False  # decided only with the files of a workspace
    fix: str = ""  # the quick fix offered, if any


E, W, INFO, H = Severity.ERROR, Severity.WARNING, Severity.INFORMATION, Severity.HINT
#: An edit shown without what applying it needs, or on a file only prose names: never applied
#: unless forced, whatever its severity (even turned off).
SHOWN_ONLY = "shown-only"

CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("bad-json", E, "A JSON body does not parse; the range is at the error.",
             "The agent that reads this block would drop every action in it. Common causes are "
             "trailing commas, comments, single quotes and raw control characters in strings.",
             fix="Repair the JSON (trailing commas, control characters, quotes, comments)."),
        Code("unclosed-block", E, "An actions or iteration fence, or a SEARCH/REPLACE block, that is never closed.",
             "Without its closing fence the block runs to the end of the message; the actions "
             "after it may be swallowed.", fix="Insert the closing fence."),
        Code("unclosed-tag", E, "An action tag that is never closed.",
             "The parse recovers at the next action tag, but the executor that reads this "
             "transcript would not.", fix="Insert the closing tag."),
        Code("mismatched-tag", E, "A closing tag that does not match the open one.",
             "A `</modify_file>` closing a `<create_file>` usually means a tag was mistyped or "
             "an action was cut short."),
        Code("wrong-block-name", W, "A near miss of a known block or tag name.",
             "````action` or `<create-file>` is not recognised by the agent's parser, so the "
             "actions inside it are silently ignored.", fix="Rename to the known name."),
        Code("action-outside-block", W, "An action object written in prose, outside any actions block.",
             "`{\"type\": \"create_task\", ...}` in plain text is never executed; only actions "
             "inside an ```` ```actions ```` block are."),
        Code("unknown-action", E, "An action type its dialect does not define.",
             "The executor rejects unknown types. The message names the nearest known type.",
             fix="Rename to the suggested type."),
        Code("missing-field", E, "A required field is absent or empty.",
             "The action cannot run without it.", fix="Insert a placeholder for the field."),
        Code("unknown-field", W, "A field the action type does not define.",
             "Usually a typo of a known field (which is then missing) or a field the executor "
             "ignores."),
        Code("invalid-value", E, "A value of the wrong type or outside its allowed set.",
             "Statuses, ids, limits and command types have fixed forms; the message lists them. "
             "Text a file action would write that holds a lone surrogate (a JSON escape such as "
             "`\\udfff` that is half of a UTF-16 pair) is one too: no UTF-8 file can hold it, so "
             "the action is never applied, even with `--force`."),
        Code("path-traversal", E, "A path that leaves the workspace (`..`, a symlink pointing out).",
             "Writing through such a path would touch files outside the project."),
        Code("absolute-path", E, "An absolute, home-relative, drive-letter or UNC path.",
             "Actions must name files relative to the workspace. A transcript of many absolute paths "
             "(a session that records no working directory they lie under) gets one error per place "
             "(the path's first two directories: `/Users/dev`), on its first path there, not one per "
             "action; the edit engine refuses every absolute path all the same.",
             fix="Make the path relative when it points inside the workspace."),
        Code("invalid-path", E, "An empty path, control or bidirectional characters, an over-long name, or a reserved name.",
             "Such a path cannot be written portably (`CON`, `NUL`, trailing dots or spaces are "
             "reserved on Windows; a component may hold at most 255 bytes), or it displays "
             "differently from what it is (a bidirectional override such as U+202E makes "
             "`src/\\u202etxt.exe` look like `src/exe.txt`)."),
        Code("protected-path", E, "A path inside `.git`, `.hg`, `.svn`, `.jj` or action-lsp's journal (`.action-lsp-journal`), also through `..`, another letter case, a symbolic link or a hard link; or the transcript being applied itself.",
             "Changing version-control data can make the next `git status` or commit run a "
             "command (`core.fsmonitor` in `.git/config`, a hook renamed into place) or break "
             "the repository; the journal is what undoes an interrupted write. No action may "
             "create, change, rename or delete anything there, and nothing lifts this: not "
             "`--force`, not \"Apply anyway\". The transcript's own file is protected the "
             "same way: an action naming it would delete or overwrite the document being "
             "read."),
        Code("runs-code", W, "A file that makes a tool run code by itself: `.vscode/`, `.idea/`, `.github/workflows/`, `.husky/`, `.devcontainer/`, `.envrc`, `.pre-commit-config.yaml`, shell start-up files (`.bashrc`, `.zshrc`, `.profile`, ...), `.nvim.lua` / `.exrc`, `*.code-workspace`.",
             "Writing such a file is how a transcript gets a command run when the folder is "
             "opened or entered, or at the next commit or push, without anyone running it. "
             "The action is applied only when the user confirms it: `apply "
             "--allow-code-paths`, or the quick fix \"Apply anyway (runs-code)\" after the "
             "diff (`--force` does not lift it). The list and why each entry is on it: "
             "docs/edit-engine.md, \"Protected paths\".", needs_workspace=True,
             fix="Apply anyway (runs-code), after reviewing its diff."),
        Code("file-exists", W, "A create action would overwrite an existing file.",
             "Applying it replaces the file's content; allow overwrites in the settings or with "
             "`--force` if that is meant.", needs_workspace=True),
        Code("file-not-found", E, "A modify/read/delete/rename target that does not exist.",
             "Check the path; the file may have been renamed or not created yet.",
             needs_workspace=True),
        Code("file-unreadable", E, "A modify/read target that exists but cannot be edited as text.",
             "It is a directory, a special file, unreadable, or not UTF-8 text (binary or another "
             "encoding); action-lsp never rewrites such files.", needs_workspace=True),
        Code("search-not-found", E, "A search block that matches nowhere in the target, up to layout.",
             "No place holds the search text, even ignoring indentation, blank lines, token "
             "spacing and comments; the file probably changed since the transcript was written. "
             "When a place comes close but its content differs (a same-named definition, a fuzzy "
             "match), the message and `data.candidate` give its line and score: it is never "
             "applied silently, only when chosen (quick fix \"Apply to the closest match\", "
             "`apply --accept-fuzzy`).",
             needs_workspace=True, fix="Apply to the closest match, after reviewing its diff."),
        Code("search-ambiguous", E, "A search block that matches more than once.",
             "Replacing the first occurrence could edit the wrong place; the message and "
             "`data.candidates` list every place. Add surrounding lines to the search text to "
             "make it unique, or choose one (quick fix per place, `apply --accept-candidate`).",
             needs_workspace=True, fix="Apply at the chosen place."),
        Code("search-fuzzy", INFO, "The search block matched only by a tolerant strategy; the message names it.",
             "Review the preview diff before applying.", needs_workspace=True),
        Code("bad-argument", E, "An edit tool's argument that is missing or of the wrong type.",
             "A `file_text` that is not a string, a `new_string` that is `null`, an `insert_line` "
             "that is not a whole number, `edits` that are not a list: the agent's tool rejects "
             "the call, so action-lsp never applies it (an empty file or a deletion would be a "
             "guess)."),
        Code("empty-search", E, "An empty search text where its agent gives it no meaning.",
             "What an empty search text means belongs to the agent: Aider appends the "
             "replacement, Claude Code's `Edit` and Copilot create a missing (or write an empty) "
             "file, Gemini CLI creates a missing file only, the `str_replace` editors (Anthropic, "
             "OpenHands, SWE-agent) and the seed formats give it no meaning. Where the agent "
             "refuses, nothing is written (docs/edit-engine.md, \"Each agent's meaning\").",
             needs_workspace=True),
        Code("conflicting-edits", E, "Edits of one action that overlap.",
             "Agents that locate all the edits of a call in the original text (Copilot's "
             "`multi_replace_string_in_file`, Cline's blocks) cannot apply two that overlap; "
             "agents that apply them in sequence never let one edit match text an earlier edit "
             "of the same call wrote unless they document it. None of the action's edits is "
             "written.", needs_workspace=True),
        Code("noop-edit", W, "The replacement equals the search text, or is already in the file.",
             "Applying it changes nothing.", needs_workspace=True),
        Code("applied", H, "The action's result is already in the workspace.",
             "Shown after an apply instead of errors: the file already holds this content.",
             needs_workspace=True),
        Code("superseded", H, "History rewritten since: a later action of the same transcript changed this action's result (the message names it).",
             "A transcript is a timeline: the workspace stands at the latest action whose "
             "result its file holds, and the actions before that point are history. One whose "
             "text a later action rewrote is not applied again (no Apply lens, skipped by "
             "`apply`). When no later action explains why its result is gone, the file was "
             "changed since.", needs_workspace=True),
        Code("empty-command", E, "A command action with no command.", "There is nothing to run."),
        Code("unsafe-code", W, "Code to execute that reaches outside its sandbox.",
             "`open`, `eval`, `exec`, `__import__`, `compile`, `globals`, dunder attributes, "
             "`os`/`subprocess` and the like let code escape the API it is meant to use."),
        Code("syntax-error", E, "File content or code that its language's grammar rejects.",
             "Checked with the tree-sitter grammar chosen from `language=` or the path's "
             "extension; the range points at the error inside the transcript. A grammar that "
             "rejects some valid files (C#, Kotlin, Swift, HTML, CSS) reports a warning only, "
             "and C, C++ and Markdown are not judged (docs/languages.md has the numbers)."),
        Code("repetition", W, "An action plan that repeats itself.",
             "The same action three times running, or a repeating cycle of actions, is the "
             "loop the planner's repetition analyser stops."),
        Code("new-syntax-error", E, "A modify action would introduce a syntax error into a file that parsed before.",
             "The file would no longer parse with its grammar after the transcript's edits (an "
             "edit a later action repairs is not reported). The action is not applied unless "
             "forced (`apply --force`); check the replacement and the place it matched. For a "
             "language whose grammar is trusted as a warning only (docs/languages.md) it is a "
             "warning and does not block.",
             needs_workspace=True),
        Code("bad-marker", E, "A SEARCH/REPLACE marker line the agent would not read (wrong number of marker characters, a missing `=======`, a doubled REPLACE, a block never closed).",
             "The agent's own parser rejects the block or silently applies a different edit. "
             "The range is the marker line as written.",
             fix="Rewrite the marker the way the agent reads it."),
        Code("truncated-content", E, "A whole-file write whose content elides code (`// ... rest of the code unchanged ...`), or drops most of the old file's definitions, or lines the file holds besides all of the write's own.",
             "Written as is, the placeholder replaces the code it stands for and the file loses "
             "it; a file that holds every line the write writes and more was changed since it "
             "was written (lines added by hand). The edit engine refuses such a write unless forced. Ask the model for the "
             "whole file, or for search/replace edits of the parts that change."),
        Code("lazy-ambiguous", E, "A chat answer's lazy snippet or fragment for an existing file whose merge into the file is not certain: a placeholder or definition with no single place, a definition the answer leaves out with no placeholder, a result that would not parse.",
             "Chat answers elide unchanged code (`// ... existing code ...`) or show only the "
             "definitions that change. action-lsp merges such an answer by syntax and writes it "
             "only when every piece has exactly one place; otherwise the message names what "
             "could not be placed and nothing is written. A merge that would drop or double a "
             "definition of the file, or not parse, is never written. See docs/edit-engine.md, "
             "*Chat answers: lazy snippets and fragments*.",
             needs_workspace=True,
             fix="Apply the proposed merge: shows it as a diff and asks (`apply --accept-merge N`)."),
        Code("file-readonly", E, "A create, modify or delete of a file without write permission.",
             "The file's mode has no write bit (`chmod a-w`, 0444) or this user may not write "
             "it: someone protected it on purpose. It is not written unless forced (`apply "
             "--force`); a forced write keeps the read-only mode.", needs_workspace=True),
        Code("tool-error", H, "A tool call whose result in the session was an error (a failed edit, a call the user rejected).",
             "The call is shown as it was made but is not applied: the agent's tool refused it "
             "(the search text was not found, the user said no), so replaying it would do what "
             "the session never did. The hint quotes the result's first line."),
        Code("line-edit-unchecked", INFO, "A SWE-agent `edit N:M` (lines by number) that cannot be checked against its own trajectory, so it is shown and not applied.",
             "`edit N:M` replaces lines N..M of the open file without saying what they held. "
             "It is applied only when the trajectory showed those lines before it (a window "
             "printed by `open`, `goto`, `scroll_*` or an earlier edit, with no shell command "
             "or other edit since) and the window printed after it agrees with the result "
             "(line count, the new lines, the lines around them). Otherwise the message says "
             "which of these is missing; replaying it would write lines whose old text nobody "
             "saw. Apply the change by hand, or re-run the agent."),
        Code("shown-only", INFO, "An edit an export shows without what applying it needs (its old text, or the file it changes), or whose file only the prose around it names: listed, not applied.",
             "SpecStory exports some edits incompletely: a Claude Code `Edit` with its result "
             "only (no old and new text), a Copilot `copilot_replaceString` with its new text "
             "only (no file), and Cursor's edits of 2025 as ```` ```diff ```` blocks that name no "
             "file. Each is listed (outline, `parse`) so that nothing a reader sees is missing, "
             "but nothing checks it against a file: the message says what is missing. A Cursor "
             "diff whose file is named only by the prose before or after it (or by a `Read "
             "file:` line, or by an earlier edit that holds its lines) carries that file, and "
             "is applied only when you confirm it (\"Apply anyway\" after its diff, or `apply "
             "--force`); turning this code off does not make it applicable. Cursor's own \"Export "
             "chat\" shows its agent's `search_replace` and `edit_file` calls as fences with no "
             "file: they are listed the same way (a whole file applied only once its file is "
             "named and confirmed; a partial edit, with Cursor's `... existing code ...` "
             "markers or a fragment of the file, never)."),
        Code("bad-hunk", W, "A diff hunk whose header disagrees with its body (line counts), or has no line numbers.",
             "`patch` and `git apply` read a hunk by its header's counts and reject one that "
             "does not match; action-lsp locates the hunk by its text, but the diff is not "
             "portable.", fix="Recount hunk header."),
        Code("bad-patch", E, "A unified diff or Codex patch the tool would reject: a missing `+++` line, a hunk with no file, `---` and `+++` naming different files, an unknown `***` line in a Codex patch, an empty update or patch.",
             "Codex's apply_patch refuses the whole patch on such an error, and `git apply` "
             "the whole diff.", fix="Insert the missing `+++` line."),
    )
}


def get(code: str) -> Code:
    return CODES[code]


def default_severity(code: str) -> Severity:
    entry = CODES.get(code)
    return entry.severity if entry else Severity.WARNING


def docs_path() -> Path:
    """The rules page shipped inside the package (the target of ``codeDescription``)."""
    return Path(__file__).with_name("rules.md")


@functools.lru_cache(maxsize=1024)
def docs_url(code: str, base: str | None = None) -> str:
    """Link to the documentation of ``code``; ``base`` overrides the shipped page. (Cached: the
    server links every diagnostic it publishes, and a path's URI costs a pathlib round.)"""
    if base:
        return f"{base.rstrip('#')}#{code}"
    return f"{docs_path().as_uri()}#{code}"


def render_markdown() -> str:
    """The rules page, generated from the registry."""
    lines = [
        "# action-lsp diagnostic codes",
        "",
        "Generated from `action_lsp/codes.py` by `action-lsp rules --format markdown`; do not edit by hand.",
        "Severities are defaults; the `severity` setting overrides them per code (or turns a code off).",
        "",
        "| code | default severity | when |",
        "|---|---|---|",
    ]
    for c in CODES.values():
        lines.append(f"| [`{c.code}`](#{c.code}) | {c.severity.label} | {c.summary} |")
    for c in CODES.values():
        lines += ["", f"## {c.code}", "", f"*Default severity: {c.severity.label}"
                  + ("; needs the workspace files" if c.needs_workspace else "") + ".*", "",
                  c.summary]
        if c.explanation:
            lines += ["", c.explanation]
        if c.fix:
            lines += ["", f"Quick fix: {c.fix}"]
    return "\n".join(lines) + "\n"
