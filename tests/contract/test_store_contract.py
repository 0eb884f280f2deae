"""The store contract (docs/store-contract.md), run against every backend of
tests/conftest.py: the conformance kit's suite, as a caller's store would run it."""

from oracleagentmemory.conformance.contract import *  # noqa: F403 (the suite and its fixtures)
