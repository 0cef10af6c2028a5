"""action-lsp: parse, check and apply the actions written into LLM agent transcripts."""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .batch import check_text

__all__ = ["__version__", "check_text"]


def __getattr__(name: str) -> object:
    # ``from action_lsp import check_text``, without importing the core for ``action_lsp.cli``.
    if name == "check_text":
        from .batch import check_text

        return check_text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
