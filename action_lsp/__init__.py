"""action-lsp: parse, check and apply the actions written into LLM agent transcripts."""

__version__ = "0.1.0"
