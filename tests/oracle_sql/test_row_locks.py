"""A session locks only rows it may change. ``SELECT ... FOR UPDATE``
reads under the read policy, so a reader through GLOBAL_MEMORIES would lock the shared
memories it may not change; every such lock on the records or relations compares user_id
with what the session may change (``writable_user``), or locks through an UPDATE (under the
write policy)."""

from __future__ import annotations

import re

import pytest

from oracleagentmemory.stores.oracle_sql import render

FILES = {name: re.sub(r"--[^\n]*", "", text) for name, text in render.render_install()}
"""The rendered files without their comments."""
PROTECTED = ("AGENT_MEMORY_RECORDS", "AGENT_MEMORY_RELATIONS", "AGENT_MEMORY_IMAGES")
CHANGEABLE = "(l_all = 1 OR r.user_id = l_writer)"
THREAD_LOCK = "r.record_type = 'thread'"
"""A lock on the thread record a write goes into (lock_thread, append_messages): threads are
never read through GLOBAL_MEMORIES (only memory-like records of no user are), and the write's
end-user check has already refused a thread of another owner, so it needs no filter."""


def locking_statements(text: str) -> list[tuple[str, str]]:
    """(enclosing unit, statement) of every SELECT ... FOR UPDATE of a body."""
    found = []
    for match in re.finditer(r"SELECT\b(?:(?!;).)*?\bFOR UPDATE\s*;", text, re.S):
        unit = re.findall(r"(?:PROCEDURE|FUNCTION) \w+", text[:match.start()])[-1]
        found.append((unit, match.group(0)))
    return found


@pytest.mark.parametrize("name", ["agent_memory_record_api.pkb", "agent_memory_link_graph.pkb"])
def test_row_locks_take_only_changeable_rows(name):
    for unit, statement in locking_statements(FILES[name]):
        if not any(table in statement for table in PROTECTED):
            continue
        assert THREAD_LOCK in statement or CHANGEABLE in statement, (unit, statement)


def test_a_relation_is_locked_under_the_write_policy():
    body = FILES["agent_memory_link_graph.pkb"]
    update_link = body[body.index("FUNCTION update_link"):body.index("END update_link;")]
    assert "FOR UPDATE" not in update_link
    assert re.search(r"UPDATE AGENT_MEMORY_RELATIONS rel\s+SET rel\.relation_type = "
                     r"rel\.relation_type.*?RETURNING", update_link, re.S)


def test_the_session_says_whose_rows_it_may_change():
    spec = FILES["agent_memory_session.pks"]
    assert "FUNCTION writable_user RETURN VARCHAR2;" in spec
