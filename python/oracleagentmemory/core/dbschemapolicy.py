"""What a client does with the managed schema when it opens a store."""

from __future__ import annotations

from enum import Enum


class SchemaPolicy(str, Enum):
    """What the client does with the managed schema when it opens a store."""

    REQUIRE_EXISTING = "REQUIRE_EXISTING"
    """Fail unless the schema exists at the expected version."""
    CREATE_IF_NECESSARY = "CREATE_IF_NECESSARY"
    """Create missing objects and upgrade an older schema."""
    RECREATE = "RECREATE"
    """Drop and recreate the schema: every stored record is lost."""
    NO_CHECK = "NO_CHECK"
    """Assume the schema exists; skip every check (fastest start-up)."""
