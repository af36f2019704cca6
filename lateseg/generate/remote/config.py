"""Where a model behind a URL lives and how long lateseg waits for it: :class:`LLMConfig`,
read from the arguments or the environment (``LATESEG_LLM_URL``, ``LATESEG_LLM_MODEL``,
``LATESEG_LLM_API_KEY`` then ``OPENAI_API_KEY``).

The API key is a secret the user lent us for one server: it is kept out of ``repr``,
:meth:`LLMConfig.to_dict` and every message, and only ever sent in that server's
``Authorization`` header."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from lateseg.errors import ConfigError

URL_VAR = "LATESEG_LLM_URL"
MODEL_VAR = "LATESEG_LLM_MODEL"
#: Read in this order: lateseg's own variable first, so a user can lend lateseg a key
#: other than the one their other OpenAI tools use.
KEY_VARS = ("LATESEG_LLM_API_KEY", "OPENAI_API_KEY")


@dataclass(frozen=True)
class LLMConfig:
    """An OpenAI-compatible server and the limits lateseg keeps with it.

    ``url`` is the API's base URL (``http://localhost:11434/v1``): endpoints are
    ``{url}/chat/completions`` and ``{url}/models``; a URL with no path gets ``/v1``, the
    path every local server (Ollama, llama.cpp, vLLM, LM Studio, TGI) uses. ``model``: the
    name the server knows the model by; None asks the server (:meth:`RemoteLLM.model_name`
    takes its only model, or says which it offers).

    Limits, so that nothing waits without end: ``timeout_s`` bounds one call as a whole,
    retries included (a stream may overrun it by at most ``stall_timeout_s``, the wait for
    one chunk); ``connect_timeout_s`` the TCP and TLS set-up; ``stall_timeout_s`` the
    silence between two chunks of a stream; ``max_response_bytes`` the body of one
    response. A 429 or 5xx answer is tried again up to ``max_retries`` times, after
    ``backoff_s`` doubling each time, or the server's ``Retry-After``, each wait at most
    ``max_backoff_s`` (a server asking for longer is not waited for).
    """

    url: str
    model: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 300.0
    connect_timeout_s: float = 10.0
    stall_timeout_s: float = 60.0
    max_response_bytes: int = 4 * 1024 * 1024
    max_retries: int = 3
    backoff_s: float = 0.5
    max_backoff_s: float = 20.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "url", _base_url(self.url))
        if self.model is not None and not self.model.strip():
            raise ConfigError("the model name is empty; give --llm-model NAME or leave it unset")
        for name in ("timeout_s", "connect_timeout_s", "stall_timeout_s", "max_backoff_s"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name}={getattr(self, name)} must be above 0 seconds")
        if self.backoff_s < 0 or self.max_retries < 0:
            raise ConfigError(
                f"backoff_s={self.backoff_s} and max_retries={self.max_retries} must be >= 0"
            )
        if self.max_response_bytes < 1024:
            raise ConfigError(
                f"max_response_bytes={self.max_response_bytes} is below 1024; a chat "
                "response alone takes a few hundred bytes"
            )

    @classmethod
    def from_env(cls, url: str | None = None, model: str | None = None, **limits: Any) -> LLMConfig:
        """The settings given, else those of the environment: ``LATESEG_LLM_URL``,
        ``LATESEG_LLM_MODEL``, and the key from ``LATESEG_LLM_API_KEY`` or else
        ``OPENAI_API_KEY`` (a key never comes from an argument, so it never stands on a
        command line). ``limits``: any other field (``timeout_s=…``)."""
        url = url or os.environ.get(URL_VAR)
        if not url:
            raise ConfigError(
                f"no model server given: pass --llm URL or set {URL_VAR} "
                "(an OpenAI-compatible base URL such as http://localhost:11434/v1)"
            )
        key = next((os.environ[v] for v in KEY_VARS if os.environ.get(v)), None)
        return cls(url=url, model=model or os.environ.get(MODEL_VAR) or None, api_key=key, **limits)

    @property
    def root(self) -> str:
        """The server's root: the base URL without its trailing ``/v1`` (where llama.cpp
        and vLLM answer ``/tokenize``)."""
        return self.url[: -len("/v1")] if self.url.endswith("/v1") else self.url

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON can carry them: whether a key is set, never the key."""
        return {
            "url": self.url,
            "model": self.model,
            "api_key_set": self.api_key is not None,
            "timeout_s": self.timeout_s,
            "connect_timeout_s": self.connect_timeout_s,
            "stall_timeout_s": self.stall_timeout_s,
            "max_response_bytes": self.max_response_bytes,
            "max_retries": self.max_retries,
            "backoff_s": self.backoff_s,
            "max_backoff_s": self.max_backoff_s,
        }

    def redact(self, text: str) -> str:
        """``text`` with the API key, should a server have echoed it, replaced by ``***``."""
        return text.replace(self.api_key, "***") if self.api_key else text


def _base_url(url: str) -> str:
    """``url`` checked and normalised: http or https with a host, no credentials, query
    or fragment (they would leak into messages and logs, and a key belongs in the
    environment); no trailing slash; ``/v1`` when it has no path."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError as e:
        raise ConfigError(
            f"the model server URL is not a URL ({e}); give e.g. http://host:8000/v1"
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = f"{parts.scheme}://{parts.hostname or ''}" if parts.scheme else repr(text[:40])
        raise ConfigError(
            f"the model server URL must be http:// or https:// with a host, not {shown}; "
            "give e.g. http://localhost:11434/v1"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ConfigError(
            f"the model server URL {parts.scheme}://{parts.hostname} carries credentials, a "
            "query or a fragment; give the plain base URL and the key in LATESEG_LLM_API_KEY"
        )
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))
