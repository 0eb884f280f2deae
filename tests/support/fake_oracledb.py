"""Recording stand-ins for python-oracledb connections, pools and cursors that return what
the real driver returns.

They answer PL/SQL blocks by the facade member they call (``answers`` maps member name to
the value the PL/SQL returned, or to an exception to raise) and log every statement with
its bind values as the database would receive them, so tests can check what the Oracle
store sends without a database.

The double is deliberately not kinder than the driver (ARCHITECTURE.md section 4). Each
mapping below follows the python-oracledb 26.1 documentation or source:

* JSON values (``DB_TYPE_JSON`` IN and OUT binds) travel as OSON. Python ``int``,
  ``float`` and ``Decimal`` become JSON NUMBER, and a NUMBER comes back as
  ``decimal.Decimal``; null/true/false/str/list/dict map to None/True/False/str/list/dict;
  a CLOB inside JSON comes back as ``str``. Anything else (a numpy scalar, a set, a
  non-str key) is refused with DPY-3003 "Python type ... is not supported".
  https://python-oracledb.readthedocs.io/en/stable/user_guide/json_data_type.html
  ("IN Bind Type Mapping", "Query and OUT Bind Type Mapping"); the encoder is
  ``OsonTreeSegment.encode_node`` in src/oracledb/impl/base/oson.pyx. It is Cython
  (``cdef``) and cannot be called without a server connection, so the round trip is
  re-stated here: a number goes through ``str()`` into an Oracle NUMBER, which keeps no
  trailing zeros.
* CLOB / BLOB values arrive as LOB objects, read with ``.read()`` ("Using CLOB, BLOB,
  NCLOB and BFILE Data", https://python-oracledb.readthedocs.io/en/stable/user_guide/lob_data.html).
* ``DB_TYPE_VECTOR`` values come back as ``array.array`` ("Using VECTOR Data",
  https://python-oracledb.readthedocs.io/en/stable/user_guide/vector_data_type.html).
* A NUMBER OUT bind of ``cursor.var(int)`` is ``int`` when integral, else ``float``; one of
  ``cursor.var(oracledb.DB_TYPE_NUMBER)`` is always ``float`` (the variable's default
  number type, ``NUM_TYPE_FLOAT``; only ``int``, ``float`` and ``Decimal`` given as the type
  choose another: ``BaseVarImpl._set_type_info_from_type`` in src/oracledb/impl/base/var.pyx).
* A Python number in a JSON value is written with ``str()`` as an Oracle NUMBER, not a
  BINARY_DOUBLE (``OsonTreeSegment.encode_node``): more than 40 significant digits or a
  magnitude outside 1e-130 .. 1e126 is DPY-4003 (``Buffer.write_oracle_number``, buffer.pyx),
  raised by ``execute`` in thin mode, where a JSON variable is encoded.
* ORA errors are raised as the driver raises them: ``errors._Error(message, code=...)``
  decides the class (``IntegrityError`` for ORA-00001, ``DatabaseError`` otherwise) and
  ``.full_code``, and thin mode appends a "Help:" line to messages of codes outside
  20000-20999 ("Catching Exceptions",
  https://python-oracledb.readthedocs.io/en/latest/user_guide/exception_handling.html).
* Named binds must match the statement's placeholders, as the thin driver checks before
  anything is sent: a bind name with no placeholder is DPY-4008 "no bind placeholder named
  ... was found in the SQL text" (https://github.com/oracle/python-oracledb/issues/105) and a
  placeholder without a value DPY-4010 (``errors.ERR_INVALID_BIND_NAME`` /
  ``ERR_MISSING_BIND_VALUE``); placeholders inside comments, string literals and quoted
  identifiers do not count (https://github.com/oracle/python-oracledb/issues/208), nor does
  the PL/SQL ``:=``. DDL (which takes no binds) is not scanned.
* Creating a PL/SQL unit that does not compile is not an exception: the object is created
  INVALID and the driver sets ``Cursor.warning`` to a DPY-7000 "creation succeeded with
  compilation errors" warning (``errors._create_warning(errors.WRN_COMPILATION_ERROR)``),
  cleared by the next ``execute`` (python-oracledb 26.1 ``Cursor.warning``,
  https://python-oracledb.readthedocs.io/en/stable/api_manual/cursor.html; the server's
  ORA-24344 maps to it in ``errors.py``). Here a unit compiles with errors when
  ``connection.errors`` holds ERROR rows for it; USER_ERRORS rows are (name, type, line,
  position, text[, attribute]) with ATTRIBUTE ERROR unless given as WARNING (PLW- rows of
  PLSQL_WARNINGS), and a query filtering ``attribute = 'ERROR'`` sees only errors (ALL_ERRORS,
  https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/ALL_ERRORS.html).
* A zero-length character value is NULL in Oracle ("Nulls", SQL Language Reference,
  https://docs.oracle.com/cd/B19306_01/server.102/b14200/sql_elements005.htm): a META row
  written as ``''`` reads back as None.
* The database is one with the default ``MAX_STRING_SIZE = STANDARD``, where a VARCHAR2 in
  SQL holds at most 4000 bytes (https://docs.oracle.com/database/122/REFRN/MAX_STRING_SIZE.htm):
  a ``str`` bound into a SQL statement (not a PL/SQL block) of more than 4000 bytes fails
  with ORA-01461 (https://docs.oracle.com/error-help/db/ora-01461; python-oracledb binds a
  ``str`` as VARCHAR unless ``setinputsizes`` says otherwise,
  https://github.com/oracle/python-oracledb/issues/467), and a JSON_TABLE column declared
  longer than that is ORA-00910. A JSON_TABLE value too long for its column is NULL (SQL/JSON
  functions return NULL rather than raise by default,
  https://docs.oracle.com/en/database/oracle/oracle-database/26/adjsn/error-clause-sql-query-functions-and-conditions.html),
  and ``VECTOR_EMBEDDING`` of NULL is NULL; otherwise the in-database model answers
  ``array.array`` vectors ``[len(text), 1, 1, ...]``.
"""

from __future__ import annotations

import array
import datetime
import decimal
import json
import re
from decimal import Decimal

import oracledb
from oracledb import errors as driver_errors

_CALL = re.compile(r"\b(\w+)\.(\w+)\s*[(;]")
_RESULT_CALL = re.compile(r":result\s*:=\s*(?:\w+\.)?\w+\.(\w+)\s*[(;]")
"""The member a block assigns to :result: PACKAGE.MEMBER or OWNER.PACKAGE.MEMBER."""
_CREATE = re.compile(r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:VECTOR\s+)?"
                     r"(TABLE|INDEX|VIEW|PACKAGE\s+BODY|PACKAGE|TYPE)\s+"
                     r"(?:IF\s+NOT\s+EXISTS\s+)?(\w+)",
                     re.IGNORECASE)
_DYNAMIC_DDL = re.compile(r"EXECUTE\s+IMMEDIATE\s+'((?:CREATE|DROP)\b(?:[^']|'')*)'",
                          re.IGNORECASE)
"""Constant DDL a PL/SQL block runs (the guarded index blocks of the install scripts)."""
_DROP = re.compile(r"\s*DROP\s+(TABLE|INDEX|VIEW|PACKAGE|TYPE)\s+(?:IF\s+EXISTS\s+)?(\w+)",
                   re.IGNORECASE)
_META_ROW = re.compile(r"SELECT '(\w+)'(?: AS k)?, '([^']*)'")
_META_UPDATE = re.compile(r"\s*UPDATE \w+_META SET meta_value = '([^']*)' WHERE meta_key = '(\w+)'")
_TEXT_COLUMN = re.compile(r"\btxt VARCHAR2\((\d+)(?:\s+(BYTE|CHAR))?\)", re.IGNORECASE)
MAX_JSON_BYTES = 32 * 1024 * 1024
"""The largest JSON type instance (OSON), 32 MB."""
MAX_OSON_FIELD_NAME_BYTES = 65535
"""The longest JSON field name (UTF-8 bytes) the driver encodes: 65535 in thin mode with a
23ai server (``_oson_max_fname_size``, set from the server's compile capabilities), else
255 (thick mode with Oracle Client libraries older than 23); a longer one is DPY-3020
(``OsonFieldName.create`` in src/oracledb/impl/base/oson.pyx)."""
MAX_SQL_VARCHAR2_BYTES = 4000
"""A VARCHAR2 in SQL with MAX_STRING_SIZE = STANDARD (the database default)."""
_NOT_PLACEHOLDERS = re.compile(
    r"--[^\n]*|/\*.*?\*/"                                    # comments
    r"|[nN]?[qQ]'(?:\[.*?\]|\{.*?\}|\(.*?\)|<.*?>|(.).*?\1)'"  # q'[...]' literals
    r"|'(?:[^']|'')*'|\"[^\"]*\"",                              # literals, quoted names
    re.S)
_PLACEHOLDER = re.compile(r"(?<![\w:]):([A-Za-z]\w*|\d+)")
_BINDING = re.compile(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE|MERGE|BEGIN|DECLARE|CALL)\b",
                      re.IGNORECASE)
"""Statements whose placeholders the driver binds (queries, DML, PL/SQL blocks)."""
_QUERY = re.compile(r"\s*(SELECT|WITH)\b", re.IGNORECASE)


def database_error(code: int, message: str) -> Exception:
    """The exception python-oracledb raises for ``ORA-<code>: message``."""
    error = driver_errors._Error(message=f"ORA-{code:05d}: {message}", code=code)
    return error.exc_type(error)


def through_oson(value):
    """``value`` after a trip through OSON: what the database stores for a JSON IN bind and
    what the driver returns for a JSON OUT bind or column."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return value
    if isinstance(value, (int, float, Decimal)):
        return _oracle_number(value)
    if isinstance(value, (datetime.date, datetime.timedelta)):
        return value
    if isinstance(value, (list, tuple)):
        return [through_oson(item) for item in value]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError("dictionary keys of a JSON value must be str")
        if any(len(key.encode("utf-8")) > MAX_OSON_FIELD_NAME_BYTES for key in value):
            raise _driver_error("ERR_OSON_FIELD_NAME_LIMITATION",
                                max_fname_size=MAX_OSON_FIELD_NAME_BYTES)
        return {key: through_oson(item) for key, item in value.items()}
    error = driver_errors._create_err(driver_errors.ERR_PYTHON_TYPE_NOT_SUPPORTED,
                                      typ=type(value).__name__)
    raise error.exc_type(error)


NUMBER_AS_TEXT_CHARS = 172
NUMBER_MAX_DIGITS = 40
"""python-oracledb's limits when it writes a number as an Oracle NUMBER
(``Buffer.write_oracle_number`` in src/oracledb/impl/base/buffer.pyx)."""


_EXACT = decimal.Context(prec=NUMBER_AS_TEXT_CHARS)
"""Enough precision that normalize() only strips zeros (the default context rounds to 28
digits, where an Oracle NUMBER keeps 40)."""


def _driver_error(code: str, **arguments) -> Exception:
    error = driver_errors._create_err(getattr(driver_errors, code), **arguments)
    return error.exc_type(error)


def _oracle_number(value) -> Decimal:
    """An Oracle NUMBER read back as Decimal: str() of the value, no trailing zeros (NUMBER
    keeps no scale). The driver writes ``str(value)`` with ``write_oracle_number``
    (src/oracledb/impl/base/buffer.pyx), which refuses a text over 172 characters
    (DPY-4014), a text that is no number, NaN and infinity included (DPY-4004), and a value
    of more than 40 significant digits or outside 1e-130 .. 1e126 (DPY-4003 "value cannot
    be represented as an Oracle number")."""
    text = str(value)
    if len(text) > NUMBER_AS_TEXT_CHARS:
        raise _driver_error("ERR_NUMBER_STRING_TOO_LONG")
    number = Decimal(text)
    if not number.is_finite():
        raise _driver_error("ERR_INVALID_NUMBER")
    number = number.normalize(_EXACT)
    if number:
        _, digits, exponent = number.as_tuple()
        decimal_point_index = len(digits) + exponent
        if len(digits) > NUMBER_MAX_DIGITS or not -129 <= decimal_point_index <= 126:
            raise _driver_error("ERR_ORACLE_NUMBER_NO_REPR")
    if number == number.to_integral_value():
        return Decimal(int(number))
    return number


class FakeLob:
    """A LOB locator: the value is read with ``read()`` (str for CLOB, bytes for BLOB)."""

    def __init__(self, value) -> None:
        self._value = value

    def read(self, offset: int = 1, amount: int | None = None):
        end = None if amount is None else offset - 1 + amount
        return self._value[offset - 1:end]

    def size(self) -> int:
        return len(self._value)


class FakeVar:
    """``cursor.var(kind)``: IN values are stored as the database receives them, OUT
    values are returned as the driver maps them."""

    def __init__(self, kind) -> None:
        self.kind, self.value = kind, None
        self._unsent = False

    def setvalue(self, _position, value) -> None:
        """The thin driver accepts any value for a JSON variable here
        (``BaseConnImpl._check_value`` returns it as it is) and encodes it as OSON only
        when the statement is executed, so a value OSON cannot hold fails in ``execute``."""
        self.value = value
        self._unsent = self.kind is oracledb.DB_TYPE_JSON

    def encode(self) -> None:
        """What ``execute`` does with the value before it is sent: OSON for JSON."""
        if self._unsent:
            self.value, self._unsent = through_oson(self.value), False

    def set_result(self, value) -> None:
        """What the PL/SQL assigned to this OUT bind, in the driver's Python type. A JSON
        result larger than a JSON type instance may be (32 MB) is ORA-40604 in the
        database (JSON Capabilities Specification,
        https://docs.oracle.com/en/database/oracle/oracle-database/23/adjsn/oracle-database-json-capabilities-specification.html)."""
        if value is None or isinstance(value, Exception):
            self.value = None
        elif self.kind is oracledb.DB_TYPE_JSON:
            if len(json.dumps(value, default=str).encode("utf-8")) > MAX_JSON_BYTES:
                raise database_error(40604, "exceeded maximum size for a JSON data type "
                                            "object")
            self.value = through_oson(value)
        elif self.kind is int:
            number = _oracle_number(value)
            self.value = int(number) if number == number.to_integral_value() else float(number)
        elif self.kind is oracledb.DB_TYPE_NUMBER:
            # cursor.var(DB_TYPE_NUMBER) keeps the variable's default number type, float
            # (NUM_TYPE_FLOAT = 0); only cursor.var(int) asks for int (var.pyx,
            # _set_type_info_from_type)
            self.value = float(_oracle_number(value))
        elif self.kind is oracledb.DB_TYPE_BOOLEAN:
            self.value = bool(value)
        elif self.kind in (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_BLOB):
            self.value = FakeLob(value)
        elif self.kind is oracledb.DB_TYPE_VECTOR:
            self.value = array.array("f", value)
        else:
            self.value = value

    def getvalue(self):
        return self.value


class InTurn:
    """Answers of one member for its successive calls (the last one repeats): what the
    database answers before and after a step of the test changes it, e.g. CHECK_SCHEMA
    before and after an upgrade."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)

    def next(self):
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


class FakeCursor:
    def __init__(self, connection: FakeConnection) -> None:
        self.connection = connection
        self._rows: list[tuple] = []
        self.warning = None
        """What the driver's ``Cursor.warning`` holds after the last execute."""
        self._query = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def var(self, kind):
        return FakeVar(kind)

    def execute(self, statement, binds=None):
        self.warning = None
        binds = binds or {}
        _check_bind_names(statement, binds)
        for variable in binds.values():
            if isinstance(variable, FakeVar):
                variable.encode()
        plain = {k: (v.value if isinstance(v, FakeVar) else v) for k, v in binds.items()
                 if k != "result"}
        self.connection.log.append((self.connection.name, statement, plain))
        for text, failure in self.connection.failures.items():
            if text in statement:
                raise failure
        plsql = statement.lstrip().upper().startswith(("BEGIN", "DECLARE"))
        if not plsql:
            _check_sql_binds(plain)
        self._rows = self.connection.query_rows(statement, plain)
        if self.connection.apply_ddl(statement):
            error = driver_errors._create_warning(driver_errors.WRN_COMPILATION_ERROR)
            self.warning = error
        if plsql:
            self._run_block(statement, binds)
        # Cursor.execute returns the cursor for a query only, else None, and fetching after
        # anything else is DPY-1003 (python-oracledb 26.1 cursor.py, execute and
        # _verify_fetch)
        self._query = bool(_QUERY.match(statement))
        return self if self._query else None

    def _run_block(self, statement, binds) -> None:
        """Answer every facade call of a PL/SQL block in order: an exception answer is
        raised (with the block's own handler doing nothing else), the ``:result`` member's
        answer is assigned to the result bind."""
        calls = [member for _, member in _CALL.findall(statement)]
        result_member = _RESULT_CALL.search(statement)
        answers = {member: self.connection.answer(member) for member in dict.fromkeys(calls)}
        for member in calls:
            if isinstance(answers[member], Exception):
                raise answers[member]
        if "result" in binds and result_member:
            binds["result"].set_result(answers.get(result_member.group(1)))
        if "v" in binds:
            binds["v"].set_result(self.connection.release)

    def _verify_fetch(self) -> None:
        if not self._query:
            error = driver_errors._create_err(driver_errors.ERR_NOT_A_QUERY)
            raise error.exc_type(error)

    def fetchall(self):
        self._verify_fetch()
        rows, self._rows = list(self._rows), []
        return rows

    def fetchone(self):
        self._verify_fetch()
        return self._rows.pop(0) if self._rows else None


def _check_bind_names(statement: str, binds: dict) -> None:
    """DPY-4008 / DPY-4010 when the named binds and the placeholders differ."""
    if not _BINDING.match(statement):
        return
    placeholders = {name.upper() for name in
                    _PLACEHOLDER.findall(_NOT_PLACEHOLDERS.sub(" ", statement))}
    names = {name.upper(): name for name in binds}
    for upper, name in names.items():
        if upper not in placeholders:
            error = driver_errors._create_err(driver_errors.ERR_INVALID_BIND_NAME, name=name)
            raise error.exc_type(error)
    for name in sorted(placeholders - set(names)):
        error = driver_errors._create_err(driver_errors.ERR_MISSING_BIND_VALUE,
                                          name=name.lower())
        raise error.exc_type(error)


def _check_sql_binds(binds: dict) -> None:
    """ORA-01461 for a str bind of a SQL statement longer than a SQL VARCHAR2."""
    for position, value in enumerate(binds.values(), start=1):
        if isinstance(value, str) and len(value.encode("utf-8")) > MAX_SQL_VARCHAR2_BYTES:
            raise database_error(1461, f"The value at bind position {position} exceeded the "
                                       "maximum VARCHAR2 length.")


class FakeConnection:
    def __init__(self, name: str = "c0", log: list | None = None,
                 answers: dict | None = None, **more_answers) -> None:
        self.name = name
        self.log = log if log is not None else []
        self.answers = answers if answers is not None else {"CHECK_SCHEMA": None}
        self.answers.update(more_answers)
        self.release = 23
        self.models_loaded = 1
        self.objects: list[tuple] = []
        """Rows of all_objects (current schema) the store's probes see: (name, type, status)."""
        self.schema = ("APP", "APP")
        """(CURRENT_SCHEMA, SESSION_USER) of the session."""
        self.meta: dict[str, str | None] = {}
        """The store's <prefix>_META rows (upgrade reads them)."""
        self.errors: list[tuple] = []
        """Rows of user_errors: (name, type, line, position, text)."""
        self.failures: dict[str, Exception] = {}
        """Statements that fail: a text they contain -> the error the database raises."""
        self.embedding_dimension = 3
        """Dimension of the vectors the in-database model answers."""
        self.vectors = 0
        """Records with a vector: an IVF index rebuild over none fails with DIA-51875
        (https://docs.oracle.com/en/error-help/db/dia-51875)."""

    def answer(self, member: str):
        """The answer to one call of ``member`` (an InTurn gives its next one)."""
        answer = self.answers.get(member)
        return answer.next() if isinstance(answer, InTurn) else answer

    @property
    def calls(self) -> list[tuple[str, dict]]:
        return [(statement, binds) for _, statement, binds in self.log]

    def query_rows(self, statement: str, binds: dict | None = None) -> list[tuple]:
        """Rows of the few dictionary queries the store runs, and of the embedder's query."""
        text = " ".join(statement.split()).lower()
        if "from json_table(:texts" in text:
            return self._embedding_rows(statement, binds or {})
        if text.startswith("select count(*) from") and "where embedding is not null" in text:
            return [(self.vectors,)]
        if "from user_mining_models" in text:
            return [(self.models_loaded,)]
        if "from user_errors" in text:
            rows = [row if len(row) == 6 else (*row, "ERROR") for row in self.errors]
            if "attribute = 'error'" in text:
                rows = [row for row in rows if row[5] == "ERROR"]
            return [row[:5] for row in rows]
        if "from all_objects" in text:
            return list(self.objects)
        if "sys_context('userenv', 'current_schema')" in text and "from dual" in text:
            return [self.schema]
        if text.startswith("select meta_key, meta_value from"):
            # a VARCHAR2 holds no empty string: '' is stored, and read back, as NULL
            return [(key, value if value != "" else None)
                    for key, value in sorted(self.meta.items())]
        return []

    def _embedding_rows(self, statement: str, binds: dict) -> list[tuple]:
        """One row per text of the JSON array bind: its vector, or NULL when the text does
        not fit the JSON_TABLE column (NULL ON ERROR)."""
        size, unit = _TEXT_COLUMN.search(statement).groups()
        size, unit = int(size), (unit or "BYTE").upper()
        if size > MAX_SQL_VARCHAR2_BYTES:
            raise database_error(910, "specified length too long for its datatype")
        rows = []
        for text in json.loads(binds["texts"]):
            length = len(text) if unit == "CHAR" else len(text.encode("utf-8"))
            fits = length <= size and len(text.encode("utf-8")) <= MAX_SQL_VARCHAR2_BYTES
            vector = [float(len(text))] + [1.0] * (self.embedding_dimension - 1)
            rows.append((array.array("f", vector) if fits else None,))
        return rows

    def compiles_with_errors(self, name: str, kind: str) -> bool:
        """Whether USER_ERRORS holds ERROR rows for this unit."""
        return any(row[0] == name and row[1] == kind and (len(row) < 6 or row[5] == "ERROR")
                   for row in self.errors)

    def apply_ddl(self, statement: str) -> bool:
        """Keep the catalog the probes read: objects that CREATE makes and DROP removes,
        the META rows the install MERGE and UPDATE write. A PL/SQL block that runs constant
        DDL with EXECUTE IMMEDIATE runs it; one that first counts the object in
        USER_INDEXES runs it only when the index is missing. True when the statement
        created a PL/SQL unit with compilation errors (INVALID)."""
        if statement.lstrip().upper().startswith(("DECLARE", "BEGIN")):
            for literal in _DYNAMIC_DDL.findall(statement):
                ddl = literal.replace("''", "'")
                created = _CREATE.match(ddl)
                guarded = re.search(r"\bFROM\s+user_indexes\b", statement, re.IGNORECASE)
                if guarded and created and any(
                        row[0] == created.group(2).upper() for row in self.objects):
                    continue
                self.apply_ddl(ddl)
            return False
        if re.match(r"\s*ALTER\s+INDEX\s+\w+\s+REBUILD\b", statement, re.IGNORECASE) \
                and not self.vectors:
            raise database_error(51875, "ALTER VECTOR INDEX REBUILD ONLINE failed as the "
                                        "column EMBEDDING has 0 vectors.")
        invalid = False
        created = _CREATE.match(statement)
        if created:
            kind = " ".join(created.group(1).upper().split())
            name = created.group(2).upper()
            invalid = kind in ("PACKAGE", "PACKAGE BODY", "TYPE") and \
                self.compiles_with_errors(name, kind)
            existing = [row for row in self.objects if row[:2] == (name, kind)]
            if existing and not re.search(r"\bOR\s+REPLACE\b|\bIF\s+NOT\s+EXISTS\b",
                                          statement[:created.end()], re.IGNORECASE):
                raise database_error(955, "name is already used by an existing object")
            if not existing or re.search(r"\bOR\s+REPLACE\b", statement[:created.end()],
                                         re.IGNORECASE):
                self.objects = [row for row in self.objects if row[:2] != (name, kind)]
                self.objects.append((name, kind, "INVALID" if invalid else "VALID"))
        dropped = _DROP.match(statement)
        if dropped:
            name = dropped.group(2).upper()
            self.objects = [row for row in self.objects
                            if row[0] != name or not row[1].startswith(dropped.group(1).upper())]
        if re.match(r"\s*MERGE INTO \w+_META\b", statement):
            for key, value in _META_ROW.findall(statement):
                self.meta.setdefault(key, value)
        update = _META_UPDATE.match(statement)
        if update:
            self.meta[update.group(2)] = update.group(1)
        return invalid

    def cursor(self):
        # a closed connection makes no cursor: DPY-1001, an InterfaceError, which is no
        # DatabaseError (python-oracledb 26.1 connection.py ``_verify_connected``)
        if getattr(self, "closed", False):
            error = driver_errors._create_err(driver_errors.ERR_NOT_CONNECTED)
            raise error.exc_type(error)
        return FakeCursor(self)

    def commit(self) -> None:
        self.log.append((self.name, "COMMIT", {}))

    def close(self) -> None:
        self.closed = True


class FakePool:
    """Hands out connections round-robin, as a pool may: each acquire can be another one."""

    def __init__(self, **answers) -> None:
        self.log: list[tuple[str, str, dict]] = []
        self.answers = {"CHECK_SCHEMA": None, **answers}
        self.connections = [FakeConnection(f"c{i}", self.log, self.answers) for i in range(3)]
        self.acquired = 0
        self.closed = False

    def close(self) -> None:
        self.closed = True

    def acquire(self):
        # a closed pool lends nothing: DPY-1002, an InterfaceError (pool.py ``_verify_open``)
        if self.closed:
            error = driver_errors._create_err(driver_errors.ERR_POOL_NOT_OPEN)
            raise error.exc_type(error)
        pool = self

        class _Lease:
            def __enter__(self):
                conn = pool.connections[pool.acquired % len(pool.connections)]
                pool.acquired += 1
                return conn

            def __exit__(self, *exc):
                return False

        return _Lease()
