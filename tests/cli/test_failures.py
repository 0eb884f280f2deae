"""Every failure docs/cli.md documents, run as a user runs it: exit code and one line.

The commands and exit codes are read from the table in docs/cli.md ("Failures and what they
print"), so the page and the program cannot drift apart. Each runs in its own process (a
traceback is what the interpreter prints when an error escapes, which only a process shows),
in a fresh copy of a folder holding the files the page names.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from oracleagentmemory.core import OracleAgentMemory
from oracleagentmemory.transfer import export_store
from tests.support.embedders import HashingEmbedder

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "cli.md"
ROW = re.compile(r"^\| (?P<failure>[^|]+?) \| `(?P<command>[^`]+)` \| (?P<exit>\d+) \|$", re.M)
HIDDEN = {"the `mcp` extra is not installed": "mcp",
          "the `oracle` extra is not installed": "oracledb"}
"""Failures that need a package absent: the run sees an empty stand-in that fails to
import, as an uninstalled package does."""


def documented() -> list[tuple[str, str, int]]:
    text = PAGE.read_text()
    section = text[text.index("## Failures and what they print"):]
    return [(m["failure"], m["command"], int(m["exit"])) for m in ROW.finditer(section)]


FAILURES = documented()


def test_the_page_documents_failures_of_every_expected_kind() -> None:
    assert len(FAILURES) >= 10
    assert {code for _, _, code in FAILURES} >= {2, 3, 4, 5, 7}
    assert set(HIDDEN) <= {failure for failure, _, _ in FAILURES}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """memory.db (Alice's thread 'trip'), memory.jsonl (its export), broken.jsonl (line 3
    is not JSON) and notes.txt. Vectors of the default model's dimension, so the default
    model can write into memory.db."""
    made = tmp_path_factory.mktemp("cli-folder")
    with OracleAgentMemory(connection=str(made / "memory.db"),
                           embedder=HashingEmbedder(384)) as client:
        thread = client.create_thread(thread_id="trip", user_id="alice")
        thread.add_messages([{"role": "user", "content": "I travel by train"}])
        thread.add_memory("Alice travels by train", metadata={"topic": "travel"})
        with open(made / "memory.jsonl", "w", encoding="utf-8") as out:
            export_store(client, out)
    lines = (made / "memory.jsonl").read_text().splitlines()
    (made / "broken.jsonl").write_text("\n".join([*lines[:2], "{not json", *lines[2:]]) + "\n")
    untyped = [line.replace('"record_type"', '"type"') for line in lines]
    (made / "untyped.jsonl").write_text("\n".join(untyped) + "\n")
    (made / "notes.txt").write_text("shopping: bread, milk\n")
    for module in HIDDEN.values():
        package = made.parent / f"without-{module}" / module
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{module}'\", name={module!r})\n")
    return made


def run_documented(command: str, folder: Path, workdir: Path, hidden: str | None
                   ) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "ORACLEAGENTMEMORY_PASSWORD": "not-used"}
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    assert words[0] == "oracleagentmemory"
    paths = [str(ROOT / "python"), str(ROOT)]
    if hidden is not None:
        paths.insert(0, str(folder.parent / f"without-{hidden}"))
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return subprocess.run([sys.executable, "-m", "oracleagentmemory", *words[1:]],
                          capture_output=True, text=True, cwd=workdir, env=env,
                          stdin=subprocess.DEVNULL, timeout=300)


@pytest.mark.parametrize(("failure", "command", "code"), FAILURES,
                         ids=[failure for failure, _, _ in FAILURES])
def test_a_documented_failure_exits_with_its_code_and_one_line(
        failure: str, command: str, code: int, folder: Path, tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    shutil.copytree(folder, workdir)
    done = run_documented(command, folder, workdir, HIDDEN.get(failure))
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("oracleagentmemory: error: "), done.stderr
    assert done.returncode == code, done.stderr
    assert done.stdout == ""
    if code == 3 and "--db" in command:  # a store that is not there is not created
        db = shlex.split(command)[shlex.split(command).index("--db") + 1]
        assert (workdir / db).exists() == (folder / db).exists()


def test_debug_log_level_adds_the_traceback(folder: Path, tmp_path: Path) -> None:
    shutil.copytree(folder, tmp_path / "work")
    done = run_documented("oracleagentmemory --log-level DEBUG show no-such-thread "
                          "--db memory.db", folder, tmp_path / "work", None)
    assert done.returncode == 3
    assert "Traceback (most recent call last)" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("oracleagentmemory: error: ")
