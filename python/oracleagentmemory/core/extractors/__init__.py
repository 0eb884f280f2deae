"""Memory extraction: configuration, the extractors, and the LLM steps behind them.

Each module is backend-independent: it turns messages into text or typed results, and a
thread stores them through the store contract. ``background`` runs extraction off the
caller's thread; ``scheduler`` decides when it is due.
"""

from __future__ import annotations

from oracleagentmemory.apis.memorystore import PendingRecordBatch
from oracleagentmemory.core.extractors.background import BackgroundExtractionQueue
from oracleagentmemory.core.extractors.captions import caption_image
from oracleagentmemory.core.extractors.dedup import DedupResult, MemoryDeduplicator
from oracleagentmemory.core.extractors.extractor import ExtractedMemory, MemoryExtractor
from oracleagentmemory.core.extractors.linking import LINK_RELATIONS, propose_links
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    BackgroundExtractionQueueFullBehavior,
    MemoryExtractionConfig,
    MemoryExtractionImageContext,
    MemoryExtractionMode,
    MemoryLinkExtractionMode,
)
from oracleagentmemory.core.extractors.metadata_inheritance import inherited_metadata
from oracleagentmemory.core.extractors.scheduler import (
    ExtractionCounters,
    ExtractionPlan,
    plan_after_add,
    plan_after_update,
)
from oracleagentmemory.core.extractors.summarizer import summarize
from oracleagentmemory.core.extractors.thread_extractor import (
    OneShotThreadMemoryExtractor,
    ThreadMemoryExtractor,
)
from oracleagentmemory.core.extractors.topics import extract_topics

__all__ = [
    "ThreadMemoryExtractor",
    "BackgroundExtractionQueueFullBehavior",
    "MemoryExtractionConfig",
    "MemoryExtractionImageContext",
    "MemoryExtractionMode",
    "MemoryLinkExtractionMode",
    "OneShotThreadMemoryExtractor",
    "PendingRecordBatch",
    # the steps, for callers that compose their own extraction
    "LINK_RELATIONS",
    "BackgroundExtractionQueue",
    "DedupResult",
    "ExtractedMemory",
    "ExtractionCounters",
    "ExtractionPlan",
    "MemoryDeduplicator",
    "MemoryExtractor",
    "caption_image",
    "extract_topics",
    "inherited_metadata",
    "plan_after_add",
    "plan_after_update",
    "propose_links",
    "summarize",
]
