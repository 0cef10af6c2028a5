"""A project's own configuration: dialects declared in ``.action-lsp.toml`` or in the
``[tool.action-lsp]`` table of ``pyproject.toml`` (see docs/declared-dialects.md).

``.action-lsp.toml`` holds the same keys as ``[tool.action-lsp]``, at its top level; when a
directory has both, ``.action-lsp.toml`` wins. Only the workspace root's own file is read (the
root of :mod:`action_lsp.project_root`, or ``--root``): never one in a directory above it, so a
file in a parent folder (``/tmp/.action-lsp.toml``) cannot declare what a transcript means.

A wrong file is a :class:`ConfigError` whose one line names the file and the key: the command
line exits with 2, the server shows it (``window/showMessage``) and goes on without the
declared dialects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .dialects import NAMES, Dialect, set_declared
from .dialects.declared import DeclaredError, build, build_tool
from .dialects.tool_use import DeclaredTool, set_declared_tools
from .project_root import CONFIG_FILE, find, shared

PYPROJECT = "pyproject.toml"
FILE_NAMES = (CONFIG_FILE, PYPROJECT)  # what the server watches
_KEYS = {"dialects", "exclude", "extend-exclude", "tools"}


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message is one line."""


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    path: Path | None  # the file read (None: no configuration)
    dialects: tuple[Dialect, ...] = ()
    # Globs `check` skips in a directory walk, as ruff's: `exclude` replaces the default names
    # (None: not set), `extend-exclude` adds to them; relative to the file's directory.
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    tools: tuple[DeclaredTool, ...] = ()  # tools added to the registry ([tools.NAME])


def _table_of(path: Path) -> tuple[Mapping[str, Any] | None, str]:
    """The action-lsp table of ``path`` and the prefix its keys are named with in messages."""
    try:
        raw = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if path.name == PYPROJECT and "action-lsp" not in raw:
        return None, ""
    import tomllib  # (only a root that has a configuration pays for it: the server's start)

    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or inline tables nested deeper than the parser goes
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    except ValueError:  # (an integer over Python's 4,300-digit limit)
        raise ConfigError(f"{path}: not valid TOML: a number over 4,300 digits") from None
    if path.name != PYPROJECT:
        return data, ""
    tool = data.get("tool")
    table = tool.get("action-lsp") if isinstance(tool, Mapping) else None
    if table is None:
        return None, ""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{path}: tool.action-lsp: expected a table")
    return table, "tool.action-lsp."


def config_in(directory: Path) -> Path | None:
    """The configuration file of ``directory`` itself, if it has one (never one of a directory
    every user may write into, like ``/tmp``)."""
    if shared(directory):
        return None
    own = directory / CONFIG_FILE
    if own.is_file():
        return own
    pyproject = directory / PYPROJECT
    if pyproject.is_file():
        try:
            table, _ = _table_of(pyproject)
        except ConfigError:
            return pyproject  # a broken pyproject.toml that mentions action-lsp: say so on load
        if table is not None:
            return pyproject
    return None


def find_config(start: Path) -> Path | None:
    """The configuration file of the workspace root of ``start`` (a file or a directory)."""
    root = find(start)
    if root is None:
        return None
    try:
        return config_in(root.path)
    except OSError:
        return None


def load(path: Path) -> ProjectConfig:
    """Read and check ``path``; raises :class:`ConfigError`."""
    table, prefix = _table_of(path)
    if table is None:
        return ProjectConfig(path)
    unknown = sorted(k for k in table if k not in _KEYS)
    if unknown:
        raise ConfigError(f"{path}: {prefix}{unknown[0]}: unknown key (known: {', '.join(sorted(_KEYS))})")
    exclude = _globs(table, "exclude", path, prefix)
    extend_exclude = _globs(table, "extend-exclude", path, prefix) or ()
    raw = table.get("dialects", {})
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{path}: {prefix}dialects: expected tables [{prefix}dialects.NAME]")
    dialects: list[Dialect] = []
    claimed: dict[str, str] = {}
    for name, spec in raw.items():
        try:
            d = build(name, spec, frozenset(NAMES))
        except DeclaredError as exc:
            raise ConfigError(f"{path}: {prefix}{exc}") from None
        for tag in d.tag_names:
            if tag in claimed:
                raise ConfigError(f"{path}: {prefix}dialects.{name}: tag <{tag}> is declared by {claimed[tag]} too")
            claimed[tag] = name
        dialects.append(d)
    raw_tools = table.get("tools", {})
    if not isinstance(raw_tools, Mapping):
        raise ConfigError(f"{path}: {prefix}tools: expected tables [{prefix}tools.NAME]")
    tools: list[DeclaredTool] = []
    for name, spec in raw_tools.items():
        try:
            tools.append(build_tool(name, spec))
        except DeclaredError as exc:
            raise ConfigError(f"{path}: {prefix}{exc}") from None
    return ProjectConfig(path, tuple(dialects), exclude, extend_exclude, tuple(tools))


def _globs(table: Mapping[str, Any], key: str, path: Path, prefix: str) -> tuple[str, ...] | None:
    if key not in table:
        return None
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(g, str) for g in value):
        raise ConfigError(f'{path}: {prefix}{key}: expected a list of globs, e.g. {key} = ["docs"]')
    return tuple(value)


def use(path: Path | None) -> ProjectConfig:
    """Load ``path`` (None: no configuration) and install its dialects for this process.
    On a :class:`ConfigError` the declared dialects are removed and the error raised."""
    if path is None:
        return install(ProjectConfig(None))
    try:
        config = load(path)
    except ConfigError:
        install(ProjectConfig(None))
        raise
    return install(config)


def install(config: ProjectConfig) -> ProjectConfig:
    """Install the dialects and tools of ``config`` (already loaded) for this process."""
    set_declared(config.dialects)
    set_declared_tools(config.tools)
    return config


def use_for(start: Path, root: Path | None = None) -> ProjectConfig:
    """The configuration of a transcript at ``start``: ``root``'s own when a root is given,
    else that of the transcript's workspace root."""
    return use(config_in(root) if root is not None else find_config(start))


__all__ = ["CONFIG_FILE", "ConfigError", "ProjectConfig", "config_in", "find_config", "install", "load", "use", "use_for"]
