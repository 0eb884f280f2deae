"""Conversions between contract records (JSON-shaped dicts) and public API objects.

The one place where store names meet public names: the contract's ``summary`` record is the
public ``thread_summary``, upper-case statuses become :class:`RecordStatus`, and a record's
public ``timestamp`` is its event time or, when none was stored, its creation time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory._vocabulary import (
    CONTRACT_RECORD_TYPES,
    LANGGRAPH_ENVELOPE,
    MEMORY_TYPES,
    PUBLIC_RECORD_TYPES,
)
from oracleagentmemory.apis.message import ImageContent, ImageMimeType, Message, TextContent
from oracleagentmemory.apis.records import Record, RecordStatus, build_record
from oracleagentmemory.apis.relations import (
    MemoryLink,
    RecordRelation,
    memory_link_type_opposite_mapping,
)
from oracleagentmemory.core.dbsearch import SearchStrategy
from oracleagentmemory.stores.protocol import LinkOut, RecordOut, StoreBackend, Strategy
from oracleagentmemory.stores.record_changes import has_bookkeeping
from oracleagentmemory.stores.timestamps import shown

_MEMORY_TYPES = frozenset(MEMORY_TYPES)
_CONTRACT_STRATEGIES: dict[SearchStrategy, Strategy] = {
    SearchStrategy.VECTOR: "VECTOR", SearchStrategy.KEYWORD: "KEYWORD",
    SearchStrategy.HYBRID: "HYBRID"}


DEFAULT_SEARCH_STRATEGY = SearchStrategy.HYBRID
"""What an unset ``search_strategy`` means on our two backends: both always keep the keyword
index beside the vectors, and on LoCoMo conversations fusing the two ranked 0.68 of the
evidence turns in the top 10 against 0.59 for vectors alone, at about 1 ms more per search
on the embedded backend (``benchmarks/results/locomo_recall.json``). A caller's own store
keeps VECTOR: nothing says it has a keyword index."""


def public_record_type(contract_type: str) -> str:
    return PUBLIC_RECORD_TYPES.get(contract_type, contract_type)


def contract_record_type(public_type: str) -> str:
    return CONTRACT_RECORD_TYPES.get(public_type, public_type)


def contract_strategy(strategy: SearchStrategy) -> Strategy:
    """The contract's spelling (VECTOR / KEYWORD / HYBRID) of a search strategy."""
    return _CONTRACT_STRATEGIES[strategy]


def public_metadata(metadata: Any) -> Any:
    """A record's metadata as every public reader sees it: without the bookkeeping the
    LangGraph store keeps in it (only the LangGraph view reads that)."""
    if not has_bookkeeping(metadata):
        return metadata
    return {key: value for key, value in metadata.items() if key != LANGGRAPH_ENVELOPE}


def effective_timestamp(data: Mapping[str, Any]) -> str | None:
    """The event time, or the creation time when the record has none (as ``shown``)."""
    return shown(data.get("timestamp") or data.get("created_at"))


def to_record(data: RecordOut | Mapping[str, Any],
              linked: Sequence[tuple[RecordRelation, Record]] = ()) -> Record:
    """The public record object for a contract RecordOut."""
    record_type = public_record_type(data["record_type"])
    extra: dict[str, Any] = {"linked_results": tuple(linked)}
    content: Any = data.get("content")
    if record_type == "message":
        extra["seq_no"] = data.get("seq_no", 0)
        parts = data.get("parts")
        if parts:
            content = tuple(_to_part(part, {}) for part in parts)
    elif record_type == "image":
        extra.update(mime_type=ImageMimeType(data.get("mime_type") or ImageMimeType.PNG),
                     bytes=data.get("image_bytes"), message_id=data.get("message_id"))
    elif record_type == "thread":
        config = data.get("config") or {}
        extra.update(runtime_config=config.get("settings"), runtime_state=config.get("state"))
    elif record_type == "thread_summary":
        content = {"summary": content or ""}
    return build_record(
        record_type, data["id"], content=content,
        thread_id=data.get("thread_id"), user_id=data.get("user_id"),
        agent_id=data.get("agent_id"), role=data.get("role"),
        seq_no=extra.pop("seq_no", None), timestamp=effective_timestamp(data),
        metadata=public_metadata(data.get("metadata")),
        status=RecordStatus(data.get("status") or "valid"),
        **extra,
    )


def relation_of(link: LinkOut | Mapping[str, Any]) -> RecordRelation:
    """A stored link as a MemoryLink (both ends memory-like, a built-in label) or a plain
    RecordRelation (a label of the caller's own, given to ``link_records``)."""
    memory_link = (link["source_type"] in _MEMORY_TYPES and link["target_type"] in _MEMORY_TYPES
                   and link["relation_type"] in memory_link_type_opposite_mapping)
    relation_class = MemoryLink if memory_link else RecordRelation
    return relation_class(
        id=link["id"],
        source_record_id=link["source_id"],
        source_record_type=link["source_type"],
        target_record_id=link["target_id"],
        target_record_type=link["target_type"],
        relation_type=link["relation_type"],
        opposite_relation_type=link["opposite_relation_type"],
        timestamp=shown(link.get("timestamp")),
        metadata=link.get("metadata"),
        created_at=link["created_at"],
    )


def to_message(data: Mapping[str, Any],
               images: Mapping[str, Mapping[str, Any]] | None = None) -> Message:
    """A stored message record as a Message; image parts take bytes from ``images``."""
    parts = data.get("parts")
    content: str | tuple[Any, ...]
    if not parts:
        content = data.get("content") or ""
    else:
        content = tuple(_to_part(part, images or {}) for part in parts)
    return Message(
        role=data.get("role") or "user",
        content=content,
        timestamp=effective_timestamp(data),
        metadata=data.get("metadata"),
        id=data["id"],
    )


def _to_part(part: Mapping[str, Any],
             images: Mapping[str, Mapping[str, Any]]) -> TextContent | ImageContent:
    if part.get("type") == "image":
        image = images.get(part["id"], {})
        return ImageContent(
            bytes=image.get("image_bytes"),
            mime_type=ImageMimeType(part.get("mime_type") or ImageMimeType.PNG),
            description=image.get("content", part.get("description")),
            id=part["id"],
            timestamp=part.get("timestamp"),
        )
    return TextContent(text=part.get("text", ""), id=part["id"], timestamp=part.get("timestamp"))


def load_messages(backend: StoreBackend, records: Sequence[RecordOut],
                  include_all_bytes: bool = False,
                  wanted_image_ids: Sequence[str] = ()) -> list[Message]:
    """Messages for stored message records, with their attached images' descriptions (and
    bytes for every image, or only for ``wanted_image_ids``)."""
    images: dict[str, dict[str, Any]] = {}
    for record in records:
        if not record.get("parts"):
            continue
        for image in backend.get_records({
            "record_types": ["image"], "message_id": record["id"],
            "include_bytes": include_all_bytes or bool(wanted_image_ids),
        }):
            if not include_all_bytes and image["id"] not in wanted_image_ids:
                image.pop("image_bytes", None)
            images[image["id"]] = dict(image)
    return [to_message(record, images) for record in records]
