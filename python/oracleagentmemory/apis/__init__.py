"""Abstract interfaces and value types of the public API."""

from oracleagentmemory.apis.agentmemory import IAgentMemory
from oracleagentmemory.apis.contextcard import ContextCard
from oracleagentmemory.apis.embedders import IEmbedder
from oracleagentmemory.apis.llms import ILlm, LlmResponse
from oracleagentmemory.apis.memorystore import IMemoryStore, PendingRecordBatch
from oracleagentmemory.apis.message import (
    ImageContent,
    ImageMimeType,
    Message,
    MessageContent,
    TextContent,
)
from oracleagentmemory.apis.records import (
    AgentProfileRecord,
    FactRecord,
    GuidelineRecord,
    ImageRecord,
    MemoryRecord,
    MemoryRecordType,
    MessageRecord,
    PreferenceRecord,
    Record,
    RecordStatus,
    ScopedRecord,
    ThreadRecord,
    ThreadRecordType,
    ThreadSummaryRecord,
    UserProfileRecord,
    build_record,
)
from oracleagentmemory.apis.relations import (
    MemoryLink,
    MemoryLinkOppositeType,
    MemoryLinkType,
    RecordRelation,
    RelationType,
)
from oracleagentmemory.apis.reranker import IReranker, RerankResponse, RerankResponseResult
from oracleagentmemory.apis.searchconfig import ISearchConfig
from oracleagentmemory.apis.searchresult import SearchResultFormatConfig
from oracleagentmemory.apis.summary import Summary
from oracleagentmemory.apis.thread import IThread
from oracleagentmemory.apis.ttl import TimeToLiveAnchor

__all__ = [
    "IAgentMemory",
    "ContextCard",
    "IEmbedder",
    "IThread",
    "Message",
    "MessageContent",
    "TextContent",
    "ImageContent",
    "ImageMimeType",
    "Summary",
    "FactRecord",
    "GuidelineRecord",
    "ImageRecord",
    "ILlm",
    "LlmResponse",
    "IMemoryStore",
    "MemoryRecord",
    "ThreadRecordType",
    "MemoryRecordType",
    "RecordStatus",
    "MemoryLink",
    "MemoryLinkOppositeType",
    "MemoryLinkType",
    "RecordRelation",
    "RelationType",
    "PreferenceRecord",
    "ThreadRecord",
    "ThreadSummaryRecord",
    "TimeToLiveAnchor",
    "Record",
    "ScopedRecord",
    "UserProfileRecord",
    "AgentProfileRecord",
    "MessageRecord",
    "build_record",
    "PendingRecordBatch",
    "IReranker",
    "RerankResponse",
    "RerankResponseResult",
    "ISearchConfig",
    "SearchResultFormatConfig",
]
