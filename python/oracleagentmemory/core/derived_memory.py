"""What a thread derives with its LLM: memories, the rolling summary, topics, links, captions.

The LLM modules in ``core/extractors`` turn text into results; this module decides when to
call them for a thread, runs them inline or on the client's background queue, and stores
the results through the store contract. Raw messages are always stored before any of this
runs, so an LLM failure can only cost derived records, never messages. Each step fails on
its own and says so: a ``UserWarning`` names the step ("memory extraction", "summary
refresh", "autonomous linking", ...). A failed extraction does not stop the summary
refresh of its batch, and a failed refresh leaves its messages counted for the next one,
so the rolling summary covers every message.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from oracleagentmemory._ids import new_id
from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageContent, Message
from oracleagentmemory.core.extractors.background import job_cancelled
from oracleagentmemory.core.extractors.captions import caption_image
from oracleagentmemory.core.extractors.dedup import MemoryDeduplicator
from oracleagentmemory.core.extractors.extractor import ExtractedMemory, MemoryExtractor
from oracleagentmemory.core.extractors.linking import propose_links
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionImageContext,
    MemoryExtractionMode,
    MemoryLinkExtractionMode,
    ResolvedExtractionConfig,
)
from oracleagentmemory.core.extractors.scheduler import (
    ExtractionCounters,
    ExtractionPlan,
    extraction_schedule,
    plan_after_update,
)
from oracleagentmemory.core.extractors.summarizer import apply_summary_budget, summarize
from oracleagentmemory.core.extractors.topics import extract_topics
from oracleagentmemory.core.llms.errors import LlmOutputError, without_answer
from oracleagentmemory.core.records import to_message
from oracleagentmemory.core.retention import ttl_fields
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.errors import InvalidArgumentError, NotFoundError
from oracleagentmemory.stores.protocol import (
    ExtractionSchedule,
    LinkIn,
    MessageBatchResult,
    RecordIn,
    RecordOut,
)

logger = logging.getLogger(__name__)

DEDUP_NEIGHBOURS = 5
"""Stored memories compared with each extracted one to drop duplicates."""
LINK_CANDIDATES = 10
"""Stored memories of the thread offered to the LLM when linking a new memory."""


def _warn(what: str, error: BaseException) -> None:
    if job_cancelled():  # closing gave up on this job and said so once
        logger.debug("cancelled job: %s failed: %s", what, error)
        return
    if isinstance(error, LlmOutputError):
        logger.info("%s failed; the answer began: %r", what, error.answer)
    warnings.warn(f"{what} failed, raw data kept: {without_answer(error)}", UserWarning,
                  stacklevel=4)


# -- persisted per-thread state ---------------------------------------------------------
# The extraction counters live in the thread record and are kept by the store: it counts a
# batch in the transaction that writes it (``append_messages``), so two clients or
# processes adding messages to one thread never lose a count.


def schedule(ctx: ThreadContext) -> ExtractionSchedule | None:
    """What the store counts this thread's batches toward (None: no LLM, nothing counted)."""
    if ctx.llm is None:
        return None
    return extraction_schedule(ctx.settings.extraction, has_llm=True)


def persisted_summary(ctx: ThreadContext) -> str | None:
    found = ctx.service.find(ctx.thread_id, ["summary"])
    return found["content"] if found is not None else None


def _save_summary(ctx: ThreadContext, content: str) -> None:
    ctx.service.backend.write_records([{
        "record_type": "summary", "id": ctx.thread_id, "user_id": ctx.user_id,
        "agent_id": ctx.agent_id, "thread_id": ctx.thread_id, "content": content,
    }], replace=True, thread_id=ctx.write_thread)


# -- extraction after writes ------------------------------------------------------------


def after_messages_added(ctx: ThreadContext, written: MessageBatchResult) -> None:
    """Run (or queue) the extraction and summary refresh the store found due when it wrote
    a batch; it returned the messages and the summary they read, so nothing is read here."""
    llm = ctx.llm
    plan = ExtractionPlan(written["extraction_window"], written["summary_window"],
                          ExtractionCounters())
    if llm is None or not (plan.extract or plan.refresh_summary):
        return
    messages = [to_message(record) for record in written["messages"]]
    config = ctx.settings.extraction
    if config.extraction_mode is MemoryExtractionMode.BACKGROUND:
        # A queued job reads the summary when it runs: the jobs of a thread run in order,
        # so it folds into the summary the job before it wrote.
        _dispatch(ctx, lambda: _derive(ctx, llm, plan, messages, persisted_summary(ctx)),
                  config)
        return
    _dispatch(ctx, lambda: _derive(ctx, llm, plan, messages, written["thread_summary"]), config)


def after_message_updated(ctx: ThreadContext, message_id: str,
                          thread_messages: Sequence[RecordOut]) -> None:
    """Extract again from the edited message (and its window) after update_message;
    ``thread_messages`` are the thread's messages, the edited one as it now is."""
    llm = ctx.llm
    if llm is None:
        return
    config = ctx.settings.extraction
    plan = plan_after_update(ExtractionCounters(), config, has_llm=True)
    if not plan.extract:
        return
    ids = [record["id"] for record in thread_messages]
    end = ids.index(message_id) + 1 if message_id in ids else len(ids)
    messages = [to_message(record)
                for record in thread_messages[max(0, end - plan.extraction_window):end]]
    _dispatch(ctx, lambda: _derive(ctx, llm, plan, messages, persisted_summary(ctx)), config)


def _dispatch(ctx: ThreadContext, job: Callable[[], None],
              config: ResolvedExtractionConfig) -> None:
    if config.extraction_mode is MemoryExtractionMode.BACKGROUND:
        ctx.service.background_queue().submit(
            ctx.thread_id, job,
            behavior=config.background_extraction_queue_full_behavior,
            timeout=config.background_extraction_queue_put_timeout_seconds,
        )
        return
    try:
        job()
    except Exception as error:  # noqa: BLE001 - any LLM adapter error keeps the messages
        _warn("memory extraction", error)


def _derive(ctx: ThreadContext, llm: ILlm, plan: ExtractionPlan, messages: list[Message],
            summary: str | None) -> None:
    """Extraction with the previous summary as context, links as configured, then the
    summary refresh. Each step runs even when the one before it failed."""
    if plan.extract and not job_cancelled():
        try:
            _extract(ctx, llm, plan, messages, summary)
        except Exception as error:  # noqa: BLE001 - the messages are stored
            _warn("memory extraction", error)
    if plan.refresh_summary and not job_cancelled():
        try:
            _save_summary(ctx, _summarize(ctx, llm, messages[-plan.summary_window:], summary))
        except Exception as error:  # noqa: BLE001 - the next refresh folds these in
            if not job_cancelled():
                _count_unsummarised(ctx, plan.summary_window)
            _warn("summary refresh", error)


def _extract(ctx: ThreadContext, llm: ILlm, plan: ExtractionPlan, messages: list[Message],
             summary: str | None) -> None:
    config = ctx.settings.extraction
    window = [_with_image_context(m, config.memory_extraction_image_context)
              for m in messages[-plan.extraction_window:]]
    extracted = MemoryExtractor(llm).extract(
        window, summary, config,
        max_message_token_length=ctx.settings.max_message_token_length,
        message_shortening_input_token_limit=ctx.settings.message_shortening_input_token_limit,
    )
    stored = _store_extracted(ctx, extracted)
    mode = config.memory_link_extraction_mode
    if stored and mode is MemoryLinkExtractionMode.DURING_EXTRACTION:
        _link_all(ctx, stored)
    elif stored and mode is MemoryLinkExtractionMode.POST_EXTRACTION:
        _dispatch(ctx, lambda: _link_all(ctx, stored), config)


def _count_unsummarised(ctx: ThreadContext, count: int) -> None:
    """Give ``count`` messages back to the summary counter after a failed refresh, so the
    next refresh folds them in with its own (the store adds them in one transaction)."""
    counting = schedule(ctx)
    if counting is None or not ctx.persisted:  # a thread without a record keeps no counters
        return
    ctx.service.backend.append_messages({
        "thread_id": ctx.thread_id, "records": [], "thread_required": False,
        "schedule": {**counting, "unsummarised": count}})


def _with_image_context(message: Message, context: MemoryExtractionImageContext) -> Message:
    """The message as extraction sees it: without image descriptions when image context
    is DISABLED (the LLM then sees a bare ``[image]`` marker)."""
    if context is not MemoryExtractionImageContext.DISABLED or isinstance(message.content, str):
        return message
    parts = tuple(replace(part, description=None) if isinstance(part, ImageContent) else part
                  for part in message.content)
    return replace(message, content=parts)


def _store_extracted(ctx: ThreadContext, extracted: Sequence[ExtractedMemory]
                     ) -> list[tuple[str, str, str]]:
    """Store what survives deduplication; returns (id, memory type, content) of each.

    Each candidate is embedded once: its vector finds its stored neighbours, decides
    duplicates and is stored with it. Duplicates are looked for in this thread only: the
    memories are the thread's, and as in the reference a second thread of the same user
    gets its own copy of what the first already knows (a search of the user finds both)."""
    if not extracted:
        return []
    vectors = ctx.service.embed([item.content for item in extracted])
    if vectors[0] is None:  # no embedder: the text check against keyword neighbours
        neighbours = {result.content for item in extracted for result in ctx.search(
            item.content, {"record_types": list(MEMORY_TYPES),
                           "max_results": DEDUP_NEIGHBOURS, "num_hops": 0,
                           "token_budget": 0, "soft_token_budget": 0}, exact_thread=True)}
        dedup = MemoryDeduplicator(None).deduplicate(list(extracted), sorted(neighbours))
    else:
        nearest = [ctx.nearest(vector, MEMORY_TYPES, DEDUP_NEIGHBOURS, exact_thread=True)
                   for vector in vectors if vector is not None]  # all are, with an embedder
        dedup = MemoryDeduplicator(ctx.service.embedder).deduplicate(
            list(extracted), [text for found in nearest for text, _ in found],
            candidate_vectors=np.asarray(vectors), nearest_existing=nearest)
    ttl = ttl_fields(NOT_SET_MARKER, NOT_SET_MARKER, ctx.service.retention)
    kept_vectors = dedup.vectors if dedup.vectors is not None else [None] * len(dedup.kept)
    records: list[RecordIn] = [
        {"record_type": item.memory_type, "id": new_id(), "user_id": ctx.user_id,
         "agent_id": ctx.agent_id, "thread_id": ctx.thread_id, "content": item.content,
         "metadata": item.metadata, "embedding": vector, **ttl}
        for item, vector in zip(dedup.kept, kept_vectors, strict=True)
    ]
    if not records:
        return []
    ids = ctx.service.backend.write_records(records, thread_id=ctx.write_thread)
    return [(rid, record["record_type"], record["content"])
            for rid, record in zip(ids, records, strict=True)]


def _link_all(ctx: ThreadContext, stored: Sequence[tuple[str, str, str]]) -> None:
    for memory_id, memory_type, content in stored:
        link_autonomously(ctx, memory_id, content, memory_type)


# -- summaries and cards ----------------------------------------------------------------


def llm_summary(ctx: ThreadContext, messages: list[Message], except_last: int,
                token_budget: int | None) -> str | None:
    """The LLM summary for get_summary, or None when the transcript fallback must serve.

    A whole-thread request reuses the persisted summary (creating it once); a request that
    leaves out the last messages summarises that prefix and persists nothing.
    """
    llm = ctx.llm
    if llm is None:
        return None
    try:
        if except_last == 0:
            stored = persisted_summary(ctx)
            if stored is None:
                stored = _summarize(ctx, llm, messages)
                _save_summary(ctx, stored)
            return apply_summary_budget(stored, token_budget)
        return apply_summary_budget(_summarize(ctx, llm, messages), token_budget)
    except Exception as error:  # noqa: BLE001 - fall back to the transcript
        _warn("summary generation", error)
        return None


def _summarize(ctx: ThreadContext, llm: ILlm, messages: list[Message],
               previous: str | None = None, prompt_token_limit: int | None = None) -> str:
    """The LLM summary of ``messages`` (folding in a ``previous`` one) with the thread's
    message-shortening settings; the prompt is cut to ``prompt_token_limit`` (default: the
    extraction's token limit)."""
    if prompt_token_limit is None:
        prompt_token_limit = ctx.settings.extraction.memory_extraction_token_limit or 0
    return summarize(
        llm, messages, previous,
        prompt_token_limit=prompt_token_limit,
        max_message_token_length=ctx.settings.max_message_token_length,
        message_shortening_input_token_limit=ctx.settings.message_shortening_input_token_limit,
    )


def card_summary_and_topics(ctx: ThreadContext, messages: list[Message],
                            except_last: int) -> tuple[str, list[str]] | None:
    """Summary and topics for a context card, or None to use the fallbacks."""
    llm = ctx.llm
    if llm is None:
        return None
    try:
        summary = (persisted_summary(ctx) if except_last == 0 else None)
        if summary is None:
            summary = _summarize(ctx, llm, messages,
                                 prompt_token_limit=ctx.settings.context_card_token_limit)
        topics = extract_topics(llm, messages, summary,
                                token_limit=ctx.settings.context_card_token_limit)
        return summary, topics
    except Exception as error:  # noqa: BLE001 - fall back to the transcript card
        _warn("context card summary", error)
        return None


# -- linking and captions ---------------------------------------------------------------


def link_autonomously(ctx: ThreadContext, memory_id: str, content: str,
                      memory_type: str) -> None:
    """Ask the LLM which memories of this thread the new one relates to; write the links."""
    llm = ctx.llm
    if llm is None:  # the callers link only when the thread has an LLM
        return
    config = ctx.settings.extraction
    try:
        related = [
            result for result in ctx.search(content, {
                "record_types": list(MEMORY_TYPES), "num_hops": 0,
                "max_results": LINK_CANDIDATES + 1, "token_budget": 0,
                "soft_token_budget": 0}, exact_thread=True)
            if result.id != memory_id
        ][:LINK_CANDIDATES]
        if not related:
            return
        candidates = [
            {"id": result.id, "content": result.content, "type": result.record.record_type}
            for result in related]
        types = {result.id: result.record.record_type for result in related}
        proposals = propose_links(
            llm, content, candidates, new_memory_type=memory_type,
            new_memory_id=memory_id, token_limit=config.memory_link_extraction_token_limit,
            custom_instructions=config.memory_link_extraction_custom_instructions)
    except Exception as error:  # noqa: BLE001 - the memory stays stored
        _warn("autonomous linking", error)
        return
    for target_id, relation_type in proposals:
        link: LinkIn = {
            "id": new_id(), "thread_id": ctx.thread_id, "source_id": memory_id,
            "source_type": memory_type, "target_id": target_id,
            "target_type": types[target_id], "relation_type": relation_type}
        try:
            ctx.service.backend.write_records([], links=[link])
        # The store's refusals (the pair already linked, an end gone meanwhile); a wrong
        # type is a bug and is not hidden (ArgumentTypeError is a ValueError too).
        except (InvalidArgumentError, NotFoundError) as error:
            logger.info("autonomous link %s -%s-> %s skipped: %s", memory_id, relation_type,
                        target_id, error)


def caption_with(llm: ILlm | None, data: bytes | None, mime: Any) -> str:
    """An LLM caption for an image, or '' without an LLM or when captioning fails."""
    if llm is None or data is None:
        return ""
    try:
        return caption_image(llm, data, mime)
    except Exception as error:  # noqa: BLE001 - the image is stored without a caption
        _warn("image captioning", error)
        return ""
