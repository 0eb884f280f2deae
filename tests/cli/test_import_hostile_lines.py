"""Lines of an import file that stopped it as a bug (found by an attack on the command line).

Each of these ended with exit code 1, "unexpected ...: this is a bug", where docs/cli.md
promises exit code 7 and a message naming the line (or, for a first line, that the file is
not an export): JSON nested deeper than Python's recursion limit (``json.loads`` raises
RecursionError, not ValueError), a link end or an id that is a JSON array or object (used
as a set member: "unhashable type"), and a record's text holding an unpaired surrogate
(``"\\ud800"``, which the tokenizer refuses with a TypeError before the store could).
A ``--filter`` nested that deep printed a whole traceback.

An image whose ``image_bytes`` was not base64 was stored as other bytes: ``b64decode``
without ``validate`` drops the characters outside the alphabet (Python's base64 docs).
And a failed import said "the lines before it are stored" when nothing was.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from oracleagentmemory import cli
from oracleagentmemory.stores.embedded import EmbeddedBackend
from tests.support.cli_docs import EXIT

HEADER = json.dumps({"kind": "header", "format": "oracleagentmemory-export", "version": 1})
DEEP = 100_000


def record(**fields: object) -> str:
    return json.dumps({"kind": "record", "record": {
        "id": "m1", "record_type": "memory", "user_id": "alice", "content": "hello",
        **fields}})


def link(**fields: object) -> str:
    return json.dumps({"kind": "link", "link": {
        "id": "l1", "source_id": "m1", "target_id": "m2", "relation_type": "supports",
        **fields}})


def run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, err.getvalue()


def imported(tmp_path: Path, lines: list[str], *options: str) -> tuple[int, str]:
    dump = tmp_path / "input.jsonl"
    dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run("import", "--db", str(tmp_path / "copy.db"), "--in", str(dump), *options)


def assert_bad_line(code: int, err: str, line: int) -> None:
    assert code == EXIT["bad input"], err
    assert len(err.splitlines()) == 1 and "this is a bug" not in err
    assert f"error: line {line}: " in err


@pytest.mark.parametrize(("name", "lines", "options", "bad"), [
    ("nested record", [HEADER, record(), '{"kind": "record", "record": '
                       + "[" * DEEP + "]" * DEEP + "}"], (), 3),
    ("nested metadata", [HEADER, '{"kind": "record", "record": {"id": "m", "record_type": '
                         '"memory", "content": "c", "metadata": {"a": '
                         + "[" * DEEP + "]" * DEEP + "}}}"], (), 2),
    ("link end a list", [HEADER, record(), record(id="m2"), link(source_id=["m1"])], (), 4),
    ("link end an object", [HEADER, record(), record(id="m2"), link(target_id={"m": 2})],
     (), 4),
    ("id a list, resumed", [HEADER, record(), record(id=["m2"])], ("--skip-existing",), 3),
    ("unpaired surrogate in content", [HEADER, record(), '{"kind": "record", "record": '
                                       '{"id": "s", "record_type": "memory", "content": '
                                       '"x\\ud800y"}}'], (), 3),
    ("image_bytes not base64", [HEADER, record(id="i", record_type="image", content="a photo",
                                               mime_type="image/png",
                                               image_bytes="aGVs!bG8=")], (), 2),
])
def test_a_hostile_line_is_bad_input_naming_it(tmp_path: Path, name: str, lines: list[str],
                                               options: tuple[str, ...], bad: int) -> None:
    code, err = imported(tmp_path, lines, *options)
    assert_bad_line(code, err, bad)


def test_a_first_line_nested_too_deep_is_not_an_export(tmp_path: Path) -> None:
    code, err = imported(tmp_path, ["[" * DEEP + "]" * DEEP])
    assert code == EXIT["bad input"], err
    assert len(err.splitlines()) == 1 and "is not an oracleagentmemory export" in err
    assert not (tmp_path / "copy.db").exists()


def test_a_filter_nested_too_deep_is_a_usage_error(tmp_path: Path) -> None:
    code, err = run("search", "trains", "--db", str(tmp_path / "memory.db"), "--user-id",
                    "alice", "--filter", '{"a": ' * DEEP + "1" + "}" * DEEP)
    assert code == EXIT["usage"], err
    assert len(err.splitlines()) == 1 and "--filter" in err


def test_a_failed_import_that_stored_nothing_does_not_say_it_stored_lines(
        tmp_path: Path) -> None:
    """The bad line comes before the first batch is written: nothing is stored, and the
    fixed file imports without --skip-existing."""
    code, err = imported(tmp_path, [HEADER, record(), record(id="m2", timestamp="soon")])
    assert_bad_line(code, err, 3)
    assert EmbeddedBackend(str(tmp_path / "copy.db")).get_records({}) == []
    assert "are stored" not in err and "nothing" in err


def test_an_export_saved_with_a_byte_order_mark_imports(tmp_path: Path) -> None:
    """An editor that saves UTF-8 with a BOM (RFC 8259: a parser MAY ignore one) made the
    export "not an oracleagentmemory export: its first line is not the export header"."""
    dump = tmp_path / "input.jsonl"
    dump.write_bytes("\ufeff".encode() + "\r\n".join([HEADER, record()]).encode() + b"\r\n")
    code, err = run("import", "--db", str(tmp_path / "copy.db"), "--in", str(dump))
    assert code == 0, err
    assert [r["id"] for r in EmbeddedBackend(str(tmp_path / "copy.db")).get_records({})] == [
        "m1"]
