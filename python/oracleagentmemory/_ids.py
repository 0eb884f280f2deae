"""Identifiers the library makes for whatever the caller leaves unnamed, defined once.

Why time-ordered: a store keeps a unique index on every record's id, and ids drawn at
random (version 4 UUIDs) land on a random page of it, so a batch of 1,000 records rewrites
about 1,000 index pages. At a million records that doubled the bytes the embedded store
writes per record (23 KB against 11 KB) and cost 1.5x its CPU time
(``benchmarks/ingest_schema_variants.py``, variants ``uuid4`` and ``uuid7``). A version 7
UUID (RFC 9562) starts with the Unix time in milliseconds, so ids made one after another
sort one after another and each batch appends to the end of the index. The 74 bits after
the time are random (``os.urandom``), so ids stay unique across processes and machines
without any shared state; ids made in the same millisecond take a random order among
themselves, and an id from a clock set back sorts earlier, neither of which matters to
the index or to anybody reading the id.

An id made this way tells when it was made, to the millisecond, as the record's
``created_at`` does.
"""

from __future__ import annotations

import os
import time
import uuid

_VERSION_7 = 0x7 << 76
_VARIANT_RFC = 0b10 << 62
_RANDOM_MASK = ((1 << 80) - 1) & ~(0xF << 76) & ~(0b11 << 62)
"""The 74 random bits: all 80 bits after the time but the version and variant bits."""


def new_id() -> str:
    """A fresh dashed version 7 UUID (``xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx``)."""
    return uuid7_at(time.time_ns() // 1_000_000)


def uuid7_at(milliseconds: int) -> str:
    """A dashed version 7 UUID of the given Unix time in milliseconds, fresh random bits
    after it (``new_id`` at now; a benchmark spacing ids as an ingestion would)."""
    random_bits = int.from_bytes(os.urandom(10), "big") & _RANDOM_MASK
    value = (milliseconds & 0xFFFF_FFFF_FFFF) << 80 | _VERSION_7 | _VARIANT_RFC | random_bits
    return str(uuid.UUID(int=value))
