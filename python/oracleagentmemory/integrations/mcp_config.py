"""What an MCP server may touch: its scopes come from the operator, never from a client.

The MCP client (an LLM host) is not trusted with scope: it cannot name a user or an agent,
and may only use the threads listed here (or the one thread the server opens for its
session). The model loads from environment variables, overridden by command-line flags.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from oracleagentmemory.core.llms.from_env import env_flag
from oracleagentmemory.errors import InvalidArgumentError

ENV_PREFIX = "ORACLEAGENTMEMORY_MCP_"
"""Environment variables are this prefix plus the upper-case field name."""


class McpServerConfig(BaseModel):
    """The scopes and store of one MCP server process (frozen once loaded).

    Usually loaded with ``from_env`` or ``from_args``; constructed directly, it takes
    keyword arguments only.

    Args:
        db: The embedded store's file, or ``":memory:"``. None (the default): give ``dsn``
            instead (exactly one of the two).
        dsn: Oracle connect string of a store installed with ``oracleagentmemory install``.
            None (the default): give ``db`` instead.
        db_user: The database user; needed with ``dsn``. Default: None.
        password_env: The environment variable holding ``db_user``'s password (never
            asked: the server's standard input is the protocol). Default:
            ``"ORACLEAGENTMEMORY_PASSWORD"``.
        store_id: The Oracle store's prefix (with ``dsn``). Default: ``"AGENT_MEMORY"``.
        user_id: The only user the server acts for; required.
        agent_id: The only agent the server acts for. None (the default): agents are not
            constrained.
        thread_ids: Threads a client may use, created for the user at their first message.
            Default: none (duplicates are dropped).
        session_thread: Open one new thread for this server session and allow it too.
            Default: False.
        max_results: Upper bound (1 to 100) on the results a client may ask for. Default: 10.
        embedder: ``"default"`` (the local all-MiniLM-L6-v2 model) or ``"module:factory"``,
            imported and called. Default: ``"default"``.
        server_name: The name the server gives MCP clients. Default: ``"oracleagentmemory"``.

    Raises:
        pydantic.ValidationError: Constructed directly with a missing, empty or out-of-range
            value, an empty thread id, an unknown field, both or neither of ``db`` and
            ``dsn``, or ``dsn`` without ``db_user`` (a ``ValueError``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    db: str | None = Field(default=None, min_length=1,
                           description="embedded store file, or ':memory:' (or give dsn)")
    dsn: str | None = Field(
        default=None, min_length=1,
        description="Oracle connect string of a store installed with 'oracleagentmemory "
                    "install' (instead of db)",
    )
    db_user: str | None = Field(default=None, min_length=1,
                                description="database user (needed with dsn)")
    password_env: str = Field(
        default="ORACLEAGENTMEMORY_PASSWORD", min_length=1,
        description="environment variable holding db_user's password (never asked: the "
                    "server's standard input is the protocol)",
    )
    store_id: str = Field(default="AGENT_MEMORY", min_length=1,
                          description="the Oracle store's prefix (with dsn)")
    user_id: str = Field(min_length=1, description="the only user the server acts for")
    agent_id: str | None = Field(
        default=None, min_length=1,
        description="the only agent the server acts for; None leaves agents unconstrained",
    )
    thread_ids: tuple[str, ...] = Field(
        default=(), description="threads a client may use (created for the user if missing)",
    )
    session_thread: bool = Field(
        default=False,
        description="open one new thread for this server session and allow it too",
    )
    max_results: int = Field(default=10, ge=1, le=100,
                             description="upper bound on results a client may ask for")
    embedder: str = Field(
        default="default",
        description="'default' (local all-MiniLM-L6-v2) or 'module:factory' to import",
    )
    server_name: str = "oracleagentmemory"

    @field_validator("thread_ids")
    @classmethod
    def _non_empty_ids(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(not thread_id for thread_id in value):
            raise InvalidArgumentError("thread ids must be non-empty strings")
        return tuple(dict.fromkeys(value))

    @model_validator(mode="after")
    def _one_store(self) -> McpServerConfig:
        if (self.db is None) == (self.dsn is None):
            raise InvalidArgumentError("give the store as db (an embedded file) or dsn (an "
                                       "Oracle store), exactly one")
        if self.dsn is not None and self.db_user is None:
            raise InvalidArgumentError("dsn needs db_user")
        return self

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> McpServerConfig:
        """Load from ``ORACLEAGENTMEMORY_MCP_*`` variables (``THREAD_IDS`` comma-separated).

        Args:
            environ: The variables to read. None (the default): ``os.environ``.

        Returns:
            The validated configuration.

        Raises:
            InvalidArgumentError: A setting is missing or not valid; one line names each
                (``user_id: Field required``).
        """
        return cls._validated(_env_values(os.environ if environ is None else environ))

    @classmethod
    def _validated(cls, values: dict[str, object]) -> McpServerConfig:
        """The config, or an InvalidArgumentError naming each wrong setting on one line
        (``user_id: Field required``), for the server's log and its startup message."""
        try:
            return cls.model_validate(values)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(part) for part in problem['loc']) or 'config'}: "
                f"{problem['msg']}" for problem in error.errors())
            raise InvalidArgumentError(
                f"the MCP server's configuration is not valid: {problems}") from None

    @classmethod
    def from_args(cls, argv: Sequence[str] | None = None,
                  environ: Mapping[str, str] | None = None) -> McpServerConfig:
        """Load from command-line flags; flags not given fall back to the environment.

        Args:
            argv: The flags (``--db`` or ``--dsn`` with ``--user``, ``--password-env``
                and ``--store-id``; ``--user-id``, ``--agent-id``, ``--thread-id``...,
                ``--session-thread``, ``--max-results``, ``--embedder``). None (the
                default): ``sys.argv[1:]``.
            environ: The variables to fall back to. None (the default): ``os.environ``.

        Returns:
            The validated configuration.

        Raises:
            InvalidArgumentError: A setting is missing or not valid.
            SystemExit: The flags cannot be parsed (argparse prints the usage).
        """
        return cls.from_namespace(build_arg_parser().parse_args(argv), environ)

    @classmethod
    def from_namespace(cls, parsed: argparse.Namespace,
                       environ: Mapping[str, str] | None = None) -> McpServerConfig:
        """Load from flags parsed by a parser ``add_server_arguments`` set up; flags not
        given fall back to the environment.

        Args:
            parsed: The parsed flags.
            environ: The variables to fall back to. None (the default): ``os.environ``.

        Returns:
            The validated configuration.

        Raises:
            InvalidArgumentError: A setting is missing or not valid.
        """
        values = _env_values(os.environ if environ is None else environ)
        for name in _SCALAR_SETTINGS:
            if getattr(parsed, name) is not None:
                values[name] = getattr(parsed, name)
        if parsed.thread_ids:
            values["thread_ids"] = tuple(parsed.thread_ids)
        if parsed.session_thread:
            values["session_thread"] = True
        return cls._validated(values)


_SCALAR_SETTINGS = ("db", "dsn", "db_user", "password_env", "store_id", "user_id", "agent_id",
                    "max_results", "embedder")
"""Settings given as one flag or one variable (``--db-user`` is ``..._DB_USER``)."""


def _env_values(environ: Mapping[str, str]) -> dict[str, object]:
    values: dict[str, object] = {}
    for name in _SCALAR_SETTINGS:
        raw = environ.get(ENV_PREFIX + name.upper())
        if raw is not None and raw != "":
            values[name] = raw
    threads = environ.get(ENV_PREFIX + "THREAD_IDS")
    if threads:
        values["thread_ids"] = tuple(part.strip() for part in threads.split(",") if part.strip())
    if ENV_PREFIX + "SESSION_THREAD" in environ:
        values["session_thread"] = env_flag(environ, ENV_PREFIX + "SESSION_THREAD", False)
    return values


def build_arg_parser(prog: str = "python -m oracleagentmemory.integrations.mcp_server"
                     ) -> argparse.ArgumentParser:
    """Flags of the MCP server run on its own (``oracleagentmemory mcp`` has the same)."""
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION)
    add_server_arguments(parser)
    return parser


DESCRIPTION = ("MCP server (stdio) over an oracleagentmemory store. Every flag can also be set "
               f"as an environment variable {ENV_PREFIX}<NAME>.")


def add_server_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the MCP server's flags to ``parser``."""
    where = parser.add_argument_group("store (one of --db or --dsn)")
    where.add_argument("--db", help="embedded store file (or ':memory:')")
    where.add_argument("--dsn", help="Oracle connect string of a store installed with "
                                     "'oracleagentmemory install'")
    # --user as every other command spells it; --db-user, its first name, still works.
    where.add_argument("--user", "--db-user", dest="db_user",
                       help="database user (with --dsn)")
    where.add_argument("--password-env", dest="password_env",
                       help="environment variable holding the password (default "
                            "ORACLEAGENTMEMORY_PASSWORD)")
    where.add_argument("--store-id", dest="store_id",
                       help="Oracle store prefix (default AGENT_MEMORY)")
    parser.add_argument("--user-id", dest="user_id", help="the user the server acts for")
    parser.add_argument("--agent-id", dest="agent_id", help="the agent the server acts for")
    parser.add_argument("--thread-id", dest="thread_ids", action="append",
                        help="a thread clients may use (repeatable)")
    parser.add_argument("--session-thread", action="store_true", default=False,
                        help="open a new thread for this session and allow it")
    parser.add_argument("--max-results", dest="max_results", type=int,
                        help="upper bound on search results per call")
    parser.add_argument("--embedder", help="'default' or 'module:factory'")
