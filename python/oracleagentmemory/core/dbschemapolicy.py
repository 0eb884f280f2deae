"""What a client does with the managed schema when it opens a store."""

from __future__ import annotations

from enum import Enum

from oracleagentmemory._enums import case_insensitive_lookup

__all__ = ["SchemaPolicy"]


class SchemaPolicy(str, Enum):
    """What the client does with the managed schema when it opens a store."""

    REQUIRE_EXISTING = "require_existing"
    """Fail unless the schema exists at the expected version."""
    CREATE_IF_NECESSARY = "create_if_necessary"
    """Create missing objects and upgrade an older schema."""
    CREATE_IF_EMPTY = "create_if_empty"
    """Create the schema when none of it exists; otherwise require it to be complete and
    current (never upgrades or repairs an existing schema)."""
    RECREATE = "recreate"
    """Drop and recreate the schema: every stored record is lost."""
    NO_CHECK = "no_check"
    """Assume the schema exists; skip every check (fastest start-up)."""

    _missing_ = classmethod(case_insensitive_lookup)
