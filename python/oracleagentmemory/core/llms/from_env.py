"""Build an :class:`~oracleagentmemory.core.llms.llm.Llm` from environment variables.

Why: pointing the library at a real model should need no code change. Nothing is built
unless ``ORACLEAGENTMEMORY_LLM_BASE_URL`` is set, so a missing variable never sends data
anywhere. The key is read only from ``ORACLEAGENTMEMORY_LLM_API_KEY`` (never from
``OPENAI_API_KEY``), so a key meant for one provider is not sent to another host.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from oracleagentmemory.core.llms.llm import Llm

ENV_PREFIX = "ORACLEAGENTMEMORY_LLM_"
BASE_URL_ENV = ENV_PREFIX + "BASE_URL"
MODEL_ENV = ENV_PREFIX + "MODEL"
API_KEY_ENV = ENV_PREFIX + "API_KEY"
TIMEOUT_ENV = ENV_PREFIX + "TIMEOUT"
MAX_RETRIES_ENV = ENV_PREFIX + "MAX_RETRIES"
JSON_MODE_ENV = ENV_PREFIX + "JSON_MODE"
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def env_number(environ: Mapping[str, str], name: str, kind: type, default: float) -> float:
    """A numeric variable, or ``default`` when unset; ValueError naming the variable if bad."""
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ValueError(f"{name} must be a {kind.__name__}, got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {raw!r}")
    return value


def env_flag(environ: Mapping[str, str], name: str, default: bool) -> bool:
    raw = environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError(f"{name} must be true or false, got {raw!r}")


def llm_from_env(environ: Mapping[str, str] | None = None) -> Llm | None:
    """The LLM named by ``ORACLEAGENTMEMORY_LLM_*`` variables, or None when none is named.

    ``…_BASE_URL`` (e.g. ``http://localhost:11434/v1``) and ``…_MODEL`` are required
    together; ``…_API_KEY``, ``…_TIMEOUT`` (seconds), ``…_MAX_RETRIES`` and ``…_JSON_MODE``
    are optional. The model is named as for :class:`Llm` (a known provider prefix such as
    ``ollama/`` is dropped; any other ``org/name`` is the server's own model name).
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
        timeout=env_number(environ, TIMEOUT_ENV, float, 60.0) or 60.0,
        max_retries=int(env_number(environ, MAX_RETRIES_ENV, int, 3)),
        structured_output=env_flag(environ, JSON_MODE_ENV, True),
    )
