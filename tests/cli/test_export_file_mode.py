"""An export is readable by no more people than the store it copies (found by an attack on
secrets).

The export holds every user's records. It was created with the process umask's default
(0644 under umask 022) while the store file was private (0600), so anyone on the machine
could read what the store's permissions kept from them. The vector file beside the store
already takes the store's permissions (``vector_file.py``: "readable by whoever can read
the store").
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from oracleagentmemory import cli
from oracleagentmemory.core import OracleAgentMemory
from tests.support.embedders import HashingEmbedder


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def exported(tmp_path: Path, content: str, store_mode: int) -> tuple[str, int]:
    """(text, permission bits) of the export of a store holding ``content``, whose file
    has ``store_mode``."""
    store = tmp_path / "store.db"
    with OracleAgentMemory(connection=str(store), embedder=HashingEmbedder(),
                           extract_memories=False) as client:
        client.create_thread(user_id="alice", agent_id="a").add_messages(
            [{"role": "user", "content": content}])
    os.chmod(store, store_mode)
    out = tmp_path / "copy.jsonl"
    assert cli.main(["export", "--db", str(store), "--out", str(out)]) == 0
    return out.read_text(encoding="utf-8"), stat.S_IMODE(out.stat().st_mode)


def test_an_export_of_a_private_store_is_private(tmp_path: Path, umask_022: None) -> None:
    text, mode = exported(tmp_path, "my private note", 0o600)
    assert "my private note" in text
    assert mode & 0o077 == 0


def test_an_export_of_a_read_only_store_can_be_written_again(tmp_path: Path,
                                                             umask_022: None) -> None:
    """The store's bits, not its missing write bit: a store made read-only (0444) gave a
    0444 export, which its owner's next export to the same path cannot open for writing
    (open(2): EACCES; root, which this suite may run as, is not refused)."""
    text, mode = exported(tmp_path, "une note figée", 0o444)
    assert "une note figée" in text
    assert mode & stat.S_IWUSR
    assert mode & 0o077 == 0o044  # readable by no one else than the store
