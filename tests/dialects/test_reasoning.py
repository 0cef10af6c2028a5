"""A model's ``<think>`` reasoning in an ordinary transcript (an Aider history with a reasoning
model, a chat) is no action, and what it holds is none either; ``<think>`` is the ``aether``
dialect's ``think`` action only in a document that uses ``aether-*`` tags after it."""

from __future__ import annotations

from action_lsp.document import IncrementalDocument, analyze

REASONING = (
    "#### make the bubble smaller\n\n"
    "<think>\n"
    "The user wants a smaller bubble. I could write\n\n"
    "<write_to_file>\n<path>src/bubble.js</path>\n<content>const SIZE = 40;</content>\n</write_to_file>\n\n"
    "but Aider wants a block:\n\n"
    "src/bubble.js\n```js\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 30;\n>>>>>>> REPLACE\n```\n"
    "</think>\n\n"
    "Here is the change:\n\n"
    "src/bubble.js\n```js\n<<<<<<< SEARCH\nconst SIZE = 60;\n=======\nconst SIZE = 40;\n>>>>>>> REPLACE\n```\n"
)


def test_think_in_an_ordinary_transcript_is_no_action_nor_what_it_holds() -> None:
    analysis = analyze(REASONING)
    assert [(a.dialect, a.type, a.text("replace")) for a in analysis.actions] == [
        ("aider", "search-replace", "const SIZE = 40;\n")
    ]
    assert analysis.diagnostics == []


def test_think_is_an_aether_action_where_aether_tags_follow() -> None:
    text = '<think>\nplan it\n</think>\n\n<aether-write path="a.py">\nx = 1\n</aether-write>\n'
    assert [a.type for a in analyze(text).actions] == ["think", "aether-write"]
    # ... and not where they are only named in inline code.
    text = "<think>\nplan it\n</think>\n\nUse `<aether-write>` tags.\n"
    assert analyze(text).actions == []


def test_an_unclosed_think_hides_nothing_after_it() -> None:
    text = "<think>\nplanning...\n\nsrc/a.py\n```py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    assert [a.path for a in analyze(text).actions] == ["src/a.py"]


def test_typing_an_aether_tag_after_a_think_makes_it_an_action() -> None:
    text = "<think>\nplan\n</think>\n\n" + "Prose line.\n" * 300
    doc = IncrementalDocument(text)
    assert doc.analysis().actions == []
    doc.edit(len(doc.text), len(doc.text), '<aether-write path="a.py">\nx\n</aether-write>\n')
    assert [a.type for a in doc.analysis().actions] == ["think", "aether-write"]
    assert [a.type for a in analyze(doc.text).actions] == ["think", "aether-write"]
    at = doc.text.index("<aether-write")
    doc.edit(at, at + 1, "")
    assert [a.type for a in doc.analysis().actions] == [a.type for a in analyze(doc.text).actions] == []
