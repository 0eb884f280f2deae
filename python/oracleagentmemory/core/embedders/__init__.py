"""Embedders: the remote :class:`Embedder`, the in-database :class:`OracleDBEmbedder`, and the
offline default (:class:`~oracleagentmemory.core.embedders.local.LocalMiniLMEmbedder`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.embedder import Embedder
from oracleagentmemory.core.embedders.oracledb import OracleDBEmbedder

if TYPE_CHECKING:
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder as LocalMiniLMEmbedder

__all__ = ["Embedder", "OracleDBEmbedder"]


def default_embedder(*, load: bool = False) -> IEmbedder:
    """The local all-MiniLM-L6-v2 model (offline, CPU); weights load on first use, or now
    with ``load`` (a missing or broken model then fails here, before any work starts)."""
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

    embedder = LocalMiniLMEmbedder()
    if load:
        embedder.load()
    return embedder


def __getattr__(name: str) -> Any:
    if name == "LocalMiniLMEmbedder":
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder
    raise AttributeError(name)
