"""OracleThread: one conversation, its messages, and the memories scoped to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from oracleagentmemory._async_twins import positional_or_keyword
from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker, value_or
from oracleagentmemory._vocabulary import MEMORY_TYPES
from oracleagentmemory.apis.llms.llm import ILlm
from oracleagentmemory.apis.message import ImageMimeType, Message, new_id
from oracleagentmemory.apis.records import ImageRecord, RecordStatus, ThreadRecordType
from oracleagentmemory.apis.relations import check_memory_link_type
from oracleagentmemory.apis.searchscope import SearchScope
from oracleagentmemory.apis.thread import (
    IThread,
    NormalizedMessageT,
    ThreadMessageContentT,
    ThreadMessageMappingT,
    ThreadMessageTypedDictT,
)
from oracleagentmemory.apis.ttl import TimeToLiveAnchor
from oracleagentmemory.core import derived_memory, index_text, scope_resolution
from oracleagentmemory.core.arguments import (
    check_flag,
    check_optional_int,
    reject_store_kwargs,
    scope_id,
)
from oracleagentmemory.core.arguments import (
    check_id_argument as check_id,
)
from oracleagentmemory.core.context_card_assembly import build_context_card
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.extractors.memoryextractionconfig import (
    MemoryExtractionConfig,
    resolve_memory_extraction_config_argument,
)
from oracleagentmemory.core.image_records import describe, image_record, message_images
from oracleagentmemory.core.image_validation import validate_image
from oracleagentmemory.core.imageinputlimitconfig import ImageInputLimitConfig
from oracleagentmemory.core.links import link_changes, link_selector, new_link
from oracleagentmemory.core.memory_service import (
    MemoryService,
    ServiceHolder,
    search_options,
)
from oracleagentmemory.core.message_batches import KnownTail, append_batch
from oracleagentmemory.core.message_input import to_messages
from oracleagentmemory.core.observation import (
    THREAD_OPERATIONS,
    observe_methods,
    observed_llm,
    unobserved,
)
from oracleagentmemory.core.records import load_messages, to_record
from oracleagentmemory.core.retention import ttl_changes, ttl_fields
from oracleagentmemory.core.searchconfig import MemorySearchConfig
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.store_arguments import service_for_store
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.summary_assembly import DEFAULT_SUMMARY_TOKEN_BUDGET, thread_summary
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.core.thread_settings import (
    CONTEXT_CARD_TOKEN_LIMIT_DEFAULT,
    MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
    MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
    SettingsLayer,
    ThreadSettings,
    layer_from_arguments,
    layer_from_json,
    resolve_settings,
)
from oracleagentmemory.errors import InvalidArgumentError, NotFoundError
from oracleagentmemory.observability.event import OperationKind
from oracleagentmemory.observability.instrumentation import observe_operation
from oracleagentmemory.stores.errors import LinkEndNotFoundError
from oracleagentmemory.stores.protocol import RecordIn, RecordOut, RecordQuery, RecordScope

__all__ = [
    "CONTEXT_CARD_TOKEN_LIMIT_DEFAULT",
    "DEFAULT_MESSAGE_HISTORY_LIMIT",
    "DEFAULT_SUMMARY_TOKEN_BUDGET",
    "MAX_MESSAGE_TOKEN_LENGTH_DEFAULT",
    "MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT",
    "NormalizedMessageT",
    "OracleThread",
    "ThreadMessageContentT",
    "ThreadMessageMappingT",
    "ThreadMessageTypedDictT",
]

DEFAULT_MESSAGE_HISTORY_LIMIT = 100
"""How many recent messages ``get_messages()`` returns when no range is given."""
DEFAULT_IMAGE_LIST_LIMIT = 100
"""How many images ``list_images()`` returns unless the caller passes a limit (or None)."""


def _per_message(value: Any, count: int, argument: str) -> list[Any]:
    """A scalar applies to the whole batch; a list gives one value per message."""
    if isinstance(value, list):
        if len(value) != count:
            raise InvalidArgumentError(f"{argument} has {len(value)} entries for {count} messages")
        return value
    return [value] * count


@observe_methods("thread", THREAD_OPERATIONS, result_names={"add_memory": "memory_id"})
class OracleThread(IThread):
    """A thread backed by an Oracle (or embedded) store.

    Messages are stored one record each; searches default to the thread's user and agent
    exactly and to this thread loosely, so memories of the user's other threads can appear.

    Applications get threads from ``OracleAgentMemory.create_thread`` and ``get_thread``;
    the constructor makes a standalone thread over a store, with no stored thread record.
    Its settings mean what they mean for ``OracleAgentMemory.create_thread``.

    Args:
        store: What the thread stores into when no ``client`` is given: an
            ``OracleDBMemoryStore``, another ``IMemoryStore``, a contract backend, or a
            connection or path that an ``OracleDBMemoryStore`` is opened on.
        client: A client whose store, embedder, LLM and defaults the thread uses (then
            ``store`` is not used). Default: None.
        thread_id: The thread's id. Default: a new UUID.
        user_id: The thread's user (None: no user). Default: a new UUID.
        agent_id: The thread's agent (None: no agent). Default: a new UUID.
        metadata: The thread's metadata. Default: None.
        persist_messages_in_config: Accepted for compatibility (a bool); messages always
            live in the store. Default: False.
        llm: The LLM to extract, summarise and link with (None: none). Default: the
            client's, else none.
        memory_extraction_config: The thread's extraction settings. Default: the
            client's, else the SDK defaults.
        image_input_limit_config: The thread's image limits. Default: the client's, else
            ``ImageInputLimitConfig()``.
        max_message_token_length: As in ``create_thread``. Default: 15,000.
        message_shortening_input_token_limit: As in ``create_thread``. Default: 30,000.
        memory_extraction_window: Deprecated, as in ``create_thread``.
        context_summary_update_frequency: Deprecated, as in ``create_thread``.
        memory_extraction_frequency: Deprecated, as in ``create_thread``.
        memory_extraction_token_limit: Deprecated, as in ``create_thread``.
        context_card_token_limit: As in ``create_thread``. Default: 100,000.
        context_card_type_search_concurrency: As in ``create_thread``. Default: 5.
        enable_context_summary: Deprecated, as in ``create_thread``.
        memory_extraction_custom_instructions: Deprecated, as in ``create_thread``.
        memory_extraction_inherit_message_metadata: Deprecated, as in ``create_thread``.
        search_config: The thread's search config. Default: the client's, else top-k
            with 10 results.

    Raises:
        InvalidArgumentError: An empty id, both ``memory_extraction_config`` and a
            deprecated extraction argument, or a setting not allowed (a ``ValueError``).
        ArgumentTypeError: A value of the wrong type.
        SchemaError: ``store`` is a connection whose store cannot be used (a
            ``RuntimeError``).
        StorageError: ``store`` is a path whose file cannot be opened (an ``OSError``).
    """

    def __init__(
        self,
        store: Any,
        client: ServiceHolder | None = None,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        persist_messages_in_config: bool = False,
        llm: ILlm | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_config: MemoryExtractionConfig | _NotSetMarker = NOT_SET_MARKER,
        image_input_limit_config: ImageInputLimitConfig | _NotSetMarker = NOT_SET_MARKER,
        max_message_token_length: int = MAX_MESSAGE_TOKEN_LENGTH_DEFAULT,
        message_shortening_input_token_limit: int = MESSAGE_SHORTENING_INPUT_TOKEN_LIMIT_DEFAULT,
        memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER,
        context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER,
        context_card_token_limit: int = CONTEXT_CARD_TOKEN_LIMIT_DEFAULT,
        context_card_type_search_concurrency: int = 5,
        enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
            NOT_SET_MARKER),
        search_config: MemorySearchConfig | _NotSetMarker = NOT_SET_MARKER,
    ) -> None:
        service = client.memory_service if client is not None else service_for_store(store)
        extraction = resolve_memory_extraction_config_argument(
            "OracleThread", memory_extraction_config, {
                "memory_extraction_window": memory_extraction_window,
                "context_summary_update_frequency": context_summary_update_frequency,
                "memory_extraction_frequency": memory_extraction_frequency,
                "memory_extraction_token_limit": memory_extraction_token_limit,
                "enable_context_summary": enable_context_summary,
                "memory_extraction_custom_instructions": memory_extraction_custom_instructions,
                "memory_extraction_inherit_message_metadata":
                    memory_extraction_inherit_message_metadata,
            })
        check_flag(persist_messages_in_config, "persist_messages_in_config")
        layer = layer_from_arguments({
            "max_message_token_length": max_message_token_length,
            "message_shortening_input_token_limit": message_shortening_input_token_limit,
            "context_card_token_limit": context_card_token_limit,
            "context_card_type_search_concurrency": context_card_type_search_concurrency,
            "memory_extraction_config": extraction,
            "image_input_limit_config": image_input_limit_config,
            "search_config": search_config,
        })
        generated = {name: scope_id(value, name) if value is not NOT_SET_MARKER
                     else new_id()
                     for name, value in (("thread_id", thread_id), ("user_id", user_id),
                                         ("agent_id", agent_id))}
        self._bind(ThreadContext(
            service=service, thread_id=check_id(generated["thread_id"], "thread_id"),
            user_id=generated["user_id"],
            agent_id=generated["agent_id"], llm=observed_llm(value_or(llm, service.llm)),
            settings=resolve_settings(layer.over(service.defaults)),
        ), value_or(metadata, None))

    def _bind(self, context: ThreadContext, metadata: dict[str, Any] | None,
              new: bool = False) -> None:
        """``new``: the thread was just created, so it has no message yet."""
        self._context = context
        self._service = context.service
        self._metadata = metadata
        self._tail = KnownTail(known=new)
        """The thread's last message as this handle knows it (``message_batches``)."""
        self.llm = unobserved(context.llm)
        """The LLM this thread extracts, summarises and links with (None: no LLM)."""

    # -- identity and settings ----------------------------------------------------------

    @property
    def thread_id(self) -> str:
        """The thread's id."""
        return self._context.thread_id

    # IThread (like the reference) declares str; a thread created with None, or stored
    # without an owner, has None here.
    @property
    def user_id(self) -> str:
        """The thread's user (None for a thread without one)."""
        return self._context.user_id  # type: ignore[return-value]

    @property
    def agent_id(self) -> str:
        """The thread's agent (None for a thread without one)."""
        return self._context.agent_id  # type: ignore[return-value]

    @property
    def metadata(self) -> dict[str, Any] | None:
        """The thread's metadata as this handle was opened with it."""
        return self._metadata

    @property
    def settings(self) -> ThreadSettings:
        """The thread's effective runtime settings."""
        return self._context.settings

    @property
    def max_message_token_length(self) -> int:
        """Tokens above which a message is shortened in prompts (``settings`` has it too)."""
        return self._context.settings.max_message_token_length

    @property
    def message_shortening_input_token_limit(self) -> int:
        """Tokens of an oversized message sent to be shortened."""
        return self._context.settings.message_shortening_input_token_limit

    def _to_config(self) -> dict[str, Any]:
        """The thread's identity and settings as JSON. Never messages: every OracleThread is
        backed by a store, whose message table is the one place messages live."""
        return {"thread_id": self.thread_id, "user_id": self.user_id,
                "agent_id": self.agent_id, "metadata": self._metadata,
                "settings": {**layer_from_arguments({
                    "max_message_token_length": self.max_message_token_length,
                    "message_shortening_input_token_limit":
                        self.message_shortening_input_token_limit,
                    "context_card_token_limit": self.settings.context_card_token_limit,
                    "context_card_type_search_concurrency":
                        self.settings.context_card_type_search_concurrency,
                    "memory_extraction_config": self.settings.memory_extraction_config,
                }).to_json(), "persist_messages_in_config": False}}

    def __repr__(self) -> str:
        return (f"OracleThread(thread_id={self.thread_id!r}, user_id={self.user_id!r}, "
                f"agent_id={self.agent_id!r})")

    # -- messages ---------------------------------------------------------------------

    def add_messages(
        self,
        messages: Sequence[Message | ThreadMessageTypedDictT | ThreadMessageMappingT],
        metadata: dict[str, Any] | None | list[dict[str, Any] | None] | _NotSetMarker = (
            NOT_SET_MARKER),
        ttl_days: int | None | list[int | None] | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | list[TimeToLiveAnchor] | _NotSetMarker = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        """Append messages and index them; the batch is stored whole or not at all.

        Args:
            messages: ``Message`` objects or mappings with ``role`` and ``content`` (text,
                or a list of text and image parts), optionally ``id``, ``timestamp`` and
                ``metadata``.
            metadata: One JSON object for every message, or one per message. Default:
                each message's own.
            ttl_days: Days until the messages expire, one value or one per message.
                Default: the retention config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from, one or one per message. Default: the
                creation time.

        Returns:
            The messages' ids, in order.

        Raises:
            InvalidArgumentError: A string instead of a list, an empty role, a list of
                per-message values of the wrong length (a ``ValueError``).
            MissingFieldError: A message without ``role`` or ``content`` (a ``KeyError``).
            ArgumentTypeError: ``messages`` that is not a sequence, an item that is neither a
                ``Message`` nor a mapping, or an unknown keyword (a ``TypeError``).
            NotFoundError: The thread was deleted (a ``KeyError``).
        """
        reject_store_kwargs("add_messages", store_kwargs)
        batch = to_messages(messages)
        count = len(batch)
        metadatas = (
            [m.metadata for m in batch] if metadata is NOT_SET_MARKER
            else _per_message(metadata, count, "metadata")
        )
        ttls = _per_message(ttl_days, count, "ttl_days")
        anchors = _per_message(ttl_anchor, count, "ttl_anchor")
        texts = [message.text for message in batch]
        turns = [index_text.Turn(m.role, m.text, m.timestamp) for m in batch]
        vectors = self._service.embed(index_text.message_index_texts(
            turns, self._tail.previous(self._context)))
        records: list[RecordIn] = []
        for index, message in enumerate(batch):
            message_id = message.id or new_id()
            ttl = ttl_fields(ttls[index], anchors[index], self._service.retention)
            parts, images = message_images(self._service, message, ttl, self._context.scope,
                                           self.settings.image_input_limit_config,
                                           self._caption)
            records.append({
                "record_type": "message", "id": message_id, **self._context.scope,
                "role": message.role, "content": texts[index], "metadata": metadatas[index],
                "timestamp": message.timestamp, "parts": parts, **ttl,
                "embedding": vectors[index],
            })
            records.extend({**image, "message_id": message_id} for image in images)
        # One store call: the thread checked, the batch written and counted, and what the
        # extraction or summary it makes due reads, in one transaction.
        written = append_batch(self._context, self._tail, records, turns)
        message_ids = [rid for rid, record in zip(written["ids"], records, strict=True)
                       if record["record_type"] == "message"]
        derived_memory.after_messages_added(self._context, written)
        return message_ids

    def _caption(self, data: bytes, mime: ImageMimeType) -> str:
        return derived_memory.caption_with(self._context.llm, data, mime)

    def get_messages(self, *, start: int | None | _NotSetMarker = NOT_SET_MARKER,
                     end: int | None | _NotSetMarker = NOT_SET_MARKER,
                     include_image_bytes: bool | _NotSetMarker = NOT_SET_MARKER
                     ) -> list[Message]:
        """Messages in chronological order; no range gives the most recent window.

        ``start`` and ``end`` are positions in the thread, as in a Python slice (negative
        ones count from the end).

        Args:
            start: The first position. Default: without ``end``, the last 100 messages;
                with it, the first message. None: the first message.
            end: The position after the last one (-1 or None: to the end). Default: 100
                messages after a non-negative ``start``, else to the end.
            include_image_bytes: Load the bytes of the messages' images. Default: False.

        Returns:
            The messages, oldest first.

        Raises:
            ArgumentTypeError: A ``start`` or ``end`` that is not an int, or an
                ``include_image_bytes`` that is not a bool.
        """
        first: int | None
        last: int | None
        if start is NOT_SET_MARKER and end is NOT_SET_MARKER:
            first, last = -DEFAULT_MESSAGE_HISTORY_LIMIT, None
        else:
            first = check_optional_int(value_or(start, None), "start")
            if end is NOT_SET_MARKER:
                last = None if first is None or first < 0 \
                    else first + DEFAULT_MESSAGE_HISTORY_LIMIT
            else:
                last = check_optional_int(end, "end")
                if last == -1:
                    last = None
        include_bytes = check_flag(value_or(include_image_bytes, False), "include_image_bytes")
        records = self._service.backend.list_messages(self.thread_id, first, last)
        return load_messages(self._service.backend, records, include_all_bytes=include_bytes)

    def get_message(self, message_id: str, *,
                    included_image_ids: list[str] | _NotSetMarker = NOT_SET_MARKER) -> Message:
        """One message of this thread.

        Args:
            message_id: The message to read.
            included_image_ids: The images of the message whose bytes to load. Default:
                none.

        Returns:
            The message.

        Raises:
            NotFoundError: No such message in this thread (a ``KeyError``).
            InvalidArgumentError: An empty ``message_id`` (a ``ValueError``).
            ArgumentTypeError: A ``message_id`` that is not a str.
        """
        found = self._service.find(check_id(message_id, "message_id"), ["message"],
                                   self.thread_id)
        if found is None:
            raise NotFoundError(
                f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        wanted = value_or(included_image_ids, None) or []
        return load_messages(self._service.backend, [found], wanted_image_ids=wanted)[0]

    def update_message(
        self,
        message_id: str,
        content: str | list[Mapping[str, Any]] | _NotSetMarker = NOT_SET_MARKER,
        metadata: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_days: int | None | _NotSetMarker = NOT_SET_MARKER,
        ttl_anchor: TimeToLiveAnchor | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update a raw message of this thread; omitted fields keep their stored value.

        New content is embedded again and extraction takes it into account.

        Args:
            message_id: The message to update.
            content: Its new content: text, or a list of text and image parts (mappings
                as in ``add_messages``). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.
            ttl_days: As in ``OracleAgentMemory.update_memory``. Default: kept.
            ttl_anchor: As in ``OracleAgentMemory.update_memory``. Default: kept.

        Returns:
            The message's id.

        Raises:
            NotFoundError: No such message in this thread (a ``KeyError``).
            InvalidArgumentError: An empty id, or content that is not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_message", kwargs)
        check_id(message_id, "message_id")
        changes = ttl_changes(ttl_days, ttl_anchor, self._service.retention)
        stored: list[RecordOut] = []
        if content is not NOT_SET_MARKER and (self._service.embedder is not None
                                              or self._context.llm is not None):
            # One read serves the new vector (the message before it) and the extraction
            # window that ends at it.
            stored = self._service.backend.list_messages(self.thread_id, None, None)
        if content is not NOT_SET_MARKER:
            message = to_messages([{"role": "user", "content": content}])[0]
            # Attached images always take their message's expiry (the store keeps it so).
            parts, images = message_images(
                self._service, message, {"ttl_days": None, "ttl_anchor": "CREATED_AT"},
                self._context.scope, self.settings.image_input_limit_config, self._caption)
            new_ids = {image["id"] for image in images}
            changes["content"] = message.text
            changes["parts"] = parts
            changes["replace_images"] = images + [
                {"id": part["id"]} for part in parts or []
                if part["type"] == "image" and part["id"] not in new_ids
            ]
            changes["embedding"] = self._service.embed(
                [self._index_text(stored, message_id, message.text)])[0]
        if not isinstance(metadata, _NotSetMarker):
            changes["metadata"] = metadata
        updated = self._service.backend.update_record(
            message_id, ["message"], changes, self.thread_id)
        if updated is None:
            raise NotFoundError(
                f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        if "content" in changes:
            self._tail.forget()  # it may have been the last message, which a batch answers
            derived_memory.after_message_updated(
                self._context, message_id,
                [updated if record["id"] == message_id else record for record in stored])
        return updated["id"]

    def _index_text(self, stored: list[RecordOut], message_id: str, text: str) -> str:
        """The index text of a stored message given new content: its stored role and
        timestamp, and the message before it in the thread (``stored``: the thread's
        messages, none read when there is no embedder, since the store embeds the content
        alone)."""
        if self._service.embedder is None:
            return text
        position = next((i for i, record in enumerate(stored) if record["id"] == message_id),
                        None)
        if position is None:  # not in this thread: update_record reports it
            return text
        return index_text.message_index_text(
            index_text.record_turn(stored[position], text),
            index_text.record_turn(stored[position - 1]) if position else None)

    def delete_message(self, message_id: str) -> int:
        """Delete one raw message of this thread (derived memories stay).

        Waits first for background extraction of this thread that this client accepted
        earlier, so extraction never reads a message that is gone.

        Args:
            message_id: The message to delete.

        Returns:
            1 when it was deleted, 0 when there was no such message in this thread.

        Raises:
            OperationTimeoutError: The wait ran out (300 s); nothing was deleted.
            InvalidArgumentError: An empty ``message_id`` (a ``ValueError``).
            ArgumentTypeError: A ``message_id`` that is not a str.
        """
        check_id(message_id, "message_id")
        self._service.wait_for_threads([self.thread_id])
        self._tail.forget()
        return self._service.backend.delete_records([message_id], ["message"], self.thread_id)

    # -- images -----------------------------------------------------------------------

    def _check_scope_claims(self, **claims: Any) -> None:
        """Scope arguments of image calls may only restate the thread's own scope."""
        for name, value in claims.items():
            if value is not NOT_SET_MARKER and scope_id(value, name) != getattr(self, name):
                raise InvalidArgumentError(
                    f"{name}={value!r} does not match this thread's {name} "
                    f"{getattr(self, name)!r}"
                )

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
        """Store an image of this thread; its description is its searchable text.

        Args:
            image: The PNG, JPEG or WebP bytes (not animated).
            description: The searchable text. Default (or None): a caption by the
                thread's LLM, empty without one.
            mime_type: The image's type, checked against the bytes. Default: detected
                from the bytes.
            image_id: Its id. Default: a new UUID.
            user_id: Only restates the thread's user. Default: the thread's.
            agent_id: Only restates the thread's agent. Default: the thread's.
            thread_id: Only restates the thread's id. Default: this thread.
            metadata: A JSON object to filter on. Default: None.
            timestamp: Its event time, ISO-8601. Default: none.
            ttl_days: As in ``OracleAgentMemory.add_image``. Default: the retention
                config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.

        Returns:
            The image's id.

        Raises:
            InvalidArgumentError: A scope argument other than the thread's, image bytes
                not allowed, an id already taken (``DuplicateRecordError``); each a
                ``ValueError``.
            NotFoundError: The thread was deleted (a ``KeyError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_image", store_kwargs)
        self._check_scope_claims(user_id=user_id, agent_id=agent_id, thread_id=thread_id)
        mime = validate_image(image, mime_type, self.settings.image_input_limit_config)
        record = image_record(
            self._service, image_id=image_id, data=image, mime=mime,
            description=describe(image, mime, description, self._caption),
            scope=self._context.scope, metadata=value_or(metadata, None),
            timestamp=value_or(timestamp, None),
            ttl=ttl_fields(ttl_days, ttl_anchor, self._service.retention))
        written = self._service.backend.write_records([record],
                                                      thread_id=self._context.write_thread)[0]
        return written

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
        """Update an image of this thread; omitted values are kept.

        Args:
            image_id: The image to update.
            image: New bytes; ``mime_type`` must come with them. Default: kept.
            description: A new searchable text; None: a new caption by the thread's LLM.
                Default: kept.
            mime_type: The type of the new bytes. Required with ``image``, refused
                without it.
            metadata: New metadata, replaced whole (None clears it). Default: kept.
            timestamp: New event time (None clears it). Default: kept.
            ttl_days: As in ``OracleAgentMemory.update_memory``. Default: kept.
            ttl_anchor: As in ``OracleAgentMemory.update_memory``. Default: kept.

        Returns:
            The image's id.

        Raises:
            NotFoundError: No such image in this thread (a ``KeyError``).
            InvalidArgumentError: ``image`` without ``mime_type`` or the reverse, bytes
                not allowed, or a TTL change of an image attached to a message; each a
                ``ValueError``.
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_image", kwargs)
        return update_image(self._service, check_id(image_id, "image_id"), self.thread_id,
                            self.settings.image_input_limit_config, self._caption,
                            image=image, description=description, mime_type=mime_type,
                            metadata=metadata, timestamp=timestamp, ttl_days=ttl_days,
                            ttl_anchor=ttl_anchor)

    def delete_image(self, image_id: str) -> int:
        """Delete an image of this thread that is not attached to a message.

        Args:
            image_id: The image to delete.

        Returns:
            1 when it was deleted, 0 when there was no such image in this thread.

        Raises:
            AttachedImageError: The image belongs to a message (a ``ValueError``).
            InvalidArgumentError: An empty ``image_id`` (a ``ValueError``).
            ArgumentTypeError: An ``image_id`` that is not a str.
        """
        check_id(image_id, "image_id")
        return self._service.backend.delete_records([image_id], ["image"], self.thread_id)

    def list_images(
        self,
        image_id: str | _NotSetMarker = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_bytes: bool | _NotSetMarker = NOT_SET_MARKER,
        limit: int | None | _NotSetMarker = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Images of this thread in store order; bytes only for one given image_id.

        Args:
            image_id: Only this image. Default: any.
            metadata_filter: Entries the metadata must match. Default: no filter.
            include_bytes: Load the image bytes (only with ``image_id``). Default: False.
            limit: How many images at most. Default: 100; None: no limit of its own.

        Returns:
            The images.

        Raises:
            InvalidArgumentError: ``include_bytes=True`` without ``image_id``, an empty
                id or a malformed filter (each a ``ValueError``).
            ArgumentTypeError: A value of the wrong type.
        """
        return list_images(self._service, {"thread_id": self.thread_id}, image_id,
                           metadata_filter, include_bytes, limit)

    # -- memories ---------------------------------------------------------------------

    def add_memory(
        self,
        content: str,
        *,
        memory_type: str | _NotSetMarker = NOT_SET_MARKER,
        user_id: str | _NotSetMarker = NOT_SET_MARKER,
        agent_id: str | _NotSetMarker = NOT_SET_MARKER,
        thread_id: str | _NotSetMarker = NOT_SET_MARKER,
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
        """Add a memory scoped like this thread (with ``memory_id_to_link``: like that
        memory of this thread), or as the scope arguments override, optionally linked.

        Args:
            content: The memory's text (embedded for search).
            memory_type: ``"memory"``, ``"fact"``, ``"preference"`` or ``"guideline"``.
                Default: ``"memory"``.
            user_id: The user it is about (None: none). Default: the thread's (or the
                linked memory's).
            agent_id: The agent it belongs to (None: none). Default: the thread's (or
                the linked memory's).
            thread_id: The thread it belongs to (None: none). Default: this thread (or
                the linked memory's).
            memory_id: Its id. Default: a new UUID.
            metadata: A JSON object to filter on. Default: None.
            timestamp: Its event time, ISO-8601. Default: none.
            ttl_days: As in ``OracleAgentMemory.add_memory``. Default: the retention
                config's ``default_ttl_days`` (never, if unset).
            ttl_anchor: What the TTL counts from. Default: its creation time.
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: valid.
            autonomous_linking: Let the thread's LLM link it to related memories of this
                thread (only when it belongs to this thread). Default: True when the
                thread has an LLM.
            memory_id_to_link: A memory of this thread to link it to; ``link_type`` must
                come with it.
            link_type: The relation to that memory (``"supports"``...).
            link_id: The relation's id. Default: a new UUID.
            link_timestamp: The relation's event time. Default: none.
            link_metadata: The relation's metadata. Default: None.

        Returns:
            The memory's id.

        Raises:
            InvalidArgumentError: A value not allowed, ``memory_id_to_link`` without
                ``link_type`` or the reverse, a ``link_type`` that is not a built-in
                ``MemoryLinkType`` ("Invalid memory link type."), an id already taken
                (``DuplicateRecordError``); each a ``ValueError``.
            LinkEndNotFoundError: A ``memory_id_to_link`` that is not a memory of this
                thread (a ``KeyError`` and a ``ValueError``).
            NotFoundError: The thread was deleted (a ``KeyError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("add_memory", store_kwargs)
        scope = self._context.scope
        links = []
        if (memory_id_to_link is NOT_SET_MARKER) != (link_type is NOT_SET_MARKER):
            raise InvalidArgumentError("memory_id_to_link and link_type must be given together")
        if memory_id_to_link is not NOT_SET_MARKER:
            check_memory_link_type(link_type)
            target = self._owned_memory(memory_id_to_link, "memory_id_to_link")
            scope = {"user_id": target.get("user_id"), "agent_id": target.get("agent_id"),
                     "thread_id": target.get("thread_id")}
            links.append(new_link(
                self.thread_id, source=None, target=(target["id"], target["record_type"]),
                relation_type=link_type, relation_id=link_id,
                timestamp=value_or(link_timestamp, None), metadata=value_or(link_metadata, None)))
        if not isinstance(user_id, _NotSetMarker):
            scope["user_id"] = scope_id(user_id, "user_id")
        if not isinstance(agent_id, _NotSetMarker):
            scope["agent_id"] = scope_id(agent_id, "agent_id")
        if not isinstance(thread_id, _NotSetMarker):
            scope["thread_id"] = scope_id(thread_id, "thread_id")
        record = self._service.memory_record(
            content, scope, memory_id=memory_id, memory_type=memory_type,
            metadata=value_or(metadata, None), timestamp=value_or(timestamp, None),
            ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)
        new_id = self._service.write_memory(record, links,
                                            thread_id=self._context.write_thread)
        linking = value_or(autonomous_linking, self.llm is not None)
        if linking and self.llm is not None and scope["thread_id"] == self.thread_id:
            derived_memory.link_autonomously(self._context, new_id, content,
                                             record["record_type"])
        return new_id

    def _owned_memory(self, memory_id: Any, argument: str) -> RecordOut:
        found = self._service.find(check_id(memory_id, argument), MEMORY_TYPES, self.thread_id)
        if found is None:
            raise LinkEndNotFoundError(
                f"{argument} {memory_id!r} is not a memory of thread {self.thread_id!r}")
        return found

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
        """Update a memory-like record whose thread is exactly this one.

        Args:
            memory_id: The memory, fact, preference or guideline to update.
            content: Its new text (embedded again). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.
            timestamp: Its new event time (None clears it). Default: kept.
            ttl_days: As in ``OracleAgentMemory.update_memory``. Default: kept.
            ttl_anchor: As in ``OracleAgentMemory.update_memory``. Default: kept.
            status: ``RecordStatus.VALID`` or ``INVALID``. Default: kept.

        Returns:
            The memory's id.

        Raises:
            NotFoundError: No such memory in this thread (a ``KeyError``).
            InvalidArgumentError: An empty id or content, or another value not allowed (a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("update_memory", kwargs)
        return self._service.update_memory(
            memory_id, self.thread_id, content=content, metadata=metadata,
            timestamp=timestamp, ttl_days=ttl_days, ttl_anchor=ttl_anchor, status=status)

    def delete_memory(self, memory_id: str) -> int:
        """Delete a memory-like record of exactly this thread.

        Waits first for earlier accepted background extraction of this thread, like
        ``delete_message``.

        Args:
            memory_id: The memory to delete.

        Returns:
            1 when it was deleted, 0 when it is missing or belongs elsewhere.

        Raises:
            OperationTimeoutError: The wait ran out (300 s); nothing was deleted.
            InvalidArgumentError: An empty ``memory_id`` (a ``ValueError``).
            ArgumentTypeError: A ``memory_id`` that is not a str.
        """
        check_id(memory_id, "memory_id")
        self._service.wait_for_threads([self.thread_id])
        return self._service.backend.delete_records([memory_id], list(MEMORY_TYPES),
                                                    self.thread_id)

    # -- search -----------------------------------------------------------------------

    # Returns the concrete results; IThread (like the reference) declares list[SearchResult],
    # and a list is invariant, so the narrower list is an override mypy cannot accept.
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
        """Search records relevant to ``query`` within this thread's default scope.

        Args:
            query: The text to search for (embedded as a query; keyword and hybrid
                strategies also match its words).
            user_id: The user whose records to search. Default: the thread's user.
            agent_id: The agent whose records to search. Default: the thread's agent.
            thread_id: The thread whose records to search. Default: this thread.
            exact_user_match: True: only records of exactly ``user_id`` (None: only
                records without a user); False: records of any user, those of
                ``user_id`` ranked higher. Default: True.
            exact_agent_match: As ``exact_user_match``, for the agent. Default: True.
            exact_thread_match: As ``exact_user_match``, for the thread. Default:
                False (records of any thread, this thread's ranked higher).
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
                ``num_hops`` out of range, a scope given twice.
            ArgumentTypeError: A value of the wrong type (a ``TypeError``).
        """
        values = scope_resolution.scope_arguments(scope, {
            "user_id": user_id, "agent_id": agent_id, "thread_id": thread_id,
            "exact_user_match": exact_user_match, "exact_agent_match": exact_agent_match,
            "exact_thread_match": exact_thread_match,
        })
        dims = scope_resolution.thread_scope(values, self.user_id, self.agent_id,
                                             self.thread_id)
        options = search_options({
            "max_results": max_results, "token_budget": token_budget,
            "soft_token_budget": soft_token_budget, "record_types": record_types,
            "metadata_filter": metadata_filter, "num_hops": num_hops,
            "max_linked_results": max_linked_results,
            "include_invalid_results": include_invalid_results,
        }, self.settings.search_config)
        # The search itself is a memory operation, observed as the reference observes it:
        # an AgentMemory search pair inside the thread's.
        with observe_operation("agent_memory", "search", operation_kind=OperationKind.READ,
                               concrete_class="OracleAgentMemory",
                               arguments={"query": query, **values}) as operation:
            results = self._service.search(query, dims, options)
            operation.set_result(results)
            return results

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
        """Create a directed relation between two memory-like records of this thread.

        Args:
            source_record_id: The record the relation starts from.
            source_record_type: Its type (``"memory"``, ``"fact"``...).
            target_record_id: The record the relation points to.
            target_record_type: Its type.
            relation_type: The label read from source to target (a built-in
                ``MemoryLinkType`` or your own).
            opposite_relation_type: The label read from target to source; ignored for a
                built-in type. Default: the same label as ``relation_type``.
            relation_id: The relation's id. Default: a new UUID.
            timestamp: Its event time, ISO-8601. Default: none.
            metadata: A JSON object stored with it. Default: None.

        Returns:
            The relation's id.

        Raises:
            LinkEndNotFoundError: An endpoint missing or of another thread (a
                ``KeyError`` and a ``ValueError``).
            InvalidLinkError: An endpoint of the wrong type, a record linked to itself, an
                empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id`` or one already taken
                (``DuplicateRecordError``); each a ``ValueError``.
            ArgumentTypeError: An id that is not a str.
        """
        link = new_link(self.thread_id, source=(source_record_id, source_record_type),
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
        """Update a relation of this thread; omitted values are kept.

        Args:
            relation_id: The relation to update.
            relation_type: Its new label. Default: kept.
            opposite_relation_type: Its new reverse label. Default: kept.
            timestamp: Its new event time (None clears it). Default: kept.
            metadata: Its new metadata, replaced whole (None clears it). Default: kept.

        Returns:
            1 when it was updated, 0 when this thread has no relation with this id.

        Raises:
            InvalidLinkError: An empty or overlong label (a ``ValueError``).
            InvalidArgumentError: An empty ``relation_id`` (a ``ValueError``).
            ArgumentTypeError: A ``relation_id`` that is not a str.
        """
        return self._service.backend.update_link(
            check_id(relation_id, "relation_id"), self.thread_id,
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
        """Delete a relation of this thread by id, or by its stored-direction endpoints.

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
            relation_type, relation_id), self.thread_id)

    # -- summaries and context cards --------------------------------------------------

    def get_summary(self, except_last: int | _NotSetMarker = NOT_SET_MARKER,
                    token_budget: int | _NotSetMarker = NOT_SET_MARKER,
                    **kwargs: Any) -> OracleSummary:
        """A best-effort summary; without an LLM, a transcript of the recent messages.

        An LLM failure falls back to the transcript (and logs a warning).

        Args:
            except_last: Leave the last this many messages out. Default: 0.
            token_budget: Cut the summary to about this many tokens (None: no cut).
                Default: 1,000.

        Returns:
            The summary.

        Raises:
            InvalidArgumentError: A negative ``except_last`` (a ``ValueError``).
            ArgumentTypeError: A value that is not an int, or an unknown keyword.
        """
        reject_store_kwargs("get_summary", kwargs)
        return thread_summary(self._context, except_last, token_budget)

    def get_context_card(
        self,
        fallback_message_count: int | _NotSetMarker = NOT_SET_MARKER,
        max_relevant_results: int | _NotSetMarker = NOT_SET_MARKER,
        max_recent_messages: int | _NotSetMarker = NOT_SET_MARKER,
        except_last_messages: int | _NotSetMarker = NOT_SET_MARKER,
        min_relevant_results_by_type: (
            Mapping[ThreadRecordType, int] | None | _NotSetMarker) = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None | _NotSetMarker = NOT_SET_MARKER,
        include_invalid_results: bool | _NotSetMarker = NOT_SET_MARKER,
        token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        soft_token_budget: int | None | _NotSetMarker = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> OracleContextCard:
        """Summary, relevant records and recent messages, rendered for a prompt.

        The summary (with an LLM: the thread's summary and topics; without: a transcript
        of the last messages) is also the query that finds the relevant records: the
        thread's memories and its own messages, merged by distance.

        Args:
            fallback_message_count: Messages in the transcript summary used without an
                LLM (or when it fails). Default: 5.
            max_relevant_results: Relevant records at most (raised to the sum of
                ``min_relevant_results_by_type``). Default: 5.
            max_recent_messages: Last messages shown verbatim (0: none); with
                ``except_last_messages`` it must be 0 or equal to it. Default: 0.
            except_last_messages: Leave the last this many messages out of the summary
                and the relevant records. Default: 0.
            min_relevant_results_by_type: At least this many relevant records of each
                type (``{"fact": 2}``), searched first. Default: none.
            metadata_filter: Entries the relevant records' metadata must match.
                Default: no filter.
            include_invalid_results: Also show records marked invalid. Default: True.
            token_budget: Cut the relevant records once they pass this many tokens.
                Default: the search config's, else no budget.
            soft_token_budget: As ``token_budget``, keeping the record that crosses it.
                Default: the search config's, else no budget.

        Returns:
            The context card; its ``content`` is the prompt text.

        Raises:
            InvalidArgumentError: A negative count, ``max_recent_messages`` not 0 and not
                ``except_last_messages``, an unknown record type in
                ``min_relevant_results_by_type`` or a malformed filter (each a
                ``ValueError``).
            ArgumentTypeError: A value of the wrong type, or an unknown keyword.
        """
        reject_store_kwargs("get_context_card", kwargs)
        return build_context_card(self._context, {
            "fallback_message_count": fallback_message_count,
            "max_relevant_results": max_relevant_results,
            "max_recent_messages": max_recent_messages,
            "except_last_messages": except_last_messages,
            "min_relevant_results_by_type": min_relevant_results_by_type,
            "metadata_filter": metadata_filter,
            "include_invalid_results": include_invalid_results,
            "token_budget": token_budget,
            "soft_token_budget": soft_token_budget,
        })

    def wait_for_memory_extraction(self, timeout: float | None = 300.0) -> None:
        """Wait for background extraction of this thread that this client accepted earlier.

        Work accepted after the call starts is not waited for; failed extraction counts as
        finished.

        Args:
            timeout: Seconds to wait at most; None: no limit. Default: 300.

        Raises:
            OperationTimeoutError: The timeout expired first (a ``TimeoutError``).
            InvalidArgumentError: A negative ``timeout``, or one that is not a number
                (a ``ValueError``).
        """
        self._service.wait_for_threads([self.thread_id], timeout)

    _async_twins = (
        "add_messages", "get_messages", "get_message", "update_message", "delete_message",
        "add_image", "update_image", "delete_image", "list_images",
        "add_memory", "update_memory", "delete_memory", "search", "link_records",
        "update_record_link", "delete_record_link", "get_summary", "get_context_card",
        "wait_for_memory_extraction",
    )
    _async_twin_shapes = {"get_messages": positional_or_keyword}


def open_thread(service: MemoryService, record: RecordOut, llm: ILlm | None | _NotSetMarker,
                call: SettingsLayer, *, new: bool = False) -> OracleThread:
    """A handle on a persisted thread: explicit call settings over its stored settings over
    the client's defaults. ``new``: the thread was just created (it has no message)."""
    stored = layer_from_json((record.get("config") or {}).get("settings"))
    thread = OracleThread.__new__(OracleThread)
    thread._bind(ThreadContext(
        service=service, thread_id=record["id"], user_id=record.get("user_id"),
        agent_id=record.get("agent_id"), llm=observed_llm(value_or(llm, service.llm)),
        settings=resolve_settings(call.over(stored).over(service.defaults)), persisted=True,
    ), record.get("metadata"), new)
    return thread


def link_new_memory(thread: OracleThread, memory_id: str, content: str,
                    memory_type: str) -> None:
    """Link a memory just stored in ``thread`` to related memories of it, with its LLM."""
    derived_memory.link_autonomously(thread._context, memory_id, content, memory_type)


def list_images(service: MemoryService, scope: RecordScope, image_id: Any,
                metadata_filter: Any, include_bytes: Any, limit: Any) -> list[ImageRecord]:
    """Images of a scope (only the scope keys given), oldest first."""
    with_bytes = check_flag(value_or(include_bytes, False), "include_bytes")
    if with_bytes and image_id is NOT_SET_MARKER:
        raise InvalidArgumentError("include_bytes=True requires image_id")
    query: RecordQuery = {
        "record_types": ["image"], **scope,
        "metadata_filter": value_or(metadata_filter, None),
        "include_bytes": with_bytes,
        "limit": check_optional_int(value_or(limit, DEFAULT_IMAGE_LIST_LIMIT), "limit"),
    }
    if image_id is not NOT_SET_MARKER:
        query["ids"] = [check_id(image_id, "image_id")]
    return [image for image in map(to_record, service.backend.get_records(query))
            if isinstance(image, ImageRecord)]


def update_image(service: MemoryService, image_id: str, thread_id: str | None,
                 limits: ImageInputLimitConfig, captioner: Any, *, image: Any,
                 description: Any, mime_type: Any, metadata: Any, timestamp: Any,
                 ttl_days: Any, ttl_anchor: Any) -> str:
    """Replace the given fields of an image (of ``thread_id`` when given)."""
    current = service.find(image_id, ["image"], thread_id)
    where = f" in thread {thread_id!r}" if thread_id else ""
    if current is None:
        raise NotFoundError(f"image {image_id!r} does not exist{where}")
    changes = ttl_changes(ttl_days, ttl_anchor, service.retention)
    if changes and current.get("message_id") is not None:
        raise InvalidArgumentError(
            "the image is attached to a message: change its expiry with update_message()")
    mime = ImageMimeType(current.get("mime_type") or ImageMimeType.PNG)
    data: bytes | None = None
    if image is not NOT_SET_MARKER:
        if mime_type is NOT_SET_MARKER:
            raise InvalidArgumentError("mime_type must be given together with image")
        mime = validate_image(image, mime_type, limits)
        data = bytes(image)
        changes["image_bytes"] = data
        changes["mime_type"] = mime.value
    elif mime_type is not NOT_SET_MARKER:
        raise InvalidArgumentError("mime_type can only be given together with image")
    if description is not NOT_SET_MARKER:
        if description is None and data is None:
            stored = service.backend.get_records({"ids": [image_id], "record_types": ["image"],
                                                  "include_bytes": True})
            data = stored[0].get("image_bytes") if stored else None
        text = describe(data, mime, description, captioner)
        changes["content"] = text
        changes["embedding"] = service.embed([text])[0] if text else None
    if metadata is not NOT_SET_MARKER:
        changes["metadata"] = metadata
    if timestamp is not NOT_SET_MARKER:
        changes["timestamp"] = timestamp
    updated = service.backend.update_record(image_id, ["image"], changes, thread_id)
    if updated is None:
        raise NotFoundError(f"image {image_id!r} does not exist{where}")
    return updated["id"]
