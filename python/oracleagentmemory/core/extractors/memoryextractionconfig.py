"""Configuration of automatic memory extraction (client, thread and call level).

:class:`MemoryExtractionConfig` is what callers pass: every field may be left out
(``NOT_SET_MARKER``) to inherit the next broader layer (call, then thread, then client,
then the SDK default). :func:`resolve_extraction_config` folds the layers into a
:class:`ResolvedExtractionConfig`, where every field has a concrete value; the extraction
code only ever sees the resolved form.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import Enum
from typing import Any

from oracleagentmemory._notset import NOT_SET_MARKER, _NotSetMarker
from oracleagentmemory.errors import ArgumentTypeError, InvalidArgumentError

__all__ = [
    "BackgroundExtractionQueueFullBehavior",
    "MEMORY_EXTRACTION_FREQUENCY_DEFAULT",
    "MEMORY_EXTRACTION_TOKEN_LIMIT_DEFAULT",
    "MEMORY_EXTRACTION_WINDOW_DEFAULT",
    "MEMORY_LINKING_TOKEN_LIMIT_DEFAULT",
    "MemoryExtractionConfig",
    "MemoryExtractionImageContext",
    "MemoryExtractionMode",
    "MemoryLinkExtractionMode",
    "resolve_memory_extraction_config_argument",
]

MEMORY_EXTRACTION_WINDOW_DEFAULT = -1
MEMORY_EXTRACTION_FREQUENCY_DEFAULT = -1
MEMORY_EXTRACTION_TOKEN_LIMIT_DEFAULT = 100_000
MEMORY_LINKING_TOKEN_LIMIT_DEFAULT = 100_000


class MemoryExtractionMode(str, Enum):
    """When automatic extraction runs relative to the write that triggered it."""

    INLINE = "INLINE"
    """Run extraction before the write method returns."""
    BACKGROUND = "BACKGROUND"
    """Return once raw messages are stored; extract best-effort in background work."""


class BackgroundExtractionQueueFullBehavior(str, Enum):
    """What happens when background extraction cannot be queued in time."""

    DROP = "DROP"
    """Log a warning and go on at once."""
    WAIT_THEN_DROP = "WAIT_THEN_DROP"
    """Wait up to the put timeout, then log a warning and go on."""
    WAIT_THEN_RAISE = "WAIT_THEN_RAISE"
    """Wait up to the put timeout, then raise TimeoutError."""


class MemoryExtractionImageContext(str, Enum):
    """What the extraction LLM sees of the images attached to messages."""

    DISABLED = "disabled"
    """Nothing: an image part shows as a bare ``[image]`` marker."""
    CAPTION = "caption"
    """The image's stored description (its caption)."""
    IMAGE = "image"
    """The image itself, for a vision-capable LLM (within the image input limits)."""
    MEMORY = "memory"
    """The description, and the LLM may extract memories about the image content."""


class MemoryLinkExtractionMode(str, Enum):
    """Whether extracted memories get linked to the thread's stored memories."""

    DISABLED = "DISABLED"
    """No links."""
    DURING_EXTRACTION = "DURING_EXTRACTION"
    """Links are proposed for each batch of extracted memories right after it is stored,
    in the same extraction job (one linking call per batch)."""
    POST_EXTRACTION = "POST_EXTRACTION"
    """Each stored memory is linked on its own, as ``add_memory(autonomous_linking=True)``
    does (one linking call per memory)."""


@dataclass
class MemoryExtractionConfig:
    """Grouped settings for automatic memory extraction; omitted fields inherit."""

    memory_extraction_window: int | _NotSetMarker = NOT_SET_MARKER
    context_summary_update_frequency: int | _NotSetMarker = NOT_SET_MARKER
    memory_extraction_frequency: int | _NotSetMarker = NOT_SET_MARKER
    memory_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER
    extract_memories: bool | _NotSetMarker = NOT_SET_MARKER
    enable_context_summary: bool | _NotSetMarker = NOT_SET_MARKER
    memory_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER
    memory_link_extraction_custom_instructions: str | None | _NotSetMarker = NOT_SET_MARKER
    memory_extraction_image_context: MemoryExtractionImageContext | _NotSetMarker = (
        NOT_SET_MARKER)
    memory_extraction_inherit_message_metadata: bool | Sequence[str] | _NotSetMarker = (
        NOT_SET_MARKER)
    extraction_mode: MemoryExtractionMode | _NotSetMarker = NOT_SET_MARKER
    memory_link_extraction_mode: MemoryLinkExtractionMode | _NotSetMarker = NOT_SET_MARKER
    memory_link_extraction_token_limit: int | _NotSetMarker = NOT_SET_MARKER
    background_extraction_queue_full_behavior: (
        BackgroundExtractionQueueFullBehavior | _NotSetMarker) = NOT_SET_MARKER
    background_extraction_queue_put_timeout_seconds: float | _NotSetMarker = NOT_SET_MARKER

    def __post_init__(self) -> None:
        for name, value in _explicit(self).items():
            object.__setattr__(self, name, _check_field(name, value))


@dataclass(frozen=True)
class ResolvedExtractionConfig:
    """Every extraction setting with a concrete value (the SDK defaults below)."""

    memory_extraction_window: int = MEMORY_EXTRACTION_WINDOW_DEFAULT
    context_summary_update_frequency: int = -1
    memory_extraction_frequency: int = MEMORY_EXTRACTION_FREQUENCY_DEFAULT
    memory_extraction_token_limit: int = MEMORY_EXTRACTION_TOKEN_LIMIT_DEFAULT
    extract_memories: bool = True
    enable_context_summary: bool = True
    memory_extraction_custom_instructions: str | None = None
    memory_link_extraction_custom_instructions: str | None = None
    memory_extraction_image_context: MemoryExtractionImageContext = (
        MemoryExtractionImageContext.DISABLED)
    memory_extraction_inherit_message_metadata: bool | tuple[str, ...] = True
    extraction_mode: MemoryExtractionMode = MemoryExtractionMode.INLINE
    memory_link_extraction_mode: MemoryLinkExtractionMode = MemoryLinkExtractionMode.DISABLED
    memory_link_extraction_token_limit: int = MEMORY_LINKING_TOKEN_LIMIT_DEFAULT
    background_extraction_queue_full_behavior: BackgroundExtractionQueueFullBehavior = (
        BackgroundExtractionQueueFullBehavior.WAIT_THEN_DROP)
    background_extraction_queue_put_timeout_seconds: float = 30.0


_INT_FIELDS = {"memory_extraction_window", "context_summary_update_frequency",
               "memory_extraction_frequency", "memory_extraction_token_limit",
               "memory_link_extraction_token_limit"}
_BOOL_FIELDS = {"extract_memories", "enable_context_summary"}
_TEXT_FIELDS = {"memory_extraction_custom_instructions",
                "memory_link_extraction_custom_instructions"}
_ENUM_FIELDS: dict[str, type[Enum]] = {
    "memory_extraction_image_context": MemoryExtractionImageContext,
    "extraction_mode": MemoryExtractionMode,
    "memory_link_extraction_mode": MemoryLinkExtractionMode,
    "background_extraction_queue_full_behavior": BackgroundExtractionQueueFullBehavior,
}


def _check_field(name: str, value: Any) -> Any:
    """The value in its canonical type; TypeError/ValueError naming the field."""
    if name in _INT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ArgumentTypeError(f"{name} must be an int, got {type(value).__name__}")
        return value
    if name in _BOOL_FIELDS:
        if not isinstance(value, bool):
            raise ArgumentTypeError(f"{name} must be a bool, got {type(value).__name__}")
        return value
    if name in _TEXT_FIELDS:
        if value is not None and not isinstance(value, str):
            raise ArgumentTypeError(f"{name} must be a str or None, got {type(value).__name__}")
        return value
    if name in _ENUM_FIELDS:
        enum = _ENUM_FIELDS[name]
        try:
            return enum(value)
        except ValueError:
            choices = ", ".join(member.value for member in enum)
            raise InvalidArgumentError(f"{name} must be one of {choices}, got {value!r}") from None
    if name == "memory_extraction_inherit_message_metadata":
        if isinstance(value, bool):
            return value
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not all(
                isinstance(key, str) for key in value):
            raise ArgumentTypeError(f"{name} must be a bool or a sequence of metadata keys")
        return tuple(value)
    # background_extraction_queue_put_timeout_seconds
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InvalidArgumentError(
            f"{name} must be a number of seconds of at least 0, got {value!r}")
    return float(value)


def _explicit(config: MemoryExtractionConfig) -> dict[str, Any]:
    return {f.name: getattr(config, f.name) for f in fields(config)
            if getattr(config, f.name) is not NOT_SET_MARKER}


def resolve_extraction_config(*layers: MemoryExtractionConfig | None
                              ) -> ResolvedExtractionConfig:
    """Fold layers, broadest first (client, thread, call): later set fields win."""
    values: dict[str, Any] = {}
    for layer in layers:
        if layer is not None:
            values.update(_explicit(layer))
    return replace(ResolvedExtractionConfig(), **values)


def extraction_config_to_json(config: MemoryExtractionConfig) -> dict[str, Any]:
    """The explicitly set fields as JSON (enums by value), for a thread's stored settings."""
    return {name: value.value if isinstance(value, Enum) else
            list(value) if isinstance(value, tuple) else value
            for name, value in _explicit(config).items()}


def extraction_config_from_json(data: Mapping[str, Any]) -> MemoryExtractionConfig:
    """A config from stored settings; unknown keys (from other versions) are ignored."""
    known = {f.name for f in fields(MemoryExtractionConfig)}
    return MemoryExtractionConfig(**{k: v for k, v in data.items() if k in known})


DEPRECATED_EXTRACTION_ARGUMENTS = (
    "memory_extraction_window",
    "context_summary_update_frequency",
    "memory_extraction_frequency",
    "memory_extraction_token_limit",
    "enable_context_summary",
    "memory_extraction_custom_instructions",
    "memory_extraction_inherit_message_metadata",
)
"""Per-thread arguments deprecated since 26.6.0 in favour of memory_extraction_config
(each maps to the config field of the same name). ``extract_memories`` is not deprecated."""


def resolve_memory_extraction_config_argument(
    method_name: str,
    memory_extraction_config: MemoryExtractionConfig | _NotSetMarker,
    inline_values: Mapping[str, object],
) -> MemoryExtractionConfig | _NotSetMarker:
    """Fold inline extraction arguments of ``method_name`` into one config.

    Passing a config and deprecated inline arguments together is a ValueError; deprecated
    inline arguments warn. ``extract_memories`` may accompany a config (it wins). Returns
    NOT_SET_MARKER when nothing was given.
    """
    given = {name: value for name, value in inline_values.items()
             if value is not NOT_SET_MARKER}
    unknown = set(given) - set(DEPRECATED_EXTRACTION_ARGUMENTS) - {"extract_memories"}
    if unknown:
        raise ArgumentTypeError(f"{method_name}() got unexpected extraction argument(s): "
                        f"{', '.join(sorted(unknown))}")
    deprecated = sorted(set(given) & set(DEPRECATED_EXTRACTION_ARGUMENTS))
    if memory_extraction_config is not NOT_SET_MARKER and memory_extraction_config is not None:
        if not isinstance(memory_extraction_config, MemoryExtractionConfig):
            raise ArgumentTypeError(
                "memory_extraction_config must be a MemoryExtractionConfig, got "
                            f"{type(memory_extraction_config).__name__}")
        if deprecated:
            raise InvalidArgumentError(
                f"{method_name}(): pass memory_extraction_config or the deprecated extraction "
                f"arguments ({', '.join(deprecated)}), not both"
            )
    if deprecated:
        warnings.warn(
            f"{', '.join(deprecated)} deprecated since 26.6.0 and removed in 27.1; use "
            "memory_extraction_config",
            DeprecationWarning,
            stacklevel=3,
        )
    if not given:
        return memory_extraction_config if memory_extraction_config is not None \
            else NOT_SET_MARKER
    base = memory_extraction_config if isinstance(memory_extraction_config,
                                                  MemoryExtractionConfig) else None
    merged = {**(_explicit(base) if base is not None else {}), **given}
    return MemoryExtractionConfig(**merged)
