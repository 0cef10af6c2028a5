"""A chat answer's write of an existing file (``EditRules(snippet=True)``) through the plan and
``action-lsp apply``: a whole file is written as any write; a lazy snippet or fragment is merged
by syntax, written only when certain, otherwise ``lazy-ambiguous`` with the proposed merge that
``--accept-merge`` writes; a merge that drops a definition is never written. The dialect that
reads chat answers is built elsewhere: here dyad's ``<dyad-write>`` is read as one."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from action_lsp import dialects
from action_lsp.cli import main
from action_lsp.edit import plan_changes, unified_diff
from action_lsp.edit.workspace import Workspace
from action_lsp.model import Action, EditRules, FileView
from action_lsp.rules import code as code_rule
from action_lsp.rules import truncation

CHAT = EditRules("a chat answer", snippet=True)

OLD = '''import os


def load(path):
    return open(path).read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(load("a"))
'''


@pytest.fixture(autouse=True)
def chat_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """dyad's whole-file writes read as chat answers (snippet rules)."""
    real = dialects.file_view

    def view(action: Action) -> FileView | None:
        found = real(action)
        if found is not None and found.op == "write" and action.dialect == "dyad":
            return dataclasses.replace(found, rules=CHAT)
        return found

    monkeypatch.setattr(dialects, "file_view", view)
    monkeypatch.setattr(truncation, "file_view", view)
    monkeypatch.setattr(code_rule, "file_view", view)


def _transcript(*writes: tuple[str, str]) -> str:
    return "".join(f'<dyad-write path="{p}">\n{c}</dyad-write>\n\n' for p, c in writes)


def _ws(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text)
    return root


def _apply(tmp_path: Path, root: Path, transcript: str, *extra: str) -> int:
    t = tmp_path / "chat.md"
    t.write_text(transcript)
    return main(["apply", "--root", str(root), *extra, str(t)])


LAZY = '''# ... existing code ...


def save(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)

# ... existing code ...
'''


def test_a_certain_lazy_snippet_is_merged_and_written(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {"app.py": OLD})
    assert _apply(tmp_path, root, _transcript(("app.py", LAZY)), "--write") == 0
    assert (root / "app.py").read_text() == OLD.replace('"w")', '"w", encoding="utf-8")')


def test_the_dry_run_shows_the_merge_as_a_normal_diff_titled_by_its_shape(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {"app.py": OLD})
    assert _apply(tmp_path, root, _transcript(("app.py", LAZY))) == 0
    out = capsys.readouterr().out
    assert "+++ b/app.py\t(lazy snippet merged)" in out
    assert '-    with open(path, "w") as f:' in out
    assert "def load" not in out.split("@@", 2)[-1] or "-def load" not in out
    assert "existing code" not in out
    assert (root / "app.py").read_text() == OLD


def test_a_snippet_with_a_place_not_certain_is_asked_and_never_written(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {"app.py": OLD})
    answer = "# ... existing code ...\n\ndef helper():\n    pass\n\n# ... existing code ...\n"
    assert _apply(tmp_path, root, _transcript(("app.py", answer)), "--write") == 1
    err = capsys.readouterr().err
    assert "[lazy-ambiguous]" in err and "`helper`" in err and "--accept-merge 1" in err
    assert (root / "app.py").read_text() == OLD
    # the user accepts the proposal: written as the dry run showed it
    assert _apply(tmp_path, root, _transcript(("app.py", answer)), "--write", "--accept-merge", "1") == 0
    text = (root / "app.py").read_text()
    assert "def helper():" in text and text.count("def ") == 4


def test_a_definition_left_out_without_a_placeholder_is_asked_and_the_proposal_keeps_it(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {"app.py": OLD})
    # no placeholder between load and main: is save removed, or left out?
    answer = ("import os\n\n\ndef load(path):\n    return open(path).read()\n\n\n"
              "def main():\n    print(load('b'))\n\n# ... rest of the file ...\n")
    assert _apply(tmp_path, root, _transcript(("app.py", answer)), "--write") == 1
    err = capsys.readouterr().err
    assert "[lazy-ambiguous]" in err and "`save` is not in the answer between `load` and `main`" in err
    assert (root / "app.py").read_text() == OLD
    assert _apply(tmp_path, root, _transcript(("app.py", answer)), "--write", "--accept-merge", "1") == 0
    assert (root / "app.py").read_text() == OLD.replace('load("a")', "load('b')")


def test_a_merge_that_would_not_parse_is_never_written_even_accepted(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {"app.py": OLD})
    answer = "# ... existing code ...\n\ndef main():\n    print(load('a')\n"
    for extra in ((), ("--accept-merge", "1")):
        assert _apply(tmp_path, root, _transcript(("app.py", answer)), "--write", *extra) == 1
        err = capsys.readouterr().err
        assert "[lazy-ambiguous]" in err and "would not parse" in err
        assert "never written" in err
        assert (root / "app.py").read_text() == OLD


def test_a_whole_file_answer_is_an_ordinary_write(tmp_path: Path) -> None:
    root = _ws(tmp_path, {"app.py": OLD})
    whole = OLD.replace('print(load("a"))', 'print(load("b"))')
    assert _apply(tmp_path, root, _transcript(("app.py", whole)), "--write") == 0
    assert (root / "app.py").read_text().rstrip("\n") == whole.rstrip("\n")


def test_a_snippet_for_a_missing_file_creates_it_and_its_placeholder_is_truncation(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    root = _ws(tmp_path, {})
    assert _apply(tmp_path, root, _transcript(("new.py", "def f():\n    return 1\n")), "--write") == 0
    assert (root / "new.py").read_text().rstrip("\n") == "def f():\n    return 1"
    assert _apply(tmp_path, root, _transcript(("other.py", LAZY)), "--write") == 1
    assert "[truncated-content]" in capsys.readouterr().err
    assert not (root / "other.py").exists()


def test_a_fragment_rewriting_one_method_keeps_the_rest_of_the_class(tmp_path: Path) -> None:
    old = ("class Store:\n    def get(self, k):\n        return self.d[k]\n\n"
           "    def put(self, k, v):\n        self.d[k] = v\n")
    root = _ws(tmp_path, {"store.py": old})
    answer = "def put(self, k, v):\n    self.d[k] = v\n    self.dirty = True\n"
    assert _apply(tmp_path, root, _transcript(("store.py", answer)), "--write") == 0
    assert (root / "store.py").read_text() == old.replace(
        "self.d[k] = v\n", "self.d[k] = v\n        self.dirty = True\n")


def _plan(root: Path, transcript: str, **kw):  # type: ignore[no-untyped-def]
    from action_lsp.cli.apply import parse_transcript

    actions, _ = parse_transcript(transcript)
    return actions, plan_changes(actions, Workspace(root), **kw)


def test_the_plan_says_the_shape_and_the_change_how_it_was_merged(tmp_path: Path) -> None:
    root = _ws(tmp_path, {"app.py": OLD})
    _, plan = _plan(root, _transcript(("app.py", LAZY)))
    (outcome,) = plan.outcomes
    assert outcome.ok and outcome.shape == "lazy"
    assert outcome.change is not None and outcome.change.merged == "lazy snippet"
    assert "(lazy snippet merged)" in unified_diff(plan)


def test_a_crlf_file_stays_crlf_after_a_merge(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_bytes(OLD.replace("\n", "\r\n").encode())
    assert _apply(tmp_path, root, _transcript(("app.py", LAZY)), "--write") == 0
    data = (root / "app.py").read_bytes()
    assert b'encoding="utf-8"' in data and data.count(b"\r\n") == data.count(b"\n")


def test_a_merged_answer_already_in_the_file_is_history(tmp_path: Path) -> None:
    merged = OLD.replace('"w")', '"w", encoding="utf-8")')
    root = _ws(tmp_path, {"app.py": merged})
    _, plan = _plan(root, _transcript(("app.py", LAZY)))
    (outcome,) = plan.outcomes
    assert outcome.applied and not plan.changes
    assert [d.code for d in outcome.diagnostics] == ["applied"]


def test_a_merged_answer_rewritten_by_a_later_one_is_superseded(tmp_path: Path) -> None:
    later = LAZY.replace('encoding="utf-8"', 'encoding="latin-1"')
    merged = OLD.replace('"w")', '"w", encoding="latin-1")')
    root = _ws(tmp_path, {"app.py": merged})
    _, plan = _plan(root, _transcript(("app.py", LAZY), ("app.py", later)))
    first, second = plan.outcomes
    assert second.applied
    assert first.superseded_by == 1 and not plan.changes


# -- what the editor shows (the server's pieces, in process: the chat dialect is not merged yet)

def test_hover_says_what_the_answer_is_to_the_file_and_that_it_is_merged(tmp_path: Path) -> None:
    from action_lsp.server.hover import describe

    root = _ws(tmp_path, {"app.py": OLD})
    actions, plan = _plan(root, _transcript(("app.py", LAZY)))
    text = describe(actions[0], 0, plan)
    assert "lazy snippet" in text and "merged into the file by syntax" in text
    assert "(a lazy snippet merged by syntax)" in text and "```diff" in text
    fragment = "def save(path, text):\n    pass\n"
    actions, plan = _plan(root, _transcript(("app.py", fragment)))
    assert "fragment (some of the file's definitions)" in describe(actions[0], 0, plan)


def test_hover_on_an_uncertain_merge_says_why_and_what_it_is(tmp_path: Path) -> None:
    from action_lsp.server.hover import describe

    root = _ws(tmp_path, {"app.py": OLD})
    answer = "# ... existing code ...\n\ndef helper():\n    pass\n\n# ... existing code ...\n"
    actions, plan = _plan(root, _transcript(("app.py", answer)))
    text = describe(actions[0], 0, plan)
    assert "**Cannot apply:**" in text and "`helper`" in text and "lazy snippet" in text


def test_the_quick_fix_for_an_uncertain_merge_runs_apply_merge(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from action_lsp.server.code_actions import merge_command

    root = _ws(tmp_path, {"app.py": OLD})
    answer = "# ... existing code ...\n\ndef helper():\n    pass\n\n# ... existing code ...\n"
    actions, plan = _plan(root, _transcript(("app.py", answer)))
    (d,) = plan.outcomes[0].diagnostics
    assert d.code == "lazy-ambiguous" and d.data is not None and d.data["proposal"] is True
    od = SimpleNamespace(uri="file:///chat.md", version=3,
                         analysis=lambda: SimpleNamespace(actions=actions))
    assert merge_command(od, d) == (  # type: ignore[arg-type]
        "Apply the proposed merge", {"uri": "file:///chat.md", "version": 3, "action": 0})
    # a merge that would not parse has no proposal: no quick fix
    broken = "# ... existing code ...\n\ndef main():\n    print(load('a')\n"
    actions, plan = _plan(root, _transcript(("app.py", broken)))
    (d,) = [d for d in plan.outcomes[0].diagnostics if d.code == "lazy-ambiguous"]
    assert merge_command(od, d) is None  # type: ignore[arg-type]


def test_parse_with_a_root_names_what_each_answer_is_to_its_file(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    root = _ws(tmp_path, {"app.py": OLD})
    t = tmp_path / "chat.md"
    t.write_text(_transcript(("app.py", LAZY), ("app.py", "def save(path, text):\n    pass\n"),
                             ("app.py", OLD), ("new.py", "x = 1\n")))
    assert main(["parse", "--root", str(root), str(t)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "write (lazy snippet)" in out[0] and "write (fragment)" in out[1]
    assert "write (whole file)" in out[2] and "write" in out[3] and "(" not in out[3].split("write")[1].split("new.py")[0]
    assert main(["parse", "--root", str(root), "--format", "json", str(t)]) == 0
    shapes = [a["file"].get("shape") for a in json.loads(capsys.readouterr().out)["actions"]]
    assert shapes == ["lazy", "fragment", "whole", None]
    assert main(["parse", str(t)]) == 0  # without a root: no file to compare with
    assert "(lazy snippet)" not in capsys.readouterr().out


def test_a_comment_the_file_has_twice_is_not_added_again_by_a_merge() -> None:
    from action_lsp.edit.lazymerge import merge_snippet

    old = ("# ----\n\ndef a():\n    return 1\n\n# ----\n\ndef b():\n    return 2\n")
    answer = "# ... existing code ...\n\n# ----\n\ndef b():\n    return 3\n"
    m = merge_snippet(old, answer, "x.py")
    assert m.certain and m.text is not None
    assert m.text.count("# ----") == 2 and "return 3" in m.text and "return 2" not in m.text


def test_a_chat_answer_creating_a_file_with_broken_code_is_not_written(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """An answer's own syntax errors only warn (it may be a method given alone, merged and
    checked later); but a file that does not exist gets the answer as it is, so broken code
    there blocks the write as any create's does."""
    root = _ws(tmp_path, {})
    broken = "def f(:\n    return 1\n"
    assert _apply(tmp_path, root, _transcript(("new.py", broken)), "--write") == 1
    assert "syntax-error" in capsys.readouterr().err
    assert not (root / "new.py").exists()
    assert _apply(tmp_path, root, _transcript(("new.py", broken)), "--write", "--force") == 0
    assert (root / "new.py").read_text().startswith("def f(:\n")


@pytest.mark.parametrize("block", [
    "```python:app.py\n{body}```\n",
    "```python\n# filepath: app.py\n{body}```\n",
    "`app.py`\n```python\n{body}```\n",
], ids=["fence-info", "path-comment", "path-line"])
def test_a_chat_answer_read_by_its_dialect_is_merged(tmp_path: Path, block: str, capsys) -> None:  # type: ignore[no-untyped-def]
    """The chat-answer dialect's blocks (not a stand-in): each naming convention gives a lazy
    snippet that is merged and written; the same answer as a whole-file write would have lost
    `load` and `main`."""
    root = _ws(tmp_path, {"app.py": OLD})
    chat = ("_**User**_\n\nmake save use utf-8\n\n---\n\n_**Assistant**_\n\nHere it is:\n\n"
            + block.format(body=LAZY))
    assert _apply(tmp_path, root, chat, "--write") == 0
    assert (root / "app.py").read_text() == OLD.replace('"w")', '"w", encoding="utf-8")')
