"""``install/upgrade.sql``, rendered from the migration list (``migrations.py``) so that the
DBA script and the Python upgrade run the same steps; tests/oracle_sql checks the committed
file is current."""

from __future__ import annotations

from pathlib import Path

from oracleagentmemory.stores.oracle_sql import render
from oracleagentmemory.stores.oracle_sql.migrations import (
    ALREADY_NULLABLE,
    COLUMN_EXISTS,
    MIGRATIONS,
    FillKeywordText,
    IndexScriptObjects,
    Migration,
    after_packages,
)
from oracleagentmemory.stores.oracle_sql.statements import created_object, split_script

UPGRADE_TEMPLATE = "upgrade.sql.j2"
UPGRADE_SCRIPT = "upgrade.sql"
"""The rendered script's name in install/."""
_TOLERATED_WHY = {ALREADY_NULLABLE: "ORA-01451: already nullable, the step ran",
                  COLUMN_EXISTS: "ORA-01430: the column exists, the step ran"}


def _table_steps(migration: Migration, names: dict[str, str]) -> list[dict[str, str]]:
    """Each table step as a PL/SQL string literal and the SQLCODEs it tolerates."""
    return [{"literal": step.statement(names).replace("'", "''"),
             "tolerated": ", ".join(f"-{code}" for code in sorted(step.tolerated)),
             "tolerated_why": "; ".join(_TOLERATED_WHY[code] for code in sorted(step.tolerated))}
            for step in migration.table_steps]


def _after_packages(names: dict[str, str], indexes: str) -> list[str]:
    """The steps that need the new packages (``after_packages``: each once) as script
    units ending in '/'; the fill runs only for a store below its version."""
    units = []
    for version, step in after_packages(MIGRATIONS):
        if isinstance(step, FillKeywordText):
            units.append(
                "DECLARE\n  l_current NUMBER;\n  l_filled NUMBER;\nBEGIN\n"
                f"  SELECT TO_NUMBER(MIN(meta_value)) INTO l_current FROM {names['t_meta'].lower()}"
                "\n   WHERE meta_key = 'schema_version';\n"
                f"  IF l_current < {version} THEN\n"
                f"    l_filled := {names['facade']}.fill_keyword_text(p_batch => {step.batch});\n"
                "    DBMS_OUTPUT.PUT_LINE('keyword text set for ' || l_filled || ' record(s)');\n"
                "  END IF;\nEND;\n/")
        elif isinstance(step, IndexScriptObjects):
            wanted = {names[key] for key in step.objects}
            units += [statement + "\n/" for statement in split_script(indexes)
                      if (created := created_object(statement)) and created[1] in wanted]
    return units


def render_upgrade_script(prefix: str = render.DEFAULT_PREFIX) -> tuple[str, str]:
    """(file name, SQL text) of the upgrade script of the default rendering of a store."""
    options = render.validate_options(prefix)
    names = render.object_names(options.prefix)
    indexes = dict(render.render_install(prefix))[f"{options.prefix.lower()}_indexes.sql"]
    migrations = [{"version": m.version, "what": m.summary,
                   "steps": _table_steps(m, names)} for m in MIGRATIONS]
    context = {**render._context(options), "migrations": migrations,
               "after": _after_packages(names, indexes), "target": render.SCHEMA_VERSION}
    text = render._environment().get_template(UPGRADE_TEMPLATE).render(context)
    return UPGRADE_SCRIPT, text


def write_upgrade_script(install_dir: Path) -> Path:
    """Write install/upgrade.sql (the default store's)."""
    name, text = render_upgrade_script()
    path = install_dir / name
    path.write_text(text, encoding="utf-8")
    return path
