"""An export is imported whole: every link it holds has both of its ends in it.

Two ways an export used to hold a link without one of its ends, so that importing it
stopped on that link (``LinkEndNotFoundError``, exit code 7 from the command line):

- a link to a record that has expired but is not purged yet: records are read without the
  expired ones, links were read without looking at their ends;
- a memory and its link written by another client (or process) between the export's read
  of the records and its read of the links (two read transactions).
"""

from __future__ import annotations

import json
from datetime import timedelta

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.stores.timestamps import utc_now
from oracleagentmemory.transfer import export_lines, import_store
from tests.support.embedders import HashingEmbedder


def open_client(connection):
    return OracleAgentMemory(connection=connection, embedder=HashingEmbedder())


def exported(lines, kind):
    items = [json.loads(line) for line in lines]
    return [item[kind] for item in items if item["kind"] == kind]


def assert_links_have_their_ends(lines):
    ids = {record["id"] for record in exported(lines, "record")}
    for link in exported(lines, "link"):
        assert {link["source_id"], link["target_id"]} <= ids, link


def test_a_link_to_an_expired_record_is_not_exported_without_it(tmp_path):
    source = str(tmp_path / "source.db")
    with open_client(source) as client:
        thread = client.create_thread(thread_id="t", user_id="u")
        thread.add_memory("kept forever", memory_id="keep", autonomous_linking=False)
        thread.add_memory("short lived", memory_id="gone", autonomous_linking=False)
        thread.link_records("keep", "memory", "gone", "memory", "supports")
        assert client.memory_service.backend.update_record("gone", ["memory"], {"ttl_days": 1})
    # two days later 'gone' has expired, and no purge has run yet
    later = EmbeddedBackend(source, clock=lambda: utc_now() + timedelta(days=2))
    with open_client(later) as client:
        lines = list(export_lines(client))
    assert [record["id"] for record in exported(lines, "record")
            if record["record_type"] == "memory"] == ["keep"]
    assert_links_have_their_ends(lines)
    with open_client(str(tmp_path / "target.db")) as client:
        counts = import_store(client, lines)
    assert counts["records"] == len(exported(lines, "record"))


def test_a_link_written_while_the_export_runs_comes_with_its_ends(tmp_path, monkeypatch):
    source = str(tmp_path / "source.db")
    with open_client(source) as client:
        client.create_thread(thread_id="t", user_id="u").add_memory(
            "first", memory_id="m1", autonomous_linking=False)
    writer = open_client(source)  # another client of the same file, as another process is
    with open_client(source) as client:
        backend = client.memory_service.backend
        read_records = backend.get_records

        def records_then_another_write(query):
            records = read_records(query)
            # right after the export read the records: a new memory linked to m1
            writer.get_thread("t").add_memory("second", memory_id="m2",
                                              autonomous_linking=False)
            writer.get_thread("t").link_records("m2", "memory", "m1", "memory", "supports")
            return records

        monkeypatch.setattr(backend, "get_records", records_then_another_write)
        lines = list(export_lines(client))
    writer.close()
    assert_links_have_their_ends(lines)
    with open_client(str(tmp_path / "target.db")) as client:
        import_store(client, lines)
