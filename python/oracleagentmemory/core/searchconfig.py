"""Search defaults a client or thread applies when a call omits them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MemorySearchConfig(BaseModel):
    """Defaults for search calls; an explicit call argument always wins."""

    model_config = ConfigDict(extra="forbid")

    max_results: int = Field(default=10, ge=1)
    token_budget: int | None = None
    soft_token_budget: int | None = None
    num_hops: int = Field(default=1, ge=0, le=5)
    max_linked_results: int = Field(default=100, ge=0)
    include_invalid_results: bool = True
