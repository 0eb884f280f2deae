"""Embedders: the remote :class:`Embedder`, the in-database :class:`OracleDBEmbedder`, and the
offline local models (:class:`~oracleagentmemory.core.embedders.local_e5.LocalE5Embedder`,
the default, and :class:`~oracleagentmemory.core.embedders.local.LocalMiniLMEmbedder`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.embedder import Embedder
from oracleagentmemory.core.embedders.oracledb import OracleDBEmbedder
from oracleagentmemory.stores.embedding_models import (
    DEFAULT_EMBEDDING_MODEL,
    LEGACY_EMBEDDING_MODEL,
    LOCAL_EMBEDDING_MODELS,
)

if TYPE_CHECKING:
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder as LocalMiniLMEmbedder
    from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder as LocalE5Embedder

__all__ = ["Embedder", "OracleDBEmbedder"]


def default_embedder(*, load: bool = False, model: str = DEFAULT_EMBEDDING_MODEL) -> IEmbedder:
    """A local model (offline, CPU), multilingual-e5-small unless ``model`` names
    all-MiniLM-L6-v2; weights load on first use, or now with ``load`` (a missing or broken
    model then fails here, before any work starts). A store opened with it may swap it for
    the model its vectors were made with (see :func:`settle_default_embedder`)."""
    if model not in LOCAL_EMBEDDING_MODELS:
        raise ValueError(f"model must be one of {', '.join(LOCAL_EMBEDDING_MODELS)}")
    embedder: Any
    if model == LEGACY_EMBEDDING_MODEL:
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        embedder = LocalMiniLMEmbedder()
    else:
        from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

        embedder = LocalE5Embedder()
    embedder.chosen_by_default = True
    if load:
        embedder.load()
    return embedder


def settle_default_embedder(backend: Any, embedder: IEmbedder | None) -> IEmbedder | None:
    """The embedder to use with ``backend``: a default one (from :func:`default_embedder`)
    becomes the model the store's vectors were made with, as the store reports it
    (:class:`~oracleagentmemory.stores.protocol.RecordsEmbeddingModel`: all-MiniLM-L6-v2 in
    a store made before names were recorded that holds vectors, and in a store that cannot
    say), and the model's name is recorded in a store that has none yet, on both backends.
    Any other embedder is the caller's choice, kept (and recorded where none is)."""
    if embedder is None:
        return None
    recorded_model = getattr(backend, "recorded_embedding_model", None)
    name = getattr(embedder, "model_name", None)
    if getattr(embedder, "chosen_by_default", False):
        wanted = (recorded_model() if recorded_model is not None
                  else LEGACY_EMBEDDING_MODEL) or name
        if wanted in LOCAL_EMBEDDING_MODELS and wanted != name:
            embedder = default_embedder(model=wanted, load=getattr(embedder, "loaded", False))
            name = wanted
    record = getattr(backend, "record_embedding_model", None)
    if record is not None and isinstance(name, str):
        record(name)
    return embedder


def __getattr__(name: str) -> Any:
    if name == "LocalMiniLMEmbedder":
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder
    if name == "LocalE5Embedder":
        from oracleagentmemory.core.embedders.local_e5 import LocalE5Embedder

        return LocalE5Embedder
    raise AttributeError(name)
