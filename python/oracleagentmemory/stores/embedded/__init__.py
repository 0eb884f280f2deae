"""The embedded backend: the whole store contract over one SQLite file."""

from oracleagentmemory.stores.embedded.store import EmbeddedBackend

__all__ = ["EmbeddedBackend"]
