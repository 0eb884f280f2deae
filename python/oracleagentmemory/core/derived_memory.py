"""What a thread derives with its LLM: memories, the rolling summary, topics, links, captions.

The LLM modules in ``core/extraction`` turn text into results; this module decides when to
call them for a thread, runs them inline or on the client's background queue, and stores
the results through the store contract. Raw messages are always stored before any of this
runs, so an LLM failure can only cost derived records, never messages: inline failures
surface as a ``UserWarning``, background failures are logged by the queue.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import Message
from oracleagentmemory.apis.records import MEMORY_TYPES
from oracleagentmemory.core.extractors import (
    ExtractionCounters,
    ExtractionPlan,
    MemoryDeduplicator,
    MemoryExtractor,
    caption_image,
    extract_topics,
    plan_after_add,
    plan_after_update,
    propose_links,
    summarize,
)
from oracleagentmemory.core.extractors.memoryextractionconfig import MemoryExtractionMode
from oracleagentmemory.core.extractors.summarizer import apply_summary_budget
from oracleagentmemory.core.records import to_message
from oracleagentmemory.core.retention import ttl_fields

if TYPE_CHECKING:
    from oracleagentmemory.core.thread import OracleThread

logger = logging.getLogger(__name__)

DEDUP_NEIGHBOURS = 5
"""Stored memories compared with each extracted one to drop duplicates."""
LINK_CANDIDATES = 10
"""Stored memories of the thread offered to the LLM when linking a new memory."""
_STATE_LOCK = threading.Lock()


def _warn(what: str, error: BaseException) -> None:
    warnings.warn(f"{what} failed, raw data kept: {error}", UserWarning, stacklevel=4)


# -- persisted per-thread state ---------------------------------------------------------


def _thread_record(thread: OracleThread) -> dict[str, Any] | None:
    found = thread.store.get_records({"ids": [thread.thread_id], "record_types": ["thread"]})
    return found[0] if found else None


def _counters(record: dict[str, Any] | None) -> ExtractionCounters:
    state = ((record.get("config") or {}).get("state") or {}) if record else {}
    return ExtractionCounters.from_dict(state.get("extraction"))


def _save_counters(
    thread: OracleThread, record: dict[str, Any] | None, counters: ExtractionCounters
) -> None:
    """Counters live in the thread record's config, next to (never inside) its settings."""
    if record is None:  # a standalone thread without a thread record keeps no counters
        return
    config = record.get("config") or {}
    state = {**(config.get("state") or {}), "extraction": counters.to_dict()}
    thread.store.update_record(thread.thread_id, ["thread"], {"config": {**config,
                                                                         "state": state}})


def persisted_summary(thread: OracleThread) -> str | None:
    found = thread.store.get_records({"ids": [thread.thread_id], "record_types": ["summary"]})
    return found[0]["content"] if found else None


def _save_summary(thread: OracleThread, content: str) -> None:
    thread.store.write_records([{
        "record_type": "summary", "id": thread.thread_id, "user_id": thread.user_id,
        "agent_id": thread.agent_id, "thread_id": thread.thread_id, "content": content,
    }], replace=True)


# -- extraction after writes ------------------------------------------------------------


def after_messages_added(thread: OracleThread, message_ids: Sequence[str]) -> None:
    """Plan and run (or queue) extraction and the summary refresh after add_messages."""
    if thread.llm is None or not message_ids:
        return
    config = thread.memory_extraction_config.resolved()
    with _STATE_LOCK:
        record = _thread_record(thread)
        plan = plan_after_add(_counters(record), len(message_ids), config, has_llm=True)
        _save_counters(thread, record, plan.counters)
    if not (plan.extract or plan.refresh_summary):
        return
    # The batch just added ends the thread, so its window is the thread's tail.
    window = max(plan.extraction_window, plan.summary_window)
    messages = [to_message(record)
                for record in thread.store.list_messages(thread.thread_id, -window, None)]
    _dispatch(thread, lambda: _derive(thread, plan, messages), config)


def after_message_updated(thread: OracleThread, message_id: str) -> None:
    """Extract again from the edited message (and its window) after update_message."""
    if thread.llm is None:
        return
    config = thread.memory_extraction_config.resolved()
    plan = plan_after_update(_counters(_thread_record(thread)), config, has_llm=True)
    if not plan.extract:
        return
    messages = _messages_ending_at(thread, message_id, plan.extraction_window)
    _dispatch(thread, lambda: _derive(thread, plan, messages), config)


def _messages_ending_at(thread: OracleThread, message_id: str, window: int) -> list[Message]:
    """The ``window`` messages up to and including an edited ``message_id``, captured now."""
    records = thread.store.list_messages(thread.thread_id, None, None)
    ids = [record["id"] for record in records]
    end = ids.index(message_id) + 1 if message_id in ids else len(ids)
    return [to_message(record) for record in records[max(0, end - window):end]]


def _dispatch(thread: OracleThread, job: Callable[[], None], config: Any) -> None:
    if config.extraction_mode is MemoryExtractionMode.BACKGROUND:
        thread.client._background_queue().submit(
            thread.thread_id, job,
            behavior=config.background_extraction_queue_full_behavior,
            timeout=config.background_extraction_queue_timeout,
            queue_size=config.background_extraction_queue_size,
        )
        return
    try:
        job()
    except Exception as error:  # noqa: BLE001 - any LLM adapter error keeps the messages
        _warn("memory extraction", error)


def _derive(thread: OracleThread, plan: ExtractionPlan, messages: list[Message]) -> None:
    """Extraction with the previous summary as context, then the summary refresh."""
    config = thread.memory_extraction_config.resolved()
    summary = persisted_summary(thread)
    if plan.extract:
        window = messages[-plan.extraction_window:]
        extracted = MemoryExtractor(thread.llm).extract(
            window, summary, config,
            max_message_token_length=thread.max_message_token_length,
            message_shortening_input_token_limit=thread.message_shortening_input_token_limit,
        )
        _store_extracted(thread, extracted)
    if plan.refresh_summary:
        _save_summary(thread, summarize(
            thread.llm, messages[-plan.summary_window:], summary,
            prompt_token_limit=config.memory_extraction_token_limit or 0,
            max_message_token_length=thread.max_message_token_length,
            message_shortening_input_token_limit=thread.message_shortening_input_token_limit,
        ))


def _store_extracted(thread: OracleThread, extracted: Sequence[Any]) -> None:
    if not extracted:
        return
    neighbours: dict[str, dict[str, Any]] = {}
    for item in extracted:
        for result in thread.search(item.content, record_types=list(MEMORY_TYPES),
                                    max_results=DEDUP_NEIGHBOURS, num_hops=0,
                                    token_budget=0, soft_token_budget=0):
            neighbours[result.id] = {"content": result.content}
    dedup = MemoryDeduplicator(thread.client.embedder).deduplicate(
        list(extracted), list(neighbours.values()))
    ttl = ttl_fields(NOT_SET_MARKER, NOT_SET_MARKER, thread.client.retention_config)
    vectors = dedup.vectors if dedup.vectors is not None else [None] * len(dedup.kept)
    records = [
        {"record_type": item.memory_type, "user_id": thread.user_id,
         "agent_id": thread.agent_id, "thread_id": thread.thread_id, "content": item.content,
         "metadata": item.metadata, "embedding": vector, **ttl}
        for item, vector in zip(dedup.kept, vectors, strict=True)
    ]
    if records:
        thread.store.write_records(records)


# -- summaries and cards ----------------------------------------------------------------


def llm_summary(thread: OracleThread, messages: list[Message], except_last: int,
                token_budget: int | None) -> str | None:
    """The LLM summary for get_summary, or None when the transcript fallback must serve.

    A whole-thread request reuses the persisted summary (creating it once); a request that
    leaves out the last messages summarises that prefix and persists nothing.
    """
    if thread.llm is None:
        return None
    try:
        if except_last == 0:
            stored = persisted_summary(thread)
            if stored is None:
                stored = _summarize(thread, messages)
                _save_summary(thread, stored)
            return apply_summary_budget(stored, token_budget)
        return apply_summary_budget(_summarize(thread, messages), token_budget)
    except Exception as error:  # noqa: BLE001 - fall back to the transcript
        _warn("summary generation", error)
        return None


def _summarize(thread: OracleThread, messages: list[Message]) -> str:
    config = thread.memory_extraction_config.resolved()
    return summarize(
        thread.llm, messages, None,
        prompt_token_limit=config.memory_extraction_token_limit or 0,
        max_message_token_length=thread.max_message_token_length,
        message_shortening_input_token_limit=thread.message_shortening_input_token_limit,
    )


def card_summary_and_topics(thread: OracleThread, messages: list[Message],
                            except_last: int) -> tuple[str, list[str]] | None:
    """Summary and topics for a context card, or None to use the fallbacks."""
    if thread.llm is None:
        return None
    try:
        summary = (persisted_summary(thread) if except_last == 0 else None)
        if summary is None:
            summary = summarize(
                thread.llm, messages, None,
                prompt_token_limit=thread.context_card_token_limit,
                max_message_token_length=thread.max_message_token_length,
                message_shortening_input_token_limit=(
                    thread.message_shortening_input_token_limit),
            )
        topics = extract_topics(thread.llm, messages, summary,
                                token_limit=thread.context_card_token_limit)
        return summary, topics
    except Exception as error:  # noqa: BLE001 - fall back to the transcript card
        _warn("context card summary", error)
        return None


# -- linking and captions ---------------------------------------------------------------


def link_autonomously(thread: OracleThread, memory_id: str, content: str,
                      memory_type: str) -> None:
    """Ask the LLM which memories of this thread the new one relates to; write the links."""
    try:
        candidates = [
            {"id": result.id, "content": result.content, "type": result.record.record_type}
            for result in thread.search(content, record_types=list(MEMORY_TYPES),
                                        exact_thread_match=True, num_hops=0,
                                        max_results=LINK_CANDIDATES + 1, token_budget=0,
                                        soft_token_budget=0)
            if result.id != memory_id
        ][:LINK_CANDIDATES]
        if not candidates:
            return
        types = {candidate["id"]: candidate["type"] for candidate in candidates}
        proposals = propose_links(thread.llm, content, candidates, new_memory_type=memory_type,
                                  new_memory_id=memory_id)
    except Exception as error:  # noqa: BLE001 - the memory stays stored
        _warn("autonomous linking", error)
        return
    for target_id, relation_type in proposals:
        try:
            thread.link_records(memory_id, memory_type, target_id, types[target_id],
                                relation_type)
        except (ValueError, KeyError) as error:  # e.g. the pair is already linked
            logger.info("autonomous link %s -%s-> %s skipped: %s", memory_id, relation_type,
                        target_id, error)


def caption(thread: OracleThread, data: bytes, mime: Any) -> str:
    """An LLM caption for an image, or '' without an LLM or when captioning fails."""
    if thread.llm is None or data is None:
        return ""
    try:
        return caption_image(thread.llm, data, mime)
    except Exception as error:  # noqa: BLE001 - the image is stored without a caption
        _warn("image captioning", error)
        return ""
