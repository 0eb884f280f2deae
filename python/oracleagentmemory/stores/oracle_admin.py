"""Administration of one Oracle store, apart from its data path: the schema check on
opening and what the schema policy does then, install, upgrade, uninstall, the install
state, and rebuilding the vector index. The owner's work: a session bound to an end user
never installs nor upgrades.

Install creates what is missing (a second run completes a partial install), upgrade moves
an older store to this version (``oracle_sql/migrations.py``: the table steps, then the
packages re-rendered with the store's own recorded choices, then the steps that need them).
Both end with the compile check: python-oracledb reports "created with compilation errors"
as a warning on the cursor (``Cursor.warning``, DPY-7000), not as an exception, so the store's
rows of USER_ERRORS whose ATTRIBUTE is ERROR (PLW- warnings of a DBA's PLSQL_WARNINGS are
not errors; docs/oracle.md, "compile errors on install and upgrade")
and its invalid objects are read afterwards, and the version is recorded only when there
are none.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from oracleagentmemory.stores.errors import SchemaError
from oracleagentmemory.stores.oracle_calls import MissingSchema, OracleCaller, error_code, translate
from oracleagentmemory.stores.oracle_sql.migrations import (
    AfterPackages,
    FillKeywordText,
    Migration,
    after_packages,
    migrations_above,
)
from oracleagentmemory.stores.oracle_sql.render import (
    DEFAULT_DIMENSION,
    DEFAULT_VECTOR_INDEX,
    SCHEMA_VERSION,
    object_names,
    render_install,
    render_uninstall,
)
from oracleagentmemory.stores.oracle_sql.statements import (
    created_object,
    created_objects,
    split_script,
)

SCHEMA_POLICIES = ("REQUIRE_EXISTING", "CREATE_IF_NECESSARY", "CREATE_IF_EMPTY", "RECREATE",
                   "NO_CHECK")
"""What opening does with the store's schema (core/dbschemapolicy.py, by name):
REQUIRE_EXISTING changes nothing; CREATE_IF_NECESSARY installs what is missing and upgrades
an older store; CREATE_IF_EMPTY installs only where nothing of the store exists, and
otherwise requires it complete and current (never upgrades or repairs); RECREATE does what
CREATE_IF_NECESSARY does, then empties the store; NO_CHECK checks nothing."""
_CHANGES_SCHEMA = frozenset({"CREATE_IF_NECESSARY", "RECREATE"})
"""The policies that may upgrade an older store or complete a partial install."""
MINIMUM_RELEASE = 23
_VECTOR_POOL_CODES = frozenset({51950, 51961, 51962, 52307})
"""The vector memory pool cannot be used / is out of space (docs/oracle.md, "default vector
index")."""
_MISSING_GRANT = re.compile(r"PLS-00201: identifier '([\w.$#]+)' must be declared")
SCHEMA_QUERY = ("SELECT SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'), "
                "SYS_CONTEXT('USERENV', 'SESSION_USER') FROM dual")
_OBJECTS_QUERY = ("SELECT object_name, object_type, status FROM all_objects"
                  " WHERE owner = NVL(:owner, SYS_CONTEXT('USERENV', 'CURRENT_SCHEMA'))"
                  " AND object_name LIKE :prefix ESCAPE '\\'")
"""ALL_OBJECTS of the store's owner (schema_owner, else the current schema): the owner sees
every object of the store, a runtime user only what it has privileges on."""
_ERRORS_QUERY = ("SELECT name, type, line, position, text FROM user_errors"
                 " WHERE name LIKE :prefix ESCAPE '\\' AND attribute = 'ERROR'"
                 " ORDER BY name, type, sequence")
"""The store's compile errors; rows whose ATTRIBUTE is WARNING (PLW-) are not failures."""
_VECTOR_COUNT = "SELECT COUNT(*) FROM {t_records} WHERE embedding IS NOT NULL"


@dataclass(frozen=True)
class StoreChoices:
    """The rendering choices a caller gave (None: not chosen; the store's own or the
    default)."""

    dimension: int | None = None
    vector_index: str | None = None
    search_strategy: str | None = None
    sync_mode: str | None = None
    embedding_model: str | None = None

    def given(self) -> dict[str, Any]:
        return {"dimension": self.dimension, "vector_index": self.vector_index,
                "search_strategy": self.search_strategy, "sync_mode": self.sync_mode,
                "embedding_model": self.embedding_model.upper() if self.embedding_model
                else None}


class OracleStoreAdmin:
    """Schema checks, install, upgrade and uninstall of one Oracle store, through its
    caller (``OracleCaller``). ``choices`` are the caller's rendering choices; ``progress``
    hears one line per step."""

    def __init__(self, caller: OracleCaller, choices: StoreChoices = StoreChoices(),
                 progress: Callable[[str], None] | None = None) -> None:
        self._caller = caller
        self._given = choices.given()
        self._progress = progress or (lambda message: None)
        self.facade = caller.facade

    # -- opening -------------------------------------------------------------------------

    def open(self, policy: str) -> None:
        """What opening does with the schema under ``policy`` (``SCHEMA_POLICIES``)."""
        if policy == "NO_CHECK":
            return
        try:
            self.check_schema()
        except (MissingSchema, SchemaError) as problem:
            self._repair_or_raise(policy, problem)
        if policy == "RECREATE":
            self._caller.call("API.RESET_STORE", p_commit=True)

    def check_schema(self) -> None:
        """-20007 unless the store is at this library's version (and dimension, when
        given)."""
        self._caller.call("API.CHECK_SCHEMA", p_dimension=self._given["dimension"],
                          p_version=SCHEMA_VERSION)

    def _may_change_schema(self) -> bool:
        return not self._caller.bound_to_end_user()

    def _repair_or_raise(self, policy: str, problem: Exception) -> None:
        """After a failed schema check: upgrade an older store, install a missing one or
        complete a partial install where the policy allows it; else a SchemaError that says
        which case it is."""
        older = self._older_version()
        if older is not None:
            if policy in _CHANGES_SCHEMA and self._may_change_schema():
                # the store's own choices; a dimension that differs is refused by the check
                self._upgrade(dict.fromkeys(self._given))
                self.check_schema()
                return
            raise SchemaError(
                f"the agent-memory store {self.facade} has schema version {older}; this library "
                f"needs {SCHEMA_VERSION}: upgrade it as the owner (oracleagentmemory upgrade, or "
                f"install/upgrade.sql); {policy} never upgrades") from None
        if isinstance(problem, SchemaError):
            raise problem
        state = self.install_state()
        if state["state"] == "not_visible":
            raise SchemaError(
                f"the agent-memory store {self.facade} is not visible in schema "
                f"{state['schema']}: it is not installed there, or this user lacks "
                f"EXECUTE on {state['schema']}.{self.facade} (install/grants_runtime.sql)"
            ) from None
        if state["state"] == "installed":
            raise SchemaError(
                f"the agent-memory store {self.facade} is installed but cannot be called "
                f"({problem}); check the grants (install/grants_owner.sql) and "
                "SELECT * FROM user_errors"
            ) from None
        creates = policy in _CHANGES_SCHEMA or (
            policy == "CREATE_IF_EMPTY" and state["state"] == "not_installed")
        if not creates or not self._may_change_schema():
            raise SchemaError(_state_message(self.facade, state, policy,
                                             not self._may_change_schema())) from None
        self.install()

    def _older_version(self) -> int | None:
        """The store's recorded schema version when it is older than this library's (the
        owner reads it from the META table; others see no table and get None)."""
        with self._caller.connection() as conn, conn.cursor() as cursor:
            recorded = self._stored_options(cursor).get("schema_version")
        if recorded is None or not str(recorded).isdigit():
            return None
        return int(recorded) if int(recorded) < SCHEMA_VERSION else None

    # -- state ---------------------------------------------------------------------------

    def install_state(self) -> dict[str, Any]:
        """Which objects of this store exist in its owner's schema (``schema_owner``, else
        the current schema), told apart as ``installed``, ``not_installed``,
        ``partly_installed`` (``missing`` and ``invalid`` list them) and ``not_visible``
        (another user's schema shows nothing: not installed there, or no EXECUTE grant)."""
        expected = created_objects(render_install(**self._render_options({})))
        with self._caller.connection() as conn, conn.cursor() as cursor:
            self._caller.execute(cursor, SCHEMA_QUERY, {})
            schema, user = cursor.fetchone() or (None, None)
            schema = self._caller.schema_owner or schema
            present = {key: status for key, status in self._existing_objects(cursor).items()
                       if key in expected}  # not another store whose prefix starts alike
        if schema != user and not present:
            return {"state": "not_visible", "schema": schema, "missing": [], "invalid": []}
        missing = [f"{kind} {name}" for kind, name in expected if (kind, name) not in present]
        invalid = [f"{kind} {name}" for (kind, name), status in sorted(present.items())
                   if status != "VALID"]
        state = ("not_installed" if not present else
                 "installed" if not missing and not invalid else "partly_installed")
        return {"state": state, "schema": schema, "missing": missing, "invalid": invalid}

    def _existing_objects(self, cursor: Any) -> dict[tuple[str, str], str]:
        """(object type, name) -> status of this store's objects in its owner's schema."""
        self._caller.execute(cursor, _OBJECTS_QUERY,
                             {"owner": self._caller.schema_owner,
                              "prefix": self.facade.replace("_", "\\_") + "%"})
        return {(kind, name): status for name, kind, status in cursor.fetchall()}

    def _stored_options(self, cursor: Any) -> dict[str, str | None]:
        """The store's recorded facts (its META rows), or {} when there is no store yet."""
        import oracledb

        table = self._caller.qualified(object_names(self.facade)["t_meta"])
        try:
            cursor.execute(f"SELECT meta_key, meta_value FROM {table}")
        except oracledb.DatabaseError as error:
            if error_code(error) == 942:  # ORA-00942: no such table
                return {}
            raise translate(error) from error
        rows = dict(cursor.fetchall())
        if not rows:
            return {}
        return {"dimension": rows.get("embedding_dimension"),
                **{key: rows.get(key) for key in ("vector_index", "search_strategy",
                                                  "sync_mode", "schema_version",
                                                  "end_user_isolation")},
                "embedding_model": rows.get("embedding_model") or None}

    def _render_options(self, stored: dict[str, str | None],
                        given: dict[str, Any] | None = None) -> dict[str, Any]:
        """Rendering options: the caller's choice (``given``, by default the constructor's),
        else the store's recorded one, else the default."""
        chosen = self._given if given is None else given

        def pick(key: str, default: Any) -> Any:
            if chosen[key] is not None:
                return chosen[key]
            return stored.get(key) or default

        dimension = pick("dimension", DEFAULT_DIMENSION)
        return {"prefix": self.facade, "dimension": int(dimension),
                "vector_index": pick("vector_index", DEFAULT_VECTOR_INDEX),
                "search_strategy": pick("search_strategy", "VECTOR"),
                "sync_mode": pick("sync_mode", "ON_COMMIT"),
                "embedding_model": pick("embedding_model", None)}

    # -- install -------------------------------------------------------------------------

    def _owner_session(self, cursor: Any, action: str) -> None:
        """SchemaError unless the session works in its own schema, the store's owner's."""
        self._caller.execute(cursor, SCHEMA_QUERY, {})
        schema, user = cursor.fetchone() or (None, None)
        if schema != user or self._caller.schema_owner not in (None, user):
            raise SchemaError(f"{action} the store as the owner: this session works in "
                              f"schema {schema} as user {user}")

    def install(self) -> None:
        """Create whatever of this store is missing (needs the owner's privileges).

        Tables and indexes that exist are kept (a second run completes a partial install),
        packages and views are re-created. An HNSW index the database cannot hold (no vector
        memory pool) becomes IVF, with a warning.
        """
        with self._caller.connection() as conn, conn.cursor() as cursor:
            release = cursor.var(int)
            cursor.execute("BEGIN :v := DBMS_DB_VERSION.VERSION; END;", {"v": release})
            if (release.getvalue() or 0) < MINIMUM_RELEASE:
                raise SchemaError(
                    f"agent memory needs Oracle AI Database 23ai or later; this database is "
                    f"release {release.getvalue()}"
                )
            self._owner_session(cursor, "install")
            options = self._render_options(self._stored_options(cursor))
            self._check_model(cursor, options["embedding_model"])
            existing = self._existing_objects(cursor)
            vector_index = object_names(self.facade)["ix_vector"]
            fell_back = False
            warned: list[str] = []
            for name, text in render_install(**options):
                self._progress(f"running {name}")
                for statement in split_script(text):
                    created = created_object(statement)
                    if created in existing and created[0] in ("TABLE", "INDEX", "TYPE"):
                        self._progress(f"  kept {created[0]} {created[1]}")
                        continue
                    if created == ("INDEX", vector_index) and options["vector_index"] == "HNSW":
                        fell_back = self._create_hnsw(cursor, statement, options)
                    else:
                        self._run(cursor, statement, warned)
            if fell_back:
                cursor.execute(f"UPDATE {object_names(self.facade)['t_meta']} SET meta_value = "
                               "'IVF' WHERE meta_key = 'vector_index'")
                conn.commit()
            self._assert_compiled(cursor, warned, render_install(**options))
            isolation = self._stored_options(cursor).get("end_user_isolation")
        if isolation == "UNAVAILABLE":
            warnings.warn(
                "end-user isolation is not available in this database edition (DBMS_RLS "
                "is Enterprise Edition only): the store works for its owner and trusted "
                "services, and refuses to bind an end user", UserWarning, stacklevel=3)
        if not self._caller.call_function("API.ENSURE_PURGE_JOB"):
            warnings.warn(
                "the purge job was not created (no CREATE JOB privilege): expired records "
                "stay hidden but are not removed until a privileged user creates the job",
                UserWarning, stacklevel=3,
            )

    def _check_model(self, cursor: Any, model: str | None) -> None:
        if not model:
            return
        cursor.execute("SELECT COUNT(*) FROM user_mining_models WHERE model_name = :m",
                       {"m": model})
        if not cursor.fetchone()[0]:
            raise SchemaError(
                f"the embedding model {model} is not loaded in this schema; "
                "load it first with install/load_onnx_model.sql"
            )

    def _run(self, cursor: Any, statement: str, warned: list[str]) -> None:
        """Execute one install or upgrade statement; a compilation warning on the cursor
        names the unit for the compile check."""
        self._caller.execute(cursor, statement, {})
        warning = getattr(cursor, "warning", None)
        if warning is not None:
            created = created_object(statement)
            warned.append(" ".join(created) if created else statement.split("\n")[0][:80])
            self._progress(f"  {warning}")

    def _assert_compiled(self, cursor: Any, warned: list[str],
                         scripts: list[tuple[str, str]]) -> None:
        """SchemaError naming the compile errors and invalid objects of the store, if any
        (warnings alone, ATTRIBUTE 'WARNING', are not errors). Only this store's objects
        count (``scripts`` create them), not another store whose prefix starts alike."""
        ours = created_objects(scripts)
        names = {name for _, name in ours}
        prefix = self.facade.replace("_", "\\_") + "%"
        self._caller.execute(cursor, _ERRORS_QUERY, {"prefix": prefix})
        errors = [row for row in cursor.fetchall() if row[0] in names]
        invalid = sorted(f"{kind} {name}" for (kind, name), status
                         in self._existing_objects(cursor).items()
                         if status != "VALID" and (kind, name) in ours)
        if errors or invalid:
            raise SchemaError(_compile_message(errors, invalid, warned))

    def _create_hnsw(self, cursor: Any, statement: str, options: dict[str, Any]) -> bool:
        """Create the HNSW index; where the vector memory pool is missing or full, create
        the IVF one instead and warn. True when it fell back."""
        import oracledb

        try:
            cursor.execute(statement)
            return False
        except oracledb.DatabaseError as error:
            code = error_code(error)
            if code not in _VECTOR_POOL_CODES:
                raise translate(error) from error
        warnings.warn(
            f"HNSW needs the vector memory pool (ORA-{code:05d}; set VECTOR_MEMORY_SIZE, "
            "docs/oracle.md): the store uses an IVF vector index instead",
            UserWarning, stacklevel=5)
        ivf = dict(render_install(**{**options, "vector_index": "IVF"}))
        index = object_names(self.facade)["ix_vector"]
        for ivf_statement in split_script(ivf[f"{self.facade.lower()}_indexes.sql"]):
            if created_object(ivf_statement) == ("INDEX", index):
                self._caller.execute(cursor, ivf_statement, {})
        return True

    def rebuild_vector_index(self) -> bool:
        """Rebuild the vector index (IVF computes its centroids from the rows present when
        it is built: do it after the first bulk load). With no vector stored yet it defers
        and returns False: a rebuild with 0 vectors fails (DIA-51875)."""
        names = object_names(self.facade)
        with self._caller.connection() as conn, conn.cursor() as cursor:
            self._owner_session(cursor, "rebuild the vector index of")
            self._caller.execute(cursor, _VECTOR_COUNT.format(**names), {})
            vectors = (cursor.fetchone() or (0,))[0]
            if not vectors:
                self._progress(f"{names['ix_vector']}: no vector stored yet, rebuild deferred")
                return False
            self._progress(f"rebuilding {names['ix_vector']} over {vectors} vector(s)")
            self._caller.execute(cursor, f"ALTER INDEX {names['ix_vector']} REBUILD ONLINE", {})
        return True

    # -- upgrade -------------------------------------------------------------------------

    def upgrade(self) -> None:
        """Move the store to this library's schema version: the migrations above the
        store's (``oracle_sql/migrations.py``): their table steps, then the collection types
        and packages re-created (CREATE OR REPLACE keeps grants) with the store's own
        dimension, model, strategy, index and sync choices, then their steps that need the
        packages, then the compile check, then the new version recorded.

        The choices come from the store's META rows, not from the arguments: an argument
        that names another value is refused. A store newer than this library is refused.
        """
        self._upgrade(self._given)

    def _upgrade(self, given: dict[str, Any]) -> None:
        """``upgrade`` refusing the choices of ``given`` that differ from the store's (None:
        not chosen)."""
        with self._caller.connection() as conn, conn.cursor() as cursor:
            self._caller.execute(cursor, SCHEMA_QUERY, {})
            _, user = cursor.fetchone() or (None, None)
            if self._caller.schema_owner not in (None, user):
                raise SchemaError(f"upgrade the store as its owner {self._caller.schema_owner}:"
                                  f" this session is user {user}")
            stored = self._stored_options(cursor)
            if not stored:
                raise SchemaError(f"no agent-memory store {self.facade} here; install it first")
            self._refuse_other_choices(stored, given)
            installed = int(stored.get("schema_version") or 0)
            if installed > SCHEMA_VERSION:
                raise SchemaError(f"the store {self.facade} has schema version {installed}, "
                                  f"newer than this library ({SCHEMA_VERSION})")
            migrations = migrations_above(installed)
            for migration in migrations:
                self._table_steps(cursor, migration)
            rendered = dict(render_install(**self._render_options(stored, given)))
            warned: list[str] = []
            for name, text in rendered.items():
                if name.endswith(("_types.sql", ".pks", ".pkb", "_isolation.sql")):
                    self._progress(f"running {name}")
                    for statement in split_script(text):
                        self._run(cursor, statement, warned)
            self._assert_compiled(cursor, warned, list(rendered.items()))
        for version, step in after_packages(migrations):
            self._after_package(version, step, rendered)
        self._caller.call("API.SET_SCHEMA_VERSION", p_version=SCHEMA_VERSION)

    def _refuse_other_choices(self, stored: dict[str, str | None],
                              given: dict[str, Any]) -> None:
        for key, value in given.items():
            recorded = stored.get(key)
            if value is not None and str(value) != str(recorded):
                raise SchemaError(
                    f"the store {self.facade} was installed with {key} {recorded}, not "
                    f"{value}: upgrade keeps the store's own choices (leave the option "
                    "out, or uninstall and install to change it)")

    def _table_steps(self, cursor: Any, migration: Migration) -> None:
        """One migration's table steps, in order; a step whose tolerated code comes back
        ran before."""
        import oracledb

        names = object_names(self.facade)
        for step in migration.table_steps:
            statement = step.statement(names)
            self._progress(f"version {migration.version}: {statement}")
            try:
                cursor.execute(statement)
            except oracledb.DatabaseError as error:
                if error_code(error) not in step.tolerated:
                    raise translate(error) from error

    def _after_package(self, version: int, step: AfterPackages,
                       rendered: dict[str, str]) -> None:
        """One step that needs the re-created packages (``after_packages``: each once)."""
        if isinstance(step, FillKeywordText):
            filled = self._caller.call_function("API.FILL_KEYWORD_TEXT", p_batch=step.batch)
            self._progress(f"version {version}: keyword text of {filled} record(s)")
            return
        names = object_names(self.facade)
        wanted = {names[key] for key in step.objects}
        script = rendered[f"{self.facade.lower()}_indexes.sql"]
        with self._caller.connection() as conn, conn.cursor() as cursor:
            for statement in split_script(script):
                created = created_object(statement)
                if created is not None and created[1] in wanted:
                    self._progress(f"version {version}: {created[0]} {created[1]}")
                    self._caller.execute(cursor, statement, {})

    def uninstall(self) -> None:
        """Drop every object of this store: purge job, packages, indexes and tables (as the
        owner; a partly installed store or one of an older version too)."""
        name, text = render_uninstall(self.facade)
        self._progress(f"running {name}")
        with self._caller.connection() as conn, conn.cursor() as cursor:
            self._owner_session(cursor, "uninstall")
            for statement in split_script(text):
                self._caller.execute(cursor, statement, {})


def _state_message(facade: str, state: dict[str, Any], policy: str, bound: bool) -> str:
    if state["state"] == "not_installed":
        what = f"the agent-memory store {facade} is not installed"
    else:
        gaps = ", ".join(state["missing"] + [f"{item} (invalid)" for item in state["invalid"]])
        what = (f"the agent-memory store {facade} is partly installed (missing: {gaps}); "
                "install it again as the owner to complete it")
    if bound:
        return (f"{what}, and a store bound to an end user does not install: install as the "
                "owner, then open it with REQUIRE_EXISTING")
    return f"{what} ({policy})"


def _compile_message(errors: list[tuple], invalid: list[str], warned: list[str]) -> str:
    """Compile errors and invalid objects of the store; an identifier the owner may not see
    is a missing grant (install/grants_owner.sql)."""
    grants = sorted({match.group(1) for *_, text in errors
                     for match in [_MISSING_GRANT.search(text)] if match})
    parts = [f"{name} {kind} {line}:{position} {text.strip()}"
             for name, kind, line, position, text in errors[:10]]
    message = "the store's packages did not compile: " + "; ".join(parts or invalid)
    if errors and invalid:
        message += f" (invalid: {', '.join(invalid)})"
    if warned:
        message += f" (created with compilation errors: {', '.join(warned[:10])})"
    if grants:
        message += (f". Missing grant: the owner needs EXECUTE on {', '.join(grants)} "
                    "(install/grants_owner.sql)")
    return message
