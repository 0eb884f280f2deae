"""Build an :class:`~oracleagentmemory.core.llms.llm.Llm` from environment variables.

Why: pointing the library at a real model should need no code change. Nothing is built
unless ``ORACLEAGENTMEMORY_LLM_BASE_URL`` is set, so a missing variable never sends data
anywhere. The key is read only from ``ORACLEAGENTMEMORY_LLM_API_KEY`` (never from
``OPENAI_API_KEY``), so a key meant for one provider is not sent to another host.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from oracleagentmemory.core.llms.llm import Llm
from oracleagentmemory.core.llms.tasks import TASKS
from oracleagentmemory.errors import InvalidArgumentError

ENV_PREFIX = "ORACLEAGENTMEMORY_LLM_"
BASE_URL_ENV = ENV_PREFIX + "BASE_URL"
MODEL_ENV = ENV_PREFIX + "MODEL"
API_KEY_ENV = ENV_PREFIX + "API_KEY"
TIMEOUT_ENV = ENV_PREFIX + "TIMEOUT"
MAX_RETRIES_ENV = ENV_PREFIX + "MAX_RETRIES"
JSON_MODE_ENV = ENV_PREFIX + "JSON_MODE"
MAX_TOKENS_ENV = ENV_PREFIX + "MAX_TOKENS"
RETRY_TIMEOUTS_ENV = ENV_PREFIX + "RETRY_TIMEOUTS"
BREAKER_THRESHOLD_ENV = ENV_PREFIX + "BREAKER_THRESHOLD"
BREAKER_COOLDOWN_ENV = ENV_PREFIX + "BREAKER_COOLDOWN"
"""``…_MAX_TOKENS_<TASK>`` and ``…_TIMEOUT_<TASK>`` name one task each (``EXTRACTION``,
``SUMMARY``, ``TOPICS``, ``LINKING``, ``CAPTION``, ``SHORTENING``)."""
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def env_number(environ: Mapping[str, str], name: str, kind: type, default: float) -> float:
    """A numeric variable, or ``default`` when unset; InvalidArgumentError (a ValueError)
    naming the variable if bad."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise InvalidArgumentError(f"{name} must be a {kind.__name__}, got {raw!r}") from None
    if value < 0:
        raise InvalidArgumentError(f"{name} must not be negative, got {raw!r}")
    return value


def env_positive(environ: Mapping[str, str], name: str, kind: type) -> Any:
    """A positive number (``kind`` int or float) from ``name``, or None when unset."""
    if not environ.get(name, "").strip():
        return None
    value = env_number(environ, name, kind, 0)
    if not value > 0:
        raise InvalidArgumentError(f"{name} must be positive, got {environ[name].strip()!r}")
    return kind(value)


def client_options(environ: Mapping[str, str]) -> dict[str, Any]:
    """The ``Llm`` options the variables set (a variable left unset sets nothing)."""
    options: dict[str, Any] = {}
    if (timeout := env_positive(environ, TIMEOUT_ENV, float)) is not None:
        options["timeout"] = timeout
    if environ.get(MAX_RETRIES_ENV, "").strip():
        options["max_retries"] = int(env_number(environ, MAX_RETRIES_ENV, int, 3))
    if (cap := env_positive(environ, MAX_TOKENS_ENV, int)) is not None:
        options["max_tokens"] = cap
    caps = {task: value for task in TASKS if (value := env_positive(
        environ, f"{MAX_TOKENS_ENV}_{task.upper()}", int)) is not None}
    timeouts = {task: value for task in TASKS if (value := env_positive(
        environ, f"{TIMEOUT_ENV}_{task.upper()}", float)) is not None}
    if caps:
        options["max_tokens_by_task"] = caps
    if timeouts:
        options["timeout_by_task"] = timeouts
    if environ.get(RETRY_TIMEOUTS_ENV, "").strip():
        options["retry_timeouts"] = env_flag(environ, RETRY_TIMEOUTS_ENV, False)
    if environ.get(BREAKER_THRESHOLD_ENV, "").strip():
        options["circuit_breaker_threshold"] = int(
            env_number(environ, BREAKER_THRESHOLD_ENV, int, 0))
    if (cooldown := env_positive(environ, BREAKER_COOLDOWN_ENV, float)) is not None:
        options["circuit_breaker_cooldown"] = cooldown
    return options


def env_flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    """``1/true/yes/on`` or ``0/false/no/off`` (any case), ``default`` when unset or blank."""
    raw = environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise InvalidArgumentError(f"{name} must be true or false, got {raw!r}")


def llm_from_env(environ: Mapping[str, str] | None = None) -> Llm | None:
    """The LLM named by ``ORACLEAGENTMEMORY_LLM_*`` variables, or None when none is named.

    ``…_BASE_URL`` (e.g. ``http://localhost:11434/v1``) and ``…_MODEL`` are required
    together; ``…_API_KEY``, ``…_TIMEOUT`` (seconds, every call), ``…_TIMEOUT_<TASK>``,
    ``…_MAX_TOKENS`` (every call), ``…_MAX_TOKENS_<TASK>``, ``…_MAX_RETRIES``,
    ``…_RETRY_TIMEOUTS``, ``…_BREAKER_THRESHOLD``, ``…_BREAKER_COOLDOWN`` (seconds) and
    ``…_JSON_MODE`` are optional; unset ones keep the ``Llm`` defaults. The model is named
    as for :class:`Llm` (a known provider prefix such as ``ollama/`` is dropped; any other
    ``org/name`` is the server's own model name).
    """
    environ = os.environ if environ is None else environ
    base_url = environ.get(BASE_URL_ENV, "").strip()
    model = environ.get(MODEL_ENV, "").strip()
    if not base_url:
        if model:
            raise ValueError(f"{MODEL_ENV} is set but {BASE_URL_ENV} is not; set both")
        return None
    if not model:
        raise ValueError(f"{BASE_URL_ENV} is set but {MODEL_ENV} is not; set both")
    if not base_url.lower().startswith(("http://", "https://")):
        raise ValueError(f"{BASE_URL_ENV} must be an http(s) URL, got {base_url!r}")
    return Llm(
        model,
        api_base=base_url,
        api_key=environ.get(API_KEY_ENV, "").strip() or None,
        structured_output=env_flag(environ, JSON_MODE_ENV, True),
        **client_options(environ),
    )
