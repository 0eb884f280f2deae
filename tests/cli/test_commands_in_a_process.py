"""The command line as a user meets it, each command in its own process.

What a newcomer met: a resumed import that stopped on a record which had expired in the
meantime (exit 7, "already exists"), an already expired record imported without a word,
Ctrl-C answered with only "interrupted", "imported 1 records", an empty store left behind by
importing a text file, ``mcp`` spelling the database user ``--db-user`` where every other
command says ``--user``, and a malformed connect string shown as python-oracledb's bare
"DPY-4027", and a demo whose LLM could not be reached reporting the memories it had added
itself as extracted. Every failure here must be one line on stderr with the exit code docs/cli.md
gives it, and never the "this is a bug" of an unexpected error.
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.stores.embedded import EmbeddedBackend
from oracleagentmemory.transfer import export_lines, import_store
from tests.support.cli_docs import EXIT
from tests.support.embedders import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]
LONG_AGO = "2020-01-01T00:00:00.000000Z"


def environment(**extra: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": os.pathsep.join([str(ROOT / "python"), str(ROOT)]), **extra}


def command(*words: str, stdin: str | None = None, program: list[str] | None = None,
            **env: str) -> subprocess.CompletedProcess[str]:
    """``oracleagentmemory WORDS...`` in a process of its own (``program`` replaces
    ``-m oracleagentmemory``)."""
    return subprocess.run([sys.executable, *(program or ["-m", "oracleagentmemory"]), *words],
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
                          capture_output=True, text=True, env=environment(**env), timeout=300)


def assert_one_line_failure(done: subprocess.CompletedProcess[str], code: int) -> str:
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("oracleagentmemory"), done.stderr
    assert "this is a bug" not in done.stderr
    assert done.returncode == code, done.stderr
    return lines[0]


@pytest.fixture
def export(tmp_path: Path) -> list[str]:
    """An export of Alice's thread: a message and three memories, one with a TTL."""
    with OracleAgentMemory(connection=str(tmp_path / "source.db"),
                           embedder=HashingEmbedder(384)) as client:
        thread = client.create_thread(thread_id="trip", user_id="alice")
        thread.add_messages([{"role": "user", "content": "I travel by train"}])
        thread.add_memory("Alice travels by train", memory_id="m-train")
        thread.add_memory("Alice is in Rome this week", memory_id="m-rome", ttl_days=7)
        thread.add_memory("Alice likes Rome", memory_id="m-likes", memory_id_to_link="m-rome",
                          link_type="supports", link_id="l-1")
        return list(export_lines(client))


def expire(lines: list[str], record_id: str) -> list[str]:
    """The export as it reads once ``record_id``'s expiry has passed."""
    aged = []
    for line in lines:
        item = json.loads(line)
        if item["kind"] == "record" and item["record"]["id"] == record_id:
            item["record"]["expires_at"] = LONG_AGO
        aged.append(json.dumps(item))
    return aged


def stored_ids(db: Path) -> set[str]:
    return {record["id"] for record in EmbeddedBackend(str(db)).get_records({})}


def test_a_resumed_import_passes_over_a_record_that_expired_since(
        export: list[str], tmp_path: Path) -> None:
    target = tmp_path / "target.db"
    with OracleAgentMemory(connection=str(target), embedder=HashingEmbedder(384)) as client:
        import_store(client, export)
    # A week goes by: m-rome has expired, hidden from every read but still stored.
    with sqlite3.connect(target) as db:
        db.execute("UPDATE records SET expires_at = ? WHERE id = 'm-rome'", (LONG_AGO,))
    dump = tmp_path / "memory.jsonl"
    dump.write_text("\n".join(expire(export, "m-rome")) + "\n")

    done = command("import", "--db", str(target), "--in", str(dump), "--skip-existing")

    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout == ("imported 0 records and 0 links (skipped 4 records and 0 links "
                           "already stored); left out 1 record that had expired already (and "
                           "1 link to them)\n")


def test_an_expired_record_is_left_out_and_the_import_says_so(
        export: list[str], tmp_path: Path) -> None:
    dump = tmp_path / "memory.jsonl"
    dump.write_text("\n".join(expire(export, "m-rome")) + "\n")
    target = tmp_path / "copy.db"

    done = command("import", "--db", str(target), "--in", str(dump))

    assert done.returncode == 0, done.stderr
    assert done.stdout == ("imported 4 records and 0 links; left out 1 record that had "
                           "expired already (and 1 link to them)\n")
    assert stored_ids(target) == {"trip", "m-train", "m-likes"} | {
        json.loads(line)["record"]["id"] for line in export
        if json.loads(line)["kind"] == "record"
        and json.loads(line)["record"]["record_type"] == "message"}


def test_one_record_is_one_record(tmp_path: Path) -> None:
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(384)) as client:
        client.add_user("alice", "Alice")
        dump = tmp_path / "one.jsonl"
        dump.write_text("\n".join(export_lines(client)) + "\n")
    done = command("import", "--db", str(tmp_path / "copy.db"), "--in", str(dump))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "imported 1 record and 0 links\n"


@pytest.mark.parametrize(("name", "text"), [
    ("notes.txt", "shopping: bread, milk\n"),
    ("empty.jsonl", ""),
    ("records-only.jsonl", '{"kind": "record", "record": {"record_type": "user"}}\n'),
])
def test_a_file_that_is_not_an_export_leaves_no_store_behind(
        tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    done = command("import", "--db", str(tmp_path / "copy.db"), "--in", str(tmp_path / name))
    line = assert_one_line_failure(done, EXIT["bad input"])
    assert "is not an oracleagentmemory export" in line
    assert list(tmp_path.glob("copy.db*")) == []


def test_a_text_file_on_standard_input_is_refused_the_same_way(tmp_path: Path) -> None:
    done = command("import", "--db", str(tmp_path / "copy.db"), "--in", "-",
                   stdin="shopping: bread, milk\n")
    assert "standard input is not an oracleagentmemory export" in assert_one_line_failure(
        done, EXIT["bad input"])
    assert list(tmp_path.glob("copy.db*")) == []


CTRL_C_AFTER_THE_FIRST_BATCH = [
    "-c",
    "import os, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
    "from oracleagentmemory import cli, transfer\n"
    "transfer.BATCH_SIZE = 2\n"
    "write = transfer._write\n"
    "def write_then_ctrl_c(*args):\n"
    "    write(*args)\n"
    "    os.kill(os.getpid(), signal.SIGINT)\n"
    "transfer._write = write_then_ctrl_c\n"
    "sys.exit(cli.main())\n",
]
"""The command line, with a real SIGINT (Ctrl-C) sent once the first batch is stored. Python
turns SIGINT into KeyboardInterrupt only where its parent left the signal's default action
(https://docs.python.org/3/library/signal.html): a test run started in the background by a
non-interactive shell hands its children SIGINT ignored, so the child sets Python's handler
as a terminal's foreground process has it."""


def test_ctrl_c_says_how_many_records_are_in_and_how_to_finish(
        export: list[str], tmp_path: Path) -> None:
    dump = tmp_path / "memory.jsonl"
    dump.write_text("\n".join(export) + "\n")
    target = tmp_path / "copy.db"

    done = command("import", "--db", str(target), "--in", str(dump),
                   program=CTRL_C_AFTER_THE_FIRST_BATCH)

    line = assert_one_line_failure(done, EXIT["interrupted (Ctrl-C)"])
    assert line == ("oracleagentmemory: error: interrupted after importing 2 records, which "
                    "stay stored; to finish, run the same import again with --skip-existing")
    assert len(stored_ids(target)) == 2
    finished = command("import", "--db", str(target), "--in", str(dump), "--skip-existing")
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.startswith("imported 3 records and 1 link (skipped 2 records")
    assert stored_ids(target) == stored_ids(tmp_path / "source.db")


@pytest.mark.parametrize("dsn", ["nonsense", "dbhost:port/FREEPDB1"])
def test_a_connect_string_that_is_not_one_is_a_usage_error_naming_it(dsn: str) -> None:
    pytest.importorskip("oracledb")
    done = command("threads", "--dsn", dsn, "--user", "scott",
                   ORACLEAGENTMEMORY_PASSWORD="not-used")
    line = assert_one_line_failure(done, EXIT["usage"])
    assert f"connect string {dsn!r} is not host:port/service" in line
    assert "TNS_ADMIN" in line


def test_mcp_takes_user_as_every_other_command_does() -> None:
    """``--user`` names the database user of ``mcp --dsn`` (``--db-user`` still works):
    the flags are accepted and the server reports the connect string, not the flag."""
    pytest.importorskip("oracledb")
    pytest.importorskip("mcp.server.mcpserver")
    for flag in ("--user", "--db-user"):
        done = command("mcp", "--dsn", "nonsense", flag, "scott", "--user-id", "alice",
                       ORACLEAGENTMEMORY_PASSWORD="not-used")
        line = assert_one_line_failure(done, 0)
        assert "connect string 'nonsense' is not host:port/service" in line


def test_the_demo_with_an_llm_that_cannot_be_reached_says_so() -> None:
    """It used to say "The LLM extracted or kept 3 memories": the three it added itself."""
    with socket.socket() as probe:  # a loopback port nothing listens on: refused at once
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = command("demo", ORACLEAGENTMEMORY_LLM_BASE_URL=f"http://127.0.0.1:{port}/v1",
                   ORACLEAGENTMEMORY_LLM_MODEL="llama3.1", ORACLEAGENTMEMORY_LLM_MAX_RETRIES="0",
                   NO_PROXY="127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert "extracted or kept" not in done.stdout
    report = done.stdout.strip().splitlines()[-1]
    assert report.startswith("The LLM could not be used: all ")
    assert "Connection refused" in report and "no memories extracted" in report
