"""Refresh the committed renderings: ``python -m oracleagentmemory.stores.oracle_sql`` writes
the default store's files to sql/ and install/upgrade.sql from the migration list (the
tests check both are current)."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory.stores.oracle_sql.render import write_rendered
from oracleagentmemory.stores.oracle_sql.upgrade_script import write_upgrade_script

if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    repository = Path(__file__).resolve().parents[4]
    for written_path in write_rendered(repository / "sql"):
        print(written_path)
    print(write_upgrade_script(repository / "install"))
