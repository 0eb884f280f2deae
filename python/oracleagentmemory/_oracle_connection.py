"""One python-oracledb connection for the command line and the MCP server.

Why one place: both open an Oracle store from a connect string, a user and a password taken
from an environment variable, and both must name the same extra when the driver is missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from oracleagentmemory._distribution import install_hint
from oracleagentmemory.errors import InvalidArgumentError


class DriverMissingError(ImportError):
    """python-oracledb is not installed; the message says how to install it."""


def oracle_connection(dsn: str, user: str, password_variable: str, *,
                      environ: Mapping[str, str] | None = None,
                      ask: Callable[[str], str] | None = None) -> Any:
    """A python-oracledb connection to ``dsn`` as ``user``.

    The password is the value of the environment variable ``password_variable``; when it is
    unset or empty, ``ask`` (e.g. a terminal prompt) is asked, and without ``ask`` it is an
    InvalidArgumentError naming the variable (an MCP server cannot prompt: its standard input
    is the protocol)."""
    try:
        import oracledb
    except ImportError as error:
        raise DriverMissingError("the Oracle backend needs python-oracledb: "
                                 + install_hint("oracle")) from error
    password = (os.environ if environ is None else environ).get(password_variable)
    if not password:
        if ask is None:
            raise InvalidArgumentError(f"no password for {user}: set the environment variable "
                                       f"{password_variable}")
        password = ask(f"password for {user}: ")
    try:
        return oracledb.connect(user=user, password=password, dsn=dsn)
    except oracledb.DatabaseError as error:
        if not str(error).startswith(_NOT_A_CONNECT_STRING):
            raise
        raise InvalidArgumentError(
            f"connect string {dsn!r} is not host:port/service (Easy Connect) and no "
            "tnsnames.ora directory is set to look it up as an alias (set TNS_ADMIN); "
            f"e.g. localhost:1521/FREEPDB1 ({_NOT_A_CONNECT_STRING})") from None


_NOT_A_CONNECT_STRING = "DPY-4027"
"""python-oracledb's error for a connect string it could only take as a tnsnames.ora alias,
with no configuration directory to find one in ("no configuration directory specified").
An Easy Connect string is ``[//]host[:port][/service_name]``;
an alias is looked up in the tnsnames.ora of ``TNS_ADMIN`` or ``config_dir``."""
