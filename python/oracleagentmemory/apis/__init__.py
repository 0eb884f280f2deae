"""Abstract interfaces and value types of the public API."""
