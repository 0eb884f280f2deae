"""A store file of another schema version than this library's is refused with a
SchemaError that names the file (as every storage error does) and is left as it was: an
older file under a policy that never upgrades, a newer file under every checking policy."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.errors import SchemaError


def _store_file(path: Path, version: str) -> str:
    """A store file with one record whose schema_version reads ``version``; its dump."""
    store = EmbeddedBackend(path)
    store.write_records([{"record_type": "memory", "id": "m1", "content": "台北 été 서울"}])
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE store_meta SET value = ? WHERE key = 'schema_version'", (version,))
    conn.commit()
    dump = "\n".join(conn.iterdump())
    conn.close()
    return dump


def _dump(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


@pytest.mark.parametrize("version, policy", [
    ("4", "REQUIRE_EXISTING"), ("4", "CREATE_IF_EMPTY"),  # older: these never upgrade
    ("99", "REQUIRE_EXISTING"), ("99", "CREATE_IF_EMPTY"), ("99", "CREATE_IF_NECESSARY"),
])
def test_a_file_of_another_version_is_refused_naming_it_and_left_as_it_was(
        tmp_path: Path, version: str, policy: str) -> None:
    path = tmp_path / "other-store.db"
    before = _store_file(path, version)
    with pytest.raises(SchemaError) as raised:
        EmbeddedBackend(path, schema_policy=policy)
    assert str(path) in str(raised.value)
    assert version in str(raised.value)
    assert _dump(path) == before
