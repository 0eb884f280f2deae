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
* A NUMBER OUT bind of ``DB_TYPE_NUMBER`` is ``int`` when integral, else ``float`` (the
  default ``oracledb.defaults.fetch_decimals`` is False).
* ORA errors are raised as the driver raises them: ``errors._Error(message, code=...)``
  decides the class (``IntegrityError`` for ORA-00001, ``DatabaseError`` otherwise) and
  ``.full_code``, and thin mode appends a "Help:" line to messages of codes outside
  20000-20999 ("Catching Exceptions",
  https://python-oracledb.readthedocs.io/en/latest/user_guide/exception_handling.html).
"""

from __future__ import annotations

import array
import datetime
import re
from decimal import Decimal

import oracledb
from oracledb import errors as driver_errors

_CALL = re.compile(r"\b(\w+)\.(\w+)\s*[(;]")
_RESULT_CALL = re.compile(r":result\s*:=\s*\w+\.(\w+)\s*[(;]")


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
        return {key: through_oson(item) for key, item in value.items()}
    error = driver_errors._create_err(driver_errors.ERR_PYTHON_TYPE_NOT_SUPPORTED,
                                      typ=type(value).__name__)
    raise error.exc_type(error)


def _oracle_number(value) -> Decimal:
    """An Oracle NUMBER read back as Decimal: str() of the value, at most 40 significant
    digits, no trailing zeros (NUMBER keeps no scale). NaN and infinity have no NUMBER."""
    number = Decimal(str(value))
    if not number.is_finite():
        raise ValueError(f"{value!r} cannot be stored as an Oracle NUMBER")
    number = number.normalize()
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

    def setvalue(self, _position, value) -> None:
        self.value = through_oson(value) if self.kind is oracledb.DB_TYPE_JSON else value

    def set_result(self, value) -> None:
        """What the PL/SQL assigned to this OUT bind, in the driver's Python type."""
        if value is None or isinstance(value, Exception):
            self.value = None
        elif self.kind is oracledb.DB_TYPE_JSON:
            self.value = through_oson(value)
        elif self.kind in (oracledb.DB_TYPE_NUMBER, int):
            number = _oracle_number(value)
            self.value = int(number) if number == number.to_integral_value() else float(number)
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


class FakeCursor:
    def __init__(self, connection: FakeConnection) -> None:
        self.connection = connection
        self._rows: list[tuple] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def var(self, kind):
        return FakeVar(kind)

    def execute(self, statement, binds=None):
        binds = binds or {}
        plain = {k: (v.value if isinstance(v, FakeVar) else v) for k, v in binds.items()
                 if k != "result"}
        self.connection.log.append((self.connection.name, statement, plain))
        failure = self.connection.failures.get(_first_words(statement))
        if failure is not None:
            raise failure
        self._rows = self.connection.query_rows(statement)
        if statement.lstrip().upper().startswith(("BEGIN", "DECLARE")):
            self._run_block(statement, binds)
        return self

    def _run_block(self, statement, binds) -> None:
        """Answer every facade call of a PL/SQL block in order: an exception answer is
        raised (with the block's own handler doing nothing else), the ``:result`` member's
        answer is assigned to the result bind."""
        calls = [member for _, member in _CALL.findall(statement)]
        result_member = _RESULT_CALL.search(statement)
        for member in calls:
            answer = self.connection.answers.get(member)
            if isinstance(answer, Exception):
                raise answer
        if "result" in binds and result_member:
            binds["result"].set_result(self.connection.answers.get(result_member.group(1)))
        if "v" in binds:
            binds["v"].set_result(self.connection.release)

    def fetchall(self):
        return list(self._rows)

    def fetchone(self):
        return self._rows[0] if self._rows else None


def _first_words(statement: str) -> str:
    """The statement's opening words (``CREATE TABLE X``), the key of ``failures``."""
    return " ".join(statement.split()[:3]).upper()


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
        """Rows of user_objects the store's install probe sees: (name, type, status)."""
        self.meta: dict[str, str] = {}
        """The store's <prefix>_META rows (upgrade reads them)."""
        self.failures: dict[str, Exception] = {}
        """Statements (first three words, upper case) that fail, e.g. a vector index."""

    @property
    def calls(self) -> list[tuple[str, dict]]:
        return [(statement, binds) for _, statement, binds in self.log]

    def query_rows(self, statement: str) -> list[tuple]:
        """Rows of the few dictionary queries the store runs."""
        text = " ".join(statement.split()).lower()
        if "from user_mining_models" in text:
            return [(self.models_loaded,)]
        if "from user_objects" in text:
            return list(self.objects)
        if text.startswith("select meta_key, meta_value from"):
            return sorted(self.meta.items())
        return []

    def cursor(self):
        return FakeCursor(self)

    def close(self) -> None:
        return None


class FakePool:
    """Hands out connections round-robin, as a pool may: each acquire can be another one."""

    def __init__(self, **answers) -> None:
        self.log: list[tuple[str, str, dict]] = []
        self.answers = {"CHECK_SCHEMA": None, **answers}
        self.connections = [FakeConnection(f"c{i}", self.log, self.answers) for i in range(3)]
        self.acquired = 0

    def acquire(self):
        pool = self

        class _Lease:
            def __enter__(self):
                conn = pool.connections[pool.acquired % len(pool.connections)]
                pool.acquired += 1
                return conn

            def __exit__(self, *exc):
                return False

        return _Lease()
