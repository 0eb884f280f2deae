"""Fixtures of the API tests: the scripted local LLM and embeddings server."""

from tests.support.llm_server import llm_server  # noqa: F401 - fixture
