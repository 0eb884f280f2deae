"""Limits on images accepted from callers and sent to an LLM."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ImageInputLimitConfig(BaseModel):
    """Raw size, pixel dimensions and images per LLM request. Validation cannot be disabled."""

    model_config = ConfigDict(extra="forbid")

    max_image_bytes: int = Field(default=20 * 1024 * 1024, ge=1)
    max_image_width: int = Field(default=8192, ge=1)
    max_image_height: int = Field(default=8192, ge=1)
    max_images_per_llm_request: int = Field(default=8, ge=1)
