"""Writing a batch of a thread's messages: one store call, one transaction.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from oracleagentmemory.core import derived_memory, index_text
from oracleagentmemory.core.thread_context import ThreadContext
from oracleagentmemory.stores.protocol import MessageBatch, MessageBatchResult, RecordIn
from oracleagentmemory.stores.timestamps import normalize

TAIL_ATTEMPTS = 3
"""Batches sent expecting a last message before one is sent without that check (its first
vector then made against the last message the store named)."""


@dataclass
class KnownTail:
    """A thread's last message as one handle knows it (``known`` False: not yet read)."""

    known: bool = False
    message_id: str | None = None
    turn: index_text.Turn | None = None

    def forget(self) -> None:
        """The last message may have changed (this handle edited or deleted a message)."""
        self.known = False

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
    messages = [record for record in records if record["record_type"] == "message"]
    if messages:
        newest = messages[-1]
        tail.remember(newest["id"], index_text.Turn(
            str(newest.get("role") or ""), str(newest.get("content") or ""),
            normalize(newest.get("timestamp"), "timestamp")))
    return written
