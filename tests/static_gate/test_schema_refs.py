"""Tables and columns named in package SQL must exist in the DDL; aliases, JSON dot
notation, PL/SQL names and pseudo-columns are not mistaken for columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from oracleagentmemory_devtools.static_gate import run_gate
from tests.static_gate.conftest import edit, position

BODY = "sql/am_api.pkb"


def _schema(root: Path) -> list[str]:
    return [f.format() for f in run_gate(root).findings if f.check == "schema"]


@pytest.mark.parametrize(("old", "new", "needle", "expected"), [
    ("DELETE FROM am_records r WHERE r.id = l_id;", "DELETE FROM am_recs r WHERE r.id = l_id;",
     "am_recs", "unknown table or view AM_RECS"),
    ("DELETE FROM am_records r WHERE r.id = l_id;",
     "DELETE FROM am_records r WHERE r.ident = l_id;", "r.ident",
     "R.IDENT: table AM_RECORDS has no column IDENT"),
    ("INSERT INTO am_records (id, record_type,", "INSERT INTO am_records (id, kind,", "kind,",
     "INSERT column list: table AM_RECORDS has no column KIND"),
    ("UPDATE am_records SET expires_at = SYSTIMESTAMP",
     "UPDATE am_records SET expiry = SYSTIMESTAMP", "expiry",
     "UPDATE SET: table AM_RECORDS has no column EXPIRY"),
    ("WHERE thread_id = p_thread_id AND record_type", "WHERE thread = p_thread_id AND record_type",
     "thread =", "unknown column THREAD: not a column of AM_RECORDS"),
    ("WHERE l.source_id IN", "WHERE l.src_id IN", "l.src_id",
     "L.SRC_ID: table AM_RELATIONS has no column SRC_ID"),
    ("WHERE r.thread_id = p_thread_id AND r.record_type",
     "WHERE r.thread_id = p_thread_id AND l.record_type", "l.record_type",
     "L.RECORD_TYPE: table AM_RELATIONS has no column RECORD_TYPE"),
    ("WHERE rec.metadata.topic IS NOT NULL", "WHERE rec.meta.topic IS NOT NULL", "rec.meta",
     "REC.META: table AM_RECORDS has no column META"),
    ("SELECT id, record_type, content FROM am_records WHERE expires_at IS NULL",
     "SELECT id, record_type, body FROM am_records WHERE expires_at IS NULL", "body",
     "unknown column BODY"),
])
def test_unknown_tables_and_columns(repo: Path, old: str, new: str, needle: str,
                                    expected: str) -> None:
    path = "sql/tables.sql" if "am_live" in old or "expires_at IS NULL" in old else BODY
    edit(repo, path, old, new)
    line, col = position(repo, path, needle)
    findings = _schema(repo)
    assert len(findings) == 1, findings
    assert findings[0].startswith(f"{path}:{line}:{col}: [schema] {expected}"), findings[0]


def test_names_that_are_not_columns_are_not_reported(repo: Path) -> None:
    """The fixture uses JSON dot notation (rec.metadata.topic), a select alias in ORDER BY
    (distance), JSON_TABLE columns (jt.id), PL/SQL variables (l_id, p_thread_id),
    SYSTIMESTAMP, ROWNUM, COSINE and a loop record (r.id): none is a finding."""
    assert _schema(repo) == []
    edit(repo, BODY, "WHERE rec.metadata.topic IS NOT NULL",
         "WHERE rec.metadata.topic.deeper IS NOT NULL AND ROWNUM < 5 AND rec.ROWID IS NOT NULL")
    assert _schema(repo) == []


def test_dictionary_views_and_ctes_are_known(repo: Path) -> None:
    edit(repo, BODY, "    p_count := SQL%ROWCOUNT;\n  END delete_records;\n\n  PROCEDURE",
         "    WITH g (id, hops) AS (SELECT r.id, 0 FROM am_records r)\n"
         "    SELECT COUNT(*) INTO p_count FROM g, user_tables u WHERE g.hops = 0\n"
         "      AND u.table_name = 'AM_RECORDS';\n  END delete_records;\n\n  PROCEDURE")
    assert _schema(repo) == []
    edit(repo, BODY, "WHERE g.hops = 0", "WHERE g.hop = 0")
    assert len(_schema(repo)) == 1
