"""The concrete search result type returned by Oracle threads and clients."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory.apis.message import ImageContent, TextContent
from oracleagentmemory.apis.records import MessageRecord, Record, RecordStatus, ScopedRecord
from oracleagentmemory.apis.relations import RecordRelation
from oracleagentmemory.apis.searchresult import SearchResult, SearchResultFormatConfig
from oracleagentmemory.core.rendering import prompt_time, render

__all__ = ["OracleSearchResult", "OracleSearchResultFormatConfig"]


@dataclass(frozen=True, slots=True)
class OracleSearchResultFormatConfig(SearchResultFormatConfig):
    """Which fields a rendered result shows besides its id and content.

    Omitted flags show the timestamp, the role (messages) and the status, and hide the
    thread, user and agent ids, the estimated relevance (1 - distance) and the metadata
    (one child element per entry).
    """

    show_thread_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_distance: bool | _NotSetMarker = NOT_SET_MARKER
    show_timestamp: bool | _NotSetMarker = NOT_SET_MARKER
    show_role: bool | _NotSetMarker = NOT_SET_MARKER
    show_user_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_agent_id: bool | _NotSetMarker = NOT_SET_MARKER
    show_status: bool | _NotSetMarker = NOT_SET_MARKER
    show_metadata: bool | _NotSetMarker = NOT_SET_MARKER


_SHOWN_BY_DEFAULT = {"show_timestamp", "show_role", "show_status"}


def _flag(config: SearchResultFormatConfig, name: str) -> bool:
    value = getattr(config, name, NOT_SET_MARKER)
    return bool(value_or(value, name in _SHOWN_BY_DEFAULT))


def record_text(record: Record) -> str:
    """The text of a record: its content, or a message's text parts (images as captions)."""
    content = record.content
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("summary", json.dumps(content, ensure_ascii=False)))
    pieces = []
    for part in content:
        if isinstance(part, TextContent):
            pieces.append(part.text)
        elif isinstance(part, ImageContent):
            pieces.append(f"[image: {part.description}]" if part.description else "[image]")
    return "\n".join(pieces)


class OracleSearchResult(SearchResult):
    """A search hit: the record, its distance to the query (smaller is better), linked
    context. ``linked_results`` pairs each relation with the record reached through it.

    ``distance`` is the cosine distance between the query's embedding and the record's
    (0 the same direction, up to 2), whatever the query: a query that means nothing stored
    gets larger distances than a good match, so a threshold works. How large depends on
    the model: with the default one a close match mostly reads below 0.15 and unrelated
    text 0.2 to 0.3. With the hybrid strategy a record that matches the query's words
    reads no farther than the tenth-best vector match (the max_results-th when more are
    asked for) and is brought closer by a keyword pull (never below 0); with the keyword
    strategy it is ``1 / (1 + |bm25|)`` of the full-text match.
    Results come best first, in the order of these distances (a non-exact scope match
    moves a record up by 0.05 without changing its distance).

    Searches make these; you make one only to render records of your own the same way.

    Args:
        distance: The distance to the query (smaller is closer; see above).
        record: The matched record.
        id: The result's id. Default (or None): the record's id.
        linked_results: Each relation followed from the record, with the result it
            reached. Default (or None): none.
        format_config: What ``formatted_content`` shows. Default:
            ``SearchResultFormatConfig()`` (timestamp, role and status shown).
    """

    def __init__(
        self,
        distance: float,
        record: Record,
        *,
        id: str | None = None,  # noqa: A002 - documented parameter name
        linked_results: list[tuple[RecordRelation, SearchResult]] | None = None,
        format_config: SearchResultFormatConfig = SearchResultFormatConfig(),  # noqa: B008
    ) -> None:
        self.distance = float(distance)
        self._record = record
        self._id = id if id is not None else record.id
        self._linked = list(linked_results or [])
        self._format_config = format_config

    @property
    def record(self) -> Record:
        """The matched record; check ``isinstance(record, ScopedRecord)`` for scope ids."""
        return self._record

    @property
    def id(self) -> str | None:
        return self._id

    @property
    def content(self) -> str:
        return record_text(self._record)

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The record's metadata."""
        return self._record.metadata

    @property
    def timestamp(self) -> str | None:
        """The record's event time (its creation time when none was stored)."""
        return self._record.timestamp

    @property
    def status(self) -> RecordStatus | None:
        return self._record.status

    @property
    def linked_results(self) -> list[tuple[RecordRelation, SearchResult]]:
        return list(self._linked)

    def format_content(
        self, format_config: SearchResultFormatConfig | _NotSetMarker = NOT_SET_MARKER
    ) -> str:
        """The result as one XML element named after its record type (XML-escaped).

        Args:
            format_config: Which fields to show. Default: the result's own config.

        Returns:
            The element, with the linked results nested in it; empty for an invalid
            record when the config leaves invalid results out.
        """
        config = value_or(format_config, self._format_config)
        return _render(self, config, relation=None)

    @property
    def formatted_content(self) -> str:
        return self.format_content()

    def __repr__(self) -> str:
        scope = ""
        if isinstance(self._record, ScopedRecord):
            scope = f", user_id={self._record.user_id!r}, thread_id={self._record.thread_id!r}"
        return (
            f"OracleSearchResult(id={self._id!r}, type={self._record.record_type!r}, "
            f"distance={self.distance:.4f}{scope}, content={self.content!r})"
        )


def _render(result: SearchResult, config: SearchResultFormatConfig,
            relation: str | None) -> str:
    record = result.record
    include_invalid = value_or(config.include_invalid_results, True)
    if not include_invalid and record.status is RecordStatus.INVALID:
        return ""
    # The fields in the order of the format config's options, as the reference shows them.
    fields: list[tuple[str, Any]] = []
    if relation is not None:
        fields.append(("relation", relation))

    def scope(name: str) -> None:
        value = getattr(record, name, None)
        if _flag(config, f"show_{name}") and value is not None:
            fields.append((name, value))

    scope("thread_id")
    if _flag(config, "show_distance") and isinstance(result, OracleSearchResult):
        fields.append(("estimated_relevance", f"{1 - result.distance:.4f}"))
    if _flag(config, "show_timestamp") and record.timestamp:
        fields.append(("timestamp", prompt_time(record.timestamp)))
    if _flag(config, "show_role") and isinstance(record, MessageRecord) and record.role:
        fields.append(("role", record.role))
    scope("user_id")
    scope("agent_id")
    if _flag(config, "show_status"):
        fields.append(("status", record.status.value))
    metadata = (_metadata_elements(record.metadata)
                if _flag(config, "show_metadata") and record.metadata else [])
    linked = [
        _render(item, config, relation=linked_label(link, item.record.id))
        for link, item in result.linked_results
        if include_invalid or item.record.status is not RecordStatus.INVALID
    ]
    return render("search_result.xml.j2", tag=record.record_type, record_id=record.id,
                  fields=fields, metadata=metadata, content=result.content, linked=linked)


_XML_NAME_START = (":A-Z_a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u02ff\u0370-\u037d"
                   "\u037f-\u1fff\u200c-\u200d\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff"
                   "\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff")
"""XML 1.0 (fifth edition) NameStartChar, production [4]; NameChar [4a] adds these:"""
_XML_NAME_MORE = "\\-.0-9\u00b7\u0300-\u036f\u203f-\u2040"
_NOT_IN_A_NAME = re.compile(rf"[^{_XML_NAME_START}{_XML_NAME_MORE}]|[^\w.-]|:")
"""A character a metadata element's name may not keep: one no XML name holds, one that is
not a word character (an invisible joiner, a look-alike of ``<``), or ``:`` (a namespace
prefix). A combining mark of an XML name is kept all the same (``_kept``)."""
_XML_NAME_CHAR = re.compile(f"[{_XML_NAME_START}{_XML_NAME_MORE}]")
_XML_NAME_FIRST = re.compile(f"[{_XML_NAME_START}]")


def _kept(match: re.Match[str]) -> str:
    """A combining mark (an accent written apart, a vowel sign) stays with the letter
    before it, as XML names allow; any other character ``_NOT_IN_A_NAME`` finds is ``_``."""
    char = match.group()
    return (char if unicodedata.category(char) in ("Mn", "Mc") and _XML_NAME_CHAR.match(char)
            else "_")


def _metadata_elements(metadata: Any) -> list[tuple[str, str]]:
    """Each metadata entry as (element name, text), in the metadata's own order: a string as
    it is, any other value as JSON. A key that is not an XML name has its other characters
    replaced by ``_``, so a key can never open or close an element."""
    if not isinstance(metadata, dict):
        return [("value", json.dumps(metadata, ensure_ascii=False))]
    elements = []
    for key, value in metadata.items():
        name = _NOT_IN_A_NAME.sub(_kept, str(key))
        if not name or not _XML_NAME_FIRST.match(name) or not (name[0].isalpha()
                                                               or name[0] == "_"):
            name = f"_{name}"
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        elements.append((name, text))
    return elements


def linked_label(relation: RecordRelation, reached_record_id: str) -> str:
    """The label of a relation as read towards ``reached_record_id``: the relation type
    when it is the target, the opposite label when it is the source."""
    return (relation.relation_type if relation.target_record_id == reached_record_id
            else relation.opposite_relation_type)
