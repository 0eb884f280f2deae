"""OracleThread: one conversation, its messages, and the memories scoped to it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from oracleagentmemory._notset import NOT_SET_MARKER, value_or
from oracleagentmemory.apis.message import ImageContent, Message
from oracleagentmemory.apis.records import MEMORY_TYPES, ImageRecord
from oracleagentmemory.apis.thread import IThread
from oracleagentmemory.core import derived_memory, scope_resolution
from oracleagentmemory.core.arguments import reject_store_kwargs
from oracleagentmemory.core.async_twins import AsyncTwins
from oracleagentmemory.core.contextcard import OracleContextCard
from oracleagentmemory.core.images import validate_image
from oracleagentmemory.core.message_input import to_messages
from oracleagentmemory.core.records import to_message, to_record
from oracleagentmemory.core.retention import ttl_changes, ttl_fields
from oracleagentmemory.core.searchresult import OracleSearchResult
from oracleagentmemory.core.summary import OracleSummary
from oracleagentmemory.core.thread_settings import explicit_settings, resolve_settings

if TYPE_CHECKING:
    from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory

DEFAULT_MESSAGE_WINDOW = 100
"""How many recent messages ``get_messages()`` returns when no range is given."""
DEFAULT_IMAGE_LIST_LIMIT = 100
"""How many images ``list_images()`` returns unless the caller passes a limit (or None)."""


def _per_message(value: Any, count: int, argument: str) -> list[Any]:
    """A scalar applies to the whole batch; a list gives one value per message."""
    if isinstance(value, list):
        if len(value) != count:
            raise ValueError(f"{argument} has {len(value)} entries for {count} messages")
        return value
    return [value] * count


class OracleThread(IThread, AsyncTwins):
    """A thread backed by an Oracle (or embedded) store.

    Messages are stored one record each; searches default to the thread's user and agent
    exactly and to this thread loosely, so memories of the user's other threads can appear.
    """

    def __init__(
        self,
        store: Any = None,
        thread_id: str | None = None,
        user_id: str | None = None,
        agent_id: str | None = None,
        metadata: dict[str, Any] | None = None,
        persist_messages_in_config: Any = NOT_SET_MARKER,
        llm: Any = None,
        memory_extraction_config: Any = NOT_SET_MARKER,
        image_input_limit_config: Any = NOT_SET_MARKER,
        memory_extraction_window: Any = NOT_SET_MARKER,
        context_summary_update_frequency: Any = NOT_SET_MARKER,
        memory_extraction_frequency: Any = NOT_SET_MARKER,
        memory_extraction_token_limit: Any = NOT_SET_MARKER,
        context_card_token_limit: Any = NOT_SET_MARKER,
        context_card_type_search_concurrency: Any = NOT_SET_MARKER,
        max_message_token_length: Any = NOT_SET_MARKER,
        message_shortening_input_token_limit: Any = NOT_SET_MARKER,
        enable_context_summary: Any = NOT_SET_MARKER,
        memory_extraction_custom_instructions: Any = NOT_SET_MARKER,
        memory_extraction_inherit_message_metadata: Any = NOT_SET_MARKER,
        search_config: Any = NOT_SET_MARKER,
        client: OracleAgentMemory | None = None,
        embedder: Any = None,
    ) -> None:
        if client is None:
            if store is None:
                raise ValueError("OracleThread needs a store or a client")
            from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory

            client = OracleAgentMemory(connection=store, embedder=embedder, llm=llm)
        call = explicit_settings({
            "persist_messages_in_config": persist_messages_in_config,
            "memory_extraction_config": memory_extraction_config,
            "image_input_limit_config": image_input_limit_config,
            "memory_extraction_window": memory_extraction_window,
            "context_summary_update_frequency": context_summary_update_frequency,
            "memory_extraction_frequency": memory_extraction_frequency,
            "memory_extraction_token_limit": memory_extraction_token_limit,
            "context_card_token_limit": context_card_token_limit,
            "context_card_type_search_concurrency": context_card_type_search_concurrency,
            "max_message_token_length": max_message_token_length,
            "message_shortening_input_token_limit": message_shortening_input_token_limit,
            "enable_context_summary": enable_context_summary,
            "memory_extraction_custom_instructions": memory_extraction_custom_instructions,
            "memory_extraction_inherit_message_metadata":
                memory_extraction_inherit_message_metadata,
            "search_config": search_config,
        })
        self._setup(
            client=client,
            thread_id=thread_id if thread_id is not None else uuid.uuid4().hex,
            user_id=user_id if user_id is not None else uuid.uuid4().hex,
            agent_id=agent_id if agent_id is not None else uuid.uuid4().hex,
            metadata=metadata,
            llm=llm if llm is not None else client.llm,
            settings=resolve_settings(call, {}, client._client_settings),
        )

    @classmethod
    def _from_store(cls, client: OracleAgentMemory, record: dict[str, Any], llm: Any,
                    call_settings: dict[str, Any]) -> OracleThread:
        """A handle on a persisted thread (used by the client's create/get/update)."""
        thread = cls.__new__(cls)
        thread._setup(
            client=client,
            thread_id=record["id"],
            user_id=record.get("user_id"),
            agent_id=record.get("agent_id"),
            metadata=record.get("metadata"),
            llm=llm,
            settings=resolve_settings(call_settings,
                                      (record.get("config") or {}).get("settings", {}),
                                      client._client_settings),
        )
        return thread

    def _setup(self, client: OracleAgentMemory, thread_id: str, user_id: str | None,
               agent_id: str | None, metadata: dict[str, Any] | None, llm: Any,
               settings: dict[str, Any]) -> None:
        self.client = client
        self.store = client.store
        self.thread_id = thread_id
        self.user_id = user_id
        self.agent_id = agent_id
        self.metadata = metadata
        self.llm = llm
        self.settings = {**settings, "persist_messages_in_config": False}
        for name, value in self.settings.items():
            setattr(self, name, value)

    def _to_config(self) -> dict[str, Any]:
        """The thread's identity and resolved settings as JSON.

        ``persist_messages_in_config`` never exports messages here: every OracleThread is
        backed by a store, whose message table is the one place messages live.
        """
        settings = {
            name: value.model_dump(mode="json") if hasattr(value, "model_dump") else value
            for name, value in self.settings.items()
        }
        settings["persist_messages_in_config"] = False
        return {"thread_id": self.thread_id, "user_id": self.user_id,
                "agent_id": self.agent_id, "metadata": self.metadata, "settings": settings}

    def __repr__(self) -> str:
        return (f"OracleThread(thread_id={self.thread_id!r}, user_id={self.user_id!r}, "
                f"agent_id={self.agent_id!r})")

    @property
    def _scope(self) -> dict[str, Any]:
        return {"user_id": self.user_id, "agent_id": self.agent_id, "thread_id": self.thread_id}

    # -- messages ---------------------------------------------------------------------

    def add_messages(
        self,
        messages: Any,
        metadata: Any = NOT_SET_MARKER,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> list[str]:
        """Append messages and index them; the batch is stored whole or not at all."""
        reject_store_kwargs("add_messages", store_kwargs)
        batch = to_messages(messages)
        count = len(batch)
        metadatas = (
            [m.metadata for m in batch] if metadata is NOT_SET_MARKER
            else _per_message(metadata, count, "metadata")
        )
        ttls = _per_message(ttl_days, count, "ttl_days")
        anchors = _per_message(ttl_anchor, count, "ttl_anchor")
        retention = self.client.retention_config
        texts = [message.text for message in batch]
        vectors = self.client._embed(texts)
        records: list[dict[str, Any]] = []
        for index, message in enumerate(batch):
            message_id = message.id or uuid.uuid4().hex
            ttl = ttl_fields(ttls[index], anchors[index], retention)
            parts, images = self._message_images(message, ttl)
            records.append({
                "record_type": "message", "id": message_id, **self._scope,
                "role": message.role, "content": texts[index], "metadata": metadatas[index],
                "timestamp": message.timestamp, "parts": parts, **ttl,
                "embedding": vectors[index],
            })
            records.extend({**image, "message_id": message_id} for image in images)
        written = self.store.write_records(records)
        message_ids = [rid for rid, record in zip(written, records, strict=True)
                       if record["record_type"] == "message"]
        derived_memory.after_messages_added(self, message_ids)
        return message_ids

    def _message_images(self, message: Message, ttl: dict[str, Any]
                        ) -> tuple[list[dict[str, Any]] | None, list[dict[str, Any]]]:
        """Stored parts of a multimodal message and records for its new images.

        Image parts with bytes are validated and become image records sharing the
        message's scope and expiry; parts without bytes refer to images already attached.
        """
        if isinstance(message.content, str):
            return None, []
        parts: list[dict[str, Any]] = []
        images: list[dict[str, Any]] = []
        for part in message.content:
            if not isinstance(part, ImageContent):
                parts.append({"type": "text", "id": part.id, "text": part.text,
                              "timestamp": part.timestamp})
                continue
            if part.bytes is None:
                mime = part.mime_type
                images.append({"id": part.id})
            else:
                mime = validate_image(part.bytes, value_or(part.mime_type, NOT_SET_MARKER),
                                      self.image_input_limit_config)
                description = self._describe_image(part.bytes, mime, part.description)
                images.append(self._image_record(
                    part.id, part.bytes, mime, description, None, part.timestamp,
                    {**ttl, "ttl_anchor": ttl["ttl_anchor"]
                     if ttl["ttl_anchor"] != "TIMESTAMP" or part.timestamp else "CREATED_AT"},
                ))
            parts.append({"type": "image", "id": part.id,
                          "mime_type": mime.value if mime is not None else None,
                          "description": part.description, "timestamp": part.timestamp})
        return parts, [image for image in images if "image_bytes" in image]

    def _image_record(self, image_id: str, data: bytes, mime: Any, description: str,
                      metadata: Any, timestamp: Any, ttl: dict[str, Any]) -> dict[str, Any]:
        return {
            "record_type": "image", "id": image_id, **self._scope,
            "content": description, "metadata": metadata, "timestamp": timestamp,
            "mime_type": mime.value, "image_bytes": bytes(data), **ttl,
            "embedding": self.client._embed([description])[0] if description else None,
        }

    def _describe_image(self, data: bytes, mime: Any, description: Any) -> str:
        """The given description, else an LLM caption when an LLM is attached, else ''."""
        if isinstance(description, str):
            return description
        if description is not None and description is not NOT_SET_MARKER:
            raise TypeError(f"description must be a str or None, got {type(description).__name__}")
        return derived_memory.caption(self, data, mime)

    def get_messages(self, start: Any = NOT_SET_MARKER, end: Any = NOT_SET_MARKER,
                     include_image_bytes: bool = False) -> list[Message]:
        """Messages in chronological order; no range gives the most recent window."""
        if start is NOT_SET_MARKER and end is NOT_SET_MARKER:
            start, end = -DEFAULT_MESSAGE_WINDOW, None
        else:
            start = value_or(start, None)
            if end is NOT_SET_MARKER:
                end = None if start is None or start < 0 else start + DEFAULT_MESSAGE_WINDOW
            elif end == -1:
                end = None
        records = self.store.list_messages(self.thread_id, start, end)
        return self._to_messages(records, include_all_bytes=include_image_bytes)

    def get_message(self, message_id: str, included_image_ids: list[str] | None = None
                    ) -> Message:
        """One message of this thread; raises KeyError when it is missing or elsewhere."""
        found = self.store.get_records({"ids": [message_id], "record_types": ["message"],
                                        "thread_id": self.thread_id})
        if not found:
            raise KeyError(f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        return self._to_messages(found, wanted_image_ids=included_image_ids or [])[0]

    def _to_messages(self, records: list[dict[str, Any]], include_all_bytes: bool = False,
                     wanted_image_ids: Sequence[str] = ()) -> list[Message]:
        with_images = [r["id"] for r in records if r.get("parts")]
        images: dict[str, dict[str, Any]] = {}
        for message_id in with_images:
            for image in self.store.get_records({
                "record_types": ["image"], "message_id": message_id,
                "include_bytes": include_all_bytes or bool(wanted_image_ids),
            }):
                if not include_all_bytes and image["id"] not in wanted_image_ids:
                    image.pop("image_bytes", None)
                images[image["id"]] = image
        return [to_message(record, images) for record in records]

    def update_message(self, message_id: str, content: Any = NOT_SET_MARKER,
                       metadata: Any = NOT_SET_MARKER, ttl_days: Any = NOT_SET_MARKER,
                       ttl_anchor: Any = NOT_SET_MARKER, **kwargs: Any) -> str:
        """Update a raw message of this thread; omitted fields keep their stored value."""
        reject_store_kwargs("update_message", kwargs)
        changes: dict[str, Any] = ttl_changes(ttl_days, ttl_anchor, self.client.retention_config)
        if content is not NOT_SET_MARKER:
            message = to_messages([{"role": "user", "content": content}])[0]
            # Attached images always take their message's expiry (the store keeps it so).
            parts, images = self._message_images(
                message, {"ttl_days": None, "ttl_anchor": "CREATED_AT"}
            )
            changes["content"] = message.text
            changes["parts"] = parts
            changes["replace_images"] = images + [
                {"id": part["id"]} for part in parts or [] if part["type"] == "image"
                and not any(image["id"] == part["id"] for image in images)
            ]
            changes["embedding"] = self.client._embed([message.text])[0]
        if metadata is not NOT_SET_MARKER:
            changes["metadata"] = metadata
        updated = self.store.update_record(message_id, ["message"], changes, self.thread_id)
        if updated is None:
            raise KeyError(f"message {message_id!r} does not exist in thread {self.thread_id!r}")
        if "content" in changes:
            derived_memory.after_message_updated(self, message_id)
        return updated["id"]

    def delete_message(self, message_id: str) -> int:
        """Delete one raw message of this thread (derived memories stay).

        Waits first (up to 300 s, then TimeoutError without deleting) for background
        extraction of this thread that this client accepted earlier.
        """
        self.client._wait_for_threads([self.thread_id])
        return self.store.delete_records([message_id], ["message"], self.thread_id)

    # -- images -----------------------------------------------------------------------

    def _check_scope_claims(self, **claims: Any) -> None:
        """Scope arguments of image calls may only restate the thread's own scope."""
        for name, value in claims.items():
            if value is not NOT_SET_MARKER and value != getattr(self, name):
                raise ValueError(
                    f"{name}={value!r} does not match this thread's {name} "
                    f"{getattr(self, name)!r}"
                )

    def add_image(
        self,
        image: bytes,
        description: Any = NOT_SET_MARKER,
        mime_type: Any = NOT_SET_MARKER,
        image_id: Any = NOT_SET_MARKER,
        user_id: Any = NOT_SET_MARKER,
        agent_id: Any = NOT_SET_MARKER,
        thread_id: Any = NOT_SET_MARKER,
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        **store_kwargs: Any,
    ) -> str:
        """Store an image of this thread; its description is its searchable text."""
        reject_store_kwargs("add_image", store_kwargs)
        self._check_scope_claims(user_id=user_id, agent_id=agent_id, thread_id=thread_id)
        mime = validate_image(image, mime_type, self.image_input_limit_config)
        record = self._image_record(
            value_or(image_id, None) or uuid.uuid4().hex, image, mime,
            self._describe_image(image, mime, description), metadata, timestamp,
            ttl_fields(ttl_days, ttl_anchor, self.client.retention_config),
        )
        return self.store.write_records([record])[0]

    def update_image(
        self,
        image_id: str,
        image: Any = NOT_SET_MARKER,
        description: Any = NOT_SET_MARKER,
        mime_type: Any = NOT_SET_MARKER,
        metadata: Any = NOT_SET_MARKER,
        timestamp: Any = NOT_SET_MARKER,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> str:
        """Update an image of this thread; omitted values are kept."""
        reject_store_kwargs("update_image", kwargs)
        found = self.store.get_records({"ids": [image_id], "record_types": ["image"],
                                        "thread_id": self.thread_id})
        if not found:
            raise KeyError(f"image {image_id!r} does not exist in thread {self.thread_id!r}")
        current = found[0]
        ttl = ttl_changes(ttl_days, ttl_anchor, self.client.retention_config)
        if ttl and current["message_id"] is not None:
            raise ValueError(
                "the image is attached to a message: change its expiry with update_message()"
            )
        changes: dict[str, Any] = dict(ttl)
        mime = current["mime_type"]
        data: bytes | None = None
        if image is not NOT_SET_MARKER:
            if mime_type is NOT_SET_MARKER:
                raise ValueError("mime_type must be given together with image")
            mime = validate_image(image, mime_type, self.image_input_limit_config)
            data = bytes(image)
            changes.update(image_bytes=data, mime_type=mime.value)
        elif mime_type is not NOT_SET_MARKER:
            raise ValueError("mime_type can only be given together with image")
        if description is not NOT_SET_MARKER:
            if description is None and data is None:
                data = self.store.get_records({"ids": [image_id], "record_types": ["image"],
                                               "include_bytes": True})[0].get("image_bytes")
            text = self._describe_image(data, mime, description)
            changes["content"] = text
            changes["embedding"] = self.client._embed([text])[0] if text else None
        if metadata is not NOT_SET_MARKER:
            changes["metadata"] = metadata
        if timestamp is not NOT_SET_MARKER:
            changes["timestamp"] = timestamp
        updated = self.store.update_record(image_id, ["image"], changes, self.thread_id)
        if updated is None:
            raise KeyError(f"image {image_id!r} does not exist in thread {self.thread_id!r}")
        return updated["id"]

    def delete_image(self, image_id: str) -> int:
        """Delete an image of this thread; an image attached to a message is a ValueError."""
        return self.store.delete_records([image_id], ["image"], self.thread_id)

    def list_images(
        self,
        image_id: Any = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None = None,
        include_bytes: bool = False,
        limit: Any = NOT_SET_MARKER,
    ) -> list[ImageRecord]:
        """Images of this thread in store order; bytes only for one given image_id."""
        if include_bytes and image_id is NOT_SET_MARKER:
            raise ValueError("include_bytes=True requires image_id")
        query: dict[str, Any] = {
            "record_types": ["image"], "thread_id": self.thread_id,
            "metadata_filter": metadata_filter, "include_bytes": bool(include_bytes),
            "limit": value_or(limit, DEFAULT_IMAGE_LIST_LIMIT),
        }
        if image_id is not NOT_SET_MARKER:
            query["ids"] = [image_id]
        return [to_record(record) for record in self.store.get_records(query)]

    # -- memories ---------------------------------------------------------------------

    def add_memory(
        self,
        content: str,
        memory_type: Any = NOT_SET_MARKER,
        user_id: Any = NOT_SET_MARKER,
        agent_id: Any = NOT_SET_MARKER,
        thread_id: Any = NOT_SET_MARKER,
        memory_id: Any = NOT_SET_MARKER,
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
        ttl_days: Any = NOT_SET_MARKER,
        ttl_anchor: Any = NOT_SET_MARKER,
        status: Any = NOT_SET_MARKER,
        autonomous_linking: Any = NOT_SET_MARKER,
        memory_id_to_link: Any = NOT_SET_MARKER,
        link_type: Any = NOT_SET_MARKER,
        link_id: Any = NOT_SET_MARKER,
        link_timestamp: str | None = None,
        link_metadata: dict[str, Any] | None = None,
        **store_kwargs: Any,
    ) -> str:
        """Add a memory scoped like this thread (or as overridden), optionally linked."""
        reject_store_kwargs("add_memory", store_kwargs)
        scope = dict(self._scope)
        links: list[dict[str, Any]] = []
        if (memory_id_to_link is NOT_SET_MARKER) != (link_type is NOT_SET_MARKER):
            raise ValueError("memory_id_to_link and link_type must be given together")
        if memory_id_to_link is not NOT_SET_MARKER:
            target = self._owned_memory(memory_id_to_link, "memory_id_to_link")
            scope = {key: target[key] for key in scope}
            links.append({
                "id": value_or(link_id, None), "thread_id": self.thread_id,
                "target_id": target["id"], "target_type": target["record_type"],
                "relation_type": link_type, "timestamp": link_timestamp,
                "metadata": link_metadata,
            })
        for key, value in (("user_id", user_id), ("agent_id", agent_id),
                           ("thread_id", thread_id)):
            if value is not NOT_SET_MARKER:
                scope[key] = value
        new_id = self.client._write_memory(content, scope, memory_id, memory_type, metadata,
                                           timestamp, ttl_days, ttl_anchor, status, links)
        linking = self.llm is not None if autonomous_linking is NOT_SET_MARKER \
            else bool(autonomous_linking)
        if linking and self.llm is not None and scope["thread_id"] == self.thread_id:
            derived_memory.link_autonomously(self, new_id, content,
                                             value_or(memory_type, "memory"))
        return new_id

    def _owned_memory(self, memory_id: Any, argument: str) -> dict[str, Any]:
        found = self.store.get_records({"ids": [memory_id], "record_types": list(MEMORY_TYPES),
                                        "thread_id": self.thread_id})
        if not found:
            raise ValueError(f"{argument} {memory_id!r} is not a memory of thread "
                             f"{self.thread_id!r}")
        return found[0]

    def update_memory(self, memory_id: str, content: Any = NOT_SET_MARKER,
                      metadata: Any = NOT_SET_MARKER, timestamp: Any = NOT_SET_MARKER,
                      ttl_days: Any = NOT_SET_MARKER, ttl_anchor: Any = NOT_SET_MARKER,
                      status: Any = NOT_SET_MARKER, **kwargs: Any) -> str:
        """Update a memory-like record whose thread is exactly this one."""
        reject_store_kwargs("update_memory", kwargs)
        return self.client._update_memory(memory_id, self.thread_id, content, metadata,
                                          timestamp, ttl_days, ttl_anchor, status)

    def delete_memory(self, memory_id: str) -> int:
        """Delete a memory-like record of exactly this thread; 0 when missing or elsewhere.

        Waits first for earlier accepted background extraction of this thread, like
        :meth:`delete_message`.
        """
        self.client._wait_for_threads([self.thread_id])
        return self.store.delete_records([memory_id], list(MEMORY_TYPES), self.thread_id)

    # -- search -----------------------------------------------------------------------

    def search(
        self,
        query: str,
        user_id: Any = NOT_SET_MARKER,
        agent_id: Any = NOT_SET_MARKER,
        thread_id: Any = NOT_SET_MARKER,
        exact_user_match: Any = NOT_SET_MARKER,
        exact_agent_match: Any = NOT_SET_MARKER,
        exact_thread_match: Any = NOT_SET_MARKER,
        max_results: Any = NOT_SET_MARKER,
        token_budget: Any = NOT_SET_MARKER,
        soft_token_budget: Any = NOT_SET_MARKER,
        record_types: Any = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None = None,
        include_invalid_results: Any = NOT_SET_MARKER,
        num_hops: Any = NOT_SET_MARKER,
        max_linked_results: Any = NOT_SET_MARKER,
        scope: Any = NOT_SET_MARKER,
    ) -> list[OracleSearchResult]:
        """Search records relevant to ``query`` within this thread's default scope."""
        values = scope_resolution.scope_arguments(scope, {
            "user_id": user_id, "agent_id": agent_id, "thread_id": thread_id,
            "exact_user_match": exact_user_match, "exact_agent_match": exact_agent_match,
            "exact_thread_match": exact_thread_match,
        })
        dims = scope_resolution.thread_scope(values, self.user_id, self.agent_id, self.thread_id)
        return self.client._search(
            query, dims, self.search_config,
            dict(max_results=max_results, token_budget=token_budget,
                 soft_token_budget=soft_token_budget, num_hops=num_hops,
                 max_linked_results=max_linked_results,
                 include_invalid_results=include_invalid_results),
            record_types, metadata_filter,
        )

    # -- links ------------------------------------------------------------------------

    def link_records(
        self,
        source_record_id: str,
        source_record_type: str,
        target_record_id: str,
        target_record_type: str,
        relation_type: str,
        opposite_relation_type: Any = NOT_SET_MARKER,
        relation_id: Any = NOT_SET_MARKER,
        timestamp: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Create a directed relation between two memory-like records of this thread."""
        link = {
            "id": value_or(relation_id, None) or uuid.uuid4().hex, "thread_id": self.thread_id,
            "source_id": source_record_id, "source_type": source_record_type,
            "target_id": target_record_id, "target_type": target_record_type,
            "relation_type": relation_type,
            "opposite_relation_type": value_or(opposite_relation_type, None),
            "timestamp": timestamp, "metadata": metadata,
        }
        self.store.write_records([], links=[link])
        return link["id"]

    def update_record_link(self, relation_id: str, relation_type: Any = NOT_SET_MARKER,
                           opposite_relation_type: Any = NOT_SET_MARKER,
                           timestamp: Any = NOT_SET_MARKER,
                           metadata: Any = NOT_SET_MARKER) -> int:
        """Update a relation of this thread; omitted values are kept. Returns 0 or 1."""
        changes = {
            name: value
            for name, value in (("relation_type", relation_type),
                                ("opposite_relation_type", opposite_relation_type),
                                ("timestamp", timestamp), ("metadata", metadata))
            if value is not NOT_SET_MARKER
        }
        return self.store.update_link(relation_id, self.thread_id, changes)

    def delete_record_link(self, source_record_id: Any = NOT_SET_MARKER,
                           source_record_type: Any = NOT_SET_MARKER,
                           target_record_id: Any = NOT_SET_MARKER,
                           target_record_type: Any = NOT_SET_MARKER,
                           relation_type: Any = NOT_SET_MARKER,
                           relation_id: Any = NOT_SET_MARKER) -> int:
        """Delete a relation of this thread by id, or by its stored-direction endpoints."""
        selector = {
            name: value
            for name, value in (("id", relation_id), ("source_id", source_record_id),
                                ("source_type", source_record_type),
                                ("target_id", target_record_id),
                                ("target_type", target_record_type),
                                ("relation_type", relation_type))
            if value is not NOT_SET_MARKER
        }
        return self.store.delete_links(selector, self.thread_id)

    # -- summaries and context cards --------------------------------------------------

    def get_summary(self, except_last: int = 0, token_budget: Any = NOT_SET_MARKER,
                    **kwargs: Any) -> OracleSummary:
        """A best-effort summary; without an LLM, a transcript of the recent messages."""
        from oracleagentmemory.core.summaries import thread_summary

        reject_store_kwargs("get_summary", kwargs)
        return thread_summary(self, except_last, token_budget)

    def get_context_card(
        self,
        fallback_message_count: Any = NOT_SET_MARKER,
        max_relevant_results: Any = NOT_SET_MARKER,
        token_budget: Any = NOT_SET_MARKER,
        soft_token_budget: Any = NOT_SET_MARKER,
        max_recent_messages: Any = NOT_SET_MARKER,
        except_last_messages: Any = NOT_SET_MARKER,
        min_relevant_results_by_type: Any = NOT_SET_MARKER,
        metadata_filter: dict[str, Any] | None = None,
        include_invalid_results: Any = NOT_SET_MARKER,
        **kwargs: Any,
    ) -> OracleContextCard:
        """Summary, relevant records and recent messages, rendered for a prompt."""
        from oracleagentmemory.core.context_cards import build_context_card

        reject_store_kwargs("get_context_card", kwargs)
        return build_context_card(
            self,
            fallback_message_count=fallback_message_count,
            max_relevant_results=max_relevant_results,
            token_budget=token_budget,
            soft_token_budget=soft_token_budget,
            max_recent_messages=max_recent_messages,
            except_last_messages=except_last_messages,
            min_relevant_results_by_type=min_relevant_results_by_type,
            metadata_filter=metadata_filter,
            include_invalid_results=include_invalid_results,
        )

    def wait_for_memory_extraction(self, timeout: float | None = 300) -> None:
        """Wait for background extraction of this thread that this client accepted earlier.

        Work accepted after the call starts is not waited for; failed extraction counts as
        finished. Raises TimeoutError when the timeout expires first.
        """
        self.client._wait_for_threads([self.thread_id], timeout)

    _async_twins = (
        "add_messages", "get_messages", "get_message", "update_message", "delete_message",
        "add_image", "update_image", "delete_image", "list_images",
        "add_memory", "update_memory", "delete_memory", "search", "link_records",
        "update_record_link", "delete_record_link", "get_summary", "get_context_card",
        "wait_for_memory_extraction",
    )
