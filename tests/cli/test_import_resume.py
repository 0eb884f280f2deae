"""A failed import names its input line and can be resumed.

An import writes batches of records, each in one transaction; one bad record used to stop
it with 256 of 300 records in, and running it again stopped on the first record already
there (DuplicateRecordError). Now the error names the line of the input file, and the same
import run again with ``skip_existing`` (``--skip-existing``) writes exactly what is missing.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from oracleagentmemory import cli, transfer
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.transfer import export_lines, import_store
from tests.support.cli_docs import EXIT
from tests.support.embedders import HashingEmbedder

RECORDS = 300


def open_client(location):
    return OracleAgentMemory(connection=str(location), embedder=HashingEmbedder())


@pytest.fixture
def export(tmp_path):
    """The lines of an export of 300 memories of one thread, with links between them."""
    with open_client(tmp_path / "source.db") as client:
        thread = client.create_thread(thread_id="t", user_id="u", agent_id="a")
        for i in range(RECORDS - 1):
            thread.add_memory(f"memory number {i}", memory_id=f"m{i:03}",
                              metadata={"n": i}, autonomous_linking=False)
        thread.link_records("m000", "memory", "m001", "memory", "supports")
        thread.link_records("m002", "memory", "m003", "memory", "refines")
        return list(export_lines(client))


def snapshot(location):
    with open_client(location) as client:
        backend = client.memory_service.backend
        return backend.get_records({}), backend.list_links({})


def corrupt(lines, record_id):
    """The lines with ``record_id``'s timestamp made invalid, and that line's number."""
    lines = list(lines)
    for index, line in enumerate(lines):
        item = json.loads(line)
        if item.get("kind") == "record" and item["record"]["id"] == record_id:
            item["record"]["timestamp"] = "the day after tomorrow"
            lines[index] = json.dumps(item)
            return lines, index + 1
    raise AssertionError(record_id)


def test_a_failed_import_names_the_line_and_resumes_with_skip_existing(export, tmp_path):
    bad, line_number = corrupt(export, "m280")
    target = tmp_path / "target.db"
    with open_client(target) as client, pytest.raises(
            ValueError, match=rf"^line {line_number}: .*timestamp"):
        import_store(client, bad)
    written, _ = snapshot(target)
    assert 0 < len(written) < RECORDS and "m280" not in {r["id"] for r in written}

    with open_client(target) as client:
        counts = import_store(client, export, skip_existing=True)
    assert counts == {"records": RECORDS - len(written), "links": 2,
                      "skipped_records": len(written), "skipped_links": 0,
                      "expired_records": 0, "expired_links": 0}
    assert snapshot(target) == snapshot(tmp_path / "source.db")
    with open_client(target) as client:  # a third run writes nothing and changes nothing
        assert import_store(client, export, skip_existing=True)["records"] == 0
    assert snapshot(target) == snapshot(tmp_path / "source.db")


@pytest.mark.parametrize(("line", "message"), [
    ("{not json", "not JSON"),
    ('["a list"]', "expected a JSON object"),
    ('{"kind": "recrod", "record": {}}', "unknown kind 'recrod'"),
    ('{"kind": "record"}', "'record' must be a JSON object"),
    ('{"kind": "record", "record": {"record_type": "image", "image_bytes": 5}}', ""),
])
def test_every_malformed_line_is_reported_by_number(export, tmp_path, line, message):
    lines = [*export[:10], line, *export[10:]]
    with open_client(tmp_path / "target.db") as client, pytest.raises(
            (ValueError, TypeError), match=rf"^line 11: .*{message}"):
        import_store(client, lines)


def test_the_command_line_resumes_with_skip_existing(export, tmp_path, monkeypatch):
    # a short export in batches of 8 (the command line embeds with the local model)
    monkeypatch.setattr(transfer, "BATCH_SIZE", 8)
    small = export[:41] + [line for line in export if json.loads(line)["kind"] == "link"]
    bad, line_number = corrupt(small, "m030")
    dump, fixed = tmp_path / "bad.jsonl", tmp_path / "fixed.jsonl"
    dump.write_text("\n".join(bad) + "\n")
    fixed.write_text("\n".join(small) + "\n")
    target = str(tmp_path / "target.db")

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    code, _, err = run("import", "--db", target, "--in", str(dump))
    assert code == EXIT["bad input"]
    assert f"error: line {line_number}:" in err and "--skip-existing" in err
    code, _, err = run("import", "--db", target, "--in", str(fixed))
    assert code == EXIT["bad input"] and "already exists" in err and "--skip-existing" in err
    stored = EmbeddedBackend(target).get_records({})
    assert 0 < len(stored) < 40
    code, out, _ = run("import", "--db", target, "--in", str(fixed), "--skip-existing")
    assert code == 0 and f"skipped {len(stored)} records and 0 links" in out
    assert len(EmbeddedBackend(target).get_records({})) == 40
