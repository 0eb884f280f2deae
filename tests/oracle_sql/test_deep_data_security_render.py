"""Native Deep Data Security where the database has it: the security package
keeps the grants as data roles and data grants on 26ai, with the rules of the VPD
policies, and still compiles on 23ai (every 26ai name is inside dynamic SQL text); the
isolation script detects the mode at install and upgrade; the Python administration reads
it."""

from __future__ import annotations

import re

import pytest

from oracleagentmemory.stores.oracle_sql import render

FILES = dict(render.render_all())
BODY = FILES["agent_memory_security.pkb"]
NATIVE_ONLY = ("DBA_END_USERS", "DBA_DATA_ROLE_GRANTS", "ORA_END_USER_CONTEXT", "DATA GRANT",
               "DATA ROLE")


def code_outside_strings(text: str) -> str:
    """The text without comments and without the contents of string literals."""
    text = re.sub(r"--[^\n]*", "", text)
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def test_every_26ai_name_is_in_dynamic_sql_so_the_body_compiles_on_23ai():
    code = code_outside_strings(BODY).upper()
    for name in NATIVE_ONLY:
        assert name not in code, name
        assert name in BODY.upper(), name  # used, in the SQL text of dynamic statements


def test_the_data_grants_carry_the_rules_of_the_vpd_policies():
    session = FILES["agent_memory_session.pkb"]
    own_vpd = "user_id = SYS_CONTEXT(''AGENT_MEMORY_CTX'', ''END_USER_ID'', 4000)"
    assert own_vpd in session
    assert "r.user_id = ORA_END_USER_CONTEXT.username" in BODY
    memory_types = re.search(r"record_type IN \(([^)]*)\)\)\)';", session).group(1)
    global_grant = re.search(
        r"'SELECT ON AGENT_MEMORY_RECORDS r WHERE r.user_id IS NULL AND r.record_type IN "
        r"\(([^)]*)\)'", BODY)
    assert global_grant and global_grant.group(1) == memory_types
    own_grant = re.search(r"'SELECT, INSERT, UPDATE, DELETE ON AGENT_MEMORY_RECORDS r WHERE "
                          r"r.user_id = ORA_END_USER_CONTEXT.username'", BODY)
    assert own_grant
    # reads only for GLOBAL_MEMORIES, as the VPD write policy denies it every change
    assert not re.search(r"GLOBAL_\w+';\s*l_out\(\d\)\.body := '(INSERT|UPDATE|DELETE)", BODY)


def test_groups_are_mapped_roles_and_users_get_the_policy_role():
    assert "' MAPPED TO '" in BODY
    assert "DBMS_ASSERT.ENQUOTE_LITERAL('IAM_OAUTH_GROUP=' || g.principal_name)" in BODY
    assert "'GRANT DATA ROLE ' || l_role || ' TO '" in BODY
    assert "DBMS_ASSERT.ENQUOTE_NAME(u.principal_name, FALSE)" in BODY


@pytest.mark.parametrize("member", ["add_policies", "remove_policies", "grant_policies",
                                    "revoke_policies"])
def test_every_change_mirrors_the_dictionary_after_its_commit(member):
    public = BODY[BODY.index(f"PROCEDURE {member}(p_"):BODY.index(f"END {member};")]
    assert public.index(f"{member}_rows(") < public.index("after_change(p_commit)")


def test_the_isolation_script_detects_the_mode_at_install_and_upgrade():
    isolation = FILES["agent_memory_isolation.sql"]
    assert isolation.index("AGENT_MEMORY_SESSION.apply_policies()") < isolation.index(
        "AGENT_MEMORY_SECURITY.apply_native_grants()")
    spec = FILES["agent_memory_security.pks"]
    assert "USER_DATA_GRANTS" in spec and "FUNCTION deep_data_security RETURN VARCHAR2;" in spec
    detect = BODY[BODY.index("PROCEDURE apply_native_grants IS"):]
    assert "v.view_name = 'USER_DATA_GRANTS'" in detect
    assert "('CREATE DATA ROLE', 'CREATE DATA GRANT', 'GRANT ANY DATA ROLE')" in detect
