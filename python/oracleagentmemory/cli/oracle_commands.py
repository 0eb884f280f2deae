"""The DBA commands: install, upgrade, uninstall and status of an Oracle store."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from oracleagentmemory.cli.client_for_command import connect_oracle
from oracleagentmemory.cli.failures import CommandError, ExitCode, classify
from oracleagentmemory.stores.errors import StoreError

PRIVILEGES_HINT = "the store owner needs the privileges granted by install/grants_owner.sql"


def run(arguments: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from oracleagentmemory.stores.oracle import OracleBackend

    command = arguments.command
    connection = connect_oracle(arguments)
    try:
        changes = {name: getattr(arguments, name, None) for name in (
            "dimension", "search_strategy", "sync_mode", "vector_index", "embedding_model")}
        store = OracleBackend(
            connection, embedding_dimension=changes["dimension"],
            # uninstall checks nothing first: a partly installed store or one of an older
            # schema version is what most needs removing (REQUIRE_EXISTING refuses both)
            schema_policy="REQUIRE_EXISTING" if command == "status" else "NO_CHECK",
            search_strategy=changes["search_strategy"], store_id=arguments.store_id,
            sync_mode=changes["sync_mode"], vector_index=changes["vector_index"],
            embedding_model=changes["embedding_model"],
            progress=lambda message: print(f"  {message}", file=err),
        )
        if command == "install":
            store.administration.install()
        elif command == "upgrade":
            store.administration.upgrade()
        elif command == "uninstall":
            store.administration.uninstall()
            print(f"store {arguments.store_id} removed", file=out)
            return 0
        print(json.dumps(store.describe(), indent=2, sort_keys=True), file=out)
        return 0
    except StoreError as error:
        code, message = classify(error)
        if code == ExitCode.PERMISSION:
            message = f"{message} ({PRIVILEGES_HINT})"
        raise CommandError(code, message) from error
    finally:
        connection.close()
