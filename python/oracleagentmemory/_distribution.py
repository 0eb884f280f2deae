"""The name this library is installed under, and how to install an optional part of it.

The import package is ``oracleagentmemory`` (the reference product's, so code written for
it runs unchanged), but the distribution is ``agentmemory-plsql``: ``oracleagentmemory`` on
the package index is the reference product itself, and ``pip install -U oracleagentmemory``
must not replace this library with it (README, "Install").
"""

from __future__ import annotations

DISTRIBUTION = "agentmemory-plsql"


def install_hint(extra: str) -> str:
    """How to install an extra, with a command that works today: the distribution is not on
    the package index yet, so it is installed from a checkout (or a wheel built there)."""
    return (f"pip install '.[{extra}]' in a checkout of {DISTRIBUTION}, or "
            f"pip install '<its wheel>[{extra}]'")
