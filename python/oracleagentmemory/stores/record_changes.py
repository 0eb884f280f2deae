"""What ``update_record`` merges with the stored record, rather than replacing.

Why in the store: a change made against a record its caller read earlier loses whatever
another client wrote between the read and the write. So a change that depends on the
stored record says how to combine with it, and the store combines inside the update's own
transaction (the PL/SQL record API applies the same rules):

- ``settings`` of a thread are layered over its stored ``config["settings"]``, as a thread's
  setting layers combine (``core.thread_settings.SettingsLayer.over``): each key given
  replaces the stored one, except ``memory_extraction_config``, whose given fields replace
  the stored fields and keep the others;
- ``metadata`` with ``keep_bookkeeping`` keeps the LangGraph store's bookkeeping
  (``_vocabulary.LANGGRAPH_ENVELOPE``) of the stored metadata when the new metadata is an
  object without that key: a caller replacing the metadata it sees never saw it, so must not
  drop it;
- an image attached to a message keeps its message's expiry, and a message's
  ``after_message_id`` must be the message before it (``check_context``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from oracleagentmemory._vocabulary import LANGGRAPH_ENVELOPE, LANGGRAPH_ITEM_KIND
from oracleagentmemory.stores.errors import (
    AttachedImageError,
    InvalidArgumentError,
    MessageContextChangedError,
)
from oracleagentmemory.stores.protocol import RecordChanges, RecordOut

MERGED_SETTING = "memory_extraction_config"
"""The one setting whose fields layer over the stored ones (every other key is replaced)."""


def layered_settings(stored: Any, given: Mapping[str, Any]) -> dict[str, Any]:
    """``given`` layered over the ``stored`` settings of a thread."""
    layered = dict(stored) if isinstance(stored, Mapping) else {}
    for key, value in given.items():
        below = layered.get(key)
        if key == MERGED_SETTING and isinstance(value, Mapping) and isinstance(below, Mapping):
            value = {**below, **value}
        layered[key] = value
    return layered


def has_bookkeeping(metadata: Any) -> bool:
    """Does ``metadata`` hold the LangGraph store's bookkeeping?"""
    if not isinstance(metadata, Mapping):
        return False
    envelope = metadata.get(LANGGRAPH_ENVELOPE)
    return isinstance(envelope, Mapping) and envelope.get("kind") == LANGGRAPH_ITEM_KIND


def keep_bookkeeping(stored: Any, replacement: Any) -> Any:
    """New metadata for a record, with the bookkeeping of the ``stored`` metadata kept when
    ``replacement`` is an object that does not set that key itself."""
    if not has_bookkeeping(stored) or not isinstance(replacement, Mapping) \
            or LANGGRAPH_ENVELOPE in replacement:
        return replacement
    return {**replacement, LANGGRAPH_ENVELOPE: stored[LANGGRAPH_ENVELOPE]}


def check_context(record: RecordOut, changes: RecordChanges,
                  message_before: Callable[[], str | None]) -> None:
    """Refuse ``changes`` of the stored ``record`` that its context no longer allows: an
    expiry of an image attached to a message (AttachedImageError), an ``after_message_id``
    that is not ``message_before()``, the id of the message before it now
    (MessageContextChangedError), or of a record that is no message."""
    if record["record_type"] == "image" and record.get("message_id") is not None \
            and ("ttl_days" in changes or "ttl_anchor" in changes):
        raise AttachedImageError("the image is attached to a message: change its expiry "
                                 "with the message's")
    if "after_message_id" not in changes:
        return
    if record["record_type"] != "message":
        raise InvalidArgumentError("after_message_id is only for a message")
    if message_before() != changes["after_message_id"]:
        raise MessageContextChangedError(
            f"the message before {record['id']!r} is not {changes['after_message_id']!r} "
            "any more")
