"""Long-term memory for AI agents, backed by Oracle AI Database or an embedded SQLite file."""

__all__ = ["__version__"]

__version__ = "0.1.0"
