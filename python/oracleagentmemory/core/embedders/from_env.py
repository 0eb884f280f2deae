"""Build an :class:`~oracleagentmemory.core.embedders.embedder.Embedder` from environment
variables, like :func:`~oracleagentmemory.core.llms.from_env.llm_from_env` for the LLM.

Why: pointing the library at a served embedding model should need no code change. Nothing
is built unless ``ORACLEAGENTMEMORY_EMBEDDER_BASE_URL`` or ``…_MODEL`` is set.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from oracleagentmemory.core.embedders.embedder import DEFAULT_BATCH_SIZE, Embedder
from oracleagentmemory.core.llms.from_env import env_number

ENV_PREFIX = "ORACLEAGENTMEMORY_EMBEDDER_"


def embedder_from_env(environ: Mapping[str, str] | None = None) -> Embedder | None:
    """The embedder named by ``ORACLEAGENTMEMORY_EMBEDDER_*`` variables, or None.

    ``…_BASE_URL`` and ``…_MODEL`` are required together; ``…_DIMENSION``, ``…_API_KEY``
    and ``…_BATCH_SIZE`` are optional. The key is never read from ``OPENAI_API_KEY``.
    """
    environ = os.environ if environ is None else environ
    base_url = environ.get(ENV_PREFIX + "BASE_URL", "").strip()
    model = environ.get(ENV_PREFIX + "MODEL", "").strip()
    if not base_url and not model:
        return None
    if not base_url or not model:
        raise ValueError(f"set both {ENV_PREFIX}BASE_URL and {ENV_PREFIX}MODEL")
    return Embedder(
        model,
        api_base=base_url,
        api_key=environ.get(ENV_PREFIX + "API_KEY", "").strip() or None,
        embedding_dimension=int(env_number(environ, ENV_PREFIX + "DIMENSION", int, 0)) or None,
        batch_size=int(env_number(environ, ENV_PREFIX + "BATCH_SIZE", int,
                                  DEFAULT_BATCH_SIZE)) or DEFAULT_BATCH_SIZE,
    )
