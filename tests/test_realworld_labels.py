"""The committed labels of the real-world corpus cover the corpus the sources table rebuilds.

``bench/realworld-labels.toml`` labels the files ``bench/rebuild_corpus.py`` writes from the rows of
``bench/realworld-sources.md``: a row without labels is a file the bench silently skips, a label
without a row a file nobody can rebuild. The fixtures' labels are a copy of some of them and must
not drift apart.
"""

from __future__ import annotations

from pathlib import Path

from bench_modules import bench_module

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "bench" / "realworld-labels.toml"


def test_every_source_row_is_labelled_and_every_label_has_a_row() -> None:
    rows = [corpus_file for corpus_file, _repo, _path, _commit in bench_module("rebuild_corpus").rows()]
    labelled = [label.path for label in bench_module("bench_realworld").load_labels(LABELS)]
    assert len(set(rows)) == len(rows), "a corpus file listed twice in realworld-sources.md"
    assert len(set(labelled)) == len(labelled), "a corpus file labelled twice"
    assert sorted(rows) == sorted(labelled)


def test_the_fixtures_labels_are_the_committed_ones() -> None:
    bench = bench_module("bench_realworld")
    committed = {label.path: label for label in bench.load_labels(LABELS)}
    fixtures = bench.load_labels(ROOT / "tests" / "fixtures" / "realworld" / "labels.toml")
    assert fixtures
    for label in fixtures:
        assert committed.get(label.path) == label, label.path
