"""Bad arguments are refused first, naming themselves.

``get_context_card(token_budget="5")`` raised a bare TypeError after the card's summary and
searches had run, and ``soft_token_budget=nan`` was accepted; flags given as strings were
taken as true. Each is now a TypeError/ValueError of the library naming the argument,
raised before anything is embedded or searched (the test embedder records every call).
"""

from __future__ import annotations

import math

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.errors import AgentMemoryError
from tests.support.embedders import HashingEmbedder
from tests.support.images import PNG


@pytest.fixture
def embedder():
    return HashingEmbedder()


@pytest.fixture
def thread(embedder):
    with OracleAgentMemory(connection=":memory:", embedder=embedder) as client:
        thread = client.create_thread(user_id="u", agent_id="a")
        thread.add_messages([{"role": "user", "content": "I like pizza"}])
        thread.add_memory("likes pizza")
        thread.add_image(PNG, description="a pizza", image_id="img")
        yield thread


@pytest.mark.parametrize(("call", "error", "argument"), [
    (lambda t: t.get_context_card(token_budget="5"), TypeError, "token_budget"),
    (lambda t: t.get_context_card(soft_token_budget=math.nan), TypeError, "soft_token_budget"),
    (lambda t: t.get_context_card(soft_token_budget=2.5), TypeError, "soft_token_budget"),
    (lambda t: t.get_context_card(include_invalid_results="no"), TypeError,
     "include_invalid_results"),
    (lambda t: t.get_context_card(metadata_filter={"k": {"$bogus": 1}}), ValueError,
     r"metadata_filter .*\$bogus"),
    (lambda t: t.search("pizza", metadata_filter={"k": {"$bogus": 1}}), ValueError,
     r"metadata_filter .*\$bogus"),
    (lambda t: t.search("pizza", soft_token_budget=math.nan), TypeError, "soft_token_budget"),
    (lambda t: t.get_messages(include_image_bytes="yes"), TypeError, "include_image_bytes"),
    (lambda t: t.list_images(image_id="img", include_bytes="yes"), TypeError, "include_bytes"),
])
def test_bad_arguments_are_refused_before_any_work(thread, embedder, call, error, argument):
    embedder.calls.clear()
    with pytest.raises(error, match=argument) as refused:
        call(thread)
    assert isinstance(refused.value, AgentMemoryError)
    assert embedder.calls == []  # nothing was embedded, so nothing was searched


def test_an_unknown_enum_value_lists_the_values_there_are():
    # search_strategy="fuzzy" said only "'fuzzy' is not a valid ...".
    from oracleagentmemory.core import OracleAgentMemory

    with pytest.raises(ValueError, match="use one of: vector, keyword, hybrid"):
        OracleAgentMemory(connection=":memory:", search_strategy="fuzzy")
