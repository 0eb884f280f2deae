"""Recording stand-ins for python-oracledb connections, pools and cursors.

They answer PL/SQL blocks by the member they call (``answers`` maps member name to a
result, or to an exception to raise) and log every statement with its plain bind values,
so tests can check what the Oracle store sends without a database.
"""

from __future__ import annotations

import re

import oracledb

_MEMBER = re.compile(r"\b\w+\.(\w+)\s*[(;]")


class FakeError:
    def __init__(self, code: int, message: str) -> None:
        self.code, self.message = code, message


def database_error(code: int, message: str) -> oracledb.DatabaseError:
    return oracledb.DatabaseError(FakeError(code, f"ORA-{code:05d}: {message}"))


class FakeVar:
    def __init__(self, kind) -> None:
        self.kind, self.value = kind, None

    def setvalue(self, _position, value) -> None:
        self.value = value

    def getvalue(self):
        return self.value


class FakeCursor:
    def __init__(self, connection: FakeConnection) -> None:
        self.connection = connection

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
        match = _MEMBER.search(statement) if statement.startswith("BEGIN") else None
        answer = self.connection.answers.get(match.group(1)) if match else None
        if isinstance(answer, Exception):
            raise answer
        if "result" in binds:
            binds["result"].value = answer
        if "v" in binds:
            binds["v"].value = self.connection.release
        return self

    def fetchall(self):
        return []

    def fetchone(self):
        return (self.connection.models_loaded,)


class FakeConnection:
    def __init__(self, name: str = "c0", log: list | None = None,
                 answers: dict | None = None, **more_answers) -> None:
        self.name = name
        self.log = log if log is not None else []
        self.answers = answers if answers is not None else {"CHECK_SCHEMA": None}
        self.answers.update(more_answers)
        self.release = 23
        self.models_loaded = 1

    @property
    def calls(self) -> list[tuple[str, dict]]:
        return [(statement, binds) for _, statement, binds in self.log]

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
