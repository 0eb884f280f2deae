"""The store and the model a command needs, opened only when it needs them.

* A command that only reads (``threads``, ``show``, ``export``, ``purge``) opens no model:
  the embedding model is neither located nor loaded, so it runs where none is installed.
* A command that works on an existing store refuses a ``--db`` file that does not exist
  (instead of creating an empty store from a typo), and opens it with
  ``REQUIRE_EXISTING`` (a file of another program is refused, not turned into a store).
* ``--dsn`` opens the Oracle store installed under ``--store-id``.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from oracleagentmemory._oracle_connection import DriverMissingError, oracle_connection
from oracleagentmemory.apis.embedders.embedder import IEmbedder
from oracleagentmemory.cli.failures import CommandError, ExitCode, error_text, one_line
from oracleagentmemory.core.dbschemapolicy import SchemaPolicy
from oracleagentmemory.core.oracleagentmemory import OracleAgentMemory
from oracleagentmemory.core.oracledbmemorystore import OracleDBMemoryStore


def load_embedder() -> IEmbedder:
    """The library's default embedding model, located now so that a missing model is one
    clear failure (exit code 5) before any work starts. It loads on first use, after the
    store has settled which model its vectors need (an old store swaps it for
    all-MiniLM-L6-v2, which would otherwise load both); a damaged file then fails with a
    ModelUnavailableError, exit code 5 as well."""
    from oracleagentmemory.core.embedders import default_embedder

    try:
        return default_embedder()
    except Exception as error:  # any failure to find or read the model files
        raise CommandError(ExitCode.MISSING_COMPONENT,
                           f"the embedding model cannot be loaded: {one_line(error_text(error))}"
                           ) from error


def connect_oracle(arguments: argparse.Namespace) -> Any:
    """A python-oracledb connection for ``--dsn``/``--user`` (password from the environment
    variable ``--password-env`` names, else asked on the terminal)."""
    if not arguments.user:
        raise CommandError(ExitCode.USAGE, "--dsn needs --user (see "
                                           f"'oracleagentmemory {arguments.command} --help')")
    # Only a terminal can be asked: without one (a script, CI, a pipe) the missing
    # variable is named instead of a getpass warning and an EOFError.
    ask = getpass.getpass if sys.stdin is not None and sys.stdin.isatty() else None
    try:
        return oracle_connection(arguments.dsn, arguments.user, arguments.password_env,
                                 ask=ask)
    except DriverMissingError as error:
        raise CommandError(ExitCode.MISSING_COMPONENT, str(error)) from None


@contextmanager
def opened_client(arguments: argparse.Namespace, *, embeds: bool,
                  must_exist: bool = True) -> Iterator[OracleAgentMemory]:
    """The client a store command works with, closed (with its Oracle connection) after.

    ``embeds``: the command embeds text (search, import), so the model is loaded; else the
    client has no embedder. ``must_exist``: the store must already be there."""
    embedder = load_embedder() if embeds else None
    if arguments.dsn is not None:
        connection = connect_oracle(arguments)
        try:
            store = OracleDBMemoryStore(embedder, connection,
                                        schema_policy=SchemaPolicy.REQUIRE_EXISTING,
                                        memory_store_id=arguments.store_id)
            with OracleAgentMemory(store=store) as client:
                yield client
        finally:
            connection.close()
        return
    location = arguments.db
    if must_exist and location != ":memory:" and not os.path.exists(location):
        raise CommandError(ExitCode.NOT_FOUND,
                           f"no store at {location!r}: check --db (this command does not "
                           "create a store; 'import' or the library does)")
    policy = SchemaPolicy.REQUIRE_EXISTING if must_exist else SchemaPolicy.CREATE_IF_NECESSARY
    store = OracleDBMemoryStore(embedder, location, schema_policy=policy)
    with OracleAgentMemory(store=store) as client:
        yield client
