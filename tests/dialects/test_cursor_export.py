"""Cursor's own "Export chat" markdown (Cursor 1.x): a ``search_replace`` is one fence holding
the old text, a line ``->``, the new text; the export names no file. Each such fence is an edit
a reader sees: a ``modify`` with a ``shown-only`` note, its file taken from the prose around it
(``named_by``) exactly as for SpecStory's Cursor diffs, or of no path. Fixtures modelled on a
real export (shapes in docs/chat-answers.md), written here."""

from __future__ import annotations

from pathlib import Path

from apply_cli import apply_write as _apply

from action_lsp.cli import main
from action_lsp.codes import SHOWN_ONLY
from action_lsp.dialects import by_name
from action_lsp.document import IncrementalDocument, analyze
from action_lsp.model import Action, ActionKind

HEAD = "# Fix the dashboard hang\n_Exported on 7/13/2025 at 20:08:52 GMT+2 from Cursor (1.2.4)_\n\n---\n\n"
USER = "**User**\n\n{}\n\n---\n\n"
CURSOR = "**Cursor**\n\n"


def _replace(old: str, new: str, lang: str = "ruby") -> str:
    return f"```{lang}\n{old}\n\n->\n\n{new}\n```\n"


def _mine(text: str) -> list[Action]:
    return [a for a in analyze(text).actions if a.kind.is_file_action]


def _notes(text: str) -> list[str]:
    return [d.code for d in analyze(text).diagnostics]


NAMED = (HEAD + USER.format("The server hangs.") + CURSOR
         + "Let me disable the wildcard route in `json_server.rb`:\n\n"
         + _replace('Agoo::Server.handle(:GET, "/data/*", proxy_handler)',
                    '# Agoo::Server.handle(:GET, "/data/*", proxy_handler) # DISABLED')
         + "\nNow let's test the handlers:\n")

UNNAMED = (HEAD + USER.format("Timed out, hanging...") + CURSOR
           + "Now let me fix the train departure handler to use fallback data:\n\n"
           + _replace("      faraday.options.timeout = 5\n      faraday.options.open_timeout = 2",
                      "      faraday.options.timeout = 3\n      faraday.options.open_timeout = 2")
           + "\n" + _replace("  rescue Faraday::TimeoutError", "  rescue Faraday::Error => e")
           + "\nNow let's restart the server:\n")


def test_search_replace_named_by_the_prose_before_is_a_modify_of_that_file_shown_only() -> None:
    (a,) = _mine(NAMED)
    assert (a.type, a.kind, a.path) == ("cursor-search-replace", ActionKind.MODIFY_FILE, "json_server.rb")
    ((search, replace),) = [(e.search.value, e.replace.value) for e in a.edits]
    assert search == 'Agoo::Server.handle(:GET, "/data/*", proxy_handler)\n'
    assert replace == '# Agoo::Server.handle(:GET, "/data/*", proxy_handler) # DISABLED\n'
    assert "prose before" in a.get("named_by")
    path = a.fields["path"]
    assert NAMED[path.span.start:path.span.end] == "json_server.rb"
    at = replace.index("DISABLED")
    span = a.edits[0].replace.value_span(at, at + 8)
    assert NAMED[span.start:span.end] == "DISABLED"
    assert _notes(NAMED) == [SHOWN_ONLY]
    hover = by_name("chat-answer").hover_note(a)
    assert "Cursor's export" in hover and "`json_server.rb` is inferred from the prose before it" in hover


def test_search_replace_with_no_file_named_is_a_modify_of_no_path_each_fence_its_own() -> None:
    actions = _mine(UNNAMED)
    assert [(a.kind, a.path) for a in actions] == [(ActionKind.MODIFY_FILE, None)] * 2
    assert actions[0].edits[0].search.value.endswith("timeout = 5\n      faraday.options.open_timeout = 2\n")
    assert actions[1].edits[0].replace.value == "  rescue Faraday::Error => e\n"
    assert _notes(UNNAMED) == [SHOWN_ONLY, SHOWN_ONLY]
    assert "Cursor's export names no file" in analyze(UNNAMED).diagnostics[0].message


def test_parse_lists_them_as_modifies(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "chat.md").write_text(UNNAMED)
    main(["parse", str(tmp_path / "chat.md")])
    out = capsys.readouterr().out
    assert out.count(" modify ") == 2, out


def test_inferred_file_is_applied_only_when_the_user_confirms_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    before = 'Agoo::Server.handle(:GET, "/data/*", proxy_handler)\nAgoo::Server.start\n'
    (root / "json_server.rb").write_text(before)
    _apply(tmp_path, root, NAMED)
    assert (root / "json_server.rb").read_text() == before  # shown only
    assert _apply(tmp_path, root, NAMED, "--force") == 0
    assert (root / "json_server.rb").read_text().startswith("# Agoo::Server.handle")


def test_unnamed_search_replace_is_never_applied_even_forced(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "train.rb").write_text("  rescue Faraday::TimeoutError\n")
    _apply(tmp_path, root, UNNAMED, "--force")
    assert (root / "train.rb").read_text() == "  rescue Faraday::TimeoutError\n"


def test_arrow_fences_outside_a_cursor_export_turn_are_untouched() -> None:
    block = _replace("old()", "new()", "text")
    readme = "# Renames\n\nIn `app.py`:\n\n" + block + "\nThat is all.\n"
    user = HEAD + "**User**\n\nChange `app.py`:\n\n" + block
    other_chat = HEAD + CURSOR + "ok\n\n### User\n\nq\n\n### Assistant\n\nIn `app.py`:\n\n" + block
    two_arrows = HEAD + USER.format("q") + CURSOR + "In `app.py`:\n\n```\na\n\n->\n\nb\n\n->\n\nc\n```\n"
    plain = HEAD + USER.format("q") + CURSOR + "In `app.py`:\n\n```ruby\nAgoo::Server.start\nsleep\n```\n"
    for text in (readme, user, other_chat, two_arrows, plain):
        assert _mine(text) == [], text
        assert SHOWN_ONLY not in _notes(text), text


def test_an_open_document_rereads_the_fence_when_its_prose_changes() -> None:
    doc = IncrementalDocument(NAMED)
    at = NAMED.index("json_server.rb")
    doc.edit(at, at + len("json_server.rb"), "app_server.rb")
    assert [a.path for a in doc.analysis().actions] == ["app_server.rb"]
    assert [a.path for a in doc.analysis().actions] == [a.path for a in analyze(doc.text).actions]
    # The turn's role line read to recognise the export: changing it changes the reading.
    at = doc.text.index("**Cursor**")
    doc.edit(at, at + len("**Cursor**"), "**Notes**")
    assert [a.path for a in doc.analysis().actions if a.kind.is_file_action] == []
