"""The Oracle store's migrations: one list, from which both the Python upgrade
(``OracleStoreAdmin.upgrade``) and the DBA script ``install/upgrade.sql`` come.

An upgrade from schema version N runs, for every migration above N in order, its table
steps (DDL on the store's tables, before the packages are re-created), then re-creates the
collection types, packages and isolation script with the store's own choices, then, for
every migration above N, its steps that need the new packages, and records the version.

A table step is DDL with ``{name}`` placeholders filled from ``render.object_names``; the
ORA codes it tolerates mean "this step ran already" (an interrupted upgrade runs again).
A step after the packages is either the facade's ``fill_keyword_text`` or objects of the
store's own indexes script (its lexer preference block and the guarded text index block),
run exactly as an install runs them.

The embedded backend keeps its own list (``stores/embedded/schema.py``, ``MIGRATIONS``).
"""

from __future__ import annotations

from dataclasses import dataclass

from oracleagentmemory._vocabulary import PRINCIPAL_KINDS, SECURITY_POLICIES
from oracleagentmemory.stores.oracle_sql.render import sql_in

ALREADY_NULLABLE = 1451
"""ORA-01451 "column to be modified to NULL cannot be modified to NULL": the version 2 step
ran already (docs/oracle.md, "Pages the code rests on": migration steps; the first-contact
kit runs the upgrade)."""
COLUMN_EXISTS = 1430
"""ORA-01430 "column being added already exists in table": the version 4 column is there."""
KEYWORD_FILL_BATCH = 1000
"""Records per committed batch when version 4 fills keyword_text."""


@dataclass(frozen=True)
class TableStep:
    """DDL on the store's tables, run before the packages are re-created."""

    ddl: str
    """The statement, ``{t_records}``-style placeholders for the store's object names."""
    tolerated: frozenset[int] = frozenset()
    """ORA codes meaning the step ran before."""

    def statement(self, names: dict[str, str]) -> str:
        return self.ddl.format(**names)


@dataclass(frozen=True)
class FillKeywordText:
    """The facade's ``fill_keyword_text`` (committed batches), once the packages exist."""

    batch: int = KEYWORD_FILL_BATCH


@dataclass(frozen=True)
class IndexScriptObjects:
    """The statements of the store's indexes script that create these objects (keys of
    ``render.object_names``), run as an install runs them: each creates its object only
    when it is missing."""

    objects: tuple[str, ...]


AfterPackages = FillKeywordText | IndexScriptObjects


@dataclass(frozen=True)
class Migration:
    """What moves a store from ``version - 1`` to ``version``."""

    version: int
    summary: str
    table_steps: tuple[TableStep, ...] = ()
    after_packages: tuple[AfterPackages, ...] = ()


_SECURITY_POLICY_NAMES = sql_in(tuple(name.upper() for name in SECURITY_POLICIES))
_PRINCIPAL_KIND_NAMES = sql_in(tuple(kind.upper() for kind in PRINCIPAL_KINDS))

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        2, "relations.thread_id may be NULL (client-level links)",
        table_steps=(TableStep("ALTER TABLE {t_relations} MODIFY (thread_id NULL)",
                               frozenset({ALREADY_NULLABLE})),)),
    Migration(
        3, "deep data security: the registered policies and the grants",
        # the statements of sql/templates/tables.sql.j2 (IF NOT EXISTS: a step that ran
        # before changes nothing; tests/oracle_store/test_deep_security_admin.py compares)
        table_steps=(
            TableStep(
                "CREATE TABLE IF NOT EXISTS {t_sec_policies} (policy_name VARCHAR2(30 CHAR) "
                "NOT NULL, created_at TIMESTAMP(6) NOT NULL, "
                "CONSTRAINT {t_sec_policies}_PK PRIMARY KEY (policy_name), "
                "CONSTRAINT {t_sec_policies}_NAME_CK CHECK (policy_name IN ("
                f"{_SECURITY_POLICY_NAMES})))"),
            TableStep(
                "CREATE TABLE IF NOT EXISTS {t_sec_grants} (principal_kind VARCHAR2(16 CHAR) "
                "NOT NULL, principal_name VARCHAR2(512 CHAR) NOT NULL, policy_name "
                "VARCHAR2(30 CHAR) NOT NULL, created_at TIMESTAMP(6) NOT NULL, "
                "CONSTRAINT {t_sec_grants}_PK PRIMARY KEY (principal_kind, principal_name, "
                "policy_name), CONSTRAINT {t_sec_grants}_KIND_CK CHECK (principal_kind IN ("
                f"{_PRINCIPAL_KIND_NAMES})), "
                "CONSTRAINT {t_sec_grants}_POLICY_FK FOREIGN KEY (policy_name) "
                "REFERENCES {t_sec_policies} (policy_name) ON DELETE CASCADE)"),
            TableStep("CREATE INDEX IF NOT EXISTS {t_sec_grants}_POLICY_IX ON {t_sec_grants} "
                      "(policy_name)"),
        )),
    Migration(
        4, "records.keyword_text (Han and Hangul as character bigrams) and the text index "
           "over it with the store's BASIC_LEXER",
        table_steps=(
            TableStep("ALTER TABLE {t_records} ADD (keyword_text CLOB)",
                      frozenset({COLUMN_EXISTS})),
            TableStep("DROP INDEX IF EXISTS {ix_text} FORCE"),
        ),
        after_packages=(FillKeywordText(), IndexScriptObjects(("text_lexer", "ix_text")))),
    Migration(
        5, "keyword_text cut again (NFKC, single Han and Hangul characters, Han apart from "
           "Hangul, Han beyond the Basic Multilingual Plane): emptied, then filled by the "
           "new packages; the new packages also record the model of the store's vectors "
           "(record_embedding_model, META key vector_model; no table step: a store that "
           "holds vectors and records no model is read as one of all-MiniLM-L6-v2)",
        table_steps=(TableStep(
            "UPDATE {t_records} SET keyword_text = NULL WHERE keyword_text IS NOT NULL"),),
        after_packages=(FillKeywordText(), IndexScriptObjects(("text_lexer", "ix_text")))),
)


def after_packages(migrations: tuple[Migration, ...]) -> list[tuple[int, AfterPackages]]:
    """The steps after the packages of ``migrations``, each once, as (version, step): the
    keyword text filled once (under the last version that fills it: a store below it needs
    the fill), then every object of the indexes script that any of them makes."""
    fills: list[tuple[int, AfterPackages]] = [
        (m.version, step) for m in migrations for step in m.after_packages
        if isinstance(step, FillKeywordText)]
    objects = tuple(dict.fromkeys(key for m in migrations for step in m.after_packages
                                  if isinstance(step, IndexScriptObjects)
                                  for key in step.objects))
    steps: list[tuple[int, AfterPackages]] = fills[-1:]
    if objects:
        last = max(m.version for m in migrations if any(
            isinstance(step, IndexScriptObjects) for step in m.after_packages))
        steps.append((last, IndexScriptObjects(objects)))
    return steps


def migrations_above(version: int) -> tuple[Migration, ...]:
    """The migrations a store at ``version`` needs, in order."""
    return tuple(migration for migration in MIGRATIONS if migration.version > version)
