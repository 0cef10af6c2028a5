"""``--progress-per-file`` (what ``make test`` passes): one line per test file when its last test
is done, instead of a row of dots, and the files still running when only a few are left — so
a long run never sits at 99 % without saying what it waits for. Works with and without
pytest-xdist (with it, the controller receives every report)."""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from typing import Any

import pytest

STILL_RUNNING_AT = 3  # name the files left once this few remain


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--progress-per-file",
        action="store_true",
        help="one line per test file when it is done (and the files still running at the end)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("progress_per_file") and not getattr(config, "workerinput", None):
        config.pluginmanager.register(PerFile(config), "progress-per-file")


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


class PerFile:
    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.total: Counter[str] = Counter()
        self.done: Counter[str] = Counter()
        self.outcomes: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.started: dict[str, float] = {}
        self.named: frozenset[str] = frozenset()

    def _write(self, line: str) -> None:
        reporter = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(line)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if not self.total:  # every worker collects the same tests
            self.total.update(_file(i) for i in ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:  # without xdist (with it, the controller collects nothing)
            self.total = Counter(_file(item.nodeid) for item in session.items)

    def pytest_report_teststatus(self, report: pytest.TestReport) -> tuple[str, str, str] | None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            # counted in the file's line; no letter (the summary lists every failure)
            if hasattr(report, "wasxfail"):  # pytest's own categories: an xfail is no skip
                return ("xfailed", "", "XFAIL") if report.skipped else ("xpassed", "", "XPASS")
            return report.outcome, "", report.outcome.upper()
        return None

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = _file(report.nodeid)
        self.started.setdefault(name, time.monotonic())
        if report.when == "call" or (report.when == "setup" and not report.passed):
            outcome = "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome
            self.outcomes[name][outcome] += 1
        elif report.when == "teardown" and not report.passed:
            self.outcomes[name]["error"] += 1
        if report.when != "teardown":
            return
        self.done[name] += 1
        if self.done[name] == self.total[name]:
            counts = ", ".join(f"{n} {what}" for what, n in sorted(self.outcomes[name].items()))
            self._write(f"{name}: {counts} ({time.monotonic() - self.started[name]:.0f} s)")
            self._still_running()

    def _still_running(self) -> None:
        left = frozenset(f for f in self.total if self.done[f] < self.total[f])
        if not left or len(left) > STILL_RUNNING_AT or left == self.named:
            return
        self.named = left
        self._write(f"still running: {', '.join(sorted(left))}")
