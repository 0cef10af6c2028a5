"""``check_text`` (a pure function of a transcript's text), ``check_files`` (all cores, input
order) and ``check --jobs``."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from action_lsp import check_text
from action_lsp.batch import check_files, records
from action_lsp.cli import main
from action_lsp.cli.common import read_transcript
from action_lsp.document import analyze

BROKEN = (
    "# user\n\nPlease.\n\n```actions\n"
    '{"actions": [{"type": "create_tsk", "content": "x"}, {"type": "create_task", "content": "no end}]}\n'
    "```\n\n<create_file>\n<path>../out.py</path>\n<content>\nx = (\n</content>\n</create_file>\n"
)


def _transcripts(n: int) -> list[str]:
    clean = "# user\n\nHello.\n\n<create_file>\n<path>a.py</path>\n<content>\nx = 1\n</content>\n</create_file>\n"
    return [BROKEN if i % 3 == 0 else clean.replace("a.py", f"m{i}.py") for i in range(n)]


def test_check_text_is_the_analysis_and_pickles() -> None:
    found = check_text(BROKEN)
    assert [(d.code, d.span) for d in found] == [(d.code, d.span) for d in analyze(BROKEN).diagnostics]
    codes = {d.code for d in found}
    assert {"unknown-action", "bad-json", "path-traversal", "syntax-error"} <= codes
    back = pickle.loads(pickle.dumps(found))
    assert [(d.code, d.message, d.span) for d in back] == [(d.code, d.message, d.span) for d in found]
    # a lazy quick fix travels too, and still works out its edits on the other side
    (repair,) = [f for d in back if d.code == "bad-json" for f in d.fixes if f.title == "Repair the JSON"]
    assert repair.lazy and repair.edits


def test_records_are_plain_rows_with_lines_and_columns() -> None:
    rows = records(BROKEN, check_text(BROKEN))
    row = next(r for r in rows if r["code"] == "path-traversal")
    line = BROKEN[: BROKEN.index("../out.py")].count("\n") + 1
    assert (row["line"], row["column"], row["severity"]) == (line, len("<path>") + 1, "error")
    json.dumps(rows)


def test_check_files_in_processes_keeps_the_order(tmp_path: Path) -> None:
    texts = _transcripts(12)
    paths = []
    for i, t in enumerate(texts):
        p = tmp_path / f"t{i:02}.md"
        p.write_text(t, encoding="utf-8")
        paths.append(p)
    missing = tmp_path / "missing.md"
    paths.insert(5, missing)
    one = list(check_files(paths, read_transcript, jobs=1))
    two = list(check_files(paths, read_transcript, jobs=2))
    assert [c.path for c in two] == paths
    assert [(c.error, [(d.code, d.span) for d in c.diagnostics]) for c in one] == [
        (c.error, [(d.code, d.span) for d in c.diagnostics]) for c in two
    ]
    assert two[5].text is None and "no such file" in str(two[5].error)
    assert {d.code for d in two[0].diagnostics} >= {"bad-json", "path-traversal"}


@pytest.mark.parametrize("fmt", ["json", "concise", "full", "github", "sarif"])
def test_cli_jobs_output_is_the_same_as_one_job(fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for i, t in enumerate(_transcripts(9)):
        (tmp_path / f"t{i}.md").write_text(t, encoding="utf-8")
    (tmp_path / "t4b.md").write_bytes(b"# not UTF-8 \xff\n")  # unreadable, between the others
    (tmp_path / "t7b.jsonl").write_text('{"type": "user", "sessionId": "s"}\n{oops\n', encoding="utf-8")
    outputs = []
    for jobs in ("1", "3"):
        assert main(["check", "--jobs", jobs, "--format", fmt, str(tmp_path)]) == 2
        outputs.append(capsys.readouterr())
    assert outputs[0] == outputs[1]
    assert "t4b.md: is not UTF-8" in outputs[0].err
    if fmt == "json":
        files = json.loads(outputs[0].out)["files"]
        assert [Path(f["path"]).name for f in files] == [f"t{i}.md" for i in range(8)] + ["t7b.jsonl", "t8.md"]
        assert [d["code"] for d in files[8]["diagnostics"]] == ["bad-json"]


def test_cli_rejects_zero_jobs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.md").write_text("hi\n", encoding="utf-8")
    assert main(["check", "--jobs", "0", str(tmp_path)]) == 2
    assert "--jobs" in capsys.readouterr().err


def test_check_text_mapped_with_dask() -> None:
    """The documented way to check a dataset: a Dask bag, here in single-machine mode."""
    bag = pytest.importorskip("dask.bag")
    texts = _transcripts(6)
    got = bag.from_sequence(texts, npartitions=2).map(check_text).map(len).compute(scheduler="processes", num_workers=2)
    assert got == [len(check_text(t)) for t in texts]
