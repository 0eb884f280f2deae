"""OracleDBEmbedder against the driver double of a database with the default
MAX_STRING_SIZE (STANDARD): every VARCHAR2 it sends or declares in SQL fits 4000 bytes.

The batch of texts travels as one JSON array bind and JSON_TABLE reads it into a
``VARCHAR2(4000 BYTE)`` column: a longer bind is ORA-01461, a longer column ORA-00910, and
a text too long for the column would be embedded as NULL (tests/support/fake_oracledb.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("oracledb", reason="the oracle extra is not installed")

from oracleagentmemory.core.embedders import OracleDBEmbedder  # noqa: E402
from tests.support.fake_oracledb import MAX_SQL_VARCHAR2_BYTES, FakeConnection  # noqa: E402


def sent_batches(connection: FakeConnection) -> list[list[str]]:
    return [json.loads(binds["texts"]) for statement, binds in connection.calls
            if "JSON_TABLE(:texts" in statement]


def test_a_batch_longer_than_a_sql_varchar2_is_sent_in_several_binds_in_order():
    connection = FakeConnection()
    texts = [f"{i:03d} " + "memory text " * 25 for i in range(40)]  # about 12 KB of JSON
    vectors = OracleDBEmbedder(connection, "doc_model", normalize=False).embed(texts)
    batches = sent_batches(connection)
    assert len(batches) > 1
    assert [text for batch in batches for text in batch] == texts
    assert all(len(json.dumps(b, ensure_ascii=False).encode()) <= MAX_SQL_VARCHAR2_BYTES
               for b in batches)
    np.testing.assert_array_equal(vectors[:, 0], [len(text) for text in texts])


def test_a_text_whose_json_escapes_pass_4000_bytes_is_cut_to_fit_alone():
    connection = FakeConnection()
    quoted = 'say "yes"\n' * 390  # 3900 bytes of text, about 4680 bytes as JSON
    embedder = OracleDBEmbedder(connection, "doc_model", normalize=False,
                                max_input_tokens=10_000)
    vectors = embedder.embed([quoted, "b"])
    [[first], [second]] = sent_batches(connection)  # the first fills a bind alone
    assert quoted.startswith(first) and len(first) < len(quoted)
    as_json = len(json.dumps([first], ensure_ascii=False).encode())
    assert MAX_SQL_VARCHAR2_BYTES - 2 <= as_json <= MAX_SQL_VARCHAR2_BYTES  # cut no shorter
    assert second == "b"
    assert vectors[0, 0] == len(first)


def test_the_column_is_a_standard_varchar2_and_multibyte_texts_keep_a_vector():
    connection = FakeConnection()
    embedder = OracleDBEmbedder(connection, "doc_model", normalize=False,
                                max_input_tokens=10_000)
    vectors = embedder.embed(["記憶" * 2000])  # 12,000 bytes in UTF-8
    [(statement, _)] = connection.calls
    assert "txt VARCHAR2(4000 BYTE) PATH '$'" in statement
    [[sent]] = sent_batches(connection)
    assert len(sent.encode("utf-8")) <= 3996 and set(sent) == {"記", "憶"}
    assert vectors.shape == (1, 3) and vectors[0, 0] == len(sent)


def test_batch_size_still_caps_a_batch_of_short_texts():
    connection = FakeConnection()
    OracleDBEmbedder(connection, "doc_model", batch_size=4).embed(list("abcdefghij"))
    assert [len(batch) for batch in sent_batches(connection)] == [4, 4, 2]
