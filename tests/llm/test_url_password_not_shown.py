"""A password in ``api_base`` (``http://user:password@host/v1``) is never shown.

httpx sends a URL's userinfo as HTTP Basic credentials (httpx/_client.py,
``_build_request_auth``) and masks the password in its own ``repr(URL)`` ("[secure]"); the
library printed it in ``repr()`` of its models and in every error and WARNING line naming
the URL (found by an attack on secrets).
"""

from __future__ import annotations

import logging
import socket

import pytest

from oracleagentmemory.core.embedders.embedder import Embedder
from oracleagentmemory.core.llms.errors import LlmError
from oracleagentmemory.core.llms.llm import Llm
from oracleagentmemory.core.reranker import Reranker

PASSWORD = "s3cretpw-91x"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again on exit: connections are refused


def test_repr_of_models_hides_the_password() -> None:
    base = f"http://alice:{PASSWORD}@127.0.0.1:9/v1"
    for model in (Llm(model="m", api_base=base, api_key=None),
                  Embedder(model="e", api_base=base, api_key=None),
                  Reranker("r", api_base=base, api_key=None)):
        assert PASSWORD not in repr(model)
        assert "127.0.0.1:9/v1" in repr(model)


def test_errors_and_warnings_hide_the_password(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="oracleagentmemory")
    llm = Llm(model="m", api_base=f"http://alice:{PASSWORD}@127.0.0.1:{closed_port()}/v1",
              api_key=None, max_retries=1, circuit_breaker_threshold=1)
    llm.http.retry = type(llm.http.retry)(max_retries=1, initial_backoff=0.0, max_backoff=0.0)
    with pytest.raises(LlmError) as failed:
        llm.generate("hello")
    assert "127.0.0.1" in str(failed.value)
    assert PASSWORD not in str(failed.value)
    with pytest.raises(LlmError) as refused:  # the circuit breaker's own message
        llm.generate("hello")
    assert PASSWORD not in str(refused.value)
    assert [r.getMessage() for r in caplog.records if PASSWORD in r.getMessage()] == []


def test_two_servers_named_at_once_are_refused_without_the_password() -> None:
    with pytest.raises(ValueError) as refused:
        Llm(model="m", api_base="http://me:s3cret@a.example/v1",
            base_url="http://me:other-s3cret@b.example/v1")
    assert "s3cret" not in str(refused.value)
    assert "a.example" in str(refused.value) and "b.example" in str(refused.value)
