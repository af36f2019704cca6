"""One exception hierarchy for lateseg.

Every error says what was given, what is allowed, and what to do about it.
"""

from __future__ import annotations


class LatesegError(Exception):
    """Base class of every error lateseg raises on purpose."""


class ConfigError(LatesegError, ValueError):
    """A configuration value is out of range or inconsistent with another."""


class InvariantError(LatesegError, ValueError):
    """A core type was built with values that break its invariants (ARCHITECTURE.md, Invariants)."""


class IngestError(LatesegError):
    """One file could not be turned into a Document; the reason is the message."""


class UnsupportedFormatError(IngestError):
    """The file's type is not one lateseg ingests."""


class OffsetError(LatesegError):
    """Character spans and token offsets disagree (never padded over silently)."""


class ModelError(LatesegError):
    """A model could not be found or loaded."""


class IndexStoreError(LatesegError):
    """An index folder is missing, foreign, corrupt, or built with other settings."""


class GenerationError(LatesegError):
    """The generator failed to produce an answer."""


class RemoteModelError(GenerationError):
    """A model behind a URL (an OpenAI-compatible server) could not answer. The message is
    one line naming the server (never the API key); ``kind`` says which failure it was, so a
    caller (serve, the CLI) can tell a refused key from a stalled stream without parsing
    the message: ``"refused"``, ``"dns"``, ``"tls"``, ``"connect"``, ``"timeout"``,
    ``"auth"``, ``"model"``, ``"not-found"``, ``"rate-limit"``, ``"server"``, ``"http"``,
    ``"stall"``, ``"too-large"``, ``"malformed"``, ``"empty"``."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind
