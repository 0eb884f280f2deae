"""End-user isolation, checked without a database: what the rendered scripts and the grant
scripts promise (the utPLSQL suite ut_agent_memory_isolation checks the behaviour on Oracle).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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


def test_every_store_table_gets_a_read_and_a_write_policy_with_update_check():
    body = dict(render.render_install())["agent_memory_session.pkb"]
    for table, read, write in (("AGENT_MEMORY_RECORDS", "RECORDS_READ_POLICY", "RECORDS_POLICY"),
                               ("AGENT_MEMORY_IMAGES", "IMAGES_POLICY", "IMAGES_POLICY"),
                               ("AGENT_MEMORY_RELATIONS", "RELATIONS_READ_POLICY",
                                "RELATIONS_POLICY")):
        protected = re.search(rf"protect\('{table}', 'AGENT_MEMORY_SESSION\.(\w+)',\s*"
                              rf"'AGENT_MEMORY_SESSION\.(\w+)'\);", body)
        assert protected and protected.groups() == (read, write), table
    code = strip_comments(body)
    # reads (SELECT) and writes (INSERT, UPDATE, DELETE with update_check) are two policies;
    # the single policy of schema versions 1 and 2 is dropped
    assert "replace_policy(p_table, c_read, p_read_function, 'SELECT', FALSE);" in code
    assert ("replace_policy(p_table, c_write, p_write_function, 'INSERT, UPDATE, DELETE', "
            "TRUE);") in code
    assert "drop_policy(p_table, c_legacy);" in code
    assert "c_legacy CONSTANT VARCHAR2(30 CHAR) := 'AM_END_USER_ISOLATION';" in code
    assert "update_check    => p_update_check" in code
    assert "policy_type     => DBMS_RLS.DYNAMIC" in code
    isolation = dict(render.render_install())["agent_memory_isolation.sql"]
    assert "CALL AGENT_MEMORY_SESSION.apply_policies();" in isolation


PREDICATES = ("c_records", "c_records_global", "c_records_both", "c_images", "c_relations",
              "c_relations_global", "c_relations_both")


def predicate_texts(body: str) -> dict[str, str]:
    """Each predicate constant's SQL text, checked to be made of literals only."""
    texts = {}
    for constant in PREDICATES:
        match = re.search(rf"{constant}\s+CONSTANT VARCHAR2\((\d+) CHAR\) :=(.*?);\n", body,
                          flags=re.S)
        assert match, constant
        operands = re.sub(r"'(?:[^']|'')*'", "''", match.group(2)).split("||")
        assert {op.strip() for op in operands} == {"''"}, constant
        text = "".join(re.findall(r"'((?:[^']|'')*)'", match.group(2))).replace("''", "'")
        assert len(text) <= int(match.group(1)), constant
        texts[constant] = text
    return texts


def test_predicates_are_constant_text_reading_the_context():
    body = dict(render.render_install())["agent_memory_session.pkb"]
    texts = predicate_texts(body)
    own = "user_id = SYS_CONTEXT('AGENT_MEMORY_CTX', 'END_USER_ID', 4000)"
    memories = "record_type IN ('memory', 'fact', 'guideline', 'preference')"
    for constant, text in texts.items():
        # own rows where USER_OWN_ROWS applies, memories of no user where GLOBAL_MEMORIES does
        assert (own in text) == (not constant.endswith("_global")), constant
        assert (f"user_id IS NULL AND r.{memories}" in text
                or f"user_id IS NULL AND {memories}" in text) == constant.endswith(
                    ("_global", "_both")), constant
    # a bound session picks among the constants and never falls back to "no predicate"; an
    # untrusted unbound one, or a bound one with no policy, is denied
    assert "WHEN 'BOUND' THEN bound_predicate(p_own, p_global, p_both)" in body
    assert "ELSE c_deny" in body and "c_deny        CONSTANT VARCHAR2(10 CHAR) := '1 = 0';" in body
    for function, arguments in (
            ("records_policy", "c_records, NULL, c_records"),
            ("records_read_policy", "c_records, c_records_global, c_records_both"),
            ("images_policy", "c_images, NULL, c_images"),
            ("relations_policy", "c_relations, NULL, c_relations"),
            ("relations_read_policy", "c_relations, c_relations_global, c_relations_both")):
        assert re.search(rf"FUNCTION {function}\(.*?RETURN predicate\({arguments}\);", body,
                         flags=re.S), function


def test_the_policy_names_of_the_session_are_the_vocabularys():
    from oracleagentmemory._vocabulary import SECURITY_POLICIES

    body = dict(render.render_install())["agent_memory_session.pkb"]
    attributes = re.findall(r"c_(?:own_rows|global)\s+CONSTANT VARCHAR2\(30 CHAR\) := '(\w+)';",
                            body)
    assert attributes == [name.upper() for name in SECURITY_POLICIES]


def test_administration_members_need_an_unrestricted_session_and_contract_members_do_not():
    body = dict(render.render_install())["agent_memory.pkb"]
    guarded = set(re.findall(r"AGENT_MEMORY_SESSION\.assert_unrestricted\('(\w+)'\)", body))
    assert guarded == {"reset_store", "sync_text_index", "ensure_purge_job", "drop_purge_job",
                       "set_schema_version", "fill_keyword_text"}


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


def test_the_utplsql_deep_security_suite_covers_policies_grants_and_refusals():
    spec = (ROOT / "tests" / "plsql" / "ut_agent_memory_deepsec.pks").read_text()
    body = (ROOT / "tests" / "plsql" / "ut_agent_memory_deepsec.pkb").read_text()
    assert "--%suite" in spec and spec.count("--%test") >= 15
    assert spec.count("--%throws(-20009)") >= 5 and "--%throws(-28115)" in spec
    for member in ("set_end_user_context(", "end_user_policies", "security_context_bound",
                   "set_end_user("):
        assert f"agent_memory_session.{member}" in body, member
    for member in ("add_policies", "remove_policies", "grant_policies", "revoke_policies",
                   "list_policies", "list_grants"):
        assert f"agent_memory_security.{member}" in body, member
    # every change of the suite stays in utPLSQL's rollback
    assert body.count("p_commit => FALSE") == body.count("p_commit =>")


def test_the_session_spec_says_to_commit_before_unbinding():
    """ON COMMIT text sync reads new rows under the binding of the moment
    it runs, so a PL/SQL caller writing with p_commit => FALSE commits before it unbinds;
    the spec says so where clear_end_user is declared."""
    spec = dict(render.render_install())["agent_memory_session.pks"]
    declaration = spec[:spec.index("PROCEDURE clear_end_user;")]
    comment = declaration[declaration.rindex("PROCEDURE set_end_user_context"):]
    assert "Commit (or roll back) first" in comment and "ON COMMIT" in comment


def test_every_write_the_library_sends_commits_before_it_unbinds():
    """The library's own calls keep that order: the write commits inside the call, and the
    unbinding follows it in the same block."""
    import pytest

    pytest.importorskip("oracledb", reason="the oracle extra is not installed")
    from oracleagentmemory.stores.oracle import OracleBackend
    from tests.support.fake_oracledb import FakeConnection

    connection = FakeConnection(WRITE_RECORDS=["m1"])
    store = OracleBackend(connection, schema_policy="NO_CHECK", end_user_id="u1")
    store.write_records([{"record_type": "memory", "content": "x", "user_id": "u1"}])
    [(statement, binds)] = connection.calls
    assert binds["p_commit"] is True
    assert statement.index("WRITE_RECORDS(") < statement.index("CLEAR_END_USER;")


@pytest.mark.parametrize(("sync_mode", "enforced"), [("ON_COMMIT", True), ("MANUAL", False),
                                                     ("AUTO", False)])
def test_a_runtime_user_cannot_unbind_with_uncommitted_writes(sync_mode, enforced):
    """With ON COMMIT sync, clear_end_user and binding another end
    user refuse while a transaction is open, for a user that is NONE when unbound."""
    body = dict(render.render_install(sync_mode=sync_mode))["agent_memory_session.pkb"]
    clear = body[body.index("PROCEDURE clear_end_user IS"):body.index("END clear_end_user;")]
    assert "assert_committed('clear_end_user');" in clear
    bind = body[body.index("PROCEDURE bind("):body.index("END bind;")]
    assert bind.index("assert_committed(") < bind.index("forget;")
    check = body[body.index("PROCEDURE assert_committed("):body.index("END assert_committed;")]
    assert ("DBMS_TRANSACTION.LOCAL_TRANSACTION_ID IS NOT NULL AND unbound_mode = 'NONE'"
            in check) is enforced


def test_a_write_checks_the_owner_of_every_thread_it_names_past_the_read_policy():
    # On Oracle: the write policy checks the records' user_id only, and the
    # read policy hides another user's thread from a check through it, so an end user could
    # add its own records to another user's thread. The write now asks the session package
    # to look the owners up past the read policy (the utPLSQL suite
    # ut_agent_memory_deepsec.write_into_other_thread_refused and its neighbours run it).
    files = dict(render.render_install())
    record_api = strip_comments(files["agent_memory_record_api.pkb"])
    checks = record_api[record_api.index("PROCEDURE check_end_user_writes("):
                        record_api.index("END check_end_user_writes;")]
    assert ("AGENT_MEMORY_SESSION.assert_may_write_into(named_threads(p_rows, p_thread_id));"
            in checks)
    for member, thread in (("write_records", "p_thread_id"), ("append_messages", "l_thread_id")):
        write = record_api[record_api.index(f"FUNCTION {member}("):]
        write = write[:write.index(f"END {member};")]
        check = write.index(f"check_end_user_writes(l_rows, {thread});")
        assert check < write.index("insert_new_rows("), member
    write = record_api[record_api.index("FUNCTION write_records("):]
    assert write.index("check_end_user_writes(") < write.index("lock_thread(")
    named = record_api[record_api.index("FUNCTION named_threads("):]
    assert "note(p_thread_id);" in named
    # a thread record names the thread it carries when that is not itself; a summary's id
    # is its thread's (the embedded guard names the same threads)
    assert ("IF p_rows(i).record_type <> 'thread' OR p_rows(i).thread_id <> p_rows(i).id THEN"
            in named)
    assert "IF p_rows(i).record_type = 'summary' THEN\n        note(p_rows(i).id);" in named
    profile = checks[checks.index("record_type = 'user_profile'"):]
    assert "AGENT_MEMORY_SESSION.end_user_id" in profile[:200]

    session = files["agent_memory_session.pkb"]
    code = strip_comments(session)
    # the lookup shows one thread record, named by the attribute only this package sets
    lookup = re.search(r"c_records_owner_lookup CONSTANT VARCHAR2\(200 CHAR\) :=\s*'(.*?)';",
                       session, flags=re.S)
    assert lookup and lookup.group(1).replace("''", "'") == (
        "record_type = 'thread' AND id = SYS_CONTEXT('AGENT_MEMORY_CTX', 'OWNER_LOOKUP', 4000)")
    assert re.search(r"FUNCTION records_read_policy\(.*?IF owner_lookup THEN\s*"
                     r"RETURN c_records_owner_lookup;", code, flags=re.S)
    assert "RETURN c_records_owner_lookup" not in code.split("FUNCTION records_read_policy")[0]
    # set around the one SELECT, cleared on success and on error, and by clear_end_user
    owner = code[code.index("PROCEDURE read_thread_owner("):code.index("END read_thread_owner;")]
    assert owner.count("DBMS_SESSION.SET_CONTEXT(") == 1
    assert owner.count("attribute => c_owner_lookup") == 3  # set, cleared twice
    assert owner.index("SELECT MIN(r.user_id), COUNT(*)") < owner.index("RAISE;")
    clear = code[code.index("PROCEDURE clear_end_user"):code.index("END clear_end_user;")]
    forget = code[code.index("PROCEDURE forget"):code.index("END forget;")]
    assert "forget;" in clear and "attribute => c_owner_lookup" in forget
    decide = code[code.index("PROCEDURE assert_may_write_into("):
                  code.index("END assert_may_write_into;")]
    assert "access_mode <> 'BOUND'" in decide
    assert "IF l_found AND NOT may_change(l_owner) THEN" in decide
    assert "deny('write into a thread it does not own');" in decide
