"""Every example of the reference pages (shared/seeds) that needs no LLM, run unchanged.

Each example is kept as doctest text, exactly as documented, and runs against a fresh
embedded store (``db_pool`` is an embedded location) with the default local embedder.
``llm`` is None: these examples pass it but do not need it. Lines marked "setup" create
what an example assumes already exists.
"""

from __future__ import annotations

import doctest
import warnings

import pytest

from oracleagentmemory.core.embedders import default_embedder
from tests.conftest import ORACLE_DSN, ORACLE_SKIP_REASON
from tests.support.dict_memory_store import DictMemoryStore

BACKENDS = [
    "embedded",
    "caller-store",
    pytest.param("oracle", marks=pytest.mark.skipif(not ORACLE_DSN, reason=ORACLE_SKIP_REASON)),
]

EXAMPLES: dict[str, str] = {
    "thread: create with extraction config, add messages": """
>>> from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory
>>> client = OracleAgentMemory(connection=db_pool, embedder=embedder)
>>> thread = client.create_thread(
...     thread_id="c4",
...     llm=llm,
...     memory_extraction_config=MemoryExtractionConfig(enable_context_summary=True),
... )
>>> len(thread.add_messages([{"role": "user", "content": "I love pizza."}]))
1
""",
    "thread: create with deprecated enable_context_summary": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(connection=db_pool, embedder=embedder)
>>> thread = client.create_thread(
...     thread_id="c1",
...     llm=llm,
...     enable_context_summary=True,
... )
>>> len(thread.add_messages([{"role": "user", "content": "I love pizza."}]))
1
""",
    "thread.add_memory": """
>>> thread.add_memory("Remember this preference", memory_id="mem-thread-docs")
'mem-thread-docs'
""",
    "thread.add_memory_async": """
>>> import asyncio
>>> asyncio.run(thread.add_memory_async(
...     "Remember this preference", memory_id="mem-thread-docs-async"
... ))
'mem-thread-docs-async'
""",
    "thread.add_messages": """
>>> len(thread.add_messages([{"role": "user", "content": "Thread message from docs"}]))
1
""",
    "thread.delete_memory": """
>>> thread.delete_memory("456")
0
>>> import asyncio
>>> asyncio.run(thread.delete_memory_async("456"))
0
""",
    "thread.delete_message": """
>>> thread.delete_message("123")
0
>>> import asyncio
>>> asyncio.run(thread.delete_message_async("123"))
0
""",
    "thread.link_records / update_record_link / delete_record_link": """
>>> _ = thread.add_memory("Rome trip in May", memory_type="fact", memory_id="fact-1")  # setup
>>> _ = thread.add_memory("User plans a trip", memory_id="memory-1")  # setup
>>> thread.link_records(
...     "fact-1", "fact", "memory-1", "memory", "supports", relation_id="relation-id"
... )
'relation-id'
>>> thread.update_record_link("relation-id", relation_type="supports")
1
>>> thread.delete_record_link(relation_id="relation-id")
1
""",
    "thread.get_context_card": """
>>> thread.add_memory("User likes pizza", memory_id="mem-context-docs")
'mem-context-docs'
>>> len(thread.add_messages([{"role": "user", "content": "Tell me about pizza"}]))
1
>>> "User likes pizza" in thread.get_context_card().content
True
>>> card = thread.get_context_card(
...     max_relevant_results=4,
...     min_relevant_results_by_type={"memory": 1},
... )
>>> len(card.relevant_results or []) <= 4
True
""",
    "thread.get_context_card_async": """
>>> import asyncio
>>> card = asyncio.run(thread.get_context_card_async(
...     min_relevant_results_by_type={"preference": 1, "guideline": 1},
... ))
>>> len(card.relevant_results or []) <= 5
True
""",
    "thread.get_messages": """
>>> len(thread.add_messages([{"role": "user", "content": "Stored message example"}]))
1
>>> messages = thread.get_messages()
>>> messages[-1].content
'Stored message example'
""",
    "thread.get_messages_async": """
>>> import asyncio
>>> message_ids = asyncio.run(thread.add_messages_async(
...     [{"role": "user", "content": "Stored message example"}]
... ))
>>> len(message_ids)
1
>>> messages = asyncio.run(thread.get_messages_async())
>>> messages[-1].content
'Stored message example'
""",
    "thread.get_summary": """
>>> len(thread.add_messages([{"role": "assistant", "content": "Summary source message"}]))
1
>>> summary = thread.get_summary()
>>> bool(summary.content)
True
""",
    "thread.update_memory_async": """
>>> import asyncio
>>> memory_id = asyncio.run(thread.add_memory_async("Original memory"))
>>> (
...     asyncio.run(thread.update_memory_async(
...         memory_id, content="Updated memory"
...     ))
...     == memory_id
... )
True
""",
    "thread.update_message": """
>>> message_id = thread.add_messages([{"role": "user", "content": "Draft message"}])[0]
>>> thread.update_message(message_id, content="Edited message") == message_id
True
""",
    "thread.update_message_async": """
>>> import asyncio
>>> message_ids = asyncio.run(thread.add_messages_async(
...     [{"role": "user", "content": "Draft message"}]
... ))
>>> (
...     asyncio.run(thread.update_message_async(
...         message_ids[0], content="Edited message"
...     ))
...     == message_ids[0]
... )
True
""",
    "thread.wait_for_memory_extraction": """
>>> thread.wait_for_memory_extraction(timeout=10)
>>> import asyncio
>>> asyncio.run(thread.wait_for_memory_extraction_async(timeout=10))
""",
    "OracleContextCard": """
>>> from oracleagentmemory.core.contextcard import OracleContextCard
>>> card = OracleContextCard(summary="ctx")
>>> "<summary>" in card.content and "ctx" in card.content
True
>>> OracleContextCard(summary="").formatted_content
''
>>> card = OracleContextCard(summary="ctx", topics=["travel"])
>>> "<topics>" in card.formatted_content
True
""",
    "OracleSummary": """
>>> from oracleagentmemory.core.summary import OracleSummary
>>> summary = OracleSummary(content="Plan the Rome itinerary.")
>>> summary.content
'Plan the Rome itinerary.'
>>> str(summary)
'Plan the Rome itinerary.'
>>> OracleSummary(content="Keep the tea preference in mind.").content
'Keep the tea preference in mind.'
>>> OracleSummary(content="Thread recap").formatted_content
'Thread recap'
""",
    "client: constructors": """
>>> from oracleagentmemory.core import (
...     MemoryExtractionConfig,
...     SearchIndexSyncMode,
...     OracleAgentMemory,
...     SchemaPolicy,
...     SearchStrategy,
... )
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> read_only_client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
... )
""",
    "client.add_agent": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> client.add_agent(
...     "a1",
...     "Support assistant",
...     metadata={"source": "catalog"},
... )
'a1'
""",
    "client.add_memory": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> memory_id = client.add_memory("User likes pizza", memory_id="mem-1")
>>> memory_id
'mem-1'
""",
    "client.add_user": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> client.add_user(
...     "u1",
...     "Prefers concise answers.",
...     metadata={"source": "crm"},
... )
'u1'
""",
    "client.close / close_async": """
>>> from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory, SchemaPolicy
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     schema_policy=SchemaPolicy.CREATE_IF_NECESSARY,
...     memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
... )
>>> client.close()
>>> import asyncio
>>> asyncio.run(client.close_async())
""",
    "client.create_thread": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> thread = client.create_thread(thread_id="c1", user_id="u1")
>>> thread.thread_id
'c1'
""",
    "client.delete_agent": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> client.add_agent("a-delete", "Support assistant")
'a-delete'
>>> client.delete_agent("a-delete")
1
""",
    "client.delete_memory": """
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> memory_id = client.add_memory("Temporary memory", memory_id="mem-delete")
>>> client.delete_memory(memory_id)
1
""",
    "client.delete_thread": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> thread = client.create_thread(thread_id="c-delete")
>>> client.delete_thread(thread.thread_id)
1
""",
    "client.delete_user": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> client.add_user("u-delete", "Prefers concise answers.")
'u-delete'
>>> client.delete_user("u-delete")
1
""",
    "client.get_thread": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> created = client.create_thread(thread_id="c1", user_id="u1")
>>> loaded = client.get_thread("c1")
>>> loaded.user_id
'u1'
""",
    "client.update_thread": """
>>> from oracleagentmemory.core import OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     llm=llm,
... )
>>> _ = client.create_thread(thread_id="c1")  # setup
>>> updated = client.update_thread(
...     "c1",
...     metadata={"flags": {"vip": True}},
...     message_shortening_input_token_limit=12_000,
... )
>>> updated.message_shortening_input_token_limit
12000
""",
    "client.wait_for_memory_extraction": """
>>> from oracleagentmemory.core import MemoryExtractionConfig, OracleAgentMemory
>>> client = OracleAgentMemory(
...     connection=db_pool,
...     embedder=embedder,
...     memory_extraction_config=MemoryExtractionConfig(extract_memories=False),
... )
>>> client.wait_for_memory_extraction(timeout=10)
>>> import asyncio
>>> asyncio.run(client.wait_for_memory_extraction_async(timeout=10))
""",
    "MemoryExtractionConfig": """
>>> from oracleagentmemory.core import MemoryExtractionConfig, MemoryExtractionMode
>>> config = MemoryExtractionConfig(
...     extract_memories=True,
...     extraction_mode=MemoryExtractionMode.BACKGROUND,
... )
>>> config.extraction_mode.value
'BACKGROUND'
""",
}


@pytest.fixture(scope="module")
def local_embedder():
    return default_embedder()


@pytest.fixture(params=BACKENDS)
def db_pool(request, tmp_path):
    """What the pages call ``db_pool``: an embedded file, a store of the caller's own, or a
    real pool when one is given."""
    if request.param == "oracle":  # pragma: no cover - needs a database
        from oracleagentmemory.core import OracleAgentMemory, SchemaPolicy
        from tests.support.oracle import oracle_pool

        pool = oracle_pool()
        OracleAgentMemory(connection=pool, schema_policy=SchemaPolicy.RECREATE).close()
        yield pool
        pool.close()
        return
    if request.param == "caller-store":
        yield DictMemoryStore()  # a store written only against the public interface
        return
    yield str(tmp_path / "memory.db")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_documented_example(name, db_pool, local_embedder):
    from oracleagentmemory.core import OracleAgentMemory

    globs = {"db_pool": db_pool, "embedder": local_embedder, "llm": None}
    # Thread examples run on a thread of a client, as the reference pages assume.
    globs["thread"] = OracleAgentMemory(connection=db_pool, embedder=local_embedder) \
        .create_thread(thread_id="docs-thread", user_id="docs-user")
    globs["OracleAgentMemory"] = OracleAgentMemory
    test = doctest.DocTestParser().get_doctest(EXAMPLES[name], globs, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"example {name!r} gave other output (see the report above)"
