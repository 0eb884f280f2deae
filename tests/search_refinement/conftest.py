"""Fixtures of the search-refinement suite: the scripted local HTTP server."""

from __future__ import annotations

import pytest

from tests.support.llm_server import llm_server  # noqa: F401 - fixture


@pytest.fixture(autouse=True)
def _no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx honours HTTP(S)_PROXY: keep requests to the local server off any proxy."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")
