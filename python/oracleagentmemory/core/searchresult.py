"""The concrete search result type returned by Oracle threads and clients."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.apis.records import MessageRecord, Record, ScopedRecord
from oracleagentmemory.apis.searchresult import SearchResult
from oracleagentmemory.core.rendering import render


@dataclass(frozen=True)
class LinkedResult:
    """A memory reached from a direct result by following relations."""

    record: Record
    relation_type: str
    relation_id: str
    via_record_id: str
    hops: int

    @property
    def formatted_content(self) -> str:
        return _render_record(self.record, relation=self.relation_type, linked=())


class OracleSearchResult(SearchResult):
    """A search hit: the record, its distance to the query (smaller is better), linked context."""

    def __init__(
        self,
        distance: float,
        record: Record,
        id: str | None = None,  # noqa: A002 - documented parameter name
        linked_results: Sequence[LinkedResult] = (),
    ) -> None:
        self._distance = float(distance)
        self._record = record
        self._id = id if id is not None else record.id
        self._linked = tuple(linked_results)

    @property
    def distance(self) -> float:
        return self._distance

    @property
    def record(self) -> Record:
        """The matched record; check ``isinstance(record, ScopedRecord)`` for scope ids."""
        return self._record

    @property
    def id(self) -> str | None:
        return self._id

    @property
    def content(self) -> str:
        return self._record.content

    @property
    def metadata(self) -> dict[str, Any] | None:
        return self._record.metadata

    @property
    def timestamp(self) -> str | None:
        return self._record.effective_timestamp

    @property
    def record_type(self) -> str:
        return self._record.record_type

    @property
    def linked_results(self) -> tuple[LinkedResult, ...]:
        """Memories linked to this one (``num_hops`` deep), each with its relation label."""
        return self._linked

    @property
    def formatted_content(self) -> str:
        """XML-safe rendering of the visible fields, as used in prompts."""
        return _render_record(self._record, relation=None, linked=self._linked)

    def __repr__(self) -> str:
        scope = ""
        if isinstance(self._record, ScopedRecord):
            scope = f", user_id={self._record.user_id!r}, thread_id={self._record.thread_id!r}"
        return (
            f"OracleSearchResult(id={self._id!r}, type={self._record.record_type!r}, "
            f"distance={self._distance:.4f}{scope}, content={self.content!r})"
        )


def _render_record(record: Record, relation: str | None, linked: Sequence[LinkedResult]) -> str:
    return render(
        "search_result.xml.j2",
        record=record,
        role=record.role if isinstance(record, MessageRecord) else None,
        timestamp=record.effective_timestamp,
        relation=relation,
        linked_results=[item.formatted_content for item in linked],
    )
