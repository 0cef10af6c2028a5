"""Cursor's own "Export chat" markdown: an ``edit_file`` call is a plain code fence that names no
file. Cursor 1.7 leaves a blank line for each tool call, so the call's fence stands after two
or more blank lines; Cursor 1.1/1.2 put it right after the sentence announcing the step ("Let
me fix this:"). Each such fence is an edit a reader sees: a whole file is a ``write``, a partial
one (``// ... existing code ...``, a fragment) a ``modify`` that is never applied; the file comes
from the prose around it (shown only) or stays unnamed. Code blocks of an answer (Ask-mode
proposals, examples, commands, the export's copies) are no edits. Fixtures written here,
modelled on the shapes of real exports (docs/chat-answers.md)."""

from __future__ import annotations

from pathlib import Path

from apply_cli import apply_write as _apply

from action_lsp.cli import main
from action_lsp.codes import SHOWN_ONLY
from action_lsp.dialects import by_name, file_view
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import Action, ActionKind

HEAD17 = "# Build a notes app\n_Exported on 19/10/2025 at 12:05:49 GMT+8 from Cursor (1.7.38)_\n\n---\n\n"
HEAD11 = "# Rent for May\n_Exported on 7/3/2025 at 19:29:34 GMT+2 from Cursor (1.1.7)_\n\n---\n\n"
USER = "**User**\n\n{}\n\n---\n\n"
CURSOR = "**Cursor**\n\n"

APP = '#!/usr/bin/env python3\n"""Notes."""\n\nNOTES: list[str] = []\n\n\ndef main() -> None:\n    print(NOTES)\n\n\nif __name__ == "__main__":\n    main()\n'

# Cursor 1.7: tool calls leave blank lines; the edit_file fence after two of them; the summary's
# command block, and the export's copy of it as ```shellscript after the message.
V17 = (HEAD17 + USER.format("Write a small notes app in one Python file.") + CURSOR
       + "I'll plan the work first.\n\n\nNow let me create the notes app:\n\n\n"
       + "```python\n" + APP + "```\n\n"
       + "Let me check it for lint errors and run it:\n\n\n"
       + "## Done\n\nRun it with:\n\n```bash\npython3 notes.py\n```\n\nEnjoy!\n\n"
       + "```shellscript\npython3 notes.py\n```\n\n")

README = ("# Notes\n\nA notes app.\n\n## Install\n\n```bash\npip install notes\n```\n\n"
          "## Layout\n\n```\nnotes.py\ntests/\n```\n\nThat is all.\n")
# A Markdown file holding fences of its own: the export's fence is not lengthened for them.
V17_README = (HEAD17 + USER.format("Document it.") + CURSOR
              + "Now let me create a README file:\n\n\n```markdown\n" + README + "```\n\n"
              + "Now let me add a test script:\n\n\n```python\nimport notes\n\n\nprint(notes.NOTES)\n```\n\n"
              + "All done.\n\n")

ELECTRICITY = ("// ... existing code ...\n## Grid\n\n| Due | Amount |\n|---|---|\n| 2025-05-02 | 2,878.34 |\n"
               "// ... existing code ...\n")
SCRIPT = "require_relative '../rent'\n\nCONFIG = { year: 2025, month: 4 }\nputs RentCalculator.total(CONFIG)\n"
# Cursor 1.1: the fence right after the sentence that announces the step.
V11 = (HEAD11 + USER.format("The new bills came in.") + CURSOR
       + "I'll help you calculate the May rent.\n\nLet me first update the electricity costs document:\n\n"
       + "```markdown\n" + ELECTRICITY + "```\n\n"
       + "Now I'll create a new script for the May 2025 rent calculation:\n\n"
       + "```ruby\n" + SCRIPT + "```\n\nNow let's run the script:\n\n---\n\n"
       + USER.format("Thanks."))

NAMED = (HEAD11 + USER.format("Bump the version.") + CURSOR
         + "I'll rewrite `lib/version.rb` with the new number:\n\n"
         + "```ruby\nmodule Notes\n  VERSION = '2.0.0'\nend\n```\n\nDone.\n")


def _mine(text: str) -> list[Action]:
    return [a for a in analyze(text).actions if a.kind.is_file_action]


def _notes(text: str) -> list[str]:
    return [d.code for d in analyze(text).diagnostics]


def test_cursor_17_edit_file_after_the_tool_calls_blank_lines_is_a_write_of_no_file() -> None:
    (a,) = _mine(V17)
    assert (a.type, a.kind, a.path) == ("cursor-edit-file", ActionKind.WRITE_FILE, None)
    assert a.get("content") == APP
    assert file_view(a) is None  # no file: nothing to apply
    assert _notes(V17) == [SHOWN_ONLY]
    assert "names no file for this edit_file call" in analyze(V17).diagnostics[0].message


def test_a_markdown_file_with_fences_of_its_own_is_one_write_to_its_real_end() -> None:
    readme, script = _mine(V17_README)
    assert readme.kind is ActionKind.WRITE_FILE and readme.get("content") == README
    assert script.get("content") == "import notes\n\n\nprint(notes.NOTES)\n"


def test_cursor_11_announced_edits_partial_is_a_modify_whole_is_a_write() -> None:
    doc, script = _mine(V11)
    assert (doc.kind, doc.path, doc.get("content")) == (ActionKind.MODIFY_FILE, None, ELECTRICITY)
    assert (script.kind, script.path, script.get("content")) == (ActionKind.WRITE_FILE, None, SCRIPT)
    assert file_view(doc) is None and file_view(script) is None
    assert _notes(V11) == [SHOWN_ONLY, SHOWN_ONLY]
    assert "partial edit" in analyze(V11).diagnostics[0].message


METHOD = "def label(month)\n      name = MONTHS[month + 1]\n      \"Rent for #{name}\"\n    end\n"
# Cursor 1.1 put some edit_file fences at the end of the turn, after the prose reporting them.
TRAILING = (HEAD11 + USER.format("The label shows the wrong month.") + CURSOR
            + "Let me read the file first.\n\nI've modified the `label` method to show the next month.\n\n"
            + "Would you like me to make any other adjustments?\n\n```ruby\n" + METHOD + "```\n\n---\n\n"
            + USER.format("Run the specs."))


def test_cursor_11_fence_at_the_end_of_a_turn_reporting_an_edit_is_that_edit() -> None:
    (a,) = _mine(TRAILING)
    assert (a.kind, a.path, a.get("content")) == (ActionKind.MODIFY_FILE, None, METHOD)
    assert _mine(TRAILING.replace("---\n\n**User**", "Done.\n\n---\n\n**User**")) == []  # not the last thing
    assert _mine(TRAILING.replace("I've modified", "You could modify")) == []  # no edit reported
    copies = TRAILING.replace("```ruby\n" + METHOD + "```\n", "```ruby\nputs 1\n```\n\n```ruby\n" + METHOD + "```\n")
    assert _mine(copies) == []  # the export's copies of an answer's blocks, one after another
    doc = IncrementalDocument(TRAILING)
    assert len(_file_actions(doc)) == 1
    at = doc.text.index("```\n\n---\n") + len("```\n\n")
    doc.edit(at, at, "More prose.\n\n")
    assert _file_actions(doc) == []


# Cursor 1.7.46 / 1.7.54: consecutive edit_file calls, one blank line between their fences.
CONFIG = '{\n  "semi": true\n}\n\n'
IGNORE = "node_modules\n.next\n\n"
CLIENT = "import { env } from './env'\n\nexport const url = env.URL\nexport const anon = env.KEY\nexport const ready = true\n\n"
CHAIN = (HEAD17 + USER.format("Set the project up.") + CURSOR
         + "Setting up the project files:\n\n\n```json\n" + CONFIG + "```\n\n```ignore\n" + IGNORE + "```\n\n"
         + "Now let me create the client utilities:\n\n```typescript\n" + CLIENT + "```\n\n"
         + "```typescript\nexport const key = ''\n\n```\n\nThe project is ready.\n\n"
         + "```plaintext\nsrc/\n  app/\n```\n")


def test_consecutive_calls_after_the_first_are_edits_too() -> None:
    assert [a.get("content") for a in _mine(CHAIN)] == [CONFIG, IGNORE, CLIENT, "export const key = ''\n\n"]


def test_a_short_quote_before_the_edit_is_not_the_edit() -> None:
    text = (HEAD11 + USER.format("The approve call 404s.") + CURSOR
            + "The route gets a doubled prefix. Let me fix this:\n\n```plaintext\nPOST /api/proposals/proposals/7\n```\n\n"
            + "```ruby\n# ... existing code ...\nid = path.delete_prefix('/api/proposals/')\n```\n\nNow let's retry.\n")
    (a,) = _mine(text)
    assert a.get("content").startswith("# ... existing code ...")
    # After a search_replace fence (`->`), the next fence is no call of its own.
    after_arrow = text.replace("```plaintext\nPOST /api/proposals/proposals/7\n```",
                               "```ruby\nold = 1\n\n->\n\nold = 2\n```")
    assert [a.type for a in _mine(after_arrow)] == ["cursor-search-replace"]


def test_a_fragment_cut_out_of_its_class_is_a_partial_edit() -> None:
    method = "def greet(name)\n      msg = \"hi #{name}\"\n      puts msg\n    end\n"
    text = HEAD11 + USER.format("Greet.") + CURSOR + "Let me fix the greeting:\n\n```ruby\n" + method + "```\n"
    (a,) = _mine(text)
    assert a.kind is ActionKind.MODIFY_FILE


def test_a_file_named_by_the_prose_is_applied_only_when_the_user_confirms_it(tmp_path: Path) -> None:
    (a,) = _mine(NAMED)
    assert (a.kind, a.path) == (ActionKind.WRITE_FILE, "lib/version.rb")
    view = file_view(a)
    assert view is not None and view.op == "write"
    assert "prose before" in a.get("named_by")
    hover = by_name("chat-answer").hover_note(a)
    assert "`lib/version.rb` is inferred from the prose before it" in hover
    root = tmp_path / "ws"
    (root / "lib").mkdir(parents=True)
    before = "module Notes\n  VERSION = '1.0.0'\nend\n"
    (root / "lib" / "version.rb").write_text(before)
    _apply(tmp_path, root, NAMED)
    assert (root / "lib" / "version.rb").read_text() == before  # shown only
    assert _apply(tmp_path, root, NAMED, "--force") == 0
    assert (root / "lib" / "version.rb").read_text() == "module Notes\n  VERSION = '2.0.0'\nend\n"


def test_a_partial_edit_is_never_applied_even_forced(tmp_path: Path) -> None:
    text = (HEAD11 + USER.format("q") + CURSOR + "Let me update `costs.md`:\n\n```markdown\n" + ELECTRICITY
            + "```\n")
    (a,) = _mine(text)
    assert (a.kind, a.path) == (ActionKind.MODIFY_FILE, "costs.md")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "costs.md").write_text("# Costs\n\n## Grid\n\nold\n")
    _apply(tmp_path, root, text, "--force")
    assert (root / "costs.md").read_text() == "# Costs\n\n## Grid\n\nold\n"


def test_parse_lists_them(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "chat.md").write_text(V11)
    main(["parse", str(tmp_path / "chat.md")])
    out = capsys.readouterr().out
    assert out.count(" modify ") == 1 and out.count(" write ") == 1, out


def _answer(lead: str, lang: str = "ruby", body: str = "def save\n  File.write(path, data)\nend\n") -> str:
    return HEAD11 + USER.format("How should I change save?") + CURSOR + lead + f"```{lang}\n{body}```\n\nHope it helps.\n"


def test_proposals_examples_and_commands_are_no_edits() -> None:
    texts = [
        # Ask-mode proposals and examples: the sentence speaks to the reader.
        _answer("Here's how you can modify the `save` method in `lib/rent_history.rb`:\n\n"),
        _answer("For example:\n\n"),
        _answer("Let me know if you want me to apply that:\n\n"),
        _answer("Would you like me to update the spec like this?\n\n"),
        _answer("I'll show you the method:\n\n"),
        _answer("Let me check the validation code:\n\n", "plaintext", "validate!(days)\n"),
        _answer("1. **Give the server more threads** so one slow call cannot block it:\n\n"),
        # A command block, even announced or after a tool call's gap.
        _answer("Let me update the dependencies:\n\n", "bash", "bundle update\n"),
        _answer("Now let me restart it:\n\n\n", "shellscript", "ruby json_server.rb\n"),
        # The export's copies of an answer's blocks: a fence right after a fence.
        _answer("Hope it helps.\n\n```ruby\nputs 1\n```\n\n"),
        # A diagram or a directory tree after a tool call.
        _answer("I've sketched the layout.\n\n\n", "plaintext", "app/\n├── a.rb\n└── b.rb\n"),
        _answer("I've sketched the layout.\n\n\n", "mermaid", "graph TD; A-->B\n"),
        # The user's code, and a document that is no Cursor export.
        HEAD11 + "**User**\n\nLet me fix this:\n\n```ruby\nputs 1\n```\n",
        "# Notes\n\nLet me fix this:\n\n```ruby\nputs 1\n```\n\n\n\n```python\nprint(1)\n```\n",
        # Another chat's turn after Cursor's.
        HEAD11 + CURSOR + "ok\n\n### User\n\nq\n\n### Assistant\n\nLet me fix this:\n\n```ruby\nputs 1\n```\n",
    ]
    for text in texts:
        assert _mine(text) == [], text
        assert SHOWN_ONLY not in _notes(text), text


def test_a_fence_that_names_its_file_keeps_the_chat_answer_reading() -> None:
    text = _answer("Let me fix this:\n\n", "ruby:lib/rent_history.rb")
    (a,) = _mine(text)
    assert (a.type, a.path) == ("fence-info", "lib/rent_history.rb")


def test_search_replace_fences_are_still_read_as_such() -> None:
    text = (HEAD11 + USER.format("q") + CURSOR + "Let me fix the timeout:\n\n"
            + "```ruby\n  timeout = 5\n\n->\n\n  timeout = 3\n```\n")
    (a,) = _mine(text)
    assert a.type == "cursor-search-replace"


def test_an_open_document_rereads_the_fence_when_what_it_read_changes() -> None:
    doc = IncrementalDocument(V11)
    assert len(_file_actions(doc)) == 2
    at = doc.text.index("Now I'll create a new script")
    doc.edit(at, at + len("Now I'll create"), "Here's")
    assert len(_file_actions(doc)) == 1
    assert _file_actions(doc) == _file_actions(IncrementalDocument(doc.text))
    at = doc.text.rindex("**Cursor**")
    doc.edit(at, at + len("**Cursor**"), "**Notes**")
    assert _file_actions(doc) == []
    doc = IncrementalDocument(V17)
    at = doc.text.index("\n\n\n```python") + 1
    doc.edit(at, at + 1, "")  # one blank line less: announced, but no longer after a tool call
    assert len(_file_actions(doc)) == 1
    at = doc.text.index("Now let me create the notes app:")
    doc.edit(at, at + len("Now let me create the notes app:"), "Here it is:")
    assert _file_actions(doc) == []
    at = doc.text.index("Here it is:\n") + len("Here it is:\n")
    doc.edit(at, at, "\n")  # a blank line more: after a tool call again
    assert len(_file_actions(doc)) == 1
    assert _file_actions(doc) == _file_actions(IncrementalDocument(doc.text))


def _file_actions(doc: IncrementalDocument) -> list[tuple[object, ...]]:
    """What a reader sees of each file action (kind, file, where, what it writes)."""
    return [(a.type, a.kind, a.path, a.span, a.get("content")) for a in doc.analysis().actions if a.kind.is_file_action]


_BLOCKS = [
    "**User**\n\nPlease fix it.\n\n---\n\n",
    "**Cursor**\n\n",
    "Let me fix this:\n\n```ruby\n# ... existing code ...\nx = 2\n```\n\n",
    "Now let me create the app:\n\n\n```python\nimport os\n\n\nprint(os.name)\n```\n\n",
    "```json\n{\n  \"a\": 1\n}\n```\n\n",
    "I've modified the `label` method.\n\nWould you like more?\n\n```ruby\ndef label\n    1\n  end\n```\n\n---\n\n",
    "Let me update `README.md`:\n\n```markdown\n# T\n\n```bash\nls\n```\n\nDone.\n```\n\n",
    "Here's how you can change it:\n\n```ruby\nputs 1\n```\n\n",
    "Let me fix the route:\n\n```plaintext\nPOST /a/a\n```\n\n",
    "```ruby\nold\n\n->\n\nnew\n```\n\n",
    "Some prose.\n\n",
    "**Cursor**\n\n```ruby\n# ... existing code ...\n-x = 1\n+x = 2\n```\n\n",
    "Why it clashes.\n\n```ruby\n# ... existing code ...\ny = 3\n```\n\nI've corrected it.\n\n",
    "It seems the previous edit didn't apply correctly.\n\n",
]
_SNIPPETS = ["\n", "\n\n", "```", "```ruby\n", "**Cursor**", "**User**", "---\n", "Let me fix this:", "I've added it.", "The edit was not applied.",
             "// ... existing code ...\n", "x", "->"]


def _signature(doc_or_text: IncrementalDocument | str) -> list[tuple[object, ...]]:
    analysis = doc_or_text.analysis() if isinstance(doc_or_text, IncrementalDocument) else analyze(doc_or_text)
    return [(a.type, a.kind, a.span, a.path, sorted((k, f.span) for k, f in a.fields.items()))
            for a in analysis.actions] + [(d.code, d.span, d.message) for d in analysis.diagnostics]


def test_an_open_document_agrees_with_a_full_reading_after_random_edits() -> None:
    import random

    for seed in range(12):
        rng = random.Random(seed)
        doc = IncrementalDocument(HEAD17 + "".join(rng.choice(_BLOCKS) for _ in range(rng.randint(4, 14))))
        for _ in range(25):
            n = len(doc.text)
            start = rng.randint(0, n)
            end = min(n, start + rng.choice([0, 0, 1, 2, 5, 30]))
            doc.edit(start, end, rng.choice(_SNIPPETS) if rng.random() < 0.85 else "")
            assert _signature(doc) == _signature(doc.text), (seed, start, end)


# Cursor 1.2: a turn that starts with its edit_file calls (the tool calls come first, the prose
# after them), each a fence of -/+ lines under a placeholder, one blank line apart.
OPENING = (HEAD11 + USER.format("The widgets stay empty.") + CURSOR
           + "```ruby\n# ... existing code ...\n-    { runs: total }\n+    { 'runs' => total }\n```\n\n"
           + "```ruby\n-    [200, {}, [Oj.dump(stats)]]\n+    [200, {}, [Oj.dump(stats, mode: :compat)]]\n```\n\n"
           + "The handlers returned symbol keys. I have switched them to string keys.\n\n---\n\n"
           + USER.format("Thanks."))


def test_fences_opening_a_cursor_turn_are_its_edit_file_calls() -> None:
    first, second = _mine(OPENING)
    assert (first.kind, first.path) == (ActionKind.MODIFY_FILE, None)
    assert (second.kind, second.get("content")[:9]) == (ActionKind.MODIFY_FILE, "-    [200")  # -/+ lines: partial
    assert file_view(first) is None and file_view(second) is None  # partial: never applied
    # A user's turn opening with a fence, and a fence after a turn's prose, are no calls.
    assert _mine(OPENING.replace(CURSOR, "**User**\n\n")) == []
    assert _mine(OPENING.replace(CURSOR, CURSOR + "Some thoughts on it.\n\n")) == []


# Cursor 1.2: the sentence before the fence tells why, the one right after it reports the edit.
REPORTED = (HEAD11 + USER.format("The routes clash.") + CURSOR
            + "The proxy's wildcard swallows the widget routes, so they must move.\n\n"
            + "```ruby\n# ... existing code ...\nServer.handle(:GET, \"/api/v1/weather\", weather)\n"
            + "# ... existing code ...\n```\n\nI've corrected the routing. Now the widgets.\n")


def test_a_partial_fence_the_next_sentence_reports_as_made_is_an_edit() -> None:
    (a,) = _mine(REPORTED)
    assert (a.kind, a.path, a.failure) == (ActionKind.MODIFY_FILE, None, None)
    whole = REPORTED.replace("# ... existing code ...\n", "")
    assert _mine(whole) == []  # a whole file only shown (a proposal): not read as an edit
    assert _mine(REPORTED.replace("I've corrected", "You could correct")) == []
    assert _mine(REPORTED.replace("```\n\nI've", "```\n\nDone.\n\nI've")) == []  # not right after it
    # After a quote of the lines to change, the step reported right after it is the edit.
    quoted = REPORTED.replace("move.\n\n", "move.\n\n```ruby\nServer.handle(:GET, \"/data/*\", proxy)\n```\n\n")
    (step,) = _mine(quoted)
    assert step.get("content").startswith("# ... existing code ...")


def test_an_announcement_with_adverbs_joined_by_and_is_one() -> None:
    text = (HEAD11 + USER.format("q") + CURSOR + "First, I will completely and cleanly disable the cache:\n\n"
            + "```ruby\n# ... existing code ...\n# cache = Cache.new\n```\n\nNow the routes.\n")
    (a,) = _mine(text)
    assert a.kind is ActionKind.MODIFY_FILE
    assert _mine(text.replace("I will completely and cleanly disable", "I will completely show")) == []


def test_an_edit_the_agent_then_says_did_not_apply_is_shown_failed() -> None:
    announced = (HEAD11 + USER.format("Go ahead.") + CURSOR + "Let me disable the feature:\n\n"
                 + "```ruby\n# ... existing code ...\n# require_relative 'feature'\n```\n\n"
                 + "It seems the previous edit didn't apply correctly. I will try again.\n\n"
                 + "First, the `require` line.\n\n"
                 + "```ruby\n# ... existing code ...\n# require_relative 'feature'\n# ... existing code ...\n```\n\n"
                 + "The edits to `server.rb` are not being applied. Let me read it first.\n")
    first, second = _mine(announced)
    assert first.failure is not None and "didn't apply" in first.failure
    assert second.failure is not None and "not being applied" in second.failure
    ok = announced.replace("didn't apply correctly", "applied cleanly")
    assert _mine(ok)[0].failure is None
