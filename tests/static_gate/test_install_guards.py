"""Gate checks of the install scripts: an unguarded index DDL in an install script
(``index-guard``) and a MERGE into a table whose VPD policies do not all cover INSERT,
UPDATE and DELETE (``vpd-merge``) are reported where they are; the grammar check reads the
DDL a guarded block runs."""

from __future__ import annotations

from oracleagentmemory_devtools.index_ddl import check_index_ddl
from oracleagentmemory_devtools.index_guard import check_index_guards
from oracleagentmemory_devtools.schema_catalog import build_catalog
from oracleagentmemory_devtools.sql_parsing import parse_source
from oracleagentmemory_devtools.sql_sources import SqlSource
from oracleagentmemory_devtools.vpd_merge import check_vpd_merge, vpd_policies

TABLE = "CREATE TABLE docs (id NUMBER, body CLOB, emb VECTOR(8, FLOAT32));\n"
GUARDED = """DECLARE
  l_count PLS_INTEGER;
BEGIN
  SELECT COUNT(*) INTO l_count FROM user_indexes WHERE index_name = 'DOCS_VIX';
  IF l_count = 0 THEN
    EXECUTE IMMEDIATE 'CREATE VECTOR INDEX docs_vix ON docs (emb)
  ORGANIZATION NEIGHBOR PARTITIONS DISTANCE COSINE';
  END IF;
END;
/
"""


def guard_findings(path: str, text: str) -> list[str]:
    parsed = [parse_source(SqlSource(path, text))]
    return [f"{f.line}:{f.col}" for f in check_index_guards(parsed)]


def test_an_unguarded_vector_index_in_an_install_script_is_reported():
    text = TABLE + "CREATE VECTOR INDEX docs_vix ON docs (emb) ORGANIZATION NEIGHBOR PARTITIONS;\n"
    assert guard_findings("sql/x_indexes.sql", text) == ["2:1"]
    assert guard_findings("install/x.sql", text) == ["2:1"]


def test_if_not_exists_or_a_lookup_block_guards_an_index():
    assert guard_findings("sql/x.sql", TABLE + "CREATE INDEX IF NOT EXISTS docs_ix ON docs (id);\n"
                          ) == []
    assert guard_findings("sql/x.sql", TABLE + GUARDED) == []


def test_a_block_that_does_not_look_the_index_up_is_reported_at_its_ddl():
    unguarded = GUARDED.replace(
        "  SELECT COUNT(*) INTO l_count FROM user_indexes WHERE index_name = 'DOCS_VIX';\n",
        "  l_count := 0;\n")
    assert guard_findings("sql/x.sql", TABLE + unguarded) == ["7:24"]


def test_package_bodies_are_not_install_scripts():
    body = ("CREATE OR REPLACE PACKAGE BODY p AS\n  PROCEDURE r IS\n  BEGIN\n"
            "    EXECUTE IMMEDIATE 'CREATE INDEX docs_ix ON docs (id)';\n  END r;\nEND p;\n/\n")
    assert guard_findings("sql/p.pkb", body) == []


def test_the_grammar_check_reads_the_ddl_a_guarded_block_runs():
    broken = GUARDED.replace("ORGANIZATION NEIGHBOR PARTITIONS", "ORGANIZATION NEIGHBOR GRAPH")
    parsed = [parse_source(SqlSource("sql/x.sql", TABLE + broken))]
    findings = check_index_ddl(parsed, build_catalog(parsed))
    assert [(f.line, f.check) for f in findings] == [(8, "index-ddl")]
    assert "PARTITIONS" in findings[0].message


POLICIES = """CREATE OR REPLACE PACKAGE BODY sec AS
  PROCEDURE apply_policies IS
    c_read CONSTANT VARCHAR2(30 CHAR) := 'READ_POLICY';
    PROCEDURE replace_policy(p_table IN VARCHAR2, p_policy IN VARCHAR2,
                             p_statement_types IN VARCHAR2) IS
    BEGIN
      DBMS_RLS.ADD_POLICY(object_schema => 'APP', object_name => p_table,
                          policy_name => p_policy, policy_function => 'F',
                          statement_types => p_statement_types, update_check => TRUE);
    END replace_policy;
    PROCEDURE protect(p_table IN VARCHAR2) IS
    BEGIN
      replace_policy(p_table, c_read, 'SELECT');
      replace_policy(p_table, 'WRITE_POLICY', 'INSERT, UPDATE, DELETE');
    END protect;
  BEGIN
    protect('IMAGES');
    DBMS_RLS.ADD_POLICY('APP', 'NOTES', 'ALL_POLICY', 'APP', 'F');
  END apply_policies;
END sec;
/
"""


def merge_findings(body: str) -> list[str]:
    parsed = [parse_source(SqlSource("sql/sec.pkb", POLICIES)),
              parse_source(SqlSource("sql/api.pkb", body))]
    return [f"{f.line}:{f.col} {f.message}" for f in check_vpd_merge(parsed)]


def test_policies_are_followed_through_the_calls_that_add_them():
    parsed = [parse_source(SqlSource("sql/sec.pkb", POLICIES))]
    found = {(p.table, p.types) for p in vpd_policies(parsed)}
    assert found == {("IMAGES", frozenset({"SELECT"})),
                     ("IMAGES", frozenset({"INSERT", "UPDATE", "DELETE"})),
                     ("NOTES", frozenset({"SELECT", "INSERT", "UPDATE", "DELETE"}))}


def test_merge_into_a_table_with_a_select_only_policy_is_reported():
    body = ("CREATE OR REPLACE PACKAGE BODY api AS\n  PROCEDURE put(p_seq IN NUMBER) IS\n"
            "  BEGIN\n    MERGE INTO images i USING (SELECT p_seq AS seq FROM dual) s\n"
            "       ON (i.seq = s.seq)\n     WHEN NOT MATCHED THEN INSERT (seq) VALUES (s.seq);\n"
            "  END put;\nEND api;\n/\n")
    [finding] = merge_findings(body)
    assert finding.startswith("4:5 MERGE INTO IMAGES")
    assert "covers only SELECT" in finding and "ORA-28132" in finding


def test_merge_into_a_table_whose_policies_cover_every_dml_type_passes():
    body = ("CREATE OR REPLACE PACKAGE BODY api AS\n  PROCEDURE put(p_seq IN NUMBER) IS\n"
            "  BEGIN\n    MERGE INTO notes n USING (SELECT p_seq AS seq FROM dual) s\n"
            "       ON (n.seq = s.seq)\n     WHEN NOT MATCHED THEN INSERT (seq) VALUES (s.seq);\n"
            "    -- MERGE INTO images in a comment is not a statement\n"
            "  END put;\nEND api;\n/\n")
    assert merge_findings(body) == []
