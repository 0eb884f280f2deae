"""Configuration of automatic memory extraction (client, thread and call level)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class MemoryExtractionMode(str, Enum):
    """When automatic extraction runs relative to the write that triggered it."""

    INLINE = "INLINE"
    """Run extraction before the write method returns."""
    BACKGROUND = "BACKGROUND"
    """Return once raw messages are stored; extract best-effort in background work."""


class BackgroundExtractionQueueFullBehavior(str, Enum):
    """What happens when background extraction cannot be queued in time."""

    DROP = "DROP"
    WAIT_THEN_DROP = "WAIT_THEN_DROP"
    WAIT_THEN_RAISE = "WAIT_THEN_RAISE"


class MemoryExtractionConfig(BaseModel):
    """Grouped settings for automatic memory extraction.

    Every field left as None inherits the next broader setting: call, then thread, then
    client, then the SDK default (:data:`SDK_EXTRACTION_DEFAULTS`).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    extract_memories: bool | None = None
    extraction_mode: MemoryExtractionMode | None = None
    memory_extraction_window: int | None = None
    memory_extraction_frequency: int | None = None
    memory_extraction_token_limit: int | None = None
    context_summary_update_frequency: int | None = None
    enable_context_summary: bool | None = None
    custom_instructions: str | None = None
    inherit_message_metadata: bool | list[str] | None = None
    background_extraction_queue_size: int | None = Field(default=None, ge=1)
    background_extraction_queue_full_behavior: BackgroundExtractionQueueFullBehavior | None = None
    background_extraction_queue_timeout: float | None = Field(default=None, ge=0)

    def explicit_fields(self) -> dict[str, Any]:
        """Only the fields that were set (the ones that override broader layers)."""
        return self.model_dump(mode="json", exclude_none=True)

    def merged_over(self, broader: MemoryExtractionConfig | None) -> MemoryExtractionConfig:
        """This config's set fields on top of a broader layer's."""
        base = broader.explicit_fields() if broader is not None else {}
        return MemoryExtractionConfig(**{**base, **self.explicit_fields()})

    def resolved(self) -> MemoryExtractionConfig:
        """Every field filled: set fields win over the SDK defaults."""
        return self.merged_over(SDK_EXTRACTION_DEFAULTS)


SDK_EXTRACTION_DEFAULTS = MemoryExtractionConfig(
    extract_memories=True,
    extraction_mode=MemoryExtractionMode.INLINE,
    memory_extraction_window=-1,
    memory_extraction_frequency=-1,
    memory_extraction_token_limit=100_000,
    context_summary_update_frequency=-1,
    enable_context_summary=True,
    custom_instructions="",
    inherit_message_metadata=True,
    background_extraction_queue_size=1_000,
    background_extraction_queue_full_behavior=BackgroundExtractionQueueFullBehavior.WAIT_THEN_DROP,
    background_extraction_queue_timeout=30.0,
)
