"""Concrete agent-memory classes and their configuration."""

from oracleagentmemory._notset import NOT_SET_MARKER
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    Message,
    MessageContent,
    TextContent,
)
from oracleagentmemory.apis.records import RecordStatus
from oracleagentmemory.apis.scope import Scope
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    BackgroundExtractionQueueFullBehavior,
    MemoryExtractionConfig,
    MemoryExtractionMode,
)
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.retention import MemoryRetentionConfig
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.core.searchresult import LinkedResult, OracleSearchResult
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.thread import OracleThread

__all__ = [
    "NOT_SET_MARKER",
    "BackgroundExtractionQueueFullBehavior",
    "ImageContent",
    "ImageInputLimitConfig",
    "ImageMimeType",
    "LinkedResult",
    "MemoryExtractionConfig",
    "MemoryExtractionMode",
    "MemoryRetentionConfig",
    "MemorySearchConfig",
    "Message",
    "MessageContent",
    "OracleAgentMemory",
    "OracleContextCard",
    "OracleSearchResult",
    "OracleSummary",
    "OracleThread",
    "RecordStatus",
    "SchemaPolicy",
    "Scope",
    "SearchIndexSyncMode",
    "SearchScope",
    "SearchStrategy",
    "TextContent",
    "TimeToLiveAnchor",
]
