"""The search configuration interface.

Why a marker base: a client or thread holds one search config, and the kind of config
(top-k, LLM pruning, or just token budgets) decides how candidates become results. Concrete
configs live in :mod:`oracleagentmemory.core.searchconfig`.
"""

from __future__ import annotations

from abc import ABC

__all__ = ["ISearchConfig"]


class ISearchConfig(ABC):  # noqa: B024 - a marker base: configs share no method
    """Base of every search configuration."""
