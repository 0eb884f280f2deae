"""Which message metadata an extracted memory inherits (``inherit_message_metadata``).

Why: applications tag messages (tenant, channel, language, …) and expect memories derived
from them to carry the same tags, so metadata filters keep working on memories. Rules:
``True`` inherits every key, a list inherits only those top-level keys, ``False`` none.
When a memory comes from several messages, a key is inherited only if every source message
has it with an equal value: a memory never claims a tag that one of its sources lacks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def check_rule(rule: Any) -> bool | list[str]:
    """The rule as True, False or a list of key names; TypeError for anything else."""
    if isinstance(rule, bool):
        return rule
    if isinstance(rule, (str, bytes)) or not isinstance(rule, Sequence):
        raise TypeError("inherit_message_metadata must be True, False or a list of keys, "
                        f"got {type(rule).__name__}")
    keys = list(rule)
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(f"inherit_message_metadata keys must be str, got {key!r}")
    return keys


def same_value(left: Any, right: Any) -> bool:
    """JSON equality: ``True`` is not ``1`` (Python's ``==`` would say it is)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    return left == right


def inherited_metadata(
    sources: Sequence[Mapping[str, Any] | None], rule: bool | Sequence[str]
) -> dict[str, Any] | None:
    """The metadata a memory derived from ``sources`` inherits, or None when it is empty."""
    rule = check_rule(rule)
    if rule is False or not sources:
        return None
    metadatas = [dict(source or {}) for source in sources]
    candidates = list(metadatas[0]) if rule is True else list(dict.fromkeys(rule))
    inherited = {
        key: metadatas[0][key]
        for key in candidates
        if key in metadatas[0]
        and all(key in other and same_value(other[key], metadatas[0][key])
                for other in metadatas[1:])
    }
    return inherited or None
