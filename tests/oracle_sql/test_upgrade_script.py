"""install/upgrade.sql comes from the migration list: the committed file
is the current rendering, and every table step of every migration is in it."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory.stores.oracle_sql.migrations import MIGRATIONS
from oracleagentmemory.stores.oracle_sql.render import SCHEMA_VERSION, object_names
from oracleagentmemory.stores.oracle_sql.upgrade_script import render_upgrade_script

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_upgrade_script_is_current():
    name, text = render_upgrade_script()
    committed = (ROOT / "install" / name).read_text(encoding="utf-8")
    assert committed == text, ("install/upgrade.sql is stale: run "
                               "python -m oracleagentmemory.stores.oracle_sql")


def test_every_step_of_the_list_is_in_the_script_under_its_version():
    _, text = render_upgrade_script()
    names = object_names("AGENT_MEMORY")
    assert f"c_target CONSTANT PLS_INTEGER := {SCHEMA_VERSION};" in text
    assert f"AGENT_MEMORY.set_schema_version(p_version => {SCHEMA_VERSION});" in text
    for migration in MIGRATIONS:
        guard = text.index(f"IF l_current < {migration.version} THEN")
        for step in migration.table_steps:
            literal = step.statement(names).replace("'", "''")
            assert text.index(f"EXECUTE IMMEDIATE '{literal}';") > guard
            for code in step.tolerated:
                assert f"-{code}" in text
    # version 4 fills the keyword text after the packages, then creates the text index
    assert text.index("@@packages.sql") < text.index("fill_keyword_text(p_batch => 1000)") \
        < text.index("'CREATE INDEX AGENT_MEMORY_RECORDS_TIX")
