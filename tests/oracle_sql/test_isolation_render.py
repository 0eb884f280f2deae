"""End-user isolation, checked without a database: what the rendered scripts and the grant
scripts promise (the utPLSQL suite ut_agent_memory_isolation checks the behaviour on Oracle).
"""

from __future__ import annotations

import re
from pathlib import Path

from oracleagentmemory.stores.oracle_sql import render

ROOT = Path(__file__).resolve().parents[2]
INSTALL_DIR = ROOT / "install"


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def test_isolation_objects_follow_the_prefix_and_the_install_order():
    names = [name for name, _ in render.render_install(prefix="MEM_T1")]
    assert names.index("mem_t1_session.pks") < names.index("mem_t1.pks")
    assert names.index("mem_t1_session.pkb") < names.index("mem_t1.pkb")
    assert names[-1] == "mem_t1_isolation.sql"
    # the context needs CREATE ANY CONTEXT: a DBA script, never part of the owner's install
    assert "mem_t1_context.sql" not in names
    context_name, context = render.render_context("MEM_T1")
    assert context_name == "mem_t1_context.sql"
    assert "CREATE OR REPLACE CONTEXT MEM_T1_CTX USING ' || l_owner || '.MEM_T1_SESSION'" in context
    assert "DBMS_ASSERT.SCHEMA_NAME" in context


def test_every_store_table_gets_the_policy_for_every_statement_type_with_update_check():
    body = dict(render.render_install())["agent_memory_session.pkb"]
    for table, function in (("AGENT_MEMORY_RECORDS", "RECORDS_POLICY"),
                            ("AGENT_MEMORY_IMAGES", "IMAGES_POLICY"),
                            ("AGENT_MEMORY_RELATIONS", "RELATIONS_POLICY")):
        assert f"replace_policy('{table}', 'AGENT_MEMORY_SESSION.{function}');" in body
    code = strip_comments(body)
    assert "statement_types => 'SELECT, INSERT, UPDATE, DELETE'" in code
    assert "update_check    => TRUE" in code
    assert "policy_type     => DBMS_RLS.DYNAMIC" in code
    isolation = dict(render.render_install())["agent_memory_isolation.sql"]
    assert "CALL AGENT_MEMORY_SESSION.apply_policies();" in isolation


def test_predicates_are_constant_text_reading_the_context():
    body = dict(render.render_install())["agent_memory_session.pkb"]
    for constant in ("c_records", "c_images", "c_relations"):
        match = re.search(rf"{constant}\s+CONSTANT VARCHAR2\(\d+ CHAR\) :=(.*?);\n", body,
                          flags=re.S)
        assert match, constant
        operands = re.sub(r"'(?:[^']|'')*'", "''", match.group(1)).split("||")
        assert {op.strip() for op in operands} == {"''"}, constant
        text = "".join(re.findall(r"'((?:[^']|'')*)'", match.group(1)))
        assert "SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)" in text
    # a bound session never falls back to "no predicate"; an untrusted unbound one is denied
    assert "WHEN 'BOUND' THEN p_bound" in body
    assert "ELSE c_deny" in body and "c_deny        CONSTANT VARCHAR2(10 CHAR) := '1 = 0';" in body


def test_administration_members_need_an_unrestricted_session_and_contract_members_do_not():
    body = dict(render.render_install())["agent_memory.pkb"]
    guarded = set(re.findall(r"AGENT_MEMORY_SESSION\.assert_unrestricted\('(\w+)'\)", body))
    assert guarded == {"reset_store", "sync_text_index", "ensure_purge_job", "drop_purge_job",
                       "set_schema_version"}


def test_uninstall_drops_the_isolation_objects():
    _, text = render.render_uninstall("MEM_T1")
    for statement in ("DROP VIEW IF EXISTS MEM_T1_RECORDS_V;",
                      "DROP VIEW IF EXISTS MEM_T1_RELATIONS_V;",
                      "DROP PACKAGE IF EXISTS MEM_T1_SESSION;",
                      "EXECUTE IMMEDIATE 'DROP CONTEXT MEM_T1_CTX';"):
        assert statement in text, statement


def granted(script: str) -> list[str]:
    text = (INSTALL_DIR / script).read_text(encoding="utf-8")
    block = re.search(r"name_list_t\((.*?)\);|grant_list_t\((.*?)\);", text, flags=re.S)
    return re.findall(r"'([^']+)'", strip_comments(block.group(0)))


def test_the_runtime_user_gets_execute_on_the_facade_and_the_session_package_only():
    assert granted("grants_runtime.sql") == ["AGENT_MEMORY", "AGENT_MEMORY_SESSION"]
    text = strip_comments((INSTALL_DIR / "grants_runtime.sql").read_text(encoding="utf-8"))
    assert "'GRANT EXECUTE ON '" in text
    assert not re.search(r"\b(CREATE|ANY|SELECT|INSERT|UPDATE|DELETE)\b\s+ON", text)


def test_the_owner_gets_no_any_privilege_and_no_policy_exemption():
    grants = granted("grants_owner.sql")
    assert "EXECUTE ON SYS.DBMS_RLS" in grants and "CREATE VIEW" in grants
    assert not [g for g in grants if " ANY " in f" {g} " or "EXEMPT" in g or "WITH" in g]
    text = (INSTALL_DIR / "grants_owner.sql").read_text(encoding="utf-8")
    assert "@@../sql/agent_memory_context.sql &&owner_name" in text


def test_readers_get_read_on_the_views_only():
    grants = granted("grants_views.sql")
    assert [g for g in grants if g.startswith("READ ON")] == [
        "READ ON AGENT_MEMORY_RECORDS_V", "READ ON AGENT_MEMORY_RELATIONS_V"]
    assert not [g for g in grants if g.startswith(("SELECT", "INSERT", "UPDATE", "DELETE"))]


def test_the_views_are_read_only_and_hide_vectors():
    text = dict(render.render_install())["agent_memory_isolation.sql"]
    views = re.findall(r"CREATE OR REPLACE VIEW .*?;", text, flags=re.S)
    assert len(views) == 2
    for view in views:
        assert view.rstrip(";").rstrip().endswith("WITH READ ONLY")
        assert "embedding" not in view and "bytes" not in view


def test_the_utplsql_isolation_suite_covers_reads_writes_views_and_the_owner():
    spec = (ROOT / "tests" / "plsql" / "ut_agent_memory_isolation.pks").read_text()
    body = (ROOT / "tests" / "plsql" / "ut_agent_memory_isolation.pkb").read_text()
    assert "--%suite" in spec and spec.count("--%test") >= 10
    for member in ("get_records", "search", "search_rows", "list_messages", "update_record",
                   "delete_records", "delete_cascade", "write_records", "list_links",
                   "update_link", "delete_links", "purge_expired", "reset_store"):
        assert f"agent_memory.{member}(" in body, member
    for relation in ("agent_memory_records_v", "agent_memory_relations_v"):
        assert f"FROM {relation}" in body, relation
