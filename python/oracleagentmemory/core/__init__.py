"""Concrete agent-memory classes and their configuration."""

from oracleagentmemory.apis.relations import (
    MemoryLink,
    MemoryLinkOppositeType,
    MemoryLinkType,
    RecordRelation,
    RelationType,
)
from oracleagentmemory.apis.searchresult import SearchResultFormatConfig
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.dbsearch import SearchIndexSyncMode, SearchStrategy
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    BackgroundExtractionQueueFullBehavior,
    MemoryExtractionConfig,
    MemoryExtractionImageContext,
    MemoryExtractionMode,
    MemoryLinkExtractionMode,
)
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore
from oracleagentmemory.core.oraclememorystore import OracleMemoryStore
from oracleagentmemory.core.reranker import Reranker
from oracleagentmemory.core.retention import MemoryRetentionConfig
from oracleagentmemory.core.searchconfig import (
    MemorySearchConfig,
    PruningEvaluationMode,
    PruningMemorySearchConfig,
    TopKMemorySearchConfig,
)
from oracleagentmemory.core.searchresult import OracleSearchResult, OracleSearchResultFormatConfig
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.thread import OracleThread

__all__ = [
    "OracleContextCard",
    "ImageInputLimitConfig",
    "OracleDBMemoryStore",
    "OracleAgentMemory",
    "BackgroundExtractionQueueFullBehavior",
    "MemoryExtractionConfig",
    "MemoryExtractionImageContext",
    "MemoryExtractionMode",
    "MemoryLinkExtractionMode",
    "OracleThread",
    "OracleMemoryStore",
    "OracleSearchResult",
    "OracleSummary",
    "MemoryRetentionConfig",
    "SearchIndexSyncMode",
    "SchemaPolicy",
    "SearchStrategy",
    "MemorySearchConfig",
    "TopKMemorySearchConfig",
    "PruningEvaluationMode",
    "PruningMemorySearchConfig",
    "Reranker",
    "MemoryLink",
    "MemoryLinkOppositeType",
    "MemoryLinkType",
    "RecordRelation",
    "RelationType",
    "SearchResultFormatConfig",
    "OracleSearchResultFormatConfig",
]
