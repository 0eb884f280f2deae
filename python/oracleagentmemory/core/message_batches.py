"""Writing a thread's messages, new or edited: one store call, one transaction.

Why: ``add_messages`` used to read the thread's last message (its first message's vector is
made with the turn it answers), check the thread still existed, write, then read and write
the thread's extraction counters and read the messages extraction needed: four to nine
store calls, the counters a read-modify-write that two processes could interleave. Now the
store does it all in the transaction that writes the batch (``append_messages``): it checks
the thread and the message the batch follows, counts the batch, and returns what the
extraction or summary it made due reads.

The thread's last message is known to the handle: none for a thread it created, the last
message it wrote since, or read once (a handle opened on a stored thread). The store checks
it: when another message became the last one (another client wrote meanwhile), nothing is
written, the first message is embedded again against that one, and the batch is sent again.
Without an embedder the store embeds the content alone, and no message is needed.

An edited message's vector is made the same way, with the message before it: the handle
knows that one for the messages it wrote (``KnownTail.contexts``), else reads the thread's
messages once. The update tells the store which message it was (``after_message_id``); when
another one is there now, nothing changes, the handle reads the thread again and embeds
again. So an edit of a message this handle wrote is one store call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from oracleagentmemory.core import derived_memory, index_text
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.stores.errors import MessageContextChangedError
from oracleagentmemory.stores.protocol import (
    MessageBatch,
    MessageBatchResult,
    RecordChanges,
    RecordIn,
    RecordOut,
)
from oracleagentmemory.stores.timestamps import normalize

TAIL_ATTEMPTS = 3
"""Writes sent expecting a message before the first one written before one is sent without
that check (its vector then made against the message the store or a read named)."""
KNOWN_CONTEXTS = 256
"""Messages a handle remembers the context of (the newest it wrote)."""


@dataclass(frozen=True)
class MessageContext:
    """What a message's vector is made of besides its content: its own role and timestamp,
    and the thread's message before it (``previous_id`` None: none)."""

    turn: index_text.Turn
    previous_id: str | None
    previous: index_text.Turn | None

    def index_text(self, text: str) -> str:
        """The index text of the message with ``text`` as its content."""
        own = index_text.Turn(self.turn.role, text, self.turn.timestamp)
        return index_text.message_index_text(own, self.previous)


def stored_context(messages: Sequence[RecordOut], message_id: str) -> MessageContext | None:
    """The context of ``message_id`` among a thread's stored messages (None: not there)."""
    for position, record in enumerate(messages):
        if record["id"] == message_id:
            before = messages[position - 1] if position else None
            return MessageContext(index_text.record_turn(record),
                                  before["id"] if before else None,
                                  index_text.record_turn(before) if before else None)
    return None


@dataclass
class KnownTail:
    """A thread's last message as one handle knows it (``known`` False: not yet read), and
    the context of the messages it wrote."""

    known: bool = False
    message_id: str | None = None
    turn: index_text.Turn | None = None
    contexts: dict[str, MessageContext] = field(default_factory=dict)

    def forget(self) -> None:
        """The last message may have changed (this handle edited or deleted a message)."""
        self.known = False

    def edited(self, message_id: str, text: str) -> None:
        """This handle gave ``message_id`` new content: the message after it reads it."""
        self.forget()
        for key, context in self.contexts.items():
            if context.previous_id == message_id and context.previous is not None:
                self.contexts[key] = replace(context, previous=replace(context.previous,
                                                                       text=text))

    def note(self, message_id: str, context: MessageContext) -> None:
        self.contexts[message_id] = context
        if len(self.contexts) > KNOWN_CONTEXTS:
            del self.contexts[next(iter(self.contexts))]

    def remember(self, message_id: str | None, turn: index_text.Turn | None) -> None:
        self.known, self.message_id, self.turn = True, message_id, turn

    def previous(self, ctx: ThreadContext) -> index_text.Turn | None:
        """The turn a new batch's first message answers (read once when unknown; not
        needed, and not read, without an embedder)."""
        if ctx.service.embedder is None:
            return None
        if not self.known:
            last = ctx.service.backend.list_messages(ctx.thread_id, -1, None)
            self.remember(last[0]["id"] if last else None,
                          index_text.record_turn(last[0]) if last else None)
        return self.turn


def append_batch(ctx: ThreadContext, tail: KnownTail, records: list[RecordIn],
                 turns: Sequence[index_text.Turn]) -> MessageBatchResult:
    """Write ``records`` (the batch's messages, made with ``tail.previous`` as the turn
    before the first one, and their images) in one store call; returns its result."""
    batch: MessageBatch = {"thread_id": ctx.thread_id, "records": records,
                           "thread_required": ctx.persisted,
                           "schedule": derived_memory.schedule(ctx)}
    first = next((record for record in records if record["record_type"] == "message"), None)
    checks = ctx.service.embedder is not None and first is not None
    for attempt in range(1, TAIL_ATTEMPTS + 1):
        if checks and attempt < TAIL_ATTEMPTS:
            batch["after_message_id"] = tail.message_id
        else:
            batch.pop("after_message_id", None)
        written = ctx.service.backend.append_messages(batch)
        if written["written"]:
            break
        last = written["last_message"]
        tail.remember(last["id"] if last else None,
                      index_text.record_turn(last) if last else None)
        assert first is not None  # a batch is sent again only when it has a message
        first["embedding"] = ctx.service.embed(
            [index_text.message_index_text(turns[0], tail.turn)])[0]
    # each message as stored, and the message before it (the one its vector was made with)
    previous_id, previous = tail.message_id, tail.turn
    for record in records:
        if record["record_type"] == "message":
            turn = index_text.Turn(str(record.get("role") or ""), str(record.get("content") or ""),
                                   normalize(record.get("timestamp"), "timestamp"))
            if checks:
                tail.note(record["id"], MessageContext(turn, previous_id, previous))
            tail.remember(record["id"], turn)
            previous_id, previous = record["id"], turn
    return written


def update_content(ctx: ThreadContext, tail: KnownTail, message_id: str, text: str,
                   changes: RecordChanges) -> tuple[RecordOut | None, list[RecordOut]]:
    """Update a message of the thread whose new content is ``text`` (``changes`` holds the
    rest), its vector made with the message before it, in one store call when the handle
    knows that one. Returns the updated record (None: not in the thread) and the thread's
    messages when they were read (always with an LLM: extraction reads them)."""
    service = ctx.service
    embeds = service.embedder is not None
    context = tail.contexts.get(message_id) if embeds else None
    stored: list[RecordOut] = []
    if ctx.llm is not None or (embeds and context is None):
        stored = service.backend.list_messages(ctx.thread_id, None, None)
        context = stored_context(stored, message_id)
    for attempt in range(1, TAIL_ATTEMPTS + 1):
        changes["embedding"] = service.embed(
            [context.index_text(text) if context is not None else text])[0]
        if embeds and context is not None and attempt < TAIL_ATTEMPTS:
            changes["after_message_id"] = context.previous_id
        else:
            changes.pop("after_message_id", None)
        try:
            updated = service.backend.update_record(message_id, ["message"], changes,
                                                    ctx.thread_id)
        except MessageContextChangedError:  # another client changed the thread meanwhile
            stored = service.backend.list_messages(ctx.thread_id, None, None)
            context = stored_context(stored, message_id)
            continue
        tail.edited(message_id, text)
        return updated, stored
    raise AssertionError("the last attempt is sent without a check")  # pragma: no cover
