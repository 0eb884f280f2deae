"""Which server a ``provider/model`` name talks to, and with which key.

Why a table: the reference names models ``provider/model``. Providers that speak the
OpenAI protocol are served by our own HTTP client; each has a default base URL, and hosted
ones the environment variable their key is read from. A key from the environment is only
sent to its provider's own default URL, never to a host it was not issued for.

| provider | default ``api_base`` | key variable |
|---|---|---|
| ``openai`` (also a name without a provider) | ``https://api.openai.com/v1`` | ``OPENAI_API_KEY`` |
| ``ollama``, ``ollama_chat`` | ``http://localhost:11434/v1`` | - |
| ``vllm``, ``hosted_vllm`` | ``http://localhost:8000/v1`` | - |
| ``llamacpp`` | ``http://localhost:8080/v1`` | - |
| ``lm_studio`` | ``http://localhost:1234/v1`` | - |

Any other prefix with an explicit ``api_base`` is taken as part of the model name of an
OpenAI-compatible server (``meta-llama/Llama-3.1-8B-Instruct`` on vLLM, or a gateway such
as a LiteLLM proxy); without ``api_base`` it is an error naming the missing extra.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from oracleagentmemory._distribution import DISTRIBUTION
from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.core.llms.http_client import (
    CircuitBreaker,
    ConnectionOptions,
    HttpJsonClient,
    RetryPolicy,
    shown_url,
)
from oracleagentmemory.core.llms.model_arguments import positive_seconds
from oracleagentmemory.errors import InvalidArgumentError

LITELLM_EXTRA = f"{DISTRIBUTION}[litellm]"
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 3


@dataclass(frozen=True)
class Provider:
    """A server family that speaks the OpenAI protocol."""

    name: str
    base_url: str
    api_key_env: str | None = None
    max_tokens_field: str = "max_tokens"
    """The chat-completions field that caps the answer (OpenAI renamed it)."""


_OPENAI = Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY",
                   max_tokens_field="max_completion_tokens")
_OLLAMA = Provider("ollama", "http://localhost:11434/v1")
_VLLM = Provider("vllm", "http://localhost:8000/v1")
PROVIDERS: dict[str, Provider] = {
    "openai": _OPENAI,
    "ollama": _OLLAMA,
    "ollama_chat": _OLLAMA,
    "vllm": _VLLM,
    "hosted_vllm": _VLLM,
    "llamacpp": Provider("llamacpp", "http://localhost:8080/v1"),
    "lm_studio": Provider("lm_studio", "http://localhost:1234/v1"),
}
DEFAULT_PROVIDER = _OPENAI
CUSTOM_SERVER = Provider("openai-compatible", "")
"""The provider of a model named for an explicit ``api_base`` (no known prefix)."""


@dataclass(frozen=True)
class Endpoint:
    """Where requests go: the provider, the model name on the wire, base URL and key."""

    provider: Provider
    model: str
    base_url: str
    api_key: str | None
    max_tokens_field: str = "max_tokens"
    missing_key: str | None = None
    """Why no request can succeed: the provider's own URL needs a key and none was given
    (the variable to set is named); None when the endpoint has what it needs."""


_LOCATION_WORD = re.compile(r"(?:^|_)(?:url|uri|base|host|endpoint|server|address)(?:_|$)",
                            re.IGNORECASE)
"""A keyword naming where to send requests (``api_url``, ``openai_api_base``, ``host``...)
rather than a request field: none of the OpenAI request fields has one of these words."""


def location_argument(api_base: Any, options: dict[str, Any]) -> Any:
    """``api_base``, or ``base_url`` (popped from the extra keywords ``options``) when that
    is how the caller named the server, as the OpenAI SDK and LiteLLM spell it.

    Why: extra keywords are request fields, so a server named any other way would go into
    the body while the requests (and the provider's key) went to the provider's default
    URL. A keyword that names a location is refused instead, so requests only ever go where
    ``api_base`` says. Raises ValueError naming the keyword.
    """
    if "base_url" in options:
        base_url = options.pop("base_url")
        if api_base is not NOT_SET_MARKER and api_base != base_url:
            raise ValueError(f"api_base {shown_url(api_base)!r} and base_url "
                             f"{shown_url(base_url)!r} name two servers; give one (base_url "
                             "is another name for api_base)")
        api_base = base_url
    for name in options:
        if _LOCATION_WORD.search(name):
            raise ValueError(f"unknown argument {name!r}: name the server with api_base (or "
                             "base_url); other arguments are request fields and never change "
                             "where requests go")
    return api_base


def resolve_endpoint(model: Any, api_base: Any = NOT_SET_MARKER,
                     api_key: Any = NOT_SET_MARKER) -> Endpoint:
    """The endpoint for a reference-style ``model`` and optional ``api_base``/``api_key``.

    ``api_key`` unset reads the provider's key variable (only for its default URL); None
    sends no key. Raises ValueError naming the argument for anything unusable.
    """
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"model must be a non-empty model name such as 'openai/gpt-4o-mini', "
                         f"got {model!r}")
    model = model.strip()
    base_url = None if api_base is NOT_SET_MARKER else api_base
    if base_url is not None and not isinstance(base_url, str):
        raise TypeError(f"api_base must be a str URL or None, got {type(base_url).__name__}")
    if api_key is not NOT_SET_MARKER and api_key is not None and not isinstance(api_key, str):
        raise TypeError(f"api_key must be a str or None, got {type(api_key).__name__}")
    prefix, _, rest = model.partition("/")
    provider = PROVIDERS.get(prefix.lower()) if rest else (
        DEFAULT_PROVIDER if base_url is None else CUSTOM_SERVER)
    if provider is not None and rest:
        model = rest
    elif provider is None and base_url is None:
        raise ValueError(
            f"model {model!r} names provider {prefix!r}, which this library does not reach "
            f"directly; served providers: {', '.join(sorted(PROVIDERS))}. Pass api_base of an "
            f"OpenAI-compatible server or gateway for it (for example a LiteLLM proxy). "
            f"Native support for other providers is planned as the optional extra "
            f"`{LITELLM_EXTRA}`, not yet available."
        )
    elif provider is None:
        provider = CUSTOM_SERVER
    url = base_url or provider.base_url
    own_url = url.rstrip("/") == provider.base_url
    missing_key = None
    if api_key is NOT_SET_MARKER:
        api_key = (os.environ.get(provider.api_key_env) or None
                   if provider.api_key_env and own_url else None)
        if provider.api_key_env and own_url and api_key is None:
            missing_key = (f"no API key for {url} (model {model!r}): set "
                           f"{provider.api_key_env}, or pass api_key (None sends no key)")
    return Endpoint(provider, model, url, api_key or None,
                    provider.max_tokens_field if own_url else "max_tokens", missing_key)


def client_options(options: dict[str, Any]) -> tuple[float, int]:
    """The client options ``timeout`` (seconds) and ``max_retries`` popped from ``options``,
    checked, with their defaults: what every HTTP model client takes as its own, not as
    request fields."""
    timeout = positive_seconds("timeout", options.pop("timeout", DEFAULT_TIMEOUT))
    retries = options.pop("max_retries", DEFAULT_MAX_RETRIES)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidArgumentError(f"max_retries must be an int of at least 0, got {retries!r}")
    return timeout, retries


def endpoint_client(endpoint: Endpoint, options: dict[str, Any], *, key_file: Any,
                    cert_file: Any, ca_file: Any, proxy: Any, trust_env: Any,
                    retry_timeouts: bool = True, breaker: CircuitBreaker | None = None
                    ) -> HttpJsonClient:
    """The HTTP client for ``endpoint`` from the reference's TLS/proxy arguments (unset: the
    default) and the client options ``timeout`` and ``max_retries``, popped from ``options``
    (the rest are request fields). ``retry_timeouts`` and ``breaker``: see
    :class:`HttpJsonClient`."""
    timeout, retries = client_options(options)
    connection = ConnectionOptions(
        ca_file=value_or(ca_file, None), cert_file=value_or(cert_file, None),
        key_file=value_or(key_file, None), proxy=value_or(proxy, None),
        trust_env=value_or(trust_env, True),
    )
    return HttpJsonClient(endpoint.base_url, api_key=endpoint.api_key, timeout=timeout,
                          retry=RetryPolicy(max_retries=retries), connection=connection,
                          retry_timeouts=retry_timeouts, breaker=breaker,
                          missing_key=endpoint.missing_key)
