"""Fixtures of the LLM suite: the scripted local server and clients that record waits."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
from oracleagentmemory.core.llms.openai_compatible import OpenAICompatibleLlm
from tests.support.llm_server import ScriptedLlmServer, llm_server  # noqa: F401 - fixture


@pytest.fixture(autouse=True)
def _no_proxy_for_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx honours HTTP(S)_PROXY: keep requests to the local server off any proxy."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1,localhost")


class RecordedSleeps(list):
    """Stands in for time.sleep / asyncio.sleep: records each requested wait, waits none."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)

    async def async_sleep(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> RecordedSleeps:
    return RecordedSleeps()


@pytest.fixture
def make_http(llm_server: ScriptedLlmServer, sleeps: RecordedSleeps  # noqa: F811
              ) -> Callable[..., HttpJsonClient]:
    def factory(max_retries: int = 3, timeout: float = 5.0, api_key: str | None = None,
                **retry: float) -> HttpJsonClient:
        return HttpJsonClient(llm_server.base_url, api_key=api_key, timeout=timeout,
                              retry=RetryPolicy(max_retries=max_retries, **retry),
                              sleep=sleeps, async_sleep=sleeps.async_sleep)
    return factory


@pytest.fixture
def make_llm(make_http: Callable[..., HttpJsonClient]) -> Callable[..., OpenAICompatibleLlm]:
    created: list[OpenAICompatibleLlm] = []

    def factory(max_retries: int = 3, timeout: float = 5.0, json_mode: bool = True,
                **retry: float) -> OpenAICompatibleLlm:
        llm = OpenAICompatibleLlm("test-model", json_mode=json_mode,
                                  http=make_http(max_retries, timeout, **retry))
        created.append(llm)
        return llm

    yield factory
    for llm in created:
        llm.close()


@pytest.fixture
def llm(make_llm: Callable[..., OpenAICompatibleLlm]) -> OpenAICompatibleLlm:
    """A chat client on the scripted server: 3 retries, waits recorded, not slept."""
    return make_llm()
