"""Fixtures of the LLM suite: the scripted local server and clients that record waits."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oracleagentmemory.core.llms import Llm
from oracleagentmemory.core.llms.http_client import HttpJsonClient, RetryPolicy
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
def make_llm(llm_server: ScriptedLlmServer, make_http: Callable[..., HttpJsonClient]  # noqa: F811
             ) -> Callable[..., Llm]:
    """Llms on the scripted server whose HTTP client records waits instead of sleeping."""
    created: list[Llm] = []

    def factory(max_retries: int = 3, timeout: float = 5.0, retry: dict | None = None,
                **llm_options: object) -> Llm:
        llm_options.setdefault("timeout", timeout)  # every call, whatever its task
        llm = Llm("test-model", api_base=llm_server.base_url, **llm_options)
        llm.http = make_http(max_retries, timeout, **(retry or {}))
        created.append(llm)
        return llm

    yield factory
    for llm in created:
        llm.close()


@pytest.fixture
def llm(make_llm: Callable[..., Llm]) -> Llm:
    """A chat client on the scripted server: 3 retries, waits recorded, not slept."""
    return make_llm()
