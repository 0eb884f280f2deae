"""Where ``export --out`` writes, and what a failed export leaves there (found by an attack
on the command line).

- ``--out`` naming the store itself (``export --db memory.db --out memory.db``) truncated
  the store while it was being read; the export then failed on the damaged file and removed
  it: the store was gone, and exit code 4 said only that it was damaged.
- A failed export (Ctrl-C, a full disk) removed the path it was given. Through a symbolic
  link that removed the link and left its target truncated, half written; for a device or
  a named pipe (``--out /dev/null``, run as root) it removed the device node; for an
  existing export it lost the export it was replacing.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from pathlib import Path

import pytest

from oracleagentmemory import cli, transfer
from oracleagentmemory.core import OracleAgentMemory
from tests.support.cli_docs import EXIT
from tests.support.embedders import HashingEmbedder


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "memory.db"
    with OracleAgentMemory(connection=str(path), embedder=HashingEmbedder(),
                           extract_memories=False) as client:
        thread = client.create_thread(thread_id="trip", user_id="alice")
        thread.add_messages([{"role": "user", "content": f"message {i}"} for i in range(20)])
    return path


def run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, err.getvalue()


@pytest.fixture
def ctrl_c_mid_export(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every export stops with Ctrl-C once it has written a few lines."""
    lines = transfer.export_lines

    def lines_then_ctrl_c(*args, **kwargs):
        for number, line in enumerate(lines(*args, **kwargs)):
            if number == 3:
                raise KeyboardInterrupt
            yield line

    monkeypatch.setattr(transfer, "export_lines", lines_then_ctrl_c)


def thread_ids(store: Path) -> list[str]:
    with OracleAgentMemory(connection=str(store), embedder=HashingEmbedder()) as client:
        return [thread.thread_id for thread in client.list_threads(user_id="alice")]


@pytest.mark.parametrize("through_a_link", [False, True])
def test_an_export_onto_its_own_store_is_refused_and_the_store_kept(
        store: Path, through_a_link: bool) -> None:
    out = store
    if through_a_link:
        out = store.parent / "export.jsonl"
        out.symlink_to(store.name)
    before = store.read_bytes()

    code, err = run("export", "--db", str(store), "--out", str(out))

    assert code == EXIT["usage"], err
    assert len(err.splitlines()) == 1 and "this is a bug" not in err
    assert store.read_bytes() == before
    assert thread_ids(store) == ["trip"]


def test_a_failed_export_through_a_link_leaves_the_link_and_its_target(
        store: Path, ctrl_c_mid_export: None) -> None:
    target = store.parent / "kept.jsonl"
    target.write_text("the export of last week\n")
    link = store.parent / "latest.jsonl"
    link.symlink_to(target.name)

    code, err = run("export", "--db", str(store), "--out", str(link))

    assert code == EXIT["interrupted (Ctrl-C)"], err
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_text() == "the export of last week\n"


def test_a_failed_export_leaves_the_file_it_would_have_replaced(
        store: Path, ctrl_c_mid_export: None) -> None:
    previous = store.parent / "memory.jsonl"
    previous.write_text("the export of last week\n")

    code, err = run("export", "--db", str(store), "--out", str(previous))

    assert code == EXIT["interrupted (Ctrl-C)"], err
    assert previous.read_text() == "the export of last week\n"
    assert sorted(path.name for path in store.parent.iterdir()
                  if not path.name.startswith("memory.db")) == ["memory.jsonl"]


def test_a_failed_export_to_a_named_pipe_does_not_remove_it(
        store: Path, ctrl_c_mid_export: None) -> None:
    """A special file (a named pipe here; ``/dev/null`` is one too) is written in place and
    never removed: it is not the export's to remove."""
    pipe = store.parent / "pipe"
    os.mkfifo(pipe)
    # A reader opened first, so that opening the pipe for writing does not wait for one
    # (fifo(7)); the few lines written fit in the pipe's buffer.
    reader = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, err = run("export", "--db", str(store), "--out", str(pipe))
    finally:
        os.close(reader)

    assert code == EXIT["interrupted (Ctrl-C)"], err
    assert stat.S_ISFIFO(os.lstat(pipe).st_mode)


def test_an_export_through_a_link_replaces_its_target_and_keeps_its_mode(
        store: Path) -> None:
    """What a shell redirection does: the link is followed, and the file it names keeps
    its permission bits (docs/cli.md: an existing file keeps its own)."""
    target = store.parent / "kept.jsonl"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    link = store.parent / "latest.jsonl"
    link.symlink_to(target.name)

    code, err = run("export", "--db", str(store), "--out", str(link))

    assert code == 0, err
    assert link.is_symlink()
    assert target.read_text().startswith('{"kind": "header"')
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_a_directory_as_out_is_a_usage_error_naming_it(store: Path) -> None:
    """As ``--in`` a directory is: it said ``[Errno 21] Is a directory``, exit code 4 (the
    store cannot be opened or written), of a store that was fine."""
    code, err = run("export", "--db", str(store), "--out", str(store.parent))

    assert code == EXIT["usage"], err
    assert len(err.splitlines()) == 1
    assert f"--out {str(store.parent)!r} is a directory" in err


def test_an_export_replaces_an_existing_file_where_os_has_no_fchmod(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows' os module has no fchmod before Python 3.13 and no fchown at all (their
    documentation: "Availability: Unix, Windows" since 3.13, "Availability: Unix"): the
    export over an existing file was an AttributeError there."""
    previous = store.parent / "memory.jsonl"
    previous.write_text("the export of last week\n")
    monkeypatch.delattr(os, "fchmod")
    monkeypatch.delattr(os, "fchown")

    code, err = run("export", "--db", str(store), "--out", str(previous))

    assert code == 0, err
    assert previous.read_text().startswith('{"kind": "header"')


def test_an_export_over_a_file_in_a_directory_it_cannot_write_writes_the_file(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file the user may write in a directory it may not (made by an administrator for
    it): no file can be made beside it, so it is written in place, as it was before the
    export went through a file beside it. Simulated (this suite runs as root, whom a
    directory's permission bits do not stop): creating any other file there is refused."""
    previous = store.parent / "memory.jsonl"
    previous.write_text("the export of last week\n")
    real_open = os.open

    def no_new_file_there(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and os.path.dirname(os.path.abspath(path)) == str(
                store.parent) and not os.path.exists(path) \
                and not os.path.basename(path).startswith("memory.db"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_new_file_there)

    code, err = run("export", "--db", str(store), "--out", str(previous))

    assert code == 0, err
    assert previous.read_text().startswith('{"kind": "header"')
