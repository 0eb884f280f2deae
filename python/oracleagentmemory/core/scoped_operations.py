"""The operations the client and a thread share, written once with their documentation.

``OracleAgentMemory`` and ``OracleThread`` offer the same memory, image, relation and
search calls with the same parameters; what differs is the scope a call reaches. The
client reaches its whole store: new records take the scope their arguments give, and a
record named by id may belong to any thread. A thread reaches its own: new records take
its scope, a record named by id must be one of its own, a write needs its stored record
still there, and a search defaults to its user, agent and thread. Each class says so
through the attributes and hooks at the end of ``ScopedOperations``; everything else is
here.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageMimeType
from oracleagentmemory.apis.records import ImageRecord, RecordStatus
from oracleagentmemory.apis.relations import check_memory_link_type
from oracleagentmemory.apis.scoped_operations import IScopedOperations
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import scope_resolution
from oracleagentmemory.core.arguments import (
    check_flag,
    check_id_argument,
    check_optional_int,
    reject_store_kwargs,
    scope_id,
)
from oracleagentmemory.core.image_records import describe, image_record
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.links import link_changes, link_selector, new_link
from oracleagentmemory.core.memory_service import MemoryService, SearchOptions, search_options
from oracleagentmemory.core.records import to_record
from oracleagentmemory.core.retention import expired_when_written, ttl_changes, ttl_fields
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.errors import InvalidArgumentError, NotFoundError
from oracleagentmemory.stores.errors import AttachedImageError, LinkEndNotFoundError
from oracleagentmemory.stores.protocol import LinkIn, RecordQuery, RecordScope

__all__ = ["DEFAULT_IMAGE_LIST_LIMIT", "ScopedOperations", "given_scope"]

DEFAULT_IMAGE_LIST_LIMIT = 100
"""How many images ``list_images()`` returns unless the caller passes a limit (or None)."""


def given_scope(user_id: object, agent_id: object, thread_id: object) -> RecordScope:
    """The scope ids a call was given, checked (None included: it means "without one")."""
    scope: RecordScope = {}
    if user_id is not NOT_SET_MARKER:
        scope["user_id"] = scope_id(user_id, "user_id")
    if agent_id is not NOT_SET_MARKER:
        scope["agent_id"] = scope_id(agent_id, "agent_id")
    if thread_id is not NOT_SET_MARKER:
        scope["thread_id"] = scope_id(thread_id, "thread_id")
    return scope


class ScopedOperations(IScopedOperations):
    """Memories, images, relations and search of ``OracleAgentMemory`` and ``OracleThread``,
    each within the reach of the object called (the whole store, or one thread)."""

    # -- images -----------------------------------------------------------------------

    def add_image(
        self,
        image: bytes,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Store an image; its description is its searchable text.

        The client stores it in the scope its arguments give; a thread stores it in its
        own scope, which the scope arguments may only restate.

        Args:
            image: The PNG, JPEG or WebP bytes (not animated).
            description: The searchable text. Default (or None): a caption by the LLM
                (the thread's, or the client's), empty without one.
            mime_type: The image's type, checked against the bytes. Default: detected
                from the bytes.
            image_id: Its id. Default: a new UUID.
            user_id: The user it belongs to. Default: the thread's; on the client, none.
            agent_id: The agent it belongs to. Default: the thread's; on the client,
                none.
            thread_id: The thread it belongs to. Default: the thread called; on the
                client, none.
            metadata: A JSON object to filter on. Default: None.
            timestamp: Its event time, ISO-8601. Default: none.
            ttl_days: Days until it expires; None: ``max_ttl_days`` (never, if unset).
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.

        Returns:
            The image's id.

        Raises:
            InvalidArgumentError: Empty, unsupported, animated or oversized image bytes,
                a ``mime_type`` the bytes contradict, an id already taken
                (``DuplicateRecordError``), or on a thread a scope argument other than the
                thread's; each a ``ValueError``.
            NotFoundError: On a thread: the thread was deleted (a ``KeyError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_image", store_kwargs)
        scope = self._image_scope(user_id, agent_id, thread_id)
        mime = validate_image(image, mime_type, self._image_limits)
        service = self._service
        record = image_record(
            service, image_id=image_id, data=image, mime=mime,
            description=describe(image, mime, description, self._caption), scope=scope,
            metadata=value_or(metadata, None), timestamp=value_or(timestamp, None),
            ttl=ttl_fields(ttl_days, ttl_anchor, service.retention))
        return service.backend.write_records([record], thread_id=self._write_thread)[0]

    def update_image(
        self,
        image_id: str,
        image: bytes | _NotSetMarker = NOT_SET_MARKER,
        description: str | None | _NotSetMarker = NOT_SET_MARKER,
        mime_type: ImageMimeType | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update an image (on a thread: one of the thread's); omitted values are kept.

        Args:
            image_id: The image to update.
            image: New bytes; ``mime_type`` must come with them. Default: kept.
            description: A new searchable text; None: a new caption by the LLM (the
                thread's, or the client's). Default: kept.
            mime_type: The type of the new bytes. Required with ``image``, refused
                without it.
            metadata: New metadata, replaced whole (None clears it). Default: kept.
            timestamp: New event time, ISO-8601 (None clears it). Default: kept.
            ttl_days: As in ``update_memory``. Default: kept.
            ttl_anchor: As in ``update_memory``. Default: kept.

        Returns:
            The image's id.

        Raises:
            NotFoundError: No image with this id (on a thread: in the thread); a
                ``KeyError``.
            InvalidArgumentError: ``image`` without ``mime_type`` or the reverse, bytes
                not allowed, or a TTL change of an image attached to a message (change
                the message's instead); each a ``ValueError``.
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_image", kwargs)
        image_id = check_id_argument(image_id, "image_id")
        service, thread_id = self._service, self._own_thread
        where = f" in thread {thread_id!r}" if thread_id else ""
        changes = ttl_changes(ttl_days, ttl_anchor, service.retention)
        mime, data = ImageMimeType.PNG, None
        if not isinstance(image, _NotSetMarker):
            if isinstance(mime_type, _NotSetMarker):
                raise InvalidArgumentError("mime_type must be given together with image")
            mime = validate_image(image, mime_type, self._image_limits)
            data = bytes(image)
            changes["image_bytes"] = data
            changes["mime_type"] = mime.value
        elif mime_type is not NOT_SET_MARKER:
            raise InvalidArgumentError("mime_type can only be given together with image")
        if description is None and data is None and self.llm is not None:
            # A caption of the stored bytes: the LLM reads them between a read and the update.
            query: RecordQuery = {"ids": [image_id], "record_types": ["image"],
                                  "include_bytes": True}
            if thread_id is not None:
                query["thread_id"] = thread_id
            stored = service.backend.get_records(query)
            if not stored:
                raise NotFoundError(f"image {image_id!r} does not exist{where}")
            mime = ImageMimeType(stored[0].get("mime_type") or ImageMimeType.PNG)
            data = stored[0].get("image_bytes")
        if description is not NOT_SET_MARKER:
            text = describe(data, mime, description, self._caption)
            changes["content"] = text
            changes["embedding"] = service.embed([text])[0] if text else None
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        if not isinstance(timestamp, _NotSetMarker):
            changes["timestamp"] = timestamp
        try:
            # one store call: it finds the image and refuses, in the update itself, an
            # expiry change of an image attached to a message
            updated = service.backend.update_record(image_id, ["image"], changes, thread_id)
        except AttachedImageError:
            raise InvalidArgumentError("the image is attached to a message: change its expiry "
                                       "with update_message()") from None
        if updated is None:
            raise NotFoundError(f"image {image_id!r} does not exist{where}")
        return updated["id"]

    def delete_image(self, image_id: str) -> int:
        """Delete an image (on a thread: one of the thread's) not attached to a message.

        Args:
            image_id: The image to delete.

        Returns:
            1 when it was deleted, 0 when there was no such image (on a thread: in the
            thread).

        Raises:
            AttachedImageError: The image belongs to a message (delete or update the
                message instead); a ``ValueError``.
            InvalidArgumentError: An empty ``image_id`` (a ``ValueError``).
            ArgumentTypeError: An ``image_id`` that is not a str.
        """
        check_id_argument(image_id, "image_id")
        return self._service.backend.delete_records([image_id], ["image"], self._own_thread)

    def _list_images(self, scope: RecordScope, image_id: str | _NotSetMarker,
                     metadata_filter: dict[str, Any] | None | _NotSetMarker,
                     include_bytes: bool | _NotSetMarker,
                     limit: int | None | _NotSetMarker) -> list[ImageRecord]:
        """Images of a scope (only the scope keys given), oldest first: what both
        ``list_images`` return (their parameters differ, as the reference's do)."""
        with_bytes = check_flag(value_or(include_bytes, False), "include_bytes")
        if with_bytes and image_id is NOT_SET_MARKER:
            raise InvalidArgumentError("include_bytes=True requires image_id")
        query: RecordQuery = {
            "record_types": ["image"], **scope,
            "metadata_filter": value_or(metadata_filter, None),
            "include_bytes": with_bytes,
            "limit": check_optional_int(value_or(limit, DEFAULT_IMAGE_LIST_LIMIT), "limit"),
        }
        if not isinstance(image_id, _NotSetMarker):
            query["ids"] = [check_id_argument(image_id, "image_id")]
        return [image for image in map(to_record, self._service.backend.get_records(query))
                if isinstance(image, ImageRecord)]

    # -- memories ---------------------------------------------------------------------

    def add_memory(
        self,
        content: str,
        *,
        memory_type: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        autonomous_linking: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_id_to_link: str | _NotSetMarker = NOT_SET_MARKER,
        link_type: str | _NotSetMarker = NOT_SET_MARKER,
        link_id: str | _NotSetMarker = NOT_SET_MARKER,
        link_timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        link_metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Add a memory, optionally linked to a stored one.

        On the client, its scope is what the arguments give (each may be left out); on a
        thread, the thread's, or with ``memory_id_to_link`` that memory's, each part
        replaced by a scope argument given.

        Args:
            content: The memory's text (embedded for search).
            memory_type: ``"memory"``, ``"fact"``, ``"preference"`` or ``"guideline"``.
                Default: ``"memory"``.
            user_id: The user it is about (None: none). Default: the thread's; on the
                client, none. With ``memory_id_to_link``: the linked memory's (on the
                client, None is replaced by it too).
            agent_id: The agent it belongs to (None: none). Default: as ``user_id``.
            thread_id: The thread it belongs to (None: none). Default: as ``user_id``
                (the thread called, on a thread).
            memory_id: Its id. Default: a new UUID.
            metadata: A JSON object to filter on. Default: None.
            timestamp: Its event time, ISO-8601. Default: none (its creation time is used).
            ttl_days: Days until it expires; None: ``max_ttl_days`` (never, if unset).
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: valid.
            autonomous_linking: Let the LLM link it to related memories of its thread.
                Default: True when there is an LLM and the memory belongs to a thread
                (on a thread: to the thread called, the only one it links in). On the
                client, True without a thread is an ``InvalidArgumentError``.
            memory_id_to_link: A stored memory (on a thread: one of the thread's) to
                link it to; ``link_type`` must come with it.
            link_type: The relation to that memory (``"supports"``...).
            link_id: The relation's id. Default: a new UUID.
            link_timestamp: The relation's event time. Default: none.
            link_metadata: The relation's metadata. Default: None.

        Returns:
            The memory's id.

        Raises:
            InvalidArgumentError: A value that is not allowed, ``memory_id_to_link``
                without ``link_type`` or the reverse, a ``link_type`` that is not a
                built-in ``MemoryLinkType`` ("Invalid memory link type."), an id already
                taken (``DuplicateRecordError``); each a ``ValueError``.
            LinkEndNotFoundError: A ``memory_id_to_link`` that is not a stored memory (on
                a thread: of the thread); a ``KeyError`` and a ``ValueError``.
            NotFoundError: On a thread: the thread was deleted (a ``KeyError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_memory", store_kwargs)
        if (memory_id_to_link is NOT_SET_MARKER) != (link_type is NOT_SET_MARKER):
            raise InvalidArgumentError("memory_id_to_link and link_type must be given together")
        given = given_scope(user_id, agent_id, thread_id)
        links: list[LinkIn] = []
        linked: str | None = None
        if not isinstance(memory_id_to_link, _NotSetMarker):
            relation_type = check_memory_link_type(link_type)
            linked = check_id_argument(memory_id_to_link, "memory_id_to_link")
            # the target's type is the one stored, which the store reads with the link
            links.append(new_link(self._own_thread, source=None, target=(linked, None),
                                  relation_type=relation_type, relation_id=link_id,
                                  timestamp=value_or(link_timestamp, None),
                                  metadata=value_or(link_metadata, None)))
        scope = self._memory_scope(given, linked is not None)
        thread = self._memory_thread(scope, linked, autonomous_linking)
        linking_thread = self._linking_thread(autonomous_linking, thread)
        service = self._service
        record = service.memory_record(
            content, scope, memory_id=memory_id, memory_type=memory_type,
            metadata=value_or(metadata, None), timestamp=value_or(timestamp, None),
            ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)
        if linked is not None:
            # One store call: the scope keys left out are the linked memory's, which the
            # store reads in the write's own transaction.
            if "user_id" not in scope:
                del record["user_id"]
            if "agent_id" not in scope:
                del record["agent_id"]
            if "thread_id" not in scope:
                del record["thread_id"]
            record["scope_from"] = linked
        try:
            new_id = service.write_memory(record, links, thread_id=self._write_thread)
        except LinkEndNotFoundError as error:
            if linked is None or self._own_thread not in (None, thread):
                raise  # on a thread, a memory put in another thread cannot link in it
            if expired_when_written(record):
                raise LinkEndNotFoundError(
                    f"memory {record.get('id')!r} is expired when it is written (its "
                    "ttl_days have passed), so it cannot be linked to memory_id_to_link "
                    f"{linked!r}") from error
            raise self._not_linkable(linked) from error
        if linking_thread is not None:
            self._link_new_memory(linking_thread, new_id, content, record["record_type"])
        return new_id

    def _not_linkable(self, memory_id: str) -> LinkEndNotFoundError:
        """The error of a ``memory_id_to_link`` out of reach."""
        where = ("a stored memory" if self._own_thread is None
                 else f"a memory of thread {self._own_thread!r}")
        return LinkEndNotFoundError(f"memory_id_to_link {memory_id!r} is not {where}")

    def update_memory(
        self,
        memory_id: str,
        content: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        status: RecordStatus | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update a memory-like record (on a thread: one whose thread is exactly the one
        called); omitted fields and the scope stay as stored.

        Args:
            memory_id: The memory, fact, preference or guideline to update.
            content: Its new text (embedded again). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.
            timestamp: Its new event time, ISO-8601 (None clears it). Default: kept.
            ttl_days: Days until it expires, counted again from the anchor; None:
                ``max_ttl_days`` (never, if unset). Default: kept, unless ``ttl_anchor``
                is given (then the retention config's ``default_ttl_days``).
            ttl_anchor: What the TTL counts from. Default: kept, unless ``ttl_days`` is
                given (then the creation time).
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: kept.

        Returns:
            The memory's id.

        Raises:
            NotFoundError: No memory-like record with this id (on a thread: in the
                thread); a ``KeyError``.
            InvalidArgumentError: An empty id or content, or another value not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_memory", kwargs)
        return self._service.update_memory(
            memory_id, self._own_thread, content=content, metadata=metadata, timestamp=timestamp,
            ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)

    def delete_memory(self, memory_id: str) -> int:
        """Delete a memory-like record (memory, fact, preference or guideline) by id; on a
        thread, only one whose thread is exactly the one called.

        Waits first for background extraction this client accepted for the memory's
        thread (on a thread: for the thread), so extraction never writes beside a delete.

        Args:
            memory_id: The record to delete.

        Returns:
            1 when it was deleted, 0 when there was no such record (or, on a thread, it
            belongs elsewhere).

        Raises:
            OperationTimeoutError: The wait for background extraction ran out (300 s);
                nothing was deleted.
            InvalidArgumentError: An empty ``memory_id`` (a ``ValueError``).
            ArgumentTypeError: A ``memory_id`` that is not a str.
        """
        check_id_argument(memory_id, "memory_id")
        service = self._service
        owner = self._own_thread
        if owner is None and service.has_pending_work():
            # the memory's thread is read only when there is extraction to wait for (a
            # delete stays one store call)
            found = service.find(memory_id, MEMORY_TYPES)
            owner = found.get("thread_id") if found is not None else None
        if owner is not None:
            service.wait_for_threads([owner])
        return service.backend.delete_records([memory_id], list(MEMORY_TYPES), self._own_thread)

    # -- search -----------------------------------------------------------------------

    # Returns the concrete results; the interfaces (like the reference) declare
    # list[SearchResult], and a list is invariant, so the narrower list is an override mypy
    # cannot accept.
    def search(  # type: ignore[override]
        self,
        query: str,
        *,
        user_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | None | _NotSetMarker = NOT_SET_MARKER,
        exact_user_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_agent_match: bool | _NotSetMarker = NOT_SET_MARKER,
        exact_thread_match: bool | _NotSetMarker = NOT_SET_MARKER,
        max_results: int | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | _NotSetMarker = NOT_SET_MARKER,
        record_types: list[str] | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        num_hops: int | _NotSetMarker = NOT_SET_MARKER,
        max_linked_results: int | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        scope: SearchScope | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[OracleSearchResult]:
        """Search records relevant to ``query``.

        On the client ``user_id`` (or a scope with it) is required; on a thread the
        scope defaults to the thread's.

        Args:
            query: The text to search for (embedded as a query; keyword and hybrid
                strategies also match its words).
            user_id: The user whose records to search. Required on the client; on a
                thread, default: the thread's user.
            agent_id: The agent whose records to search. Default: the thread's agent;
                on the client, any agent.
            thread_id: The thread whose records to search. Default: the thread called;
                on the client, any thread.
            exact_user_match: True: only records of exactly ``user_id`` (None: only
                records without a user); False: records of any user, those of
                ``user_id`` ranked higher (on the client, False is an
                ``InvalidArgumentError``). Default: True.
            exact_agent_match: As ``exact_user_match``, for the agent. Default: True
                (on the client, when ``agent_id`` is given; True without it is an
                ``InvalidArgumentError``).
            exact_thread_match: As ``exact_user_match``, for the thread. Default: on a
                thread, False (records of any thread, the thread's ranked higher); on
                the client, True when ``thread_id`` is given.
            max_results: How many results at most. Default: the search config's
                ``max_results``, else 10.
            token_budget: Cut the results once their formatted text passes this many
                tokens. Default: the search config's, else no budget.
            soft_token_budget: As ``token_budget`` but the result crossing it is kept.
                Default: the search config's, else no budget.
            record_types: Public record types to search (``"memory"``, ``"fact"``,
                ``"message"``...). Default: every searchable type.
            metadata_filter: Entries the record's metadata must match
                (docs/concepts.md, "Metadata filters"). Default: no filter.
            num_hops: How many relations to follow from each memory result (0 to 5).
                Default: 0.
            max_linked_results: Linked records kept per result. Default: 100.
            include_invalid_results: Also return records marked invalid. Default: True.
            scope: A prebuilt ``SearchScope`` instead of the six scope arguments.

        Returns:
            The results, best first (smallest ``distance``: the cosine distance to the
            query, brought closer by matching words with the hybrid strategy; see
            ``OracleSearchResult``), each with its record and the records linked to it.

        Raises:
            InvalidArgumentError: A value that is not allowed (a ``ValueError``): a
                malformed filter (``InvalidFilterError``), ``max_results`` below 1,
                ``num_hops`` out of range, a scope given twice, on the client no
                ``user_id``.
            ArgumentTypeError: A value of the wrong type (a ``TypeError``).
        """
        values = scope_resolution.scope_arguments(scope, {
            "user_id": user_id, "agent_id": agent_id, "thread_id": thread_id,
            "exact_user_match": exact_user_match, "exact_agent_match": exact_agent_match,
            "exact_thread_match": exact_thread_match,
        })
        options = search_options({
            "max_results": max_results, "token_budget": token_budget,
            "soft_token_budget": soft_token_budget, "record_types": record_types,
            "metadata_filter": metadata_filter, "num_hops": num_hops,
            "max_linked_results": max_linked_results,
            "include_invalid_results": include_invalid_results,
        }, self._search_config)
        return self._search(query, values, options)

    # -- links ------------------------------------------------------------------------

    def link_records(
        self,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> str:
        """Create a directed relation between two memory-like records (on a thread: two of
        the thread's; on the client: of any threads).

        Args:
            source_record_id: The record the relation starts from.
            source_record_type: Its type (``"memory"``, ``"fact"``...).
            target_record_id: The record the relation points to.
            target_record_type: Its type.
            relation_type: The label read from source to target: a built-in
                ``MemoryLinkType`` (``"supports"``...) or a label of your own.
            opposite_relation_type: The label read from target to source; ignored for a
                built-in type, whose opposite is fixed (``"is_supported_by"``...).
                Default: the same label as ``relation_type``.
            relation_id: The relation's id. Default: a new UUID.
            timestamp: Its event time, ISO-8601. Default: none.
            metadata: A JSON object stored with it. Default: None.

        Returns:
            The relation's id.

        Raises:
            LinkEndNotFoundError: An endpoint that does not exist (on a thread: or is of
                another thread); a ``KeyError`` and a ``ValueError``.
            InvalidLinkError: An endpoint of the wrong type, a record linked to itself, an
                empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id``, or an id already taken
                (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """
        link = new_link(self._own_thread, source=(source_record_id, source_record_type),
                        target=(target_record_id, target_record_type),
                        relation_type=relation_type, relation_id=relation_id,
                        opposite_relation_type=opposite_relation_type,
                        timestamp=value_or(timestamp, None), metadata=value_or(metadata, None))
        self._service.backend.write_records([], links=[link])
        return link["id"]

    def update_record_link(
        self,
        relation_id: str,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        opposite_relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        timestamp: str | None | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Update a relation (on a thread: one of the thread's); omitted values are kept.

        Args:
            relation_id: The relation to update.
            relation_type: Its new label. Default: kept.
            opposite_relation_type: Its new reverse label (for a label of your own).
                Default: kept.
            timestamp: Its new event time (None clears it). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.

        Returns:
            1 when the relation was updated, 0 when there is none with this id (on a
            thread: in the thread).

        Raises:
            InvalidLinkError: An empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id`` (a ``ValueError``).
            ArgumentTypeError: A ``relation_id`` that is not a str.
        """
        return self._service.backend.update_link(
            check_id_argument(relation_id, "relation_id"), self._own_thread,
            link_changes(relation_type, opposite_relation_type, timestamp, metadata))

    def delete_record_link(
        self,
        source_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        source_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_id: str | _NotSetMarker = NOT_SET_MARKER,
        target_record_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_type: str | _NotSetMarker = NOT_SET_MARKER,
        relation_id: str | _NotSetMarker = NOT_SET_MARKER,
    ) -> int:
        """Delete a relation (on a thread: one of the thread's) by id, or by its
        stored-direction endpoints.

        Give ``relation_id`` alone, or all five endpoint arguments without it.

        Args:
            source_record_id: The source record of the relation, as stored.
            source_record_type: The source record's type.
            target_record_id: The target record.
            target_record_type: The target record's type.
            relation_type: The relation's label.
            relation_id: The relation's id.

        Returns:
            How many relations were deleted (0 or 1).

        Raises:
            InvalidArgumentError: ``relation_id`` together with endpoint arguments, or an
                endpoint tuple with a part missing (a ``ValueError``).
        """
        return self._service.backend.delete_links(link_selector(
            source_record_id, source_record_type, target_record_id, target_record_type,
            relation_type, relation_id), self._own_thread)

    # -- background work --------------------------------------------------------------

    def wait_for_memory_extraction(self, timeout: float | None = 300.0) -> None:
        """Wait for background extraction this client accepted before the call: of every
        thread on the client, of the thread called on a thread.

        Work accepted after the call starts is not waited for; failed extraction counts as
        finished. Inline extraction (the default mode) has nothing to wait for.

        Args:
            timeout: Seconds to wait at most; None: no limit. Default: 300.

        Raises:
            OperationTimeoutError: The timeout expired first (a ``TimeoutError``).
            InvalidArgumentError: A negative ``timeout``, or one that is not a number
                (a ``ValueError``).
        """
        self._service.wait_for_threads(None if self._own_thread is None else [self._own_thread],
                                       timeout)

    # -- what the client and a thread each say ----------------------------------------

    _service: MemoryService
    """The service the calls go through."""
    llm: ILlm | None
    """The LLM that captions an image given no description (None: none)."""
    _own_thread: str | None
    """The thread a record named by id must belong to: a thread's own id; None for the
    client, which reaches every record of its store."""
    _write_thread: str | None
    """The stored thread a new record's write needs, checked in the write's own transaction
    (None: none)."""
    _image_limits: ImageInputLimitConfig
    """The limits a new image's bytes are checked against."""
    _search_config: MemorySearchConfig | None
    """How a search picks and refines results, where the call does not say."""

    @abstractmethod
    def _caption(self, data: bytes, mime: ImageMimeType) -> str:
        """A caption of an image given no description ('' without an LLM)."""

    @abstractmethod
    def _image_scope(self, user_id: str | None | _NotSetMarker,
                     agent_id: str | None | _NotSetMarker,
                     thread_id: str | _NotSetMarker) -> RecordScope:
        """The scope of a new image, from ``add_image``'s scope arguments."""

    @abstractmethod
    def _memory_scope(self, given: RecordScope, linked: bool) -> RecordScope:
        """The scope keys of a new memory, from ``given``, the checked scope arguments of
        the call (only those given); with ``linked`` (it is linked to a stored memory),
        the keys left out take that memory's values."""

    @abstractmethod
    def _memory_thread(self, scope: RecordScope, linked: str | None,
                       requested: bool | _NotSetMarker) -> str | None:
        """The thread a new memory of ``scope`` will have, as far as deciding to link it
        autonomously (``requested``) needs it; ``linked``: the memory it is linked to."""

    @abstractmethod
    def _linking_thread(self, requested: bool | _NotSetMarker,
                        thread_id: str | None) -> str | None:
        """The thread in which a new memory of ``thread_id`` is linked to related ones
        once written (None: it is not), given ``autonomous_linking``; raises before the
        write when the request cannot be met."""

    @abstractmethod
    def _link_new_memory(self, thread_id: str, memory_id: str, content: str,
                         memory_type: str) -> None:
        """Link a memory just written in ``thread_id`` to related memories of it."""

    @abstractmethod
    def _search(self, query: str, values: dict[str, Any],
                options: SearchOptions) -> list[OracleSearchResult]:
        """Run a search: ``values`` are its checked scope arguments (NOT_SET_MARKER where
        omitted), ``options`` the rest, resolved."""
