"""Progress of import and export: shown from the first batch on, with rate and time left.

An import of 10K records used to run for minutes without a word: progress printed only at
multiples of 1000 records while batches are 256 records long.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from oracleagentmemory import cli
from oracleagentmemory.cli.progress import Elapsed, Progress
from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.transfer import export_store
from tests.support.embedders import HashingEmbedder


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_status_shows_count_rate_and_time_left() -> None:
    now = [100.0]
    terminal = Terminal()
    progress = Progress("imported", terminal, total=10_000, clock=lambda: now[0])
    now[0] = 102.0
    progress("records", 1_000)  # 500 records a second, 9,000 to go: 18 s
    assert terminal.getvalue() == "\rimported 1,000/10,000 records  500/s  ETA 0:00:18"
    now[0] = 102.05
    progress("records", 1_256)  # redrawn at most ten times a second (1,256 in 2.05 s)
    assert terminal.getvalue().count("\r") == 1
    progress.close()
    assert terminal.getvalue().endswith("imported 1,256/10,000 records  613/s  ETA 0:00:14\n")


def test_without_a_total_there_is_no_time_left() -> None:
    now = [0.0]
    terminal = Terminal()
    progress = Progress("exported", terminal, clock=lambda: now[0])
    now[0] = 4.0
    progress("records", 2_000)
    assert terminal.getvalue() == "\rexported 2,000 records  500/s"


def test_off_a_terminal_progress_is_a_line_every_ten_seconds_from_the_tenth_on() -> None:
    """A pipe or a CI log gets a line every ten seconds at the default log level (it used
    to be logged at INFO only: minutes of silence); a command that ends within ten seconds
    writes none, so a failure stays one line."""
    now = [0.0]
    pipe = io.StringIO()
    progress = Progress("imported", pipe, total=200, clock=lambda: now[0])
    now[0] = 5.0
    progress("records", 10)  # before the tenth second: nothing yet
    assert pipe.getvalue() == ""
    now[0] = 10.0
    progress("records", 100)
    now[0] = 15.0
    progress("records", 150)  # within ten seconds of the last line: not written
    now[0] = 16.0
    progress.close()
    assert pipe.getvalue().splitlines() == [
        "oracleagentmemory: imported 100/200 records  10/s  ETA 0:00:10",
        "oracleagentmemory: imported 150/200 records  9/s  ETA 0:00:05"]


def test_off_a_terminal_a_short_command_writes_no_progress() -> None:
    now = [0.0]
    pipe = io.StringIO()
    progress = Progress("imported", pipe, total=2, clock=lambda: now[0])
    now[0] = 1.0
    progress("records", 2)
    progress.close()
    assert pipe.getvalue() == ""


@pytest.fixture
def export(tmp_path: Path) -> Path:
    with OracleAgentMemory(connection=":memory:", embedder=HashingEmbedder(384)) as client:
        client.create_thread(thread_id="t", user_id="u").add_memory("one memory")
        with open(tmp_path / "dump.jsonl", "w", encoding="utf-8") as out:
            export_store(client, out)
    return tmp_path / "dump.jsonl"


def test_an_import_on_a_terminal_shows_progress_from_its_first_batch(
        export: Path, tmp_path: Path) -> None:
    terminal = Terminal()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(terminal):
        code = cli.main(["import", "--db", str(tmp_path / "copy.db"), "--in", str(export)])
    assert code == 0
    # 3 lines, a header and 2 records: the total counts the records (it was 2/3)
    assert "imported 2/2 records" in terminal.getvalue()
    assert terminal.getvalue().endswith("\n")


def test_a_purge_shows_the_time_it_has_taken() -> None:
    """A purge is one transaction: no count until it commits, so the line shows the time."""
    now = [50.0]
    terminal = Terminal()
    with Elapsed("purging expired records", terminal, clock=lambda: now[0]) as elapsed:
        assert terminal.getvalue() == "\rpurging expired records  0:00:00"
        now[0] = 57.4
        assert elapsed.line() == "purging expired records  0:00:07"
    assert terminal.getvalue().endswith("\rpurging expired records  0:00:07\n")


def test_the_purge_command_reports_on_stderr_and_its_count_on_stdout(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    with OracleAgentMemory(connection=str(db), embedder=HashingEmbedder(384)) as client:
        client.create_thread(thread_id="t", user_id="u").add_memory("kept")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["purge", "--db", str(db), "--log-level", "INFO"])
    assert code == 0
    assert out.getvalue() == "purged 0 expired records\n"
    assert "oracleagentmemory: info: purging expired records ...\n" in err.getvalue()
