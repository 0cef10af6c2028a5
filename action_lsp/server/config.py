"""Typed settings, read from ``initializationOptions`` and ``workspace/configuration``.

Both carry the same keys (section ``actionLsp``); see docs/server.md. A bad value is reported
(``problems``) and replaced by its default rather than failing the whole configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..codes import default_severity
from ..dialects import NAMES, DialectSet, declared
from ..model import Severity

SECTION = "actionLsp"


@dataclass(frozen=True, slots=True)
class Settings:
    dialects: tuple[str, ...] | None = None  # None: every dialect on by default
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    allow_overwrite: bool = False
    workspace_roots: tuple[str, ...] = ()
    docs_url: str | None = None
    streaming_grace: float = 3.0  # seconds an unclosed end stays "in progress" after it grew

    @classmethod
    def from_dict(cls, data: Any, problems: list[str] | None = None) -> Settings:
        """Settings from a ``{"dialects": ..., "severity": ...}`` object (unknown keys ignored).

        ``data`` may also be wrapped as ``{"actionLsp": {...}}`` (initializationOptions often are).
        """
        problems = problems if problems is not None else []
        if not isinstance(data, Mapping):
            return cls()
        if isinstance(data.get(SECTION), Mapping):
            data = data[SECTION]
        dialects: tuple[str, ...] | None = None
        raw = data.get("dialects")
        if isinstance(raw, list | tuple):
            names = [n for n in raw if isinstance(n, str)]
            known = (*NAMES, *(d.name for d in declared()))  # declared ones are always on
            unknown = [n for n in names if n not in known]
            if unknown:
                problems.append(
                    f"dialects: unknown {', '.join(unknown)} (known: {', '.join(known)})"
                )
            dialects = tuple(n for n in names if n in NAMES)
        elif raw is not None:
            problems.append("dialects: expected a list of dialect names")
        severity: dict[str, Severity | None] = {}
        raw = data.get("severity")
        if isinstance(raw, Mapping):
            for code, value in raw.items():
                if not isinstance(value, str):
                    problems.append(f"severity.{code}: expected a string")
                    continue
                try:
                    severity[str(code)] = Severity.parse(value)
                except ValueError:
                    problems.append(
                        f"severity.{code}: {value!r} is not error, warning, information, hint or off"
                    )
        elif raw is not None:
            problems.append("severity: expected an object mapping codes to severities")
        allow = data.get("allowOverwrite", False)
        if not isinstance(allow, bool):
            problems.append("allowOverwrite: expected true or false")
            allow = False
        roots_raw = data.get("workspaceRoots", [])
        roots: tuple[str, ...] = ()
        if isinstance(roots_raw, list | tuple):
            roots = tuple(r for r in roots_raw if isinstance(r, str) and r)
        else:
            problems.append("workspaceRoots: expected a list of paths")
        docs = data.get("docsUrl")
        if docs is not None and not isinstance(docs, str):
            problems.append("docsUrl: expected a string")
            docs = None
        grace = data.get("streamingGraceSeconds", 3.0)
        if isinstance(grace, bool) or not isinstance(grace, int | float) or grace < 0:
            problems.append("streamingGraceSeconds: expected a number of seconds (0 or more)")
            grace = 3.0
        return cls(dialects, severity, allow, roots, docs or None, float(grace))

    def severity_of(self, code: str, given: Severity | None = None) -> Severity | None:
        """The severity to report ``code`` at; None when the code is turned off."""
        if code in self.severity:
            return self.severity[code]
        return given if given is not None else default_severity(code)

    def dialect_set(self) -> DialectSet:
        return DialectSet.named(self.dialects)

    def analysis_key(self) -> tuple[object, ...]:
        """What the transcript's own analysis depends on (a change means a full re-scan)."""
        return (self.dialects, self.workspace_roots)
