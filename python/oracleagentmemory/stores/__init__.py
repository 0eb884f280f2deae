"""The store contract and its backends."""
