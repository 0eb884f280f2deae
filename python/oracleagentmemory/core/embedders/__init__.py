"""Embedders: the offline default, the in-database Oracle model, and the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.core.embedders.oracledb import OracleDBEmbedder

if TYPE_CHECKING:
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

__all__ = ["IEmbedder", "LocalMiniLMEmbedder", "OracleDBEmbedder", "default_embedder"]


def default_embedder() -> IEmbedder:
    """The local all-MiniLM-L6-v2 model (offline, CPU); weights load on first use."""
    from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder()


def __getattr__(name: str) -> Any:
    if name == "LocalMiniLMEmbedder":
        from oracleagentmemory.core.embedders.local import LocalMiniLMEmbedder

        return LocalMiniLMEmbedder
    raise AttributeError(name)
